#!/usr/bin/env bash
# Installs what PixelFlow needs from the system, if it is missing:
#   - always: pkg-config, the headers of libpng, libjpeg-turbo (zlib comes with libpng-dev),
#     libwebp, libtiff, libdeflate (PNG image data), giflib, libheif (HEIC and AVIF; Debian's build brings the x265 and
#     aom encoders and the libde265 and dav1d decoders) and lcms2, and OpenCV's cascade XML files (Debian package opencv-data, under /usr/share/opencv4)
#     that the face detector and its tests load;
#   - for text (CITextImageGenerator, Canvas.drawText): the headers of FreeType, HarfBuzz and
#     fontconfig, and fonts: DejaVu Sans (fonts-dejavu-core, 1 MB: Latin, Greek, Cyrillic,
#     Arabic, Hebrew; the default and fallback font), a Devanagari font when fontconfig knows
#     none (fonts-lohit-deva, 80 KB) and a CJK font when it knows none (fonts-wqy-microhei,
#     1.6 MB; fonts-noto-cjk is 56 MB). Any other fonts already installed are used too;
#   - with --reference-tools: the Python packages that regenerate test fixtures and run the
#     peer benchmark (OpenCV, Pillow, numpy), from scripts/requirements-reference.txt.
# Safe to run again: it does nothing when everything is present.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

need_apt=()
command -v pkg-config >/dev/null 2>&1 || need_apt+=(pkg-config)
pkg-config --exists libpng 2>/dev/null || need_apt+=(libpng-dev)
pkg-config --exists libjpeg 2>/dev/null || need_apt+=(libjpeg62-turbo-dev)
pkg-config --exists libwebpdemux libwebpmux 2>/dev/null || need_apt+=(libwebp-dev)
pkg-config --exists libtiff-4 2>/dev/null || need_apt+=(libtiff-dev)
pkg-config --exists libdeflate 2>/dev/null || need_apt+=(libdeflate-dev)
[ -f /usr/include/gif_lib.h ] || need_apt+=(libgif-dev)
pkg-config --exists libheif 2>/dev/null || need_apt+=(libheif-dev)
pkg-config --exists lcms2 2>/dev/null || need_apt+=(liblcms2-dev)
[ -f /usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml ] || need_apt+=(opencv-data)
pkg-config --exists freetype2 2>/dev/null || need_apt+=(libfreetype-dev)
pkg-config --exists harfbuzz 2>/dev/null || need_apt+=(libharfbuzz-dev)
pkg-config --exists fontconfig 2>/dev/null || need_apt+=(libfontconfig-dev)
if command -v fc-list >/dev/null 2>&1; then
  [ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need_apt+=(fonts-dejavu-core)
  [ -n "$(fc-list :lang=hi family 2>/dev/null)" ] || need_apt+=(fonts-lohit-deva)
  [ -n "$(fc-list :lang=zh-cn family 2>/dev/null)" ] || need_apt+=(fonts-wqy-microhei)
else
  need_apt+=(fontconfig fonts-dejavu-core fonts-lohit-deva fonts-wqy-microhei)
fi
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: installing ${need_apt[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${need_apt[@]}"
fi

if [ "${1:-}" = "--reference-tools" ]; then
  python3 -m pip install -q -r "$here/requirements-reference.txt"
fi

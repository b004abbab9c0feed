#!/usr/bin/env bash
# Installs what PixelFlow needs from the system, if it is missing:
#   - always: pkg-config, the headers of libpng, libjpeg-turbo (zlib comes with libpng-dev),
#     libwebp, libtiff, giflib, libheif (HEIC and AVIF; Debian's build brings the x265 and
#     aom encoders and the libde265 and dav1d decoders) and lcms2, and OpenCV's cascade XML files (Debian package opencv-data, under /usr/share/opencv4)
#     that the face detector and its tests load;
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
[ -f /usr/include/gif_lib.h ] || need_apt+=(libgif-dev)
pkg-config --exists libheif 2>/dev/null || need_apt+=(libheif-dev)
pkg-config --exists lcms2 2>/dev/null || need_apt+=(liblcms2-dev)
[ -f /usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml ] || need_apt+=(opencv-data)
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

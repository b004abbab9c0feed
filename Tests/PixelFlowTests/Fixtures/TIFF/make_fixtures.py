"""Writes the TIFF fixtures of TIFFCodecTests with encoders independent of PixelFlow.

Run from this folder: python3 make_fixtures.py (tifffile 2026.3, imagecodecs, Pillow 13,
numpy). Each `NAME.tif` gets `NAME.raw`: the pixels PixelFlow's decoder must return, as
stored (orientation not applied), row after row with no padding: 1 byte per pixel for gray8,
R G B A bytes for rgba8 (C M Y K for CMYK), little-endian uint16 R G B A for rgba16. For the
lossless files they are the arrays written; for JPEG they are Pillow's decode.
"""
import io

import numpy as np
import tifffile
from PIL import Image, ImageCms

W, H = 33, 21  # odd sizes: rows of PixelFlow buffers are padded, strips and tiles are partial
rng = np.random.default_rng(21)
y, x = np.mgrid[0:H, 0:W]


def pattern8(channels, w=W, h=H):
    """A smooth pattern plus noise, so the compressed files stay small but not trivial."""
    yy, xx = np.mgrid[0:h, 0:w]
    planes = [(17 * xx + 29 * yy * (c + 1) + 40 * c) & 255 for c in range(channels)]
    a = np.stack(planes, axis=-1).astype(np.int32)
    a += rng.integers(0, 8, size=a.shape)
    return np.clip(a, 0, 255).astype(np.uint8)


def pattern16(channels, w=W, h=H):
    yy, xx = np.mgrid[0:h, 0:w]
    planes = [(1500 * xx + 2900 * yy + 9000 * c) & 0xFFFF for c in range(channels)]
    a = np.stack(planes, axis=-1).astype(np.int64) + rng.integers(0, 64, size=(h, w, channels))
    return np.clip(a, 0, 65535).astype(np.uint16)


def rgba(a, maximum):
    """gray, gray+alpha, RGB or RGBA samples as the decoder's 4-channel layout."""
    if a.ndim == 2:
        a = a[..., None]
    c = a.shape[-1]
    if c in (1, 2):
        color = np.repeat(a[..., :1], 3, axis=-1)
    else:
        color = a[..., :3]
    alpha = a[..., -1:] if c in (2, 4) else np.full(a.shape[:2] + (1,), maximum, a.dtype)
    return np.concatenate([color, alpha], axis=-1)


def save_raw(name, a):
    a = np.ascontiguousarray(a)
    if a.dtype == np.uint16:
        a = a.astype('<u2')
    open(name + '.raw', 'wb').write(a.tobytes())


def write(name, data, expected, **kwargs):
    tifffile.imwrite(name + '.tif', data, **kwargs)
    save_raw(name, expected)


# Gray, gray + alpha, RGB, RGBA at 8 and 16 bits, in strips, with the four lossless codecs.
g8 = pattern8(1)[..., 0]
write('gray8', g8, g8, photometric='minisblack')
g16 = pattern16(1)[..., 0]
write('gray16', g16, rgba(g16, 65535), photometric='minisblack', compression='deflate', predictor=True)
ga8 = pattern8(2)
write('gray_alpha8', ga8, rgba(ga8, 255), photometric='minisblack', extrasamples=['unassalpha'])
ga16 = pattern16(2)
write('gray_alpha16', ga16, rgba(ga16, 65535), photometric='minisblack', extrasamples=['unassalpha'],
      compression='lzw')
rgb8 = pattern8(3)
write('rgb8', rgb8, rgba(rgb8, 255), photometric='rgb')
rgb16 = pattern16(3)
write('rgb16', rgb16, rgba(rgb16, 65535), photometric='rgb', compression='deflate', predictor=True)
rgba8 = pattern8(4)
write('rgba8', rgba8, rgba8, photometric='rgb', extrasamples=['unassalpha'], compression='lzw', predictor=True)
rgba16 = pattern16(4)
write('rgba16', rgba16, rgba16, photometric='rgb', extrasamples=['unassalpha'], compression='packbits')

# Big-endian (MM) files: libtiff swaps 16-bit samples.
write('rgb16_bigendian', rgb16, rgba(rgb16, 65535), photometric='rgb', byteorder='>')
write('gray_alpha8_bigendian', ga8, rgba(ga8, 255), photometric='minisblack', extrasamples=['unassalpha'],
      byteorder='>', compression='lzw')

# The same RGB image with each compression.
write('rgb8_lzw', rgb8, rgba(rgb8, 255), photometric='rgb', compression='lzw')
write('rgb8_deflate', rgb8, rgba(rgb8, 255), photometric='rgb', compression='deflate', predictor=True)
write('rgb8_packbits', rgb8, rgba(rgb8, 255), photometric='rgb', compression='packbits')

# Associated (premultiplied) alpha: the decoder un-premultiplies with (c * 255 + a / 2) / a.
straight = pattern8(4)
a = straight[..., 3:].astype(np.int32)
premultiplied = straight.copy()
premultiplied[..., :3] = (straight[..., :3].astype(np.int32) * a + 127) // 255
expected = premultiplied.astype(np.int32)
expected[..., :3] = np.where(a == 0, 0, np.minimum(255, (expected[..., :3] * 255 + a // 2) // np.maximum(a, 1)))
write('rgba8_associated', premultiplied, expected.astype(np.uint8), photometric='rgb',
      extrasamples=['assocalpha'], compression='deflate')

# Planar configuration 2 (one plane per sample) and tiles (16 x 16, partial at the edges).
write('rgba8_planar', np.moveaxis(rgba8, -1, 0), rgba8, photometric='rgb', planarconfig='separate',
      extrasamples=['unassalpha'], compression='lzw')
write('rgb8_tiled', rgb8, rgba(rgb8, 255), photometric='rgb', tile=(16, 16), compression='deflate')
write('rgb16_tiled_planar', np.moveaxis(rgb16, -1, 0), rgba(rgb16, 65535), photometric='rgb',
      planarconfig='separate', tile=(16, 16), compression='lzw')

# CMYK (Photometric Separated, InkSet 1): the raw C, M, Y, K values come back.
cmyk8 = pattern8(4)
write('cmyk8', cmyk8, cmyk8, photometric='separated')
cmyk16 = pattern16(4)
write('cmyk16', cmyk16, cmyk16, photometric='separated', compression='deflate')

# Low bit depths: 1-bit MinIsBlack, 1-bit MinIsWhite, 2 and 4-bit gray.
bits1 = ((x // 3 + y // 2) % 2).astype(np.uint8)
write('bilevel', bits1.astype(bool), bits1 * 255, photometric='minisblack', compression='packbits')
write('bilevel_miniswhite', bits1, (1 - bits1) * 255, photometric='miniswhite', bitspersample=1)
g2 = ((x + y) % 4).astype(np.uint8)
write('gray2', g2, g2 * 85, photometric='minisblack', bitspersample=2)
g4 = ((x + 2 * y) % 16).astype(np.uint8)
write('gray4', g4, g4 * 17, photometric='minisblack', bitspersample=4)
write('gray8_miniswhite', g8, 255 - g8, photometric='miniswhite')

def write_palette_by_hand(name, index, bits, lut):
    """A minimal little-endian TIFF (tifffile wants 256 colormap entries for uint8 data, so
    low-bit palettes are written here): one uncompressed strip of MSB-first packed indices."""
    h, w = index.shape
    rows = []
    for row in index:
        bitstring = ''.join(format(int(v), f'0{bits}b') for v in row)
        bitstring += '0' * (-len(bitstring) % 8)
        rows.append(int(bitstring, 2).to_bytes(len(bitstring) // 8, 'big'))
    data = b''.join(rows)
    colormap = b''.join(int(v).to_bytes(2, 'little') for v in lut.reshape(-1))
    entries = [(256, 4, 1, w), (257, 4, 1, h), (258, 3, 1, bits), (259, 3, 1, 1), (262, 3, 1, 3),
               (273, 4, 1, None), (277, 3, 1, 1), (278, 4, 1, h), (279, 4, 1, len(data)),
               (320, 3, lut.size, 'colormap')]
    ifd_size = 2 + 12 * len(entries) + 4
    colormap_offset = 8 + ifd_size
    data_offset = colormap_offset + len(colormap)
    out = bytearray(b'II*\x00' + (8).to_bytes(4, 'little') + len(entries).to_bytes(2, 'little'))
    for tag, kind, count, value in entries:
        if value is None:
            value = data_offset
        elif value == 'colormap':
            value = colormap_offset
        out += tag.to_bytes(2, 'little') + kind.to_bytes(2, 'little') + count.to_bytes(4, 'little')
        out += value.to_bytes(4 if kind == 4 or value > 0xFFFF else 2, 'little').ljust(4, b'\x00')
    out += bytes(4) + colormap + data
    open(name + '.tif', 'wb').write(bytes(out))


# Palettes: 2, 4 and 8-bit indices, colormap of 16-bit entries (v * 257), 8 bits out.
for bits in (2, 4, 8):
    n = 1 << bits
    lut = rng.integers(0, 256, size=(3, n)).astype(np.uint16)
    index = ((x * 7 + y * 3) % n).astype(np.uint8)
    expected = np.concatenate([lut.T[index], np.full((H, W, 1), 255)], axis=-1).astype(np.uint8)
    if bits == 8:
        write('palette8', index, expected, photometric='palette', colormap=lut * 257, compression='packbits')
    else:
        write_palette_by_hand(f'palette{bits}', index, bits, lut * 257)
        save_raw(f'palette{bits}', expected)

# Pillow writes palette images too (its colormap entries are v * 256).
p = Image.fromarray(((x * 5 + y * 11) % 200).astype(np.uint8), mode='L').convert('P', palette=Image.Palette.ADAPTIVE, colors=64)
p.save('palette_pillow.tif', compression='tiff_lzw')
save_raw('palette_pillow', np.asarray(p.convert('RGBA')))

# JPEG compression (Pillow through libtiff, YCbCr 4:2:0): expected is Pillow's decode.
smooth = np.stack([40 + 160 * x // (W - 1), 60 + 120 * y // (H - 1),
                   (128 + 60 * np.sin(x / 9) * np.cos(y / 7)).astype(int)], axis=-1).astype(np.uint8)
Image.fromarray(smooth, mode='RGB').save('rgb8_jpeg.tif', compression='jpeg', quality=90)
save_raw('rgb8_jpeg', np.asarray(Image.open('rgb8_jpeg.tif').convert('RGBA')))
Image.fromarray(smooth[..., 1], mode='L').save('gray8_jpeg.tif', compression='jpeg', quality=90)
save_raw('gray8_jpeg', np.asarray(Image.open('gray8_jpeg.tif').convert('L')))

# tifffile's JPEG stores RGB as YCbCr 4:2:0 (libtiff reads it with JPEGCOLORMODE_RGB).
tifffile.imwrite('rgb8_jpeg_ycbcr.tif', smooth, photometric='ycbcr', subsampling=(2, 2), compression='jpeg',
                 compressionargs={'level': 90}, rowsperstrip=16)
save_raw('rgb8_jpeg_ycbcr', np.asarray(Image.open('rgb8_jpeg_ycbcr.tif').convert('RGBA')))

# Uncompressed YCbCr, read through libtiff's RGBA interface (tifffile writes it without
# subsampling and warns that it cannot apply (2, 2)); Pillow reads it the same way.
try:
    tifffile.imwrite('ycbcr_uncompressed.tif', smooth, photometric='ycbcr', subsampling=(2, 2))
    save_raw('ycbcr_uncompressed', np.asarray(Image.open('ycbcr_uncompressed.tif').convert('RGBA')))
    # The same with Orientation 3: the RGBA interface must return the rows as stored.
    tifffile.imwrite('ycbcr_orientation3.tif', smooth, photometric='ycbcr', extratags=[(274, 'H', 1, 3, True)])
except Exception as error:  # this tifffile cannot write it: no such fixture
    print('ycbcr_uncompressed.tif not written:', error)

# Three pages of different sizes and layouts.
pages = [pattern8(1, 20, 10)[..., 0], pattern8(3, 16, 16), pattern8(4, 8, 12)]
with tifffile.TiffWriter('multipage.tif') as t:
    t.write(pages[0], photometric='minisblack')
    t.write(pages[1], photometric='rgb', compression='lzw')
    t.write(pages[2], photometric='rgb', extrasamples=['unassalpha'], compression='deflate')
save_raw('multipage.0', pages[0])
save_raw('multipage.1', rgba(pages[1], 255))
save_raw('multipage.2', pages[2])

# An sRGB ICC profile, Orientation 6 (rotate 90 degrees clockwise to view) and an XMP packet.
profile = ImageCms.ImageCmsProfile(ImageCms.createProfile('sRGB')).tobytes()
open('profile.icc', 'wb').write(profile)
xmp = (b'<?xpacket begin="\xef\xbb\xbf" id="W5M0MpCehiHzreSzNTczkc9d"?>'
       b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
       b'<rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/" dc:format="image/tiff"/>'
       b'</rdf:RDF></x:xmpmeta><?xpacket end="w"?>')
open('metadata.xmp', 'wb').write(xmp)
meta = pattern8(3, 12, 8)
write('metadata', meta, rgba(meta, 255), photometric='rgb', iccprofile=profile,
      extratags=[(274, 'H', 1, 6, True), (700, 'B', len(xmp), xmp, True)])

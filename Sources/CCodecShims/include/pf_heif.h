#ifndef PIXELFLOW_PF_HEIF_H
#define PIXELFLOW_PF_HEIF_H

/* libheif shims for PixelFlow (conventions: see CCodecShims.h). This header includes no
   header of libheif itself. */

#include <stddef.h>
#include <stdint.h>

#endif

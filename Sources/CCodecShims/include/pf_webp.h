#ifndef PIXELFLOW_PF_WEBP_H
#define PIXELFLOW_PF_WEBP_H

/* libwebp shims for PixelFlow (conventions: see CCodecShims.h). This header includes no
   header of libwebp itself. */

#include <stddef.h>
#include <stdint.h>

#endif

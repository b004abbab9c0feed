#ifndef PIXELFLOW_PF_TIFF_H
#define PIXELFLOW_PF_TIFF_H

/* libtiff shims for PixelFlow (conventions: see CCodecShims.h). This header includes no
   header of libtiff itself. */

#include <stddef.h>
#include <stdint.h>

#endif

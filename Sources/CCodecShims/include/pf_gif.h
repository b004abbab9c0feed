#ifndef PIXELFLOW_PF_GIF_H
#define PIXELFLOW_PF_GIF_H

/* giflib shims for PixelFlow (conventions: see CCodecShims.h). This header includes no
   header of giflib itself. */

#include <stddef.h>
#include <stdint.h>

#endif

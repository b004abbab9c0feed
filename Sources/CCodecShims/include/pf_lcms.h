#ifndef PIXELFLOW_PF_LCMS_H
#define PIXELFLOW_PF_LCMS_H

/* lcms2 shims for PixelFlow (conventions: see CCodecShims.h). This header includes no
   header of lcms2 itself. */

#include <stddef.h>
#include <stdint.h>

#endif

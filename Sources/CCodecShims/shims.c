#include "CCodecShims.h"
int pf_codec_shims_version(void) { return 1; }

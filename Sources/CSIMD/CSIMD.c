/* CSIMD is header-only; this file gives SwiftPM a source to build the target from. */
#include "CSIMD.h"
void pf_csimd_anchor(void) {}

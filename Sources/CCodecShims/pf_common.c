#include "CCodecShims.h"
#include <stdlib.h>

void pf_free(void *pointer) { free(pointer); }

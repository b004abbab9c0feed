#ifndef PIXELFLOW_CSIMD_H
#define PIXELFLOW_CSIMD_H
/*
 * Vector operations that Swift's generic SIMD types do not lower to vector instructions on
 * Linux (measured: SIMD4<Float>.squareRoot() became four scalar square roots, and
 * float-to-int conversions a per-lane loop). Clang's element-wise builtins on
 * ext_vector_type values, which Swift imports as SIMD4<Float> and SIMD4<Int32>, compile to
 * single instructions on every target (sqrtps, minps, cvttps2dq, ...). Header-only: the
 * functions are always inlined into the Swift kernels that call them.
 */
/* The parts, by family. Order matters: from CSIMDRowKernels.h on, contraction is off. */
#include "CSIMDCommon.h"
#include "CSIMDPointProgram.h"
#include "CSIMDCorrelation.h"
#include "CSIMDRowKernels.h"
#include "CSIMDWarp.h"
#include "CSIMDBlend.h"
#include "CSIMDDispatch.h"
#include "CSIMDBytes.h"
#include "CSIMDBytesResample.h"
#include "CSIMDBytesShrink.h"
#include "CSIMDBytesColor.h"
#include "CSIMDBytesBlur.h"
#include "CSIMDBytesBlend.h"
#include "CSIMDBytesWarp.h"
#include "CSIMDBytesConvolve.h"
#include "CSIMDBytesJPEG.h"
#include "CSIMDBytesLinearBlend.h"
#include "CSIMDBytesUnsharp.h"

#endif

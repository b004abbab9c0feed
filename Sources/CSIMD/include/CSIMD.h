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
typedef float pf_float4 __attribute__((ext_vector_type(4)));
typedef int pf_int4 __attribute__((ext_vector_type(4)));

#define PF_INLINE static inline __attribute__((always_inline))

/* Square root of each lane (correctly rounded). */
PF_INLINE pf_float4 pf_sqrt4(pf_float4 v) { return __builtin_elementwise_sqrt(v); }
/* Lane-wise minimum and maximum (for NaN lanes, the other operand). */
PF_INLINE pf_float4 pf_min4(pf_float4 a, pf_float4 b) { return __builtin_elementwise_min(a, b); }
PF_INLINE pf_float4 pf_max4(pf_float4 a, pf_float4 b) { return __builtin_elementwise_max(a, b); }
/* Float to int32, rounding toward zero; lanes must be in int32 range and not NaN. */
PF_INLINE pf_int4 pf_trunc_to_int4(pf_float4 v) { return __builtin_convertvector(v, pf_int4); }
/* Int32 to float, lane-wise. */
PF_INLINE pf_float4 pf_int_to_float4(pf_int4 v) { return __builtin_convertvector(v, pf_float4); }
/* Floor of each lane. */
PF_INLINE pf_float4 pf_floor4(pf_float4 v) { return __builtin_elementwise_floor(v); }

/* Stores a vector without bringing its cache line in (non-temporal): for output that is
 * written once and not read again soon. Call pf_store_fence() before other threads read it. */
PF_INLINE void pf_stream4(pf_float4 *p, pf_float4 v) { __builtin_nontemporal_store(v, p); }
/* Orders earlier non-temporal stores before later memory operations. */
PF_INLINE void pf_store_fence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

#endif

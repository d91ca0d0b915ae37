// The AVX2 row of every elementwise kernel: four float64 lanes per step
// (eight float32 lanes for the exact kernels).
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "elementwise/cr.h"

// Everything above is compiled for the baseline (docs/DEVELOPING.md: inline
// functions from shared headers are merged across files by the linker);
// only what follows, which runs after isa.cpp has checked the CPU, may use
// AVX2 and FMA.
#pragma GCC target("avx2,fma")
// The float64 paths are chains of about 110 instructions a half-block
// (gelu: 227 a block of eight, 40 of them constant loads), and in GCC's
// order, one half's evaluation after the other, the reorder buffer holds
// little more than one block: the two halves' chains run one after the
// other, not side by side.  GCC schedules before register allocation on
// x86 only when asked; with register pressure in the model it interleaves
// the halves without spilling.  64K, 1 thread, Zen 3, new / old time: gelu
// 0.73-0.77, erf and erfc 0.81-0.83, sin 0.87-0.92, cos 0.91, expm1 0.87,
// elu and selu 0.79-0.85, mish 0.87; the float32 paths 0.93-1.04 (log1p
// 1.04); gelu's fused backward 0.80.  Without the pressure model the
// schedule spills (gelu 1.36x the time of the pressure model's), and so
// do two blocks a step (1.28-1.33x); on the GEMM micro-kernel and the
// direct convolution it costs 2.2x and 1.7x, so it stays on this file.
// Instruction order changes no bit: each operation is the same IEEE one
// (-ffp-contract=off holds under the pragma).
#pragma GCC optimize("schedule-insns", "sched-pressure")

namespace repdl {
namespace elementwise {
namespace avx2_row {

#include "elementwise/row_avx2.h"
#include "elementwise/kernels.h"

namespace {

#include "elementwise/row_simd.inc"

// log1p on ln's float32 steps (fn/log_f32.h), and softplus and logsigmoid
// on exp's and log1p's (fn/softplus_f32.h); the AVX-512 row has coarse
// float64 evaluations of the three instead (row_avx512.cpp).
#include "elementwise/fn/softplus_f32.h"
#define REPDL_FAST_PATH(S, ...) \
  template <>                   \
  struct FastPath<S> {          \
    using Kernel = __VA_ARGS__; \
  };
REPDL_FAST_PATH(Log1p, Log1pF32)
REPDL_FAST_PATH(Softplus, SoftplusF32<false>)
REPDL_FAST_PATH(Logsigmoid, SoftplusF32<true>)
#undef REPDL_FAST_PATH

// Two blocks a step (row_simd.inc, which lists the float32 paths both rows
// have, with four for those that divide) for every float32 path, this row's
// own three below: one block's chain from load to rounding test is 60 cycles
// or more on Zen 3 and the reorder window holds two or three blocks of it, so
// the scheduler's interleaving of two gains (docs/elementwise.md, "Speed in
// cache").  64K (8K), 1 thread, Zen 3, paired / one block a step
// (ab_kernels.py, 15-21 rounds): exp 0.83 (0.89), exp2 0.88-0.94 (0.90),
// rsqrt 0.92-0.94 (0.93), ln 0.88-0.89 (0.91), log2 0.88, log10 0.90, log1p
// 0.91 (0.96), softplus 0.80-0.93 (0.83), logsigmoid 0.81-0.86 (0.83),
// sigmoid 0.95-1.00 (0.97), silu 0.90 (0.91), tanh 0.92 (0.98), gelu_tanh
// 0.85 (0.86); softmax through exp 0.92-0.95 (4096x1000, 64x128x128), causal
// within noise.  The series' float64 tiers (gelu, erf, erfc) measured
// 0.92-1.03 and stay one block a step.  (The paths that divide,
// silu_and_sigmoid among them, now take four a step, measured on Sapphire
// Rapids only: row_simd.inc.)
REPDL_BLOCKS_PER_STEP(2, Log1pF32)
REPDL_BLOCKS_PER_STEP(2, SoftplusF32<false>)
REPDL_BLOCKS_PER_STEP(2, SoftplusF32<true>)

}  // namespace

#include "elementwise/row_entries.inc"

void pow_int(const float* x, int64_t p, float* y, int64_t n) { pow_int_impl(x, p, y, n); }

}  // namespace avx2_row
}  // namespace elementwise
}  // namespace repdl

#else  // not x86
#include "elementwise/cr.h"
namespace repdl {
namespace elementwise {
namespace avx2_row {
#include "elementwise/row_forward.inc"
}  // namespace avx2_row
}  // namespace elementwise
}  // namespace repdl
#endif

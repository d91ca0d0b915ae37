// The AVX-512 row of every elementwise kernel: eight float64 lanes per step
// (sixteen float32 lanes for the exact kernels), the AVX2 row's arithmetic
// on twice the lanes.
#if defined(__x86_64__) || defined(__i386__)
// GCC 12's shift and insert intrinsics start from _mm512_undefined_*(),
// which its own -Wmaybe-uninitialized / -Wuninitialized then report; the
// value is never read.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
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
// AVX-512.
#pragma GCC target("avx512f,avx2,fma")
// Scheduled before register allocation with the pressure model, as the
// AVX2 row is (row_avx2.cpp has the reasons): here it is what lets two
// blocks a step (below) interleave.  The same IEEE operations in another
// order (-ffp-contract=off holds under the pragma).
#pragma GCC optimize("schedule-insns", "sched-pressure")

namespace repdl {
namespace elementwise {
namespace avx512_row {

#include "elementwise/row_avx512.h"
#include "elementwise/kernels.h"

namespace {

#include "elementwise/row_simd.inc"

// The coarse float64 evaluations (log1p, softplus, logsigmoid, sin and
// cos, and the pieces behind the series of erf, erfc and gelu) on this row
// only: their per-piece coefficients are looked up by vpermt2pd
// (D16Table).  The AVX2 row has no two-register permute of doubles; its
// gathers made gelu 64K 3.7x slower than the accurate path alone (371
// against 100 us, Zen 5 forced to the AVX2 row), and e^(-a^2) times erfcx
// on four unit pieces, one vpermps a coefficient (degree 11, 2^-35.2),
// 1.22, 1.26 and 1.50 times the accurate path's time for gelu, erf and
// erfc (64K, Zen 3), so there sin and cos keep their float64 path, erf,
// erfc and gelu have the series alone, and log1p, softplus and logsigmoid
// have float32 paths (row_avx2.cpp).
#include "elementwise/fn/erfc_coarse.h"
#include "elementwise/fn/log_coarse.h"
#include "elementwise/fn/sincos_coarse.h"
#include "elementwise/fn/softplus_coarse.h"
#define REPDL_COARSE(S, C)             \
  template <>                          \
  struct FastPath<S> {                 \
    using Kernel = Float64Tier<C>;     \
  };
REPDL_COARSE(Log1p, Log1pCoarse)
REPDL_COARSE(Softplus, SoftplusCoarse)
REPDL_COARSE(Logsigmoid, LogsigmoidCoarse)
REPDL_COARSE(Sin, SinCoarse)
REPDL_COARSE(Cos, CosCoarse)
#undef REPDL_COARSE
// erf, erfc and gelu on the series (row_simd.inc), the pieces behind it:
// a stretch of inputs spread beyond the series takes the pieces
// (DetourPath), not the accurate path, and a lane beyond it among lanes
// inside, the queue.  64K, 1 thread, series / pieces alone (ab_kernels.py,
// 9-11 rounds): randn gelu 0.78, erf 0.88, erfc 0.96 (8K: gelu 0.79); 0.7
// randn (erfc's argument in gelu's backward) erfc 0.80, gelu's backward
// 0.87; 1.5 randn gelu 0.94, erf 1.01; 2, 3 and 5 randn 0.98-1.02.  The
// series alone took 1.61 (gelu) and 1.88 (erf) of the pieces' time on 3
// randn, and the series where a block lies in its range, else the pieces,
// 0.86 / 0.93 (randn) and 1.11 / 1.13 (3 randn).
template <>
struct DetourPath<Float64Tier<ErfSeries>> {
  using Kernel = Float64Tier<ErfCoarse>;
};
template <>
struct DetourPath<Float64Tier<ErfcSeries>> {
  using Kernel = Float64Tier<ErfcCoarse>;
};
template <>
struct DetourPath<Float64Tier<GeluSeries>> {
  using Kernel = Float64Tier<GeluCoarse>;
};

#include "elementwise/fn/reciprocal_f32.h"
#include "elementwise/fn/sqrt_f32.h"
template <>
struct BesideDivider<Sqrt> {
  using Kernel = SqrtF32;
};
template <>
struct BesideDivider<Reciprocal> {
  using Kernel = ReciprocalF32;
};

// Two blocks a step (row_simd.inc, which lists the float32 paths both rows
// have, with four for those that divide) for every fast path, this row's
// coarse float64 tiers included.  A block of sixteen lanes is about 26
// operations on the two 512-bit ports for exp, and one block a step took 18
// cycles of the 13 they need (Sapphire Rapids, 3.5 GHz); its chain is long
// enough that the window rarely overlaps two.  64K, 1 thread, paired and
// scheduled / one block a step unscheduled (ab_kernels.py, 11 rounds; before
// the four): exp 0.89, exp2 0.97, rsqrt 0.88, tanh 0.88, sigmoid 0.89-0.94,
// silu 0.92, silu_and_sigmoid 0.88, gelu_tanh 0.86, ln 0.96, log2 0.97, log10
// 0.94, gelu 0.86-0.92, erf 0.92-0.95, erfc 0.96, sin 0.92, cos 0.94,
// softplus and logsigmoid 0.84 (against the scheduled build alone), log1p
// 0.98.  The loops without a fast path, scheduled only: expm1 0.90, elu 0.93,
// mish 0.96, selu, sqrt and reciprocal 0.99-1.01.
REPDL_BLOCKS_PER_STEP(2, Float64Tier<GeluSeries>)
REPDL_BLOCKS_PER_STEP(2, Float64Tier<ErfSeries>)
REPDL_BLOCKS_PER_STEP(2, Float64Tier<ErfcSeries>)
REPDL_BLOCKS_PER_STEP(2, Float64Tier<GeluCoarse>)
REPDL_BLOCKS_PER_STEP(2, Float64Tier<ErfCoarse>)
REPDL_BLOCKS_PER_STEP(2, Float64Tier<ErfcCoarse>)
REPDL_BLOCKS_PER_STEP(2, Float64Tier<CosCoarse>)
REPDL_BLOCKS_PER_STEP(2, Float64Tier<SoftplusCoarse>)
REPDL_BLOCKS_PER_STEP(2, Float64Tier<LogsigmoidCoarse>)
REPDL_BLOCKS_PER_STEP(2, Float64Tier<SinCoarse>)
REPDL_BLOCKS_PER_STEP(2, Float64Tier<Log1pCoarse>)

}  // namespace

#include "elementwise/row_entries.inc"

void pow_int(const float* x, int64_t p, float* y, int64_t n) { pow_int_impl(x, p, y, n); }

}  // namespace avx512_row
}  // namespace elementwise
}  // namespace repdl

#else  // not x86
#include "elementwise/cr.h"
namespace repdl {
namespace elementwise {
namespace avx512_row {
#include "elementwise/row_forward.inc"
}  // namespace avx512_row
}  // namespace elementwise
}  // namespace repdl
#endif

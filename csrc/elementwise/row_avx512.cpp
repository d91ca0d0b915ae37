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

namespace repdl {
namespace elementwise {
namespace avx512_row {

#include "elementwise/row_avx512.h"
#include "elementwise/kernels.h"

namespace {

#include "elementwise/row_simd.inc"

// The coarse float64 evaluations (erf, erfc, gelu, log1p, softplus,
// logsigmoid, sin and cos) on this row only: their per-piece
// coefficients are looked up by vpermt2pd (D16Table).  The AVX2 row has no
// two-register permute of doubles; its gathers made gelu 64K 3.7x slower
// than the accurate path alone (371 against 100 us, Zen 5 forced to the AVX2
// row), and e^(-a^2) times erfcx on four unit pieces, one vpermps a
// coefficient (degree 11, 2^-35.2), 1.22, 1.26 and 1.50 times the accurate
// path's time for gelu, erf and erfc (64K, Zen 3), so there sin and cos
// keep their float64 path, erf, erfc and gelu have a series without tables
// over the middle of their range (fn/erf_series.h), and log1p, softplus and
// logsigmoid have float32 paths (row_avx2.cpp).
#include "elementwise/fn/erf_rules.h"
#include "elementwise/fn/erfc_coarse.h"
#include "elementwise/fn/log_coarse.h"
#include "elementwise/fn/sincos_coarse.h"
#include "elementwise/fn/softplus_coarse.h"
#define REPDL_COARSE(S, C)             \
  template <>                          \
  struct FastPath<S> {                 \
    using Kernel = Float64Tier<C>;     \
  };
REPDL_COARSE(Erf, ErfCoarse)
REPDL_COARSE(Erfc, ErfcCoarse)
REPDL_COARSE(Gelu, GeluCoarse)
REPDL_COARSE(Log1p, Log1pCoarse)
REPDL_COARSE(Softplus, SoftplusCoarse)
REPDL_COARSE(Logsigmoid, LogsigmoidCoarse)
REPDL_COARSE(Sin, SinCoarse)
REPDL_COARSE(Cos, CosCoarse)
#undef REPDL_COARSE

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

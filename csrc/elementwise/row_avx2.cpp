// The AVX2 row of every elementwise kernel: four float64 lanes per step
// (eight float32 lanes for the exact kernels).
#if defined(__x86_64__) || defined(__i386__)
#pragma GCC target("avx2,fma")
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "elementwise/cr.h"

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
template <>
struct FastPath<Log1p> {
  using Kernel = Log1pF32;
};
template <>
struct FastPath<Softplus> {
  using Kernel = SoftplusF32<false>;
};
template <>
struct FastPath<Logsigmoid> {
  using Kernel = SoftplusF32<true>;
};

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

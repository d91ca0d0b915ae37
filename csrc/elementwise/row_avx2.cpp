// The AVX2 row of every elementwise kernel: four float64 lanes per step
// (eight float32 lanes for the exact kernels).
#if defined(__x86_64__) || defined(__i386__)
#pragma GCC target("avx2,fma")
#include <immintrin.h>

#include <algorithm>
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

// Which of the eight values v0 (elements 0-3) and v1 (4-7) may lie within w
// ulps of a midpoint (the low 29 bits near 2^28) or below 2^-126, one bit
// per element.  The test needs only the low and high 32-bit halves of each
// double, so it runs on all eight at once, in the lane order 0 1 4 5 2 3 6 7
// that the shuffles leave.
inline uint32_t near_midpoints(D v0, D v1, int w) {
  const __m256i lo = _mm256_castps_si256(_mm256_shuffle_ps(_mm256_castpd_ps(v0.v), _mm256_castpd_ps(v1.v), 0x88));
  const __m256i hi = _mm256_castps_si256(_mm256_shuffle_ps(_mm256_castpd_ps(v0.v), _mm256_castpd_ps(v1.v), 0xDD));
  const __m256i low29 = _mm256_and_si256(_mm256_add_epi32(lo, _mm256_set1_epi32(w - (1 << 28))),
                                         _mm256_set1_epi32((1 << 29) - 1));
  const __m256i far = _mm256_cmpgt_epi32(low29, _mm256_set1_epi32(2 * w));
  const __m256i tiny = _mm256_cmpgt_epi32(_mm256_set1_epi32((1023 - 126) << 20),
                                          _mm256_and_si256(hi, _mm256_set1_epi32(0x7FFFFFFF)));
  const auto f = static_cast<uint32_t>(
      _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_or_si256(_mm256_andnot_si256(far, _mm256_set1_epi32(-1)), tiny))));
  return (f & 0xC3u) | ((f & 0x0Cu) << 2) | ((f & 0x30u) >> 2);  // back to element order
}

#include "elementwise/row_simd.inc"

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

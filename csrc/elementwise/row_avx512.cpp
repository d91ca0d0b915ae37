// The AVX-512 row of every elementwise kernel: eight float64 lanes per step
// (sixteen float32 lanes for the exact kernels), the AVX2 row's arithmetic
// on twice the lanes.
#if defined(__x86_64__) || defined(__i386__)
#pragma GCC target("avx512f,avx2,fma")
// GCC 12's shift and insert intrinsics start from _mm512_undefined_*(),
// which its own -Wmaybe-uninitialized / -Wuninitialized then report; the
// value is never read.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "elementwise/cr.h"

namespace repdl {
namespace elementwise {
namespace avx512_row {

#include "elementwise/row_avx512.h"
#include "elementwise/kernels.h"

namespace {

// The generic row's maybe_near for sixteen values, v0 (elements 0-7) and v1
// (8-15): the low 29 bits of the significand within w of 2^28, or |v| below
// 2^-126.  Both tests need one 32-bit half of each double, so the halves are
// gathered (in element order) into one register each and tested 16 at once.
inline uint32_t near_midpoints(D v0, D v1, int w) {
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i lo = _mm512_permutex2var_epi32(bits(v0).v, even, bits(v1).v);
  const __m512i hi = _mm512_permutex2var_epi32(bits(v0).v, _mm512_add_epi32(even, _mm512_set1_epi32(1)), bits(v1).v);
  const __m512i low29 = _mm512_and_si512(_mm512_add_epi32(lo, _mm512_set1_epi32(w - (1 << 28))),
                                         _mm512_set1_epi32((1 << 29) - 1));
  const __mmask16 near = _mm512_cmple_epi32_mask(low29, _mm512_set1_epi32(2 * w));
  const __mmask16 tiny = _mm512_cmplt_epi32_mask(_mm512_and_si512(hi, _mm512_set1_epi32(0x7FFFFFFF)),
                                                 _mm512_set1_epi32((1023 - 126) << 20));
  return static_cast<uint32_t>(near | tiny);
}

#include "elementwise/row_simd.inc"

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

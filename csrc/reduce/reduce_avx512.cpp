// AVX-512 row of the reduction kernel table: the AVX2 row's kernels but
// max_value, which softmax's every line begins with.  The max is a pass of
// independent maxima, whose NaN test costs a compare and an or beside each
// max on eight lanes; on sixteen, a compare into a mask and a kor: half
// the instructions an element.  softmax 16x512x512 took 0.88 / 0.94 of its
// time with it (1 / 2 threads), log_softmax 0.90 / 0.93 (docs/PERFORMANCE.md,
// twenty-sixth round).  The sums' chains keep the AVX2 row, whose lines go
// through transposes eight lanes at a time.
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#include <cmath>
#include <limits>

#include "common/nan.h"
#include "reduce/reduce.h"

// Everything above is compiled for the baseline; only what follows, which
// runs after isa.cpp has checked the CPU, may use AVX-512.
#pragma GCC target("avx512f,avx2,fma")
// GCC 12's _mm512_max_ps passes _mm512_undefined_ps() as the merge source
// of an unmasked operation, which its own -Wmaybe-uninitialized then
// reports (as in elementwise/row_avx512.cpp); the value is never read.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace repdl {
namespace reduce {
namespace {

// The value max() returns for n >= 1 contiguous floats: NaN if any is
// (canonical), else the maximum, a zero maximum with the sign of the first
// zero (the contract's scan keeps the first of equal values).  vmaxps
// drops a NaN in its first operand, so NaNs are counted apart, in a mask;
// the padding of the last, partial vector is -inf, which no maximum sees.
float max_value_avx512(const float* x, int64_t n) {
  if (n < 16) return kAvx2Kernels.max_value(x, n);
  const __m512 lowest = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  // Four maxima side by side: one waits three cycles on its vmaxps.
  __m512 best[4] = {lowest, lowest, lowest, lowest};
  __mmask16 nan = 0;
  int64_t k = 0;
  for (; k + 64 <= n; k += 64) {
    for (int j = 0; j < 4; ++j) {
      const __m512 v = _mm512_loadu_ps(x + k + 16 * j);
      nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
      best[j] = _mm512_max_ps(v, best[j]);
    }
  }
  for (; k < n; k += 16) {
    const __mmask16 in = n - k >= 16 ? __mmask16{0xffff} : static_cast<__mmask16>((1u << (n - k)) - 1);
    const __m512 v = _mm512_mask_loadu_ps(lowest, in, x + k);
    nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    best[0] = _mm512_max_ps(v, best[0]);
  }
  if (nan) return canonical_nan(std::numeric_limits<float>::quiet_NaN());
  const float m = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_max_ps(best[0], best[1]), _mm512_max_ps(best[2], best[3])));
  if (m != 0.0f) return m;
  int64_t first = 0;
  while (x[first] != 0.0f) ++first;
  return x[first];
}

}  // namespace

// The AVX2 row's table with max_value replaced; built on first use (the
// AVX2 table is constant-initialised, so its copy is safe at any time).
const Kernels& avx512_kernels() {
  static const Kernels k = [] {
    Kernels t = kAvx2Kernels;
    t.max_value = max_value_avx512;
    return t;
  }();
  return k;
}

}  // namespace reduce
}  // namespace repdl
#endif

// AVX-512 row of the reduction kernel table: the AVX2 row's kernels but
// max_value and max_rows, with which softmax's every line begins.  The max
// is a pass of independent maxima, whose NaN test costs a compare and an or
// beside each max on eight lanes; on sixteen, a compare into a mask and a
// kor: half the instructions an element.  softmax 16x512x512 took 0.88 /
// 0.94 of its time with it (1 / 2 threads), log_softmax 0.90 / 0.93
// (docs/PERFORMANCE.md, twenty-sixth round).  The sums' chains keep the
// AVX2 row, whose lines go through transposes eight lanes at a time, and
// so do one line's chains on the grid (grid_sum.inc): on sixteen lanes its sum
// took 0.28-0.39 of the chain's time against the AVX2 row's 0.31-0.39 on
// positive terms, but on terms that cancel, where a line's few attempts
// fail, 1.04-1.10 against 1.00 (the 512-bit code slowed the chain beside
// it).
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
// of an unmasked operation, which its own -Wmaybe-uninitialized and
// -Wuninitialized then report (as in elementwise/row_avx512.cpp); the
// value is never read.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

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

// Sixteen rows of n <= 16 floats (s0 apart) to their max_value, lane q
// row q's, into out; false where a row may hold NaN, and then nothing is
// written.  The rows' vectors (padded with -inf) go side by side through
// four levels of shuffles and vmaxps that halve the lanes a row holds (8,
// 4, 2, 1): about 50 operations for the sixteen, where a row at a time
// ends in a horizontal maximum of four dependent steps and a call.  A
// maximum's value does not depend on the order of comparisons; a zero
// maximum takes its sign from the row's first zero, as max_value does.
// NaN, which vmaxps drops in its first operand, is caught by sums of the
// rows beside the maxima (NaN in, NaN out; inf - inf too, which only sends
// the sixteen rows to max_value).
bool max16(const float* x, int64_t s0, int64_t n, float* out) {
  const __m512 lowest = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  const __mmask16 in = static_cast<__mmask16>(0xffffu >> (16 - n));
  // Four sums of four rows each, not one chain of sixteen adds; the
  // padding's -inf stays out of them, so that +inf in another row's lane
  // does not make NaN.
  __m512 sum[4], v[16];
  for (int q = 0; q < 16; ++q) {
    v[q] = _mm512_mask_loadu_ps(lowest, in, x + q * s0);
    sum[q % 4] = q < 4 ? _mm512_maskz_mov_ps(in, v[q]) : _mm512_mask_add_ps(sum[q % 4], in, sum[q % 4], v[q]);
  }
  const __m512 all = _mm512_add_ps(_mm512_add_ps(sum[0], sum[1]), _mm512_add_ps(sum[2], sum[3]));
  if (_mm512_cmp_ps_mask(all, all, _CMP_UNORD_Q)) return false;
  // Level 1: v[2j] and v[2j + 1] into one, rows 2j and 2j + 1 in its halves;
  // level 2: rows 4j .. 4j + 3 in its quarters (128-bit shuffles).
  for (int j = 0; j < 8; ++j)
    v[j] = _mm512_max_ps(_mm512_shuffle_f32x4(v[2 * j], v[2 * j + 1], 0x44),
                         _mm512_shuffle_f32x4(v[2 * j], v[2 * j + 1], 0xEE));
  for (int j = 0; j < 4; ++j)
    v[j] = _mm512_max_ps(_mm512_shuffle_f32x4(v[2 * j], v[2 * j + 1], 0x88),
                         _mm512_shuffle_f32x4(v[2 * j], v[2 * j + 1], 0xDD));
  // Levels 3 and 4 within each quarter: quarter t of the last holds rows
  // t, 4 + t, 8 + t and 12 + t, which the permute puts in order.
  for (int j = 0; j < 2; ++j)
    v[j] = _mm512_max_ps(_mm512_shuffle_ps(v[2 * j], v[2 * j + 1], 0x44),
                         _mm512_shuffle_ps(v[2 * j], v[2 * j + 1], 0xEE));
  const __m512 folded = _mm512_max_ps(_mm512_shuffle_ps(v[0], v[1], 0x88), _mm512_shuffle_ps(v[0], v[1], 0xDD));
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  const __m512 m = _mm512_permutexvar_ps(order, folded);
  _mm512_storeu_ps(out, m);
  for (uint32_t zero = _mm512_cmp_ps_mask(m, _mm512_setzero_ps(), _CMP_EQ_OQ); zero != 0; zero &= zero - 1) {
    const int q = __builtin_ctz(zero);
    out[q] = max_value_avx512(x + q * s0, n);
  }
  return true;
}

// Each row's max_value; rows of at most sixteen floats (softmax's groups of
// such lines, up to 128 of them) sixteen at a time by max16, where a call a
// line of 16 and the wait of its subtraction on the horizontal maximum had
// taken a seventh of log_softmax's time.
void max_rows_avx512(const Segment& s, float* out) {
  int64_t i = 0;
  if (s.R <= 16)
    for (; i + 16 <= s.n; i += 16)
      if (!max16(s.base + i * s.s0, s.s0, s.R, out + i))
        for (int q = 0; q < 16; ++q) out[i + q] = max_value_avx512(s.base + (i + q) * s.s0, s.R);
  for (; i < s.n; ++i) out[i] = max_value_avx512(s.base + i * s.s0, s.R);
}

}  // namespace

// The AVX2 row's table with max_value and max_rows replaced; built on first
// use (the AVX2 table is constant-initialised, so its copy is safe at any
// time).
const Kernels& avx512_kernels() {
  static const Kernels k = [] {
    Kernels t = kAvx2Kernels;
    t.max_value = max_value_avx512;
    t.max_rows = max_rows_avx512;
    return t;
  }();
  return k;
}

}  // namespace reduce
}  // namespace repdl
#endif

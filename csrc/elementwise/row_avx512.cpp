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

#include "elementwise/fn/exp_avx512.h"

// A float32 fast path K in front of S: K's results stand in every lane its
// own rounding test settles (they are correctly rounded, so they equal
// S's).  The loop over a chunk of kChunk blocks keeps each block's input
// and hard-lane mask and takes no branch on them: a branch on the mask,
// taken by a few percent of blocks, resolves only at the end of the long
// dependency chain and its mispredictions cost more than the hard lanes.
// After the chunk, its hard lanes (about 2^-9 of lanes for exp) join a
// queue of inputs and positions, which goes through S's float64
// evaluation sixteen lanes at a time: a hard lane costs a sixteenth of a
// float64 block.  Inputs are queued, not re-read, because y may be x.
template <class K, class S>
void run_fast(const float* x, float* y, int64_t n, const CrTable& t) {
  const K kernel;
  const __m512i lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  alignas(64) float kept[kChunk][kFloatLanes];
  uint32_t hard[kChunk];
  // Fewer than a block left over, a chunk's worth, and room for the last
  // packed store, which writes sixteen values.
  constexpr int kQueue = (kChunk + 2) * kFloatLanes;
  alignas(64) float queue_x[kQueue];
  int64_t queue_at[kQueue];
  int queued = 0;
  const auto settle_queue = [&](int blocks) {
    for (int b = 0; b < blocks; ++b) {
      alignas(64) float ys[kFloatLanes];
      exact_block<S>(t, queue_x + b * kFloatLanes, ys);
      const int lanes = std::min(kFloatLanes, queued - b * kFloatLanes);
      for (int j = 0; j < lanes; ++j) y[queue_at[b * kFloatLanes + j]] = ys[j];
    }
  };
  int64_t i = 0;
  while (i + kFloatLanes <= n) {
    const int64_t start = i;
    const int blocks = static_cast<int>(std::min<int64_t>(kChunk, (n - i) / kFloatLanes));
    uint32_t any = 0;
    for (int b = 0; b < blocks; ++b, i += kFloatLanes) {
      const F xv = f32_load(x + i);
      __mmask16 m;
      f32_store_raw(y + i, kernel.eval(xv, &m));
      f32_store_raw(kept[b], xv);
      hard[b] = m;
      any |= m;
    }
    if (any == 0) continue;
    for (int b = 0; b < blocks; ++b) {
      const __mmask16 m = static_cast<__mmask16>(hard[b]);
      if (m == 0) continue;
      _mm512_storeu_ps(queue_x + queued, _mm512_maskz_compress_ps(m, _mm512_load_ps(kept[b])));
      alignas(64) int32_t at[kFloatLanes];
      _mm512_store_si512(at, _mm512_maskz_compress_epi32(m, lane));
      const int lanes = __builtin_popcount(m);
      for (int j = 0; j < lanes; ++j) queue_at[queued + j] = start + b * kFloatLanes + at[j];
      queued += lanes;
    }
    const int full = queued / kFloatLanes;
    settle_queue(full);
    const int rest = queued - full * kFloatLanes;
    std::memmove(queue_x, queue_x + full * kFloatLanes, static_cast<size_t>(rest) * sizeof(float));
    std::memmove(queue_at, queue_at + full * kFloatLanes, static_cast<size_t>(rest) * sizeof(int64_t));
    queued = rest;
  }
  settle_queue(queued > 0 ? 1 : 0);  // lanes past `queued` hold leftovers: computed, unused
  if (i < n) exact_tail<S>(t, x + i, y + i, n - i);
}

template <>
struct FastPath<Exp> {
  static constexpr bool kHas = true;
  static void run(const float* x, float* y, int64_t n, const CrTable& t) { run_fast<ExpF32x16, Exp>(x, y, n, t); }
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

// AVX2 row of the reduction kernel table.  `cols` kernels are the portable
// text compiled for AVX2 (lanes are neighbouring outputs already); `rows`
// kernels put 8 outputs in the 8 lanes of a ymm register by transposing
// their rows (avx2::Rows8), so eight chains advance per add while each keeps its
// own order.
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include "common/bits.h"
#include "common/nan.h"
#include "reduce/reduce.h"

// Everything above is compiled for the baseline; only what follows, which
// runs after isa.cpp has checked the CPU, may use AVX2 and FMA.
#pragma GCC target("avx2,fma")
#include "common/avx2_util.h"

namespace repdl {
namespace reduce {
namespace {
using avx2::Rows8;
#include "reduce/portable.inc"
#include "reduce/grid_sum.inc"

// G groups of 8 rows at once: independent chains overlap in the pipeline.
// step(first, acc, x, r) continues the chains of outputs first..first+7 with
// their elements at reduced index r (lane q: output first + q); with a
// second input b (a segment of s's layout from b), step(first, acc, x, y,
// r) gets b's elements too.  With accumulate, the chains continue from the
// values already in out.  kSpan elements of each row at a time: 4
// (Rows8::columns) or 8 (Rows8::block); ahead takes a step per four.
// Group 0 starts at output `first`, group G - 1 at `last`: first + 8, or
// with kOverlap, where a segment's last group overlaps the one before it
// (rows_all_groups), fewer, and the last group's first `from` outputs are
// computed but not stored.  (Its own instantiation: with the plain groups'
// code serving the overlap too, through a runtime `from`, segments without
// a remainder took 1.04-1.06x the time: matrix-vector 1000x784, 512x512.)
template <int G, bool kPair, int kSpan, bool kOverlap = false, class Step>
void rows_groups(const Segment& s, int64_t first, int64_t last, float* out, Step step, bool accumulate,
                 const float* b, AheadIntoL2& ahead, int from = 0) {
  const int64_t starts[2] = {first, last};
  // Group g's rows of each input (index G - 1: the second group, or the
  // first again when G is 1; without b, a's rows stand in, unread).
  const auto rows_of = [&](const float* base, int g) { return Rows8(base + starts[g] * s.s0, s.s0); };
  const Rows8 ra[2] = {rows_of(s.base, 0), rows_of(s.base, G - 1)};
  const Rows8 rb[2] = {rows_of(kPair ? b : s.base, 0), rows_of(kPair ? b : s.base, G - 1)};
  const auto advance = [&](int g, __m256 acc, int64_t r, __m256 x, __m256 y) {
    if constexpr (kPair) return step(starts[g], acc, x, y, r);
    else return step(starts[g], acc, x, r);
  };
  __m256 acc[G];
  for (int g = 0; g < G; ++g) acc[g] = accumulate ? _mm256_loadu_ps(out + starts[g]) : _mm256_setzero_ps();
  int64_t k = 0;
  for (; k + kSpan <= s.R; k += kSpan) {
    for (int j = 0; j < kSpan; j += 4) ahead.step();
    for (int g = 0; g < G; ++g) {
      __m256 x[kSpan], y[kSpan];
      if constexpr (kSpan == 4) {
        ra[g].columns(k, x);
        if constexpr (kPair) rb[g].columns(k, y);
      } else {
        ra[g].block(k, x);
        if constexpr (kPair) rb[g].block(k, y);
      }
      for (int kk = 0; kk < kSpan; ++kk) acc[g] = advance(g, acc[g], k + kk, x[kk], kPair ? y[kk] : x[kk]);
    }
  }
  for (; k < s.R; ++k)
    for (int g = 0; g < G; ++g) acc[g] = advance(g, acc[g], k, ra[g].column(k), kPair ? rb[g].column(k) : acc[g]);
  for (int g = 0; g + 1 < G; ++g) _mm256_storeu_ps(out + starts[g], avx2::canonical_nan8(acc[g]));
  if constexpr (!kOverlap) {
    _mm256_storeu_ps(out + last, avx2::canonical_nan8(acc[G - 1]));
  } else {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    _mm256_maskstore_ps(out + last, _mm256_cmpgt_epi32(lane, _mm256_set1_epi32(from - 1)),
                        avx2::canonical_nan8(acc[G - 1]));
  }
}

// The most rows, stride_bytes apart, whose starts fall in one set of a
// 64-set L1 (Zen 4's 32 KB 8-way, Golden Cove's 48 KB 12-way: 4 KB per
// way), among the first eight and among the first sixteen.  A function of
// the stride alone, which callers repeat call after call (batch norm's
// chains, continued sample by sample: 10% of its time at 8x256x49), so each
// thread keeps its last answer.
struct L1Crowding {
  int eight, sixteen;
};

L1Crowding rows_per_l1_set(int64_t stride_bytes) {
  thread_local int64_t last_stride = -1;
  thread_local L1Crowding last;
  if (stride_bytes != last_stride) {
    unsigned char count[64] = {};
    int most = 0;
    for (int q = 0; q < 16; ++q) {
      most = std::max(most, static_cast<int>(++count[((q * stride_bytes) >> 6) & 63]));
      if (q == 7) last.eight = most;
    }
    last.sixteen = most;
    last_stride = stride_bytes;
  }
  return last;
}

// Whether sixteen rows of `inputs` inputs crowded as c says fit the L1
// ways between a step's reads (rows_all_groups).
bool sixteen_fit(const L1Crowding& c, int inputs) { return inputs * c.sixteen <= 8; }

// Sixteen outputs at a time as two chains, then eight, each row read four
// elements at a time.  Rows whose lines would crowd one L1 set past its 8
// ways lose lines between those reads: then eight rows at a time, and
// where even eight crowd a set (two inputs 4 KB apart, one 8 KB apart),
// eight elements per read, as before the two chains.  Measured (Zen 4):
// sixteen crowded rows took 2.3x the time (sumprod 64 x 512) and 1.12x
// (layer_norm 256 x 1024); eight crowded rows read four elements at a time
// 1.4x (sumprod 256 x 4096).  The last n % 8 outputs, when n >= 8, are a
// group of the last eight rows whose first outputs (done already, or by
// the group beside it) are not stored: each output's chain is its own, so
// the overlap recomputes the same bits, and one vector chain replaces up
// to seven scalar ones, side by side with the group before it where
// sixteen rows fit (a linear layer of 10 outputs over 784 inputs, on one
// sample: 3.0 -> 1.4 us).  Returns the outputs done: all of them, or none
// when n < 8.
template <bool kPair = false, class Step>
int64_t rows_all_groups(const Segment& s, float* out, Step step, bool accumulate = false, const float* b = nullptr,
                        AheadIntoL2 ahead = {}) {
  const int64_t stride = s.s0 * static_cast<int64_t>(sizeof(float));
  const int inputs = kPair ? 2 : 1;
  if (s.n < 8) {
    ahead.rest();
    return 0;
  }
  const L1Crowding crowding = rows_per_l1_set(stride);
  const bool eights_fit = inputs * crowding.eight <= 8;
  int64_t i = 0;
  if (sixteen_fit(crowding, inputs)) {
    for (; i + 16 <= s.n; i += 16) rows_groups<2, kPair, 4>(s, i, i + 8, out, step, accumulate, b, ahead);
    if (i + 8 < s.n) {  // nine to fifteen left: eight, and the last eight beside them
      rows_groups<2, kPair, 4, true>(s, i, s.n - 8, out, step, accumulate, b, ahead,
                                     static_cast<int>(i + 8 - (s.n - 8)));
      i = s.n;
    }
  }
  if (eights_fit) {
    for (; i + 8 <= s.n; i += 8) rows_groups<1, kPair, 4>(s, i, i, out, step, accumulate, b, ahead);
  } else {
    for (; i + 8 <= s.n; i += 8) rows_groups<1, kPair, 8>(s, i, i, out, step, accumulate, b, ahead);
  }
  if (i < s.n && s.n >= 8) {  // one to seven left: the last eight
    const int from = static_cast<int>(i - (s.n - 8));
    if (eights_fit) rows_groups<1, kPair, 4, true>(s, s.n - 8, s.n - 8, out, step, accumulate, b, ahead, from);
    else rows_groups<1, kPair, 8, true>(s, s.n - 8, s.n - 8, out, step, accumulate, b, ahead, from);
    i = s.n;
  }
  ahead.rest();
  return i;
}

Segment tail(const Segment& s, int64_t first) {
  return {s.base + first * s.s0, s.n - first, s.s0, s.R, s.sr};
}

// pairsum over the 8 lanes: aligned full blocks of 8 are perfect subtrees of
// the pairwise tree, summed in registers and pushed as level-3 blocks; the
// last R % 8 elements are pushed one by one at level 0.
// (__m256 wrapped in a struct: a template argument would drop its alignment.)
struct Ymm {
  __m256 v;
};
struct AddYmm {
  Ymm operator()(Ymm a, Ymm b) const { return {_mm256_add_ps(a.v, b.v)}; }
};

void pairwise_rows8(const Segment& s, int64_t first, float* out) {
  const Rows8 rows(s.base + first * s.s0, s.s0);
  PairwiseCounter<Ymm, AddYmm> p;
  int64_t k = 0;
  for (; k + 8 <= s.R; k += 8) {
    __m256 t[8];
    rows.columns(k, t);
    rows.columns(k + 4, t + 4);
    const __m256 a = _mm256_add_ps(_mm256_add_ps(t[0], t[1]), _mm256_add_ps(t[2], t[3]));
    const __m256 b = _mm256_add_ps(_mm256_add_ps(t[4], t[5]), _mm256_add_ps(t[6], t[7]));
    p.push(k >> 3, 3, {_mm256_add_ps(a, b)});
  }
  for (; k < s.R; ++k) p.push(k, 0, {rows.column(k)});
  _mm256_storeu_ps(out + first, avx2::canonical_nan8(p.finish(s.R, {_mm256_setzero_ps()}).v));
}

// pairsum of one contiguous line.  Each aligned run of 64 elements is a
// perfect subtree: a transpose puts its eight 8-element groups in the eight
// lanes, three levels of vertical adds sum each group, two hadds and one
// cross-half add finish levels 4-6 (hadd adds neighbouring lanes, exactly
// the pairs of those levels).  The 64-element sums enter the counter at
// level 6; the last n % 64 elements enter one by one at level 0.
float pairsum_contiguous_avx2(const float* x, int64_t n) {
  PairwiseCounter<float, AddFloat> p;
  int64_t k = 0;
  for (; k + 64 <= n; k += 64) {
    __m256 t[8];
    for (int q = 0; q < 8; ++q) t[q] = _mm256_loadu_ps(x + k + 8 * q);
    avx2::transpose8(t);
    const __m256 a = _mm256_add_ps(_mm256_add_ps(t[0], t[1]), _mm256_add_ps(t[2], t[3]));
    const __m256 b = _mm256_add_ps(_mm256_add_ps(t[4], t[5]), _mm256_add_ps(t[6], t[7]));
    __m256 g = _mm256_add_ps(a, b);  // lane q: group q
    g = _mm256_hadd_ps(g, g);          // (q0+q1), (q2+q3) | (q4+q5), (q6+q7)
    g = _mm256_hadd_ps(g, g);          // first 32 | last 32
    const float lo = _mm256_cvtss_f32(g);
    const float hi = _mm_cvtss_f32(_mm256_extractf128_ps(g, 1));
    p.push(k >> 6, 6, lo + hi);
  }
  for (; k < n; ++k) p.push(k, 0, x[k]);
  return p.finish(n, 0.0f);
}

void sum_rows_avx2(const Segment& s, Order order, float* out, bool accumulate) {
  if (order == Order::sequential && line_on_grid(s)) return line_on_grid_into(SumTerms{s.base}, s.R, out, accumulate);
  int64_t i = 0;
  if (order == Order::sequential) {
    i = rows_all_groups(s, out, [](int64_t, __m256 acc, __m256 x, int64_t) { return _mm256_add_ps(acc, x); },
                        accumulate);
  } else if (s.R >= 64 && s.n < 8) {
    for (; i < s.n; ++i) out[i] = canonical_nan(pairsum_contiguous_avx2(s.base + i * s.s0, s.R));
  } else {
    for (; i + 8 <= s.n; i += 8) pairwise_rows8(s, i, out);
  }
  if (i < s.n) sum_any(tail(s, i), order, out + i, accumulate);
}

void sqdev_rows_avx2(const Segment& s, const float* mean, float* out, bool accumulate) {
  if (line_on_grid(s)) return line_on_grid_into(DeviationTerms{s.base, mean[0]}, s.R, out, accumulate);
  const int64_t i = rows_all_groups(s, out, [&](int64_t first, __m256 acc, __m256 x, int64_t) {
    const __m256 d = _mm256_sub_ps(x, _mm256_loadu_ps(mean + first));
    return _mm256_fmadd_ps(d, d, acc);
  }, accumulate);
  if (i < s.n) sqdev_any(tail(s, i), mean + i, out + i, accumulate);
}

void sumprod_rows_avx2(const Segment& s, const float* b, float* out, bool accumulate, AheadIntoL2 ahead) {
  if (line_on_grid(s)) return line_on_grid_into(ProductTerms{s.base, b}, s.R, out, accumulate);
  const int64_t i = rows_all_groups<true>(s, out, [](int64_t, __m256 acc, __m256 x, __m256 y, int64_t) {
    return _mm256_fmadd_ps(x, y, acc);
  }, accumulate, b, ahead);
  if (i < s.n) sumprod_any(tail(s, i), b + i * s.s0, out + i, accumulate);
}

int sumprod_rows_side_by_side_avx2(int64_t s0) {
  return sixteen_fit(rows_per_l1_set(s0 * int64_t{sizeof(float)}), 2) ? 16 : 8;
}

void dot_rows_avx2(const Segment& a, const float* v, int64_t v_stride, float* out, bool accumulate) {
  if (v_stride == 1 && line_on_grid(a)) return line_on_grid_into(ProductTerms{a.base, v}, a.R, out, accumulate);
  const int64_t i = rows_all_groups(a, out, [&](int64_t, __m256 acc, __m256 x, int64_t r) {
    return _mm256_fmadd_ps(x, _mm256_broadcast_ss(v + r * v_stride), acc);
  }, accumulate);
  if (i < a.n) dot_any(tail(a, i), v, v_stride, out + i, accumulate);
}

// One contiguous line: the value of the maximum (minimum) does not depend on
// the order of comparisons, so it is found eight lanes at a time in four
// independent chains (one would wait on vmaxps's latency every eight
// elements), with NaN tracked on the side.  Its sign, when it is a zero,
// does depend on the order: the callers take it from the line's first zero.
float extreme_value_avx2(const float* x, int64_t n, bool is_min, bool* has_nan) {
  const auto better = [is_min](__m256 v, __m256 best) {
    return is_min ? _mm256_min_ps(v, best) : _mm256_max_ps(v, best);
  };
  const auto unordered = [](__m256 v) { return _mm256_cmp_ps(v, v, _CMP_UNORD_Q); };
  __m256 best[4], nan[4];
  for (int j = 0; j < 4; ++j) {
    best[j] = _mm256_loadu_ps(x);
    nan[j] = unordered(best[j]);
  }
  int64_t k = 8;
  for (; k + 32 <= n; k += 32) {
    for (int j = 0; j < 4; ++j) {
      const __m256 v = _mm256_loadu_ps(x + k + 8 * j);
      nan[j] = _mm256_or_ps(nan[j], unordered(v));
      best[j] = better(v, best[j]);
    }
  }
  for (; k + 8 <= n; k += 8) {
    const __m256 v = _mm256_loadu_ps(x + k);
    nan[0] = _mm256_or_ps(nan[0], unordered(v));
    best[0] = better(v, best[0]);
  }
  for (int j = 1; j < 4; ++j) {
    nan[0] = _mm256_or_ps(nan[0], nan[j]);
    best[0] = better(best[j], best[0]);
  }
  *has_nan = _mm256_movemask_ps(nan[0]) != 0;
  // The lanes folded by halves, three steps, where a pass over them through
  // memory waited on seven dependent compares (a third of the max over a
  // softmax line of 128 floats).  A NaN's lane may land anywhere: the
  // callers read has_nan first.
  best[0] = better(_mm256_permute2f128_ps(best[0], best[0], 1), best[0]);  // the 128-bit halves swapped
  best[0] = better(_mm256_permute_ps(best[0], 0x4E), best[0]);            // 64-bit pairs swapped
  best[0] = better(_mm256_permute_ps(best[0], 0xB1), best[0]);            // neighbours swapped
  float m = _mm256_cvtss_f32(best[0]);
  for (; k < n; ++k) {
    *has_nan |= x[k] != x[k];
    m = is_min ? std::min(m, x[k]) : std::max(m, x[k]);
  }
  return m;
}

// First position of the line holding `m` (IEEE equality), or of a NaN.
int64_t first_position_avx2(const float* x, int64_t n, float m, bool nan) {
  const __m256 target = _mm256_set1_ps(m);
  int64_t k = 0;
  for (; k + 8 <= n; k += 8) {
    const __m256 v = _mm256_loadu_ps(x + k);
    const int mask = _mm256_movemask_ps(nan ? _mm256_cmp_ps(v, v, _CMP_UNORD_Q) : _mm256_cmp_ps(v, target, _CMP_EQ_OQ));
    if (mask) return k + __builtin_ctz(static_cast<unsigned>(mask));
  }
  for (; k < n; ++k)
    if (nan ? x[k] != x[k] : x[k] == m) break;
  return k;
}

// The result is the element at the first position holding the extreme value
// (or the first NaN), as the scan in the contract would give.
void extremum_line_avx2(const float* x, int64_t n, bool is_min, float* value, int64_t* index) {
  bool nan;
  const float m = extreme_value_avx2(x, n, is_min, &nan);
  const int64_t at = first_position_avx2(x, n, m, nan);
  *value = canonical_nan(x[at]);
  *index = at;
}

// Only the value: the position is needed just for the sign of a zero.
float max_value_avx2(const float* x, int64_t n) {
  if (n < 16) return max_value_portable(x, n);
  bool nan;
  const float m = extreme_value_avx2(x, n, false, &nan);
  if (nan) return canonical_nan(std::numeric_limits<float>::quiet_NaN());
  return m == 0.0f ? x[first_position_avx2(x, n, m, false)] : m;
}

void extremum_rows_avx2(const Segment& s, bool is_min, float* value, int64_t* index) {
  if (s.R < 16) return extremum_any(s, is_min, value, index);
  for (int64_t i = 0; i < s.n; ++i) extremum_line_avx2(s.base + i * s.s0, s.R, is_min, value + i, index + i);
}

}  // namespace

const Kernels kAvx2Kernels = {sum_rows_avx2, sum_cols_portable, sqdev_rows_avx2, sqdev_cols_portable, sumprod_rows_avx2,
                              sumprod_rows_side_by_side_avx2, sumprod_cols_portable,
                              dot_rows_avx2, dot_cols_portable, extremum_rows_avx2, extremum_cols_portable,
                              max_value_avx2, max_rows_by_line<max_value_avx2>, pairsum_contiguous_avx2};

}  // namespace reduce
}  // namespace repdl
#endif

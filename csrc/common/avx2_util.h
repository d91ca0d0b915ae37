// Small AVX2 building blocks shared by the AVX2 and AVX-512 kernel files.
// Include only after the file's `#pragma GCC target(...)`.  They live in an
// anonymous namespace, each file's own copy: the AVX-512 files compile them
// under their target, and an inline function with external linkage would be
// merged by the linker with the AVX2 files' copy (copy_run was, a weak
// symbol in norm_avx2.o and norm_avx512.o; tests/test_isa_sources.py).
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace repdl {
namespace avx2 {
namespace {

// In-register transpose of an 8x8 float block: r[i] lane j <-> r[j] lane i.
inline void transpose8(__m256 r[8]) {
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
  const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
  const __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  const __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  const __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  const __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  r[0] = _mm256_permute2f128_ps(s0, s4, 0x20);
  r[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
  r[2] = _mm256_permute2f128_ps(s2, s6, 0x20);
  r[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
  r[4] = _mm256_permute2f128_ps(s0, s4, 0x31);
  r[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
  r[6] = _mm256_permute2f128_ps(s2, s6, 0x31);
  r[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}

// dst row k (rows ds apart) = column k of the 8 x 8 block at src (rows ss
// apart), whose rows from `rows` on read as +0.0 (a matrix's last rows,
// or padding up to a multiple of eight).
inline void transpose8_block(const float* src, int64_t ss, int64_t rows, float* dst, int64_t ds) {
  __m256 r[8];
  for (int i = 0; i < 8; ++i) r[i] = i < rows ? _mm256_loadu_ps(src + i * ss) : _mm256_setzero_ps();
  transpose8(r);
  for (int k = 0; k < 8; ++k) _mm256_storeu_ps(dst + k * ds, r[k]);
}

// Four floats from a and four from b, side by side (a in the low half): two
// 16-byte broadcast loads and a blend, which use the load ports and any FP
// pipe where vinsertf128 and vperm2f128 take the shuffle pipes.
inline __m256 halves(const float* a, const float* b) {
  return _mm256_blend_ps(_mm256_broadcast_ps(reinterpret_cast<const __m128*>(a)),
                         _mm256_broadcast_ps(reinterpret_cast<const __m128*>(b)), 0xF0);
}

// In-lane 4x4 transpose: c[i] lane j = r[j] lane i in each 128-bit half
// (with r[j] = halves(row j, row j + 4), c[i] holds element i of rows 0-7).
inline void transpose4_halves(const __m256 r[4], __m256 c[4]) {
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  c[0] = _mm256_shuffle_ps(t0, t2, 0x44);
  c[1] = _mm256_shuffle_ps(t0, t2, 0xEE);
  c[2] = _mm256_shuffle_ps(t1, t3, 0x44);
  c[3] = _mm256_shuffle_ps(t1, t3, 0xEE);
}

// Eight rows from row0 (stride s0) as vectors of eight lanes, lane q =
// row q.  columns(k, c) puts elements k..k+3 of the eight rows into
// c[0..3]: each register starts as rows q and q + 4 side by side, from two
// 16-byte broadcast loads and a blend, and an in-lane 4x4 transpose (unpck,
// shufps) finishes the columns: broadcasts use the load ports and blends
// any FP pipe, where block()'s 8x8 transpose moves the 128-bit halves with
// vperm2f128 on the shuffle pipes (reduce's sumprod over 256 x 128, two chains,
// 5.1 -> 4.2 us on Zen 4).  block() reads each 64-byte line in two loads, not
// four, for rows that crowd L1 (reduce's rows_all_groups).  Rows are addressed as
// two bases plus 0-3 strides, which x86 addressing folds into each load: a
// pointer per row was reloaded for every load once two chains ran side by
// side.
struct Rows8 {
  const char* lo;  // row 0
  const char* hi;  // row 4
  int64_t stride, stride3;  // bytes
  Rows8(const float* row0, int64_t s0)
      : lo(reinterpret_cast<const char*>(row0)),
        hi(reinterpret_cast<const char*>(row0 + 4 * s0)),
        stride(s0 * static_cast<int64_t>(sizeof(float))),
        stride3(3 * stride) {}
  static __m256 pair(const char* a, const char* b) {
    return halves(reinterpret_cast<const float*>(a), reinterpret_cast<const float*>(b));
  }
  void columns(int64_t k, __m256 c[4]) const {
    const int64_t at = k * static_cast<int64_t>(sizeof(float));
    const char *l = lo + at, *h = hi + at;
    const __m256 r[4] = {pair(l, h), pair(l + stride, h + stride), pair(l + 2 * stride, h + 2 * stride),
                         pair(l + stride3, h + stride3)};
    transpose4_halves(r, c);
  }
  // Elements k..k+7 of the eight rows, transposed (t[kk] lane q = row q,
  // element k + kk): two loads per 64-byte line, where columns() makes
  // four (rows_all_groups: crowded rows).
  void block(int64_t k, __m256 t[8]) const {
    const int64_t at = k * static_cast<int64_t>(sizeof(float));
    const char *l = lo + at, *h = hi + at;
    const auto row = [](const char* p) { return _mm256_loadu_ps(reinterpret_cast<const float*>(p)); };
    t[0] = row(l), t[1] = row(l + stride), t[2] = row(l + 2 * stride), t[3] = row(l + stride3);
    t[4] = row(h), t[5] = row(h + stride), t[6] = row(h + 2 * stride), t[7] = row(h + stride3);
    transpose8(t);
  }
  __m256 column(int64_t k) const {
    const auto at = [&](const char* row) { return reinterpret_cast<const float*>(row)[k]; };
    return _mm256_setr_ps(at(lo), at(lo + stride), at(lo + 2 * stride), at(lo + stride3), at(hi), at(hi + stride),
                          at(hi + 2 * stride), at(hi + stride3));
  }
};

// n floats from `from` to `to` (32-byte aligned) in a loop: GCC would turn
// it into rep movsq, a memcpy idiom, slow for the short pieces the lane
// kernels copy (45% of norm's chain kernel at 128 floats a piece).
__attribute__((optimize("no-tree-loop-distribute-patterns"))) inline void copy_run(const float* from, int64_t n,
                                                                                   float* to) {
  int64_t k = 0;
  for (; k + 8 <= n; k += 8) _mm256_store_ps(to + k, _mm256_loadu_ps(from + k));
  for (; k < n; ++k) to[k] = from[k];
}

// Lanes that hold NaN become the canonical quiet NaN 0x7FC00000.
inline __m256 canonical_nan8(__m256 v) {
  const __m256 qnan = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FC00000));
  return _mm256_blendv_ps(v, qnan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
}

}  // namespace
}  // namespace avx2
}  // namespace repdl

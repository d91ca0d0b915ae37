// The AVX2 row of every elementwise kernel: four float64 lanes per step
// (eight float32 lanes for the exact kernels).
#if defined(__x86_64__) || defined(__i386__)
#pragma GCC target("avx2,fma")
#include <immintrin.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "elementwise/cr.h"

namespace repdl {
namespace elementwise {
namespace avx2_row {

#include "elementwise/row_avx2.h"
#include "elementwise/kernels.h"

namespace {

// Eight float32 results from the float64 values v0 (inputs xs[0..4)) and v1
// (xs[4..8)): rounded; lanes that may lie within W ulps of a midpoint (the
// low 29 bits near 2^28) or below 2^-126 go to `settle`; NaN canonical.  The
// test needs only the low and high 32-bit halves of each double, so it runs
// on all eight at once.
inline __m256 round_checked(D v0, D v1, const float* xs, const CrTable& t) {
  const __m256 r = _mm256_set_m128(_mm256_cvtpd_ps(v1.v), _mm256_cvtpd_ps(v0.v));
  // Lane order after the shuffles: elements 0 1 4 5 2 3 6 7.
  const __m256i lo = _mm256_castps_si256(_mm256_shuffle_ps(_mm256_castpd_ps(v0.v), _mm256_castpd_ps(v1.v), 0x88));
  const __m256i hi = _mm256_castps_si256(_mm256_shuffle_ps(_mm256_castpd_ps(v0.v), _mm256_castpd_ps(v1.v), 0xDD));
  const int w = static_cast<int>(t.window);
  const __m256i low29 = _mm256_and_si256(_mm256_add_epi32(lo, _mm256_set1_epi32(w - (1 << 28))),
                                         _mm256_set1_epi32((1 << 29) - 1));
  const __m256i far = _mm256_cmpgt_epi32(low29, _mm256_set1_epi32(2 * w));
  const __m256i tiny = _mm256_cmpgt_epi32(_mm256_set1_epi32((1023 - 126) << 20),
                                          _mm256_and_si256(hi, _mm256_set1_epi32(0x7FFFFFFF)));
  const int flags = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_or_si256(_mm256_andnot_si256(far, _mm256_set1_epi32(-1)), tiny)));
  __m256 out = r;
  if (flags != 0) {
    static constexpr int kElement[8] = {0, 1, 4, 5, 2, 3, 6, 7};
    alignas(32) double vs[8];
    alignas(32) float rs[8];
    _mm256_store_pd(vs, v0.v);
    _mm256_store_pd(vs + 4, v1.v);
    _mm256_store_ps(rs, r);
    for (int k = 0; k < 8; ++k) {
      if ((flags >> k) & 1) {
        const int j = kElement[k];
        uint32_t xb;
        std::memcpy(&xb, xs + j, sizeof xb);
        rs[j] = settle(t, xb, vs[j], rs[j]);
      }
    }
    out = _mm256_load_ps(rs);
  }
  return _mm256_blendv_ps(out, _mm256_castsi256_ps(_mm256_set1_epi32(0x7FC00000)), _mm256_cmp_ps(out, out, _CMP_UNORD_Q));
}

template <class S>
void run(const float* x, float* y, int64_t n, const CrTable& t) {
  if constexpr (S::kTable) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
      const D v0 = S::eval(D(_mm256_cvtps_pd(_mm_loadu_ps(x + i))));
      const D v1 = S::eval(D(_mm256_cvtps_pd(_mm_loadu_ps(x + i + 4))));
      _mm256_storeu_ps(y + i, round_checked(v0, v1, x + i, t));
    }
    if (i < n) {  // the tail through the same code, padded
      alignas(32) float xs[8] = {0, 0, 0, 0, 0, 0, 0, 0}, ys[8];
      std::memcpy(xs, x + i, static_cast<size_t>(n - i) * sizeof(float));
      const D v0 = S::eval(D(_mm256_cvtps_pd(_mm_load_ps(xs))));
      const D v1 = S::eval(D(_mm256_cvtps_pd(_mm_load_ps(xs + 4))));
      _mm256_store_ps(ys, round_checked(v0, v1, xs, t));
      std::memcpy(y + i, ys, static_cast<size_t>(n - i) * sizeof(float));
    }
  } else {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) f32_store(y + i, S::eval32(f32_load(x + i)));
    if (i < n) {
      float xs[8] = {1, 1, 1, 1, 1, 1, 1, 1}, ys[8];
      std::memcpy(xs, x + i, static_cast<size_t>(n - i) * sizeof(float));
      f32_store(ys, S::eval32(f32_load(xs)));
      std::memcpy(y + i, ys, static_cast<size_t>(n - i) * sizeof(float));
    }
  }
}

template <class S>
void run64(const float* x, double* y, int64_t n) {
  for (int64_t i = 0; i < n; i += 8) {
    float xs[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    const int64_t m = n - i < 8 ? n - i : 8;
    std::memcpy(xs, x + i, static_cast<size_t>(m) * sizeof(float));
    alignas(32) double ys[8];
    if constexpr (S::kTable) {
      _mm256_store_pd(ys, S::eval(D(_mm256_cvtps_pd(_mm_loadu_ps(xs)))).v);
      _mm256_store_pd(ys + 4, S::eval(D(_mm256_cvtps_pd(_mm_loadu_ps(xs + 4)))).v);
    } else {
      float zs[8];
      _mm256_storeu_ps(zs, S::eval32(f32_load(xs)).v);
      for (int j = 0; j < 8; ++j) ys[j] = zs[j];
    }
    std::memcpy(y + i, ys, static_cast<size_t>(m) * sizeof(double));
  }
}

}  // namespace

#include "elementwise/row_entries.inc"

void pow_int(const float* x, int64_t p, float* y, int64_t n) {
  const uint64_t m = p < 0 ? uint64_t{0} - static_cast<uint64_t>(p) : static_cast<uint64_t>(p);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    F r = f32_splat(1.0f), b = f32_load(x + i);
    for (uint64_t k = m; k != 0;) {
      if (k & 1) r = f32_mul(r, b);
      k >>= 1;
      if (k != 0) b = f32_mul(b, b);
    }
    if (p < 0) r = f32_div(f32_splat(1.0f), r);
    f32_store(y + i, r);
  }
  if (i < n) generic_row::pow_int(x + i, p, y + i, n - i);
}

}  // namespace avx2_row
}  // namespace elementwise
}  // namespace repdl

#else  // not x86: the AVX2 row is never selected; forward to the generic row.
#include "elementwise/cr.h"
namespace repdl {
namespace elementwise {
namespace avx2_row {
#define REPDL_FORWARD(name, S) \
  void name(const float* x, float* y, int64_t n) { generic_row::name(x, y, n); }
REPDL_ELEMENTWISE_UNARY(REPDL_FORWARD)
#undef REPDL_FORWARD
void eval64(Unary f, const float* x, double* y, int64_t n) { generic_row::eval64(f, x, y, n); }
void pow_int(const float* x, int64_t p, float* y, int64_t n) { generic_row::pow_int(x, p, y, n); }
}  // namespace avx2_row
}  // namespace elementwise
}  // namespace repdl
#endif

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

// Four float32 results from four float64 values v of inputs xs: rounded, the
// lanes that may lie within W ulps of a midpoint (or below 2^-126) settled
// against the table, NaN canonical.
inline __m128 round_checked(D v, const float* xs, const CrTable& t) {
  __m128 r = _mm256_cvtpd_ps(v.v);
  const __m256i b = _mm256_castpd_si256(v.v);
  const __m256i w = _mm256_set1_epi64x(t.window);
  const __m256i low = _mm256_and_si256(_mm256_add_epi64(b, _mm256_sub_epi64(w, _mm256_set1_epi64x(1 << 28))),
                                       _mm256_set1_epi64x((1 << 29) - 1));
  const __m256i far = _mm256_cmpgt_epi64(low, _mm256_add_epi64(w, w));
  const __m256i mag = _mm256_and_si256(b, _mm256_set1_epi64x(0x7FFFFFFFFFFFFFFFll));
  const __m256i tiny = _mm256_cmpgt_epi64(_mm256_set1_epi64x(static_cast<long long>(1023 - 126) << 52), mag);
  const int flags = _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_or_si256(_mm256_andnot_si256(far, _mm256_set1_epi64x(-1)), tiny)));
  if (flags != 0) {
    alignas(32) double vs[4];
    alignas(16) float rs[4];
    _mm256_store_pd(vs, v.v);
    _mm_store_ps(rs, r);
    for (int j = 0; j < 4; ++j) {
      if ((flags >> j) & 1) {
        uint32_t xb;
        std::memcpy(&xb, xs + j, sizeof xb);
        rs[j] = settle(t, xb, vs[j], rs[j]);
      }
    }
    r = _mm_load_ps(rs);
  }
  return _mm_blendv_ps(r, _mm_castsi128_ps(_mm_set1_epi32(0x7FC00000)), _mm_cmpunord_ps(r, r));
}

template <class S>
void run(const float* x, float* y, int64_t n, const CrTable& t) {
  if constexpr (S::kTable) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
      const D v0 = S::eval(D(_mm256_cvtps_pd(_mm_loadu_ps(x + i))));
      const D v1 = S::eval(D(_mm256_cvtps_pd(_mm_loadu_ps(x + i + 4))));
      _mm_storeu_ps(y + i, round_checked(v0, x + i, t));
      _mm_storeu_ps(y + i + 4, round_checked(v1, x + i + 4, t));
    }
    for (; i < n; i += 4) {  // the tail through the same code, padded
      alignas(16) float xs[4] = {0.0f, 0.0f, 0.0f, 0.0f}, ys[4];
      const int64_t m = n - i < 4 ? n - i : 4;
      std::memcpy(xs, x + i, static_cast<size_t>(m) * sizeof(float));
      const D v = S::eval(D(_mm256_cvtps_pd(_mm_load_ps(xs))));
      _mm_store_ps(ys, round_checked(v, xs, t));
      std::memcpy(y + i, ys, static_cast<size_t>(m) * sizeof(float));
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

#define REPDL_DEFINE(name, S) \
  void name(const float* x, float* y, int64_t n) { run<S>(x, y, n, table(Unary::name)); }
REPDL_ELEMENTWISE_UNARY(REPDL_DEFINE)
#undef REPDL_DEFINE

void eval64(Unary f, const float* x, double* y, int64_t n) {
  switch (f) {
#define REPDL_CASE(name, S) \
  case Unary::name:         \
    return run64<S>(x, y, n);
    REPDL_ELEMENTWISE_UNARY(REPDL_CASE)
#undef REPDL_CASE
    default:
      return;
  }
}

void div(const float* a, const float* b, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) f32_store(y + i, f32_div(f32_load(a + i), f32_load(b + i)));
  if (i < n) generic_row::div(a + i, b + i, y + i, n - i);
}
void div_scalar_rhs(const float* a, float b, float* y, int64_t n) {
  int64_t i = 0;
  const F bv = f32_splat(b);
  for (; i + 8 <= n; i += 8) f32_store(y + i, f32_div(f32_load(a + i), bv));
  if (i < n) generic_row::div_scalar_rhs(a + i, b, y + i, n - i);
}
void div_scalar_lhs(float a, const float* b, float* y, int64_t n) {
  int64_t i = 0;
  const F av = f32_splat(a);
  for (; i + 8 <= n; i += 8) f32_store(y + i, f32_div(av, f32_load(b + i)));
  if (i < n) generic_row::div_scalar_lhs(a, b + i, y + i, n - i);
}

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
void div(const float* a, const float* b, float* y, int64_t n) { generic_row::div(a, b, y, n); }
void div_scalar_rhs(const float* a, float b, float* y, int64_t n) { generic_row::div_scalar_rhs(a, b, y, n); }
void div_scalar_lhs(float a, const float* b, float* y, int64_t n) { generic_row::div_scalar_lhs(a, b, y, n); }
void pow_int(const float* x, int64_t p, float* y, int64_t n) { generic_row::pow_int(x, p, y, n); }
}  // namespace avx2_row
}  // namespace elementwise
}  // namespace repdl
#endif

// TEMPORARY bodies: float64 libm rounded to float32 (not yet correctly
// rounded on hard cases).  Replaced by the table-checked kernels.
#include <cmath>

#include "common/nan.h"
#include "common/parallel.h"
#include "elementwise/elementwise.h"

namespace repdl {
namespace elementwise {
namespace {

template <class F>
void map(const float* x, float* y, int64_t n, F f) {
  IeeeFpGuard guard;
  for (int64_t i = 0; i < n; ++i) y[i] = canonical_nan(static_cast<float>(f(static_cast<double>(x[i]))));
}

}  // namespace

void exp(const float* x, float* y, int64_t n) { map(x, y, n, [](double v) { return std::exp(v); }); }
void exp2(const float* x, float* y, int64_t n) { map(x, y, n, [](double v) { return std::exp2(v); }); }
void expm1(const float* x, float* y, int64_t n) { map(x, y, n, [](double v) { return std::expm1(v); }); }
void log(const float* x, float* y, int64_t n) { map(x, y, n, [](double v) { return std::log(v); }); }
void log2(const float* x, float* y, int64_t n) { map(x, y, n, [](double v) { return std::log2(v); }); }
void log10(const float* x, float* y, int64_t n) { map(x, y, n, [](double v) { return std::log10(v); }); }
void log1p(const float* x, float* y, int64_t n) { map(x, y, n, [](double v) { return std::log1p(v); }); }
void sqrt(const float* x, float* y, int64_t n) { map(x, y, n, [](double v) { return std::sqrt(v); }); }
void rsqrt(const float* x, float* y, int64_t n) { map(x, y, n, [](double v) { return 1.0 / std::sqrt(v); }); }
void reciprocal(const float* x, float* y, int64_t n) { map(x, y, n, [](double v) { return 1.0 / v; }); }
void sin(const float* x, float* y, int64_t n) { map(x, y, n, [](double v) { return std::sin(v); }); }
void cos(const float* x, float* y, int64_t n) { map(x, y, n, [](double v) { return std::cos(v); }); }

void div(const float* a, const float* b, float* y, int64_t n) {
  IeeeFpGuard guard;
  for (int64_t i = 0; i < n; ++i) y[i] = canonical_nan(a[i] / b[i]);
}
void div_scalar_rhs(const float* a, float b, float* y, int64_t n) {
  IeeeFpGuard guard;
  for (int64_t i = 0; i < n; ++i) y[i] = canonical_nan(a[i] / b);
}
void div_scalar_lhs(float a, const float* b, float* y, int64_t n) {
  IeeeFpGuard guard;
  for (int64_t i = 0; i < n; ++i) y[i] = canonical_nan(a / b[i]);
}
void pow_int(const float* x, int64_t p, float* y, int64_t n) {
  IeeeFpGuard guard;
  const uint64_t m = p < 0 ? 0 - static_cast<uint64_t>(p) : static_cast<uint64_t>(p);
  for (int64_t i = 0; i < n; ++i) {
    float r = 1.0f, b = x[i];
    for (uint64_t k = m; k != 0; k >>= 1) {
      if (k & 1) r = r * b;
      if (k > 1) b = b * b;
    }
    if (p < 0) r = 1.0f / r;
    y[i] = canonical_nan(r);
  }
}

namespace {
const char* const kNames[] = {"exp", "exp2", "expm1", "log", "log2", "log10", "log1p",
                              "sqrt", "rsqrt", "reciprocal", "sin", "cos"};
const UnaryFn kFns[] = {exp, exp2, expm1, log, log2, log10, log1p, sqrt, rsqrt, reciprocal, sin, cos};
constexpr int64_t kGrain = int64_t{1} << 15;
}  // namespace

const char* unary_name(Unary f) { return kNames[static_cast<int>(f)]; }
UnaryFn unary(Unary f) { return kFns[static_cast<int>(f)]; }

void unary_threaded(Unary f, const float* x, float* y, int64_t n) {
  const UnaryFn fn = unary(f);
  parallel_ranges(n, threads_for(n, kGrain), [&](int64_t b, int64_t e) { fn(x + b, y + b, e - b); });
}
void div_threaded(const float* a, const float* b, float* y, int64_t n) {
  parallel_ranges(n, threads_for(n, kGrain), [&](int64_t i, int64_t e) { div(a + i, b + i, y + i, e - i); });
}
void div_scalar_rhs_threaded(const float* a, float b, float* y, int64_t n) {
  parallel_ranges(n, threads_for(n, kGrain), [&](int64_t i, int64_t e) { div_scalar_rhs(a + i, b, y + i, e - i); });
}
void div_scalar_lhs_threaded(float a, const float* b, float* y, int64_t n) {
  parallel_ranges(n, threads_for(n, kGrain), [&](int64_t i, int64_t e) { div_scalar_lhs(a, b + i, y + i, e - i); });
}
void pow_int_threaded(const float* x, int64_t p, float* y, int64_t n) {
  parallel_ranges(n, threads_for(n, kGrain), [&](int64_t i, int64_t e) { pow_int(x + i, p, y + i, e - i); });
}

}  // namespace elementwise
}  // namespace repdl

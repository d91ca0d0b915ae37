// The parametrised activations (CONTRACT.md section 6): softplus with beta
// and threshold, elu and celu with alpha.  A real function with a float32
// parameter cannot have one hard-case table per parameter value, so for
// parameters other than the defaults each is a fixed sequence of correctly
// rounded steps around a correctly rounded unary function (softplus,
// expm1).  At the defaults the sequence gives exactly the correctly rounded
// function (the Python layer then calls the unary kernel directly).
//
// Portable float32 code: `*`, `/` and `>` are IEEE-754 operations, one
// rounding each and the same bits on every instruction set (contraction is
// off, so the compiler may vectorise but not fuse); the unary steps pick
// their row themselves.
#include <algorithm>
#include <cstdint>

#include "common/parallel.h"
#include "elementwise/elementwise.h"
#include "elementwise/select.h"

namespace repdl {
namespace elementwise {
namespace {
constexpr int64_t kBlock = 1024;              // elements per pass over the steps
}  // namespace

// t = fl32(beta x); y = x if t > threshold, else fl32(softplus(t) / beta).
void softplus_param(const float* x, float beta, float threshold, float* y, int64_t n) {
  float t[kBlock], s[kBlock];
  const bool never = is_nan(bits_of(threshold));  // t > NaN is false
  const int32_t h = order_key(bits_of(threshold));
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t m = std::min(kBlock, n - b);
    for (int64_t i = 0; i < m; ++i) t[i] = x[b + i] * beta;
    softplus(t, s, m);
    for (int64_t i = 0; i < m; ++i) {
      const uint32_t tb = bits_of(t[i]);
      const uint32_t linear = all_if(!never && !is_nan(tb) && order_key(tb) > h);  // t > threshold
      y[b + i] = pick(linear, x[b + i], s[i] / beta);
    }
  }
}

// y = x if x > 0, else fl32(alpha expm1(x)).
void elu_param(const float* x, float alpha, float* y, int64_t n) {
  float e[kBlock];
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t m = std::min(kBlock, n - b);
    expm1(x + b, e, m);
    for (int64_t i = 0; i < m; ++i) y[b + i] = pick(all_if(positive(bits_of(x[b + i]))), x[b + i], alpha * e[i]);
  }
}

// y = x if x > 0, else fl32(alpha expm1(fl32(x / alpha))).
void celu_param(const float* x, float alpha, float* y, int64_t n) {
  float t[kBlock];
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t m = std::min(kBlock, n - b);
    for (int64_t i = 0; i < m; ++i) t[i] = x[b + i] / alpha;
    expm1(t, t, m);
    for (int64_t i = 0; i < m; ++i) y[b + i] = pick(all_if(positive(bits_of(x[b + i]))), x[b + i], alpha * t[i]);
  }
}

void softplus_param_threaded(const float* x, float beta, float threshold, float* y, int64_t n) {
  parallel_ranges(n, threads_for(n, grain(Unary::softplus)),
                  [&](int64_t b, int64_t e) { softplus_param(x + b, beta, threshold, y + b, e - b); });
}
void elu_param_threaded(const float* x, float alpha, float* y, int64_t n) {
  parallel_ranges(n, threads_for(n, grain(Unary::elu)), [&](int64_t b, int64_t e) { elu_param(x + b, alpha, y + b, e - b); });
}
void celu_param_threaded(const float* x, float alpha, float* y, int64_t n) {
  parallel_ranges(n, threads_for(n, grain(Unary::elu)), [&](int64_t b, int64_t e) { celu_param(x + b, alpha, y + b, e - b); });
}

}  // namespace elementwise
}  // namespace repdl

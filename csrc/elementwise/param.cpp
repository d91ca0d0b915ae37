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
#include <cstring>

#include "common/parallel.h"
#include "elementwise/elementwise.h"

namespace repdl {
namespace elementwise {
namespace {
constexpr int64_t kBlock = 1024;              // elements per pass over the steps
constexpr int64_t kGrain = int64_t{1} << 14;  // elements per thread, at least

// The selections below are integer operations on bit patterns: a
// floating-point compare-and-branch per element costs more than the
// arithmetic when the signs are random, and GCC will not if-convert float
// comparisons (they may trap); integer selects vectorise.
inline uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
inline float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
inline uint32_t all_if(bool c) { return c ? ~0u : 0u; }
// a > 0 for the float with bits a (false for +-0 and NaN).
inline bool positive(uint32_t a) { return a - 1u < 0x7F800000u; }
inline bool is_nan(uint32_t a) { return (a & 0x7FFFFFFFu) > 0x7F800000u; }
// A signed integer ordered like the float (+0 and -0 equal), for non-NaN a.
inline int32_t order_key(uint32_t a) {
  const int32_t s = static_cast<int32_t>(a) >> 31;
  return (static_cast<int32_t>(a & 0x7FFFFFFFu) ^ s) - s;
}
// m ? a : b, with a NaN result made the canonical 0x7FC00000.
inline float pick(uint32_t m, float a, float b) {
  const uint32_t r = (bits_of(a) & m) | (bits_of(b) & ~m);
  return float_of(is_nan(r) ? 0x7FC00000u : r);
}
}  // namespace

// t = fl32(beta x); y = x if t > threshold, else fl32(softplus(t) / beta).
void softplus_param(const float* x, float beta, float threshold, float* y, int64_t n) {
  IeeeFpGuard guard;
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
  IeeeFpGuard guard;
  float e[kBlock];
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t m = std::min(kBlock, n - b);
    expm1(x + b, e, m);
    for (int64_t i = 0; i < m; ++i) y[b + i] = pick(all_if(positive(bits_of(x[b + i]))), x[b + i], alpha * e[i]);
  }
}

// y = x if x > 0, else fl32(alpha expm1(fl32(x / alpha))).
void celu_param(const float* x, float alpha, float* y, int64_t n) {
  IeeeFpGuard guard;
  float t[kBlock];
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t m = std::min(kBlock, n - b);
    for (int64_t i = 0; i < m; ++i) t[i] = x[b + i] / alpha;
    expm1(t, t, m);
    for (int64_t i = 0; i < m; ++i) y[b + i] = pick(all_if(positive(bits_of(x[b + i]))), x[b + i], alpha * t[i]);
  }
}

void softplus_param_threaded(const float* x, float beta, float threshold, float* y, int64_t n) {
  parallel_ranges(n, threads_for(n, kGrain),
                  [&](int64_t b, int64_t e) { softplus_param(x + b, beta, threshold, y + b, e - b); });
}
void elu_param_threaded(const float* x, float alpha, float* y, int64_t n) {
  parallel_ranges(n, threads_for(n, kGrain), [&](int64_t b, int64_t e) { elu_param(x + b, alpha, y + b, e - b); });
}
void celu_param_threaded(const float* x, float alpha, float* y, int64_t n) {
  parallel_ranges(n, threads_for(n, kGrain), [&](int64_t b, int64_t e) { celu_param(x + b, alpha, y + b, e - b); });
}

}  // namespace elementwise
}  // namespace repdl

// The generic (portable, one lane) row of every elementwise kernel.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "common/nan.h"
#include "elementwise/cr.h"

namespace repdl {
namespace elementwise {
namespace generic_row {

#include "elementwise/row_generic.h"
#include "elementwise/kernels.h"

namespace {

uint32_t bits32(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

// The quick test of the AVX2 row, lane by lane: v may lie within W ulps of a
// midpoint (normal float32 range), or is below 2^-126 (settle decides).
inline bool maybe_near(double v, uint32_t w) {
  const uint64_t b = bits(v);
  const uint64_t t = (b + (uint64_t{w} - (uint64_t{1} << 28))) & ((uint64_t{1} << 29) - 1);
  return t <= 2 * uint64_t{w} || (b & 0x7FFFFFFFFFFFFFFFull) < (uint64_t{1023 - 126} << 52);
}

// Results per step of an Ahead (cr.h).
constexpr int64_t kStep = 256;

template <class S>
void run(const float* x, float* y, int64_t n, const CrTable& t, Ahead ahead = {}) {
  if constexpr (S::kTable) {
    for (int64_t start = 0; start < n; start += kStep) {  // a step of the Ahead per kStep results
      ahead.step();
      for (int64_t i = start; i < std::min(n, start + kStep); ++i) {
        const float xi = x[i];
        const double v = S::eval(static_cast<double>(xi));
        float r = static_cast<float>(v);
        if (maybe_near(v, t.window)) r = settle(t, bits32(xi), v, r);
        y[i] = canonical_nan(r);
      }
    }
  } else {
    for (int64_t i = 0; i < n; ++i) f32_store(y + i, S::eval32(x[i]));
  }
  ahead.rest();
}

void run_silu_sigmoid(const float* x, float* y, float* s, int64_t n) {
  run<Silu>(x, y, n, table(Unary::silu));
  run<Sigmoid>(x, s, n, table(Unary::sigmoid));
}

template <class S>
void run64(const float* x, double* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (S::kTable) y[i] = S::eval(static_cast<double>(x[i]));
    else y[i] = static_cast<double>(S::eval32(x[i]));
  }
}

}  // namespace

#include "elementwise/row_entries.inc"

void pow_int(const float* x, int64_t p, float* y, int64_t n) {
  const uint64_t m = p < 0 ? uint64_t{0} - static_cast<uint64_t>(p) : static_cast<uint64_t>(p);
  for (int64_t i = 0; i < n; ++i) {
    F r = 1.0f, b = x[i];
    for (uint64_t k = m; k != 0;) {
      if (k & 1) r = f32_mul(r, b);
      k >>= 1;
      if (k != 0) b = f32_mul(b, b);
    }
    if (p < 0) r = f32_div(1.0f, r);
    f32_store(y + i, r);
  }
}

}  // namespace generic_row
}  // namespace elementwise
}  // namespace repdl

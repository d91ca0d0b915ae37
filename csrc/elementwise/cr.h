// Internal pieces shared by the instruction-set rows of csrc/elementwise.
//
// How a correctly rounded value is produced (docs/elementwise.md): a row
// evaluates f(x) in float64 with error below the function's runtime window W
// (float64 ulps), rounds it to float32, and when the float64 value lies
// within W ulps of a float32 rounding midpoint asks `settle`, which looks x
// up in the function's hard-case table (src/repdl/crtables/<name>.inc).
//
// Everything declared here is defined once, in portable code (tables.cpp),
// and called from every row, so no row can disagree with another about it.
#pragma once

#include <cstdint>

#include "elementwise/elementwise.h"

namespace repdl {
namespace elementwise {

// Every unary function, in the order of `Unary`: X(name, kernel struct).
// A kernel struct is written once over a row's vocabulary (fn/*.h).
#define REPDL_ELEMENTWISE_UNARY(X)                                                               \
  X(exp, Exp) X(exp2, Exp2) X(expm1, Expm1) X(log, Log) X(log2, Log2) X(log10, Log10)            \
  X(log1p, Log1p) X(sqrt, Sqrt) X(rsqrt, Rsqrt) X(reciprocal, Reciprocal) X(sin, Sin) X(cos, Cos) \
  X(tanh, Tanh) X(sigmoid, Sigmoid) X(logsigmoid, Logsigmoid) \
  X(erf, Erf) X(erfc, Erfc) \
  X(gelu, Gelu) \
  X(gelu_tanh, GeluTanh) \
  X(softplus, Softplus) X(silu, Silu) X(mish, Mish) X(elu, Elu) X(selu, Selu)

// A function's hard cases: `count` (input bits, result bits) pairs sorted by
// input bits; `window` is W.  Functions that need no table have count 0.
struct CrTable {
  uint32_t window;
  uint32_t count;
  const uint32_t* pairs;
};

const CrTable& table(Unary f);

// |v - nearest float32 rounding midpoint|, in units of v's last bit; for
// |v| < 2^-126 the midpoints are those of the subnormal grid.  A large
// number for zero, infinities and NaN.
uint64_t midpoint_distance(double v);

// The correctly rounded result for the input with bit pattern `xbits`, given
// `v` (its float64 evaluation, error <= t.window ulps) and r = (float)v: the
// table's result when v lies within the window and x is listed, else r.
float settle(const CrTable& t, uint32_t xbits, double v, float r);

// sin/cos argument reduction for finite |x| >= 2^20 (Payne-Hanek with 126
// bits of 2/pi, integer arithmetic): returns r and sets *q to k mod 4 with
// x = k*pi/2 + r, |r| <= pi/4; |error of r| <= 2^-52 |r|.
double reduce_pio2_large(float x, int64_t* q);

// The cache lines a row asks for while it computes (elementwise.h's
// exp_prefetching): `lines` 64-byte lines from `a` (and as many from `b`,
// when given), a share at each of the row's steps (a chunk of results), so
// that their memory latency overlaps the arithmetic; whatever is left when
// the row ends goes at once.
class Ahead {
 public:
  Ahead() = default;
  // [a, a + bytes) and [b, b + bytes) over the n / per_step + 1 steps of n results.
  Ahead(const void* a, const void* b, int64_t bytes, int64_t n, int64_t per_step)
      : a_(static_cast<const char*>(a)), b_(static_cast<const char*>(b)), lines_(a ? (bytes + 63) / 64 : 0) {
    const int64_t steps = n / per_step + 1;
    per_step_ = (lines_ + steps - 1) / steps;
  }
  void step() { ask(per_step_); }
  void rest() { ask(lines_); }

 private:
  void ask(int64_t k) {
    for (; k > 0 && lines_ > 0; --k, --lines_, a_ += 64) {
      __builtin_prefetch(a_, 0, 3);
      if (b_) {
        __builtin_prefetch(b_, 0, 3);
        b_ += 64;
      }
    }
  }
  const char *a_ = nullptr, *b_ = nullptr;
  int64_t lines_ = 0, per_step_ = 0;
};

// The raw float64 evaluation that a row rounds (for error measurements):
// y[i] = the row's f(x[i]) before rounding; for sqrt and reciprocal, the
// float32 result.
void eval64(Unary f, const float* x, double* y, int64_t n);

namespace generic_row {
#include "elementwise/row_api.inc"
}  // namespace generic_row

namespace avx2_row {
#include "elementwise/row_api.inc"
}  // namespace avx2_row

namespace avx512_row {
#include "elementwise/row_api.inc"
}  // namespace avx512_row

}  // namespace elementwise
}  // namespace repdl

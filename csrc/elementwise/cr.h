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

#include "common/prefetch.h"
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

// Elementwise float32 arithmetic with the contract's rounding: the IEEE-754
// operations + - * / (one rounding each) and the single-rounding fma32, over
// broadcast strided operands (docs/CONTRACT.md, sections 1 and 6).  Every
// NaN written is the canonical 0x7FC00000; subnormals are kept whatever the
// caller's FTZ/DAZ state.
//
// Operands are described by an Iter: a row-major index space of `ndim` dims
// and, per input, one element stride per dim (0 where it is broadcast).  The
// output is dense in that index space and may alias an input that is itself
// dense with the output's layout (in-place updates).
#pragma once

#include <cstdint>

#include "common/isa.h"

namespace repdl {
namespace arith {

enum class Binary : int { add = 0, sub = 1, mul = 2, div = 3 };
enum class Compare : int { gt = 0, ge = 1, lt = 2, le = 3 };

constexpr int kMaxDims = 64;  // torch's limit on a tensor's rank

template <int N>
struct Iter {
  int ndim;
  int64_t sizes[kMaxDims];
  const float* in[N];
  int64_t strides[N][kMaxDims];
};

// y = a OP b; it.in = {a, b}.
void binary(Binary op, const Iter<2>& it, float* y);
// y = a OP s (scalar_left false) or s OP a (true); it.in = {a}.
void binary_scalar(Binary op, const Iter<1>& it, float s, bool scalar_left, float* y);
// y = fma32(a, b, c); it.in = {a, b, c}.
void fma(const Iter<3>& it, float* y);
// mask[i] = x[i] OP h for dense x (1 or 0 bytes); IEEE comparisons, so a
// NaN compares false and, with DAZ off, a subnormal is not zero.
void compare(const float* x, int64_t n, Compare op, float h, uint8_t* mask);

// dx[i] = g[i] where lo < x[i] < hi (inclusive: lo <= x[i] <= hi), else
// +0.0 -- clamp's gradient; x and g dense of n elements.
void clamp_backward(const float* x, const float* g, int64_t n, float lo, float hi, bool inclusive, float* dx);

// a = lo if x < lo else x; y = hi if a > hi else a (so a zero of either sign
// inside [lo, hi] is kept, NaN stays NaN, and lo > hi gives hi); it.in = {x}.
void clamp(const Iter<1>& it, float lo, float hi, float* y);

// One contiguous run of n outputs with the inputs' innermost strides: the
// per-ISA kernels behind the entry points above.
struct Rows {
  void (*binary)(Binary op, const float* a, int64_t sa, const float* b, int64_t sb, float* y, int64_t n);
  void (*fma)(const float* a, int64_t sa, const float* b, int64_t sb, const float* c, int64_t sc, float* y,
              int64_t n);
  void (*clamp)(const float* x, int64_t sx, float lo, float hi, float* y, int64_t n);
  void (*compare)(const float* x, int64_t n, Compare op, float h, uint8_t* mask);
  void (*clamp_backward)(const float* x, const float* g, int64_t n, float lo, float hi, bool inclusive, float* dx);
};
extern const Rows kGenericRows;
extern const Rows kAvx2Rows;
// The row kernels of the active instruction set, for callers that run
// their own runs on their own threads (a convolution's bias, job by job).
const Rows& rows();

}  // namespace arith
}  // namespace repdl

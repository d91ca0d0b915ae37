// Correctly rounded float32 elementwise functions: the C++ API.
//
// Every function returns, for every float32 input, the float32 value nearest
// (ties to even) to the exact mathematical result (docs/CONTRACT.md, section
// 6).  Every NaN written is the canonical 0x7FC00000.  Subnormal inputs and
// outputs, +-0 and +-inf follow IEEE-754.
//
// The serial functions work on dense arrays of n floats; `y` may equal `x`
// (in place) but must not otherwise overlap it.  They do not start threads:
// a kernel that threads over its own outputs (softmax, random numbers) calls
// them from inside its parallel region on its own slice.  They pick the
// instruction set (repdl::active_isa()) inside and give the same bits on
// every row; they run under the IEEE environment that their binding
// (pyargs.h, kernel_call) or parallel region holds, so the caller's MXCSR
// (FTZ/DAZ) cannot change a result.
//
// The `*_threaded` entry points split [0, n) over OpenMP threads; the Python
// bindings use them.
#pragma once

#include <cstdint>

namespace repdl {
namespace elementwise {

// ---- correctly rounded unary functions (serial) ---------------------------
void exp(const float* x, float* y, int64_t n);
void exp2(const float* x, float* y, int64_t n);
void expm1(const float* x, float* y, int64_t n);
void log(const float* x, float* y, int64_t n);
void log2(const float* x, float* y, int64_t n);
void log10(const float* x, float* y, int64_t n);
void log1p(const float* x, float* y, int64_t n);
void sqrt(const float* x, float* y, int64_t n);
void rsqrt(const float* x, float* y, int64_t n);
void reciprocal(const float* x, float* y, int64_t n);
void sin(const float* x, float* y, int64_t n);
void cos(const float* x, float* y, int64_t n);
void tanh(const float* x, float* y, int64_t n);
void sigmoid(const float* x, float* y, int64_t n);
void logsigmoid(const float* x, float* y, int64_t n);
void erf(const float* x, float* y, int64_t n);
void erfc(const float* x, float* y, int64_t n);
void gelu(const float* x, float* y, int64_t n);
void gelu_tanh(const float* x, float* y, int64_t n);
void softplus(const float* x, float* y, int64_t n);
void silu(const float* x, float* y, int64_t n);
void mish(const float* x, float* y, int64_t n);
void elu(const float* x, float* y, int64_t n);
void selu(const float* x, float* y, int64_t n);

// exp(x) into y, the same bits as exp(), while the `bytes` bytes from `a`
// on (none if a is null), and as many from `b` (if not null), are asked into
// cache a few lines at a time, spread over the computation.  For a caller
// that reads those bytes next (softmax's next group of lines, its gradient's
// next lines of y and g): asked for in one burst, or left to the hardware,
// they arrived while nothing else ran; spread over the exponential, their
// memory latency hides behind its arithmetic.
void exp_prefetching(const float* x, float* y, int64_t n, const void* a, const void* b, int64_t bytes);

// ---- binary and parametrised (serial) -------------------------------------
// y[i] = pow(x[i], p) for an integer p, in the contract's fixed order of
// float32 multiplications (square-and-multiply from the lowest bit of |p|;
// a negative p ends with one division 1 / x^|p|).
void pow_int(const float* x, int64_t p, float* y, int64_t n);
// Parametrised activations (CONTRACT.md section 6): fixed sequences of
// correctly rounded steps (param.cpp).  softplus_param: t = fl32(beta x);
// y = x if t > threshold, else fl32(softplus(t) / beta).  elu_param: y = x if
// x > 0, else fl32(alpha expm1(x)).  celu_param: y = x if x > 0, else
// fl32(alpha expm1(fl32(x / alpha))).
void softplus_param(const float* x, float beta, float threshold, float* y, int64_t n);
void elu_param(const float* x, float alpha, float* y, int64_t n);
void celu_param(const float* x, float alpha, float* y, int64_t n);

// ---- by number: the registry the bindings and tests use --------------------
// Unary functions in a fixed order; unary_name(i) is the function's name.
enum class Unary : int {
  exp, exp2, expm1, log, log2, log10, log1p, sqrt, rsqrt, reciprocal, sin, cos,
  tanh, sigmoid, logsigmoid,
  erf, erfc,
  gelu,
  gelu_tanh,
  softplus, silu, mish, elu, selu,
  count
};
const char* unary_name(Unary f);
using UnaryFn = void (*)(const float*, float*, int64_t);
UnaryFn unary(Unary f);

// ---- threaded entry points (split over elements) ---------------------------
// The fewest elements a thread takes of f's forward or backward: a share
// worth waking another thread for (api.cpp).
int64_t grain(Unary f);
void unary_threaded(Unary f, const float* x, float* y, int64_t n);
// silu(x) into y and sigmoid(x) into s (the buffers must not overlap x):
// what silu's forward computes when its backward will need sigmoid(x).
void silu_sigmoid(const float* x, float* y, float* s, int64_t n);
void silu_sigmoid_threaded(const float* x, float* y, float* s, int64_t n);
void pow_int_threaded(const float* x, int64_t p, float* y, int64_t n);
void softplus_param_threaded(const float* x, float beta, float threshold, float* y, int64_t n);
void elu_param_threaded(const float* x, float alpha, float* y, int64_t n);
void celu_param_threaded(const float* x, float alpha, float* y, int64_t n);

// dx = the contract's backward formula of f at input x, output y = f(x) and
// output gradient g (grad_blocks.inc, one row per ISA), in one pass.
void unary_grad_threaded(Unary f, const float* g, const float* x, const float* y, float* dx, int64_t n);

}  // namespace elementwise
}  // namespace repdl

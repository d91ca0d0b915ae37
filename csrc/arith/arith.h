// Elementwise float32 arithmetic that PyTorch does not provide with the
// contract's rounding (today: the single-rounding fma32).
#pragma once

#include <cstdint>

#include "common/isa.h"

namespace repdl {
namespace arith {

// y = fma(a, b, c) elementwise over n dense floats, NaN canonical; threaded.
void fma(const float* a, const float* b, const float* c, float* y, int64_t n);

// y[i, j] = y[i, j] + bias[j * bias_stride] over an (m, n) dense y, one
// rounding each, NaN canonical; threaded (linear's bias).
void add_bias(float* y, int64_t m, int64_t n, const float* bias, int64_t bias_stride);

void fma_generic(const float* a, const float* b, const float* c, float* y, int64_t n);
void fma_avx2(const float* a, const float* b, const float* c, float* y, int64_t n);

}  // namespace arith
}  // namespace repdl

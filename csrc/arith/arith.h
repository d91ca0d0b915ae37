// Elementwise float32 arithmetic that PyTorch does not provide with the
// contract's rounding (today: the single-rounding fma32).
#pragma once

#include <cstdint>

#include "common/isa.h"

namespace repdl {
namespace arith {

// y = fma(a, b, c) elementwise over n dense floats, NaN canonical; threaded.
void fma(const float* a, const float* b, const float* c, float* y, int64_t n);

void fma_generic(const float* a, const float* b, const float* c, float* y, int64_t n);
void fma_avx2(const float* a, const float* b, const float* c, float* y, int64_t n);

}  // namespace arith
}  // namespace repdl

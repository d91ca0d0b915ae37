// The rows of the fused backward (grad_blocks.inc compiled once per
// instruction set): dx[0..n) for f, on the calling thread.  The rows differ
// in vector width only; every step is the same IEEE float32 operation, so
// they give the same bits (tests force each row).
#pragma once

#include <cstdint>

#include "elementwise/elementwise.h"

namespace repdl {
namespace elementwise {

void grad_range_generic(Unary f, const float* g, const float* x, const float* y, float* dx, int64_t n);
void grad_range_avx2(Unary f, const float* g, const float* x, const float* y, float* dx, int64_t n);
void grad_range_avx512(Unary f, const float* g, const float* x, const float* y, float* dx, int64_t n);

}  // namespace elementwise
}  // namespace repdl

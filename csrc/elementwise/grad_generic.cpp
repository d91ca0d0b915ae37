// Portable row of the fused backward.
#include <algorithm>
#include <cstdint>

#include "elementwise/grad.h"
#include "elementwise/select.h"

namespace repdl {
namespace elementwise {
namespace {
#include "elementwise/grad_blocks.inc"
}  // namespace

void grad_range_generic(Unary f, const float* g, const float* x, const float* y, float* dx, int64_t n) {
  grad_range(f, g, x, y, dx, n);
}

}  // namespace elementwise
}  // namespace repdl

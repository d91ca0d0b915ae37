// AVX2 row of the fused backward: the portable text with eight float32 lanes.
#if defined(__x86_64__) || defined(__i386__)
#include <algorithm>
#include <cstdint>

#include "elementwise/grad.h"
#include "elementwise/select.h"

// Everything above is compiled for the baseline; only what follows, which
// runs after isa.cpp has checked the CPU, may use AVX2 and FMA.  FMA is never
// contracted (-ffp-contract=off), so the wider lanes change no bit.
#pragma GCC target("avx2,fma")

namespace repdl {
namespace elementwise {
namespace {
#include "elementwise/grad_blocks.inc"
}  // namespace

void grad_range_avx2(Unary f, const float* g, const float* x, const float* y, float* dx, int64_t n) {
  grad_range(f, g, x, y, dx, n);
}

}  // namespace elementwise
}  // namespace repdl
#endif

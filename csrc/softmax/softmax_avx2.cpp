// AVX2 row of the softmax line kernels: the portable text compiled for AVX2.
#if defined(__x86_64__) || defined(__i386__)
#include <cmath>

#include "common/nan.h"
#include "common/prefetch.h"
#include "common/scratch.h"
#include "elementwise/elementwise.h"
#include "softmax/softmax.h"

// Everything above is compiled for the baseline; only what follows, which
// runs after isa.cpp has checked the CPU, may use AVX2 and FMA.
#pragma GCC target("avx2,fma")

namespace repdl {
namespace softmax {
namespace {
#include "softmax/lines.inc"
}  // namespace

const LineKernels kAvx2Lines = {process_group, backward_group, onehot_backward_rows};

}  // namespace softmax
}  // namespace repdl
#endif

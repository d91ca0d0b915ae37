// AVX-512 row of the softmax line kernels: the portable text compiled for
// sixteen float32 lanes (GCC would otherwise prefer 256-bit vectors).  The
// reductions it calls are reduce's AVX-512 row: its own max, the AVX2 sums.
#if defined(__x86_64__) || defined(__i386__)
#include <cmath>

#include "common/nan.h"
#include "common/prefetch.h"
#include "common/scratch.h"
#include "elementwise/elementwise.h"
#include "softmax/softmax.h"

// Everything above is compiled for the baseline; only what follows, which
// runs after isa.cpp has checked the CPU, may use AVX-512.
#pragma GCC target("avx512f,avx2,fma,prefer-vector-width=512")

namespace repdl {
namespace softmax {
namespace {
// lines.inc's divide: by the line's reciprocal and two fma corrections,
// where one vdivps on 512 bits takes ten cycles (Intel).
constexpr bool kFmaDivision = true;
// backward_group's burst of requests for dx's lines (Zen 4, Xeon).
constexpr bool kClaimDx = true;
#include "softmax/lines.inc"
}  // namespace

const LineKernels kAvx512Lines = {process_group, backward_group, onehot_backward_rows};

}  // namespace softmax
}  // namespace repdl
#endif

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
// lines.inc's divide: IEEE division on this row.  Its vdivps on 256 bits
// keeps up with the five fmas of divide_by_reciprocal (softmax 16x512x512
// on Sapphire Rapids with the AVX2 row forced: 0.99 of the time).
constexpr bool kFmaDivision = false;
// No burst of requests for dx's lines in backward_group (the AVX-512 row
// asks): on Zen 3 16% of backward_group's samples sat on them, and
// without them the kernel alone takes, new / old (ab_kernels.py, geometric
// mean of both orders), 64x128x128 0.95, 16x512x512 0.91, 4096x1000
// 0.94-0.99 on one thread, 0.93-0.94 on two; as in a step (--step) 0.96-1.00.
constexpr bool kClaimDx = false;
#include "softmax/lines.inc"
}  // namespace

const LineKernels kAvx2Lines = {process_group, backward_group, onehot_backward_rows};

}  // namespace softmax
}  // namespace repdl
#endif

// AVX2 row of the normalisation kernels: the portable text compiled for
// AVX2+FMA (row loops eight lanes wide; every operation the same rounding),
// and the backward's chains in intrinsics (chains_avx2.inc).
#include <algorithm>
#include <cmath>
#include <vector>

#include "common/nan.h"
#include "common/parallel.h"
#include "common/prefetch.h"
#include "common/scratch.h"
#include "elementwise/elementwise.h"
#include "norm/norm.h"
#include "reduce/reduce.h"

#if defined(__x86_64__) || defined(__i386__)
// Everything above is compiled for the baseline; only what follows, which
// runs after isa.cpp has checked the CPU, may use AVX2 and FMA.
#pragma GCC target("avx2,fma")
#include "common/avx2_util.h"

namespace repdl {
namespace norm {
namespace avx2_row {
#include "norm/rows.inc"
#include "norm/chains_avx2.inc"
#include "norm/channels.inc"
#include "norm/groups.inc"
#include "norm/table.inc"
}  // namespace avx2_row

const Kernels kAvx2Kernels = avx2_row::kKernels;
}  // namespace norm
}  // namespace repdl
#endif

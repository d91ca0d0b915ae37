// AVX-512 row of the normalisation kernels: the AVX2 row's text (norm_avx2.cpp)
// with the row loops sixteen lanes wide (GCC would otherwise prefer 256-bit
// vectors); the backward's chains stay chains_avx2.inc's eight-lane
// intrinsics, and the statistics' chains the reduction kernels of the
// active row.  Every operation rounds as on the other rows: the wider lanes
// change no bit.
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
// runs after isa.cpp has checked the CPU, may use AVX-512.
#pragma GCC target("avx512f,avx2,fma,prefer-vector-width=512")
#include "common/avx2_util.h"

namespace repdl {
namespace norm {
namespace avx512_row {
#include "norm/rows.inc"
#include "norm/chains_avx2.inc"
#include "norm/channels.inc"
#include "norm/groups.inc"
#include "norm/table.inc"
}  // namespace avx512_row

const Kernels kAvx512Kernels = avx512_row::kKernels;
}  // namespace norm
}  // namespace repdl
#endif

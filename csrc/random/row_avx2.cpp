// The AVX2 row of random kernels: eight Philox blocks per step, vector
// transforms.  Same bits as the generic row (row_impl.h).
#if defined(__x86_64__) || defined(__i386__)
// row_impl.h's headers first, compiled for the baseline (docs/DEVELOPING.md:
// inline functions from shared headers, crmath.h's among them, are merged
// across files by the linker); only the row itself, which runs after
// isa.cpp has checked the CPU, may use AVX2 and FMA.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/nan.h"
#include "random/crmath.h"
#include "random/row.h"
#pragma GCC target("avx2,fma")
#define REPDL_RANDOM_AVX2 1
#define REPDL_RANDOM_ROW avx2
#include "random/row_impl.h"
#else
#include "random/row.h"
namespace repdl { namespace random { namespace avx2 {
const Row& row() { return generic::row(); }
}}}  // namespace repdl::random::avx2
#endif

// The AVX2 row of random kernels: eight Philox blocks per step, vector
// transforms.  Same bits as the generic row (row_impl.h).
#if defined(__x86_64__) || defined(__i386__)
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

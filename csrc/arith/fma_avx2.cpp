#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include "arith/arith.h"

// Everything above is compiled for the baseline; only what follows, which
// runs after isa.cpp has checked the CPU, may use AVX2 and FMA.
#pragma GCC target("avx2,fma")
#include "common/avx2_util.h"

namespace repdl {
namespace arith {

void fma_avx2(const float* a, const float* b, const float* c, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 r = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), _mm256_loadu_ps(c + i));
    _mm256_storeu_ps(y + i, avx2::canonical_nan8(r));
  }
  if (i < n) fma_generic(a + i, b + i, c + i, y + i, n - i);
}

}  // namespace arith
}  // namespace repdl
#else
#include "arith/arith.h"
namespace repdl { namespace arith {
void fma_avx2(const float* a, const float* b, const float* c, float* y, int64_t n) { fma_generic(a, b, c, y, n); }
}}  // namespace repdl::arith
#endif

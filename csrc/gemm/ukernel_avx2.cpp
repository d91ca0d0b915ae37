// AVX2+FMA micro-kernel, 6x16.  Per k step: two loads of the B row, six
// broadcasts of the packed A column, twelve vfmadd231ps, each continuing one
// ymm of C chains: c = fma(a_k, b_k, c), k ascending.
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include "gemm/gemm.h"

// Everything above is compiled for the baseline; only what follows, which
// runs after isa.cpp has checked the CPU, may use AVX2 and FMA.
#pragma GCC target("avx2,fma")
#include "common/avx2_util.h"

namespace repdl {
namespace gemm {

using avx2::canonical_nan8;

void sgemm_avx2_fma_6x16(int64_t kc, const float* a, const float* b, int64_t ldb, float* c, int64_t ldc,
                         bool zero_init, bool finish) {
  __m256 c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51;
  prefetch_next_tile(c, ldc, 6, 16);
  if (zero_init) {
    c00 = c01 = c10 = c11 = c20 = c21 = c30 = c31 = c40 = c41 = c50 = c51 = _mm256_setzero_ps();
  } else {
    c00 = _mm256_loadu_ps(c + 0 * ldc); c01 = _mm256_loadu_ps(c + 0 * ldc + 8);
    c10 = _mm256_loadu_ps(c + 1 * ldc); c11 = _mm256_loadu_ps(c + 1 * ldc + 8);
    c20 = _mm256_loadu_ps(c + 2 * ldc); c21 = _mm256_loadu_ps(c + 2 * ldc + 8);
    c30 = _mm256_loadu_ps(c + 3 * ldc); c31 = _mm256_loadu_ps(c + 3 * ldc + 8);
    c40 = _mm256_loadu_ps(c + 4 * ldc); c41 = _mm256_loadu_ps(c + 4 * ldc + 8);
    c50 = _mm256_loadu_ps(c + 5 * ldc); c51 = _mm256_loadu_ps(c + 5 * ldc + 8);
  }
#pragma GCC unroll 4
  for (int64_t k = 0; k < kc; ++k) {
    // A prefetch distance of 8 steps hides the L2 latency of the A stream;
    // B is in L1 by construction.
    _mm_prefetch(reinterpret_cast<const char*>(a + 48), _MM_HINT_T0);
    const __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
    __m256 ai;
    ai = _mm256_broadcast_ss(a + 0); c00 = _mm256_fmadd_ps(ai, b0, c00); c01 = _mm256_fmadd_ps(ai, b1, c01);
    ai = _mm256_broadcast_ss(a + 1); c10 = _mm256_fmadd_ps(ai, b0, c10); c11 = _mm256_fmadd_ps(ai, b1, c11);
    ai = _mm256_broadcast_ss(a + 2); c20 = _mm256_fmadd_ps(ai, b0, c20); c21 = _mm256_fmadd_ps(ai, b1, c21);
    ai = _mm256_broadcast_ss(a + 3); c30 = _mm256_fmadd_ps(ai, b0, c30); c31 = _mm256_fmadd_ps(ai, b1, c31);
    ai = _mm256_broadcast_ss(a + 4); c40 = _mm256_fmadd_ps(ai, b0, c40); c41 = _mm256_fmadd_ps(ai, b1, c41);
    ai = _mm256_broadcast_ss(a + 5); c50 = _mm256_fmadd_ps(ai, b0, c50); c51 = _mm256_fmadd_ps(ai, b1, c51);
    a += 6;
    b += ldb;
  }
  if (finish) {
    c00 = canonical_nan8(c00); c01 = canonical_nan8(c01); c10 = canonical_nan8(c10); c11 = canonical_nan8(c11);
    c20 = canonical_nan8(c20); c21 = canonical_nan8(c21); c30 = canonical_nan8(c30); c31 = canonical_nan8(c31);
    c40 = canonical_nan8(c40); c41 = canonical_nan8(c41); c50 = canonical_nan8(c50); c51 = canonical_nan8(c51);
  }
  _mm256_storeu_ps(c + 0 * ldc, c00); _mm256_storeu_ps(c + 0 * ldc + 8, c01);
  _mm256_storeu_ps(c + 1 * ldc, c10); _mm256_storeu_ps(c + 1 * ldc + 8, c11);
  _mm256_storeu_ps(c + 2 * ldc, c20); _mm256_storeu_ps(c + 2 * ldc + 8, c21);
  _mm256_storeu_ps(c + 3 * ldc, c30); _mm256_storeu_ps(c + 3 * ldc + 8, c31);
  _mm256_storeu_ps(c + 4 * ldc, c40); _mm256_storeu_ps(c + 4 * ldc + 8, c41);
  _mm256_storeu_ps(c + 5 * ldc, c50); _mm256_storeu_ps(c + 5 * ldc + 8, c51);
}

}  // namespace gemm
}  // namespace repdl
#endif

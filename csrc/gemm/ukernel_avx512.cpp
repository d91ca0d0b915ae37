// AVX-512F micro-kernels, MR x (16 * NV): per k step NV loads of the B row, MR broadcasts of the packed A column and MR * NV
// vfmadd231ps, each continuing one zmm of C chains: c = fma(a_k, b_k, c), k
// ascending -- the AVX2 kernel's chains on wider lanes.  The three tiles
// keep 24 of 32 zmm as C (24 independent chains cover the 4-cycle fma
// latency at 2 fmas per cycle) and differ in which operand they reuse most
// and in what they pad: 8x48, 6x64 (N <= 64: no partial column panel) and
// 12x32 (few rows: each B row is reused by more of them; N = 256 in whole
// panels).  config.cpp picks one per product; all give the same bits.
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include "gemm/gemm.h"

// Everything above is compiled for the baseline; only what follows, which
// runs after isa.cpp has checked the CPU, may use AVX-512.
#pragma GCC target("avx512f,avx2,fma")
namespace repdl {
namespace gemm {
namespace {
#include "common/avx512_util.h"
template <int MR, int NV>
inline void kernel(int64_t kc, const float* a, const float* b, int64_t ldb, float* c, int64_t ldc, bool zero_init,
                   bool finish) {
  __m512 acc[MR][NV];
  prefetch_next_tile(c, ldc, MR, 16 * NV);
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[i][v] = zero_init ? _mm512_setzero_ps() : _mm512_loadu_ps(c + i * ldc + 16 * v);
#pragma GCC unroll 2
  for (int64_t k = 0; k < kc; ++k) {
    _mm_prefetch(reinterpret_cast<const char*>(a + 8 * MR), _MM_HINT_T0);
    __m512 bv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) bv[v] = _mm512_loadu_ps(b + 16 * v);
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      const __m512 ai = _mm512_set1_ps(a[i]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_fmadd_ps(ai, bv[v], acc[i][v]);
    }
    a += MR;
    b += ldb;
  }
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) _mm512_storeu_ps(c + i * ldc + 16 * v, finish ? canonical_nan16(acc[i][v]) : acc[i][v]);
}
}  // namespace
void sgemm_avx512_fma_8x48(int64_t kc, const float* a, const float* b, int64_t ldb, float* c, int64_t ldc,
                           bool zero_init, bool finish) {
  kernel<8, 3>(kc, a, b, ldb, c, ldc, zero_init, finish);
}
void sgemm_avx512_fma_6x64(int64_t kc, const float* a, const float* b, int64_t ldb, float* c, int64_t ldc,
                           bool zero_init, bool finish) {
  kernel<6, 4>(kc, a, b, ldb, c, ldc, zero_init, finish);
}
void sgemm_avx512_fma_12x32(int64_t kc, const float* a, const float* b, int64_t ldb, float* c, int64_t ldc,
                           bool zero_init, bool finish) {
  kernel<12, 2>(kc, a, b, ldb, c, ldc, zero_init, finish);
}
}  // namespace gemm
}  // namespace repdl
#endif

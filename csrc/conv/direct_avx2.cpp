// AVX2+FMA row of the direct convolution: eight lanes, vfmadd (one rounding).
#include "conv/direct.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
// Everything above is compiled for the baseline; only what follows, which
// runs after isa.cpp has checked the CPU, may use AVX2 and FMA.
#pragma GCC target("avx2,fma")
#include "common/avx2_util.h"

namespace repdl {
namespace conv {
namespace direct {
namespace {

struct V {
  using T = __m256;
  static constexpr int kLanes = 8;
  // correlate's tiles (direct_rows.inc): 8 chains
  static constexpr int kAccumulators = 8, kWideVectors = 2, kRowsMedium = 1, kRowsNarrow = 2;
  static constexpr int kWideInChannels = 16;  // direct_applies: measured against im2col + GEMM
  static constexpr int kUnrolledChannels = 0;  // direct_applies: 3-tap rows, measured likewise
  static T zero() { return _mm256_setzero_ps(); }
  static T load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, T v) { _mm256_storeu_ps(p, v); }
  // Masked loads and stores of the first n lanes (a masked store: no partial
  // reads of a spilled vector).
  static __m256i first(int n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static T load_first(const float* p, int n) { return _mm256_maskload_ps(p, first(n)); }
  static void store_first(float* p, T v, int n) { _mm256_maskstore_ps(p, first(n), v); }
  static T bcast(float x) { return _mm256_set1_ps(x); }
  static T fma(T a, T b, T c) { return _mm256_fmadd_ps(a, b, c); }
  static T canonical(T v) { return avx2::canonical_nan8(v); }
  static void transpose8(const float* src, int64_t ss, int64_t rows, float* dst, int64_t ds) {
    avx2::transpose8_block(src, ss, rows, dst, ds);
  }
};

#include "conv/direct_rows.inc"

}  // namespace

const Kernels kAvx2 = kKernels;

}  // namespace direct
}  // namespace conv
}  // namespace repdl
#else
namespace repdl {
namespace conv {
namespace direct {
const Kernels kAvx2 = kGeneric;  // never selected: isa_supported(avx2) is false
}  // namespace direct
}  // namespace conv
}  // namespace repdl
#endif

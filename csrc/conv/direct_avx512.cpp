// AVX-512F row of the direct convolution: sixteen lanes, vfmadd (one rounding).
#include "conv/direct.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
// Everything above is compiled for the baseline; only what follows, which
// runs after isa.cpp has checked the CPU, may use AVX-512.
#pragma GCC target("avx512f,avx2,fma")
#include "common/avx2_util.h"

namespace repdl {
namespace conv {
namespace direct {
namespace {

#include "common/avx512_util.h"

struct V {
  using T = __m512;
  static constexpr int kLanes = 16;
  // correlate's tiles (direct_rows.inc): 24 of the 32 registers hold chains
  static constexpr int kAccumulators = 24, kWideVectors = 4, kRowsMedium = 2, kRowsNarrow = 3;
  static constexpr int kWideInChannels = 32;  // direct_applies: measured against im2col + GEMM
  static constexpr int kUnrolledChannels = 128;  // direct_applies: 3-tap rows, measured likewise
  static T zero() { return _mm512_setzero_ps(); }
  static T load(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, T v) { _mm512_storeu_ps(p, v); }
  static T load_first(const float* p, int n) { return _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << n) - 1), p); }
  static void store_first(float* p, T v, int n) { _mm512_mask_storeu_ps(p, static_cast<__mmask16>((1u << n) - 1), v); }
  static T bcast(float x) { return _mm512_set1_ps(x); }
  static T fma(T a, T b, T c) { return _mm512_fmadd_ps(a, b, c); }
  static T canonical(T v) { return canonical_nan16(v); }
  static void transpose8(const float* src, int64_t ss, int64_t rows, float* dst, int64_t ds) {
    avx2::transpose8_block(src, ss, rows, dst, ds);
  }
};

#include "conv/direct_rows.inc"

}  // namespace

const Kernels kAvx512 = kKernels;

}  // namespace direct
}  // namespace conv
}  // namespace repdl
#else
namespace repdl {
namespace conv {
namespace direct {
const Kernels kAvx512 = kGeneric;  // never selected: isa_supported(avx512) is false
}  // namespace direct
}  // namespace conv
}  // namespace repdl
#endif

// Portable row of the direct convolution: one lane, std::fma (the correctly
// rounded fused multiply-add on every conforming platform).
#include <cmath>

#include "common/nan.h"
#include "conv/direct.h"

namespace repdl {
namespace conv {
namespace direct {
namespace {

struct V {
  using T = float;
  static constexpr int kLanes = 1;
  // correlate's tiles (direct_rows.inc): 8 chains
  static constexpr int kAccumulators = 8, kWideVectors = 2, kRowsMedium = 1, kRowsNarrow = 2;
  static constexpr int kWideInChannels = 16;  // direct_applies: measured against im2col + GEMM
  static constexpr int kUnrolledChannels = 0;  // direct_applies: 3-tap rows, measured likewise
  static T zero() { return 0.0f; }
  static T load(const float* p) { return *p; }
  static void store(float* p, T v) { *p = v; }
  static T load_first(const float* p, int) { return *p; }
  static void store_first(float* p, T v, int) { *p = v; }
  static T bcast(float x) { return x; }
  static T fma(T a, T b, T c) { return std::fma(a, b, c); }
  static T canonical(T v) { return canonical_nan(v); }
  static void transpose8(const float* src, int64_t ss, int64_t rows, float* dst, int64_t ds) {
    for (int k = 0; k < 8; ++k)
      for (int i = 0; i < 8; ++i) dst[k * ds + i] = i < rows ? src[i * ss + k] : 0.0f;
  }
};

#include "conv/direct_rows.inc"

}  // namespace

const Kernels kGeneric = kKernels;

}  // namespace direct
}  // namespace conv
}  // namespace repdl

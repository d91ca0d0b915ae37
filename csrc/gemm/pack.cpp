#include "gemm/pack.h"

#include <algorithm>

namespace repdl {
namespace gemm {

void pack_a(const Operand& a, int64_t mc, int64_t kc, int mr, float* dst) {
  for (int64_t i0 = 0; i0 < mc; i0 += mr, dst += kc * mr) {
    const int rows = static_cast<int>(std::min<int64_t>(mr, mc - i0));
    const float* src = a.p + i0 * a.rs;
    if (a.cs == 1) {
      // Row-major A: walk each row contiguously, scatter into the panel.
      for (int i = 0; i < rows; ++i)
        for (int64_t k = 0; k < kc; ++k) dst[k * mr + i] = src[i * a.rs + k];
    } else {
      for (int64_t k = 0; k < kc; ++k)
        for (int i = 0; i < rows; ++i) dst[k * mr + i] = src[i * a.rs + k * a.cs];
    }
    for (int i = rows; i < mr; ++i)
      for (int64_t k = 0; k < kc; ++k) dst[k * mr + i] = 0.0f;
  }
}

void pack_b(const Operand& b, int64_t kc, int64_t nc, int nr, int64_t p0, int64_t p1, float* dst) {
  for (int64_t p = p0; p < p1; ++p) {
    const int64_t j0 = p * nr;
    const int cols = static_cast<int>(std::min<int64_t>(nr, nc - j0));
    const float* src = b.p + j0 * b.cs;
    float* out = dst + p * kc * nr;
    if (b.cs == 1) {
      for (int64_t k = 0; k < kc; ++k) {
        const float* row = src + k * b.rs;
        for (int j = 0; j < cols; ++j) out[k * nr + j] = row[j];
        for (int j = cols; j < nr; ++j) out[k * nr + j] = 0.0f;
      }
    } else {
      // Column-major B (for example the transposed weight of linear): walk
      // each column contiguously.
      for (int j = 0; j < cols; ++j)
        for (int64_t k = 0; k < kc; ++k) out[k * nr + j] = src[j * b.cs + k * b.rs];
      for (int j = cols; j < nr; ++j)
        for (int64_t k = 0; k < kc; ++k) out[k * nr + j] = 0.0f;
    }
  }
}

}  // namespace gemm
}  // namespace repdl

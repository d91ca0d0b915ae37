// Portable reference micro-kernel: ordered rank-1 updates in k, one explicit
// fma per element per step (std::fma is the correctly rounded fused
// multiply-add on every conforming platform).
#include <cmath>

#include "gemm/gemm.h"
#include "common/nan.h"

namespace repdl {
namespace gemm {

void sgemm_generic_ref_4x8(int64_t kc, const float* a, const float* b, int64_t ldb, float* c, int64_t ldc,
                           bool zero_init, bool finish) {
  constexpr int MR = 4, NR = 8;
  float acc[MR][NR];
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NR; ++j) acc[i][j] = zero_init ? 0.0f : c[i * ldc + j];
  for (int64_t k = 0; k < kc; ++k, a += MR, b += ldb)
    for (int i = 0; i < MR; ++i)
      for (int j = 0; j < NR; ++j) acc[i][j] = std::fma(a[i], b[j], acc[i][j]);
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NR; ++j) c[i * ldc + j] = finish ? canonical_nan(acc[i][j]) : acc[i][j];
}

}  // namespace gemm
}  // namespace repdl

// fma32 over dense arrays: y[i] = fma(a[i], b[i], c[i]) with one rounding.
// std::fma is the correctly rounded fused multiply-add on every conforming
// platform; the AVX2 row is the same operation eight lanes at a time.
#include <cmath>

#include "arith/arith.h"
#include "common/nan.h"
#include "common/parallel.h"

namespace repdl {
namespace arith {

void fma_generic(const float* a, const float* b, const float* c, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = canonical_nan(std::fma(a[i], b[i], c[i]));
}

void fma(const float* a, const float* b, const float* c, float* y, int64_t n) {
  const auto kernel = active_isa() == Isa::avx2 ? fma_avx2 : fma_generic;
  parallel_ranges(n, threads_for(n, int64_t{1} << 16), [&](int64_t i0, int64_t i1) {
    kernel(a + i0, b + i0, c + i0, y + i0, i1 - i0);
  });
}

void add_bias(float* y, int64_t m, int64_t n, const float* bias, int64_t bias_stride) {
  parallel_ranges(m, threads_for(m * n, int64_t{1} << 16), [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i)
      for (int64_t j = 0; j < n; ++j) y[i * n + j] = canonical_nan(y[i * n + j] + bias[j * bias_stride]);
  });
}

}  // namespace arith
}  // namespace repdl

#include "scatter/scatter.h"

#include <algorithm>

#include "common/nan.h"
#include "common/parallel.h"

namespace repdl {
namespace scatter {

void index_accumulate(const float* src, const int64_t* index, int64_t n, int64_t d, float* dst, int64_t rows) {
  std::fill_n(dst, rows * d, 0.0f);
  if (n == 0 || d == 0) return;
  // A thread owns the destination rows [r0, r1) and adds, in ascending i,
  // every source row that lands there; wide rows split their columns instead.
  const bool by_columns = d >= 64;
  const int64_t parts = by_columns ? d : rows;
  parallel_ranges(parts, threads_for(n * d, int64_t{1} << 15), [&](int64_t b, int64_t e) {
    const int64_t c0 = by_columns ? b : 0, c1 = by_columns ? e : d;
    const int64_t r0 = by_columns ? 0 : b, r1 = by_columns ? rows : e;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t r = index[i];
      if (r < r0 || r >= r1) continue;
      float* out = dst + r * d;
      const float* in = src + i * d;
      for (int64_t c = c0; c < c1; ++c) out[c] = out[c] + in[c];
    }
    for (int64_t r = r0; r < r1; ++r)
      for (int64_t c = c0; c < c1; ++c) dst[r * d + c] = canonical_nan(dst[r * d + c]);
  });
}

}  // namespace scatter
}  // namespace repdl

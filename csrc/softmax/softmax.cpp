// Lines are processed in groups of up to eight: each line is gathered into
// scratch as d = x - m, exponentiated with the correctly rounded exp, and the
// eight sequential sums run side by side in the reduction kernels' row
// layout (one chain per lane), which is what keeps the latency-bound sums
// from dominating.  Every step is the contract's: only the schedule differs
// from one line at a time.
#include "softmax/softmax.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/nan.h"
#include "common/parallel.h"
#include "common/scratch.h"
#include "elementwise/elementwise.h"

namespace repdl {
namespace softmax {
namespace {

constexpr int kGroup = 8;
// Longer lines are processed one at a time, bounding scratch memory.
constexpr int64_t kGroupMaxLine = int64_t{1} << 15;

// The value max() returns for a line (contract, "max"), from the reduction
// kernels: NaN if the line has one; otherwise the maximum, and when that is
// a zero, the first zero's sign.
float line_max(const reduce::Kernels& k, const float* d, int64_t n) {
  float value;
  int64_t index;
  k.extremum_rows(reduce::Segment{d, 1, 0, n, 1}, false, &value, &index);
  return value;
}

void process_group(const reduce::View& v, Kind kind, float* y, int64_t p0, int count) {
  const int64_t R = v.R;
  float* D = thread_scratch(static_cast<size_t>(kGroup * R), Scratch::softmax_diff);  // x - m
  float* E = thread_scratch(static_cast<size_t>(kGroup * R), Scratch::softmax_exp);  // exp(x - m)
  const reduce::Kernels& k = reduce::kernels(active_isa());
  int64_t offset[kGroup];
  float shift[kGroup], sum[kGroup];
  for (int g = 0; g < count; ++g) {
    const int64_t p = p0 + g;
    offset[g] = (p / v.P0) * v.s1 + (p % v.P0) * v.s0;
    float* d = D + g * R;
    const float* x = v.x + offset[g];
    if (v.sr == 1) std::memcpy(d, x, static_cast<size_t>(R) * sizeof(float));
    else for (int64_t r = 0; r < R; ++r) d[r] = x[r * v.sr];
    float m = line_max(k, d, R);
    // logsumexp shifts by 0 instead of an infinite max, so that a line of
    // -inf gives -inf and a line holding +inf gives +inf (as torch does).
    if (kind == Kind::logsumexp && !std::isfinite(m) && m == m) m = 0.0f;
    shift[g] = m;
    for (int64_t r = 0; r < R; ++r) d[r] = d[r] - m;
    elementwise::exp(d, E + g * R, R);
  }
  k.sum_rows(reduce::Segment{E, count, R, R, 1}, reduce::Order::sequential, sum);
  for (int g = 0; g < count; ++g) {
    if (kind == Kind::logsumexp) {
      float log_s;
      elementwise::log(&sum[g], &log_s, 1);
      y[p0 + g] = canonical_nan(log_s + shift[g]);
      continue;
    }
    float* out = y + offset[g];
    if (kind == Kind::softmax) {
      const float* e = E + g * R;
      const float s = sum[g];
      for (int64_t r = 0; r < R; ++r) out[r * v.sr] = canonical_nan(e[r] / s);
    } else {
      const float* d = D + g * R;
      float log_s;
      elementwise::log(&sum[g], &log_s, 1);
      for (int64_t r = 0; r < R; ++r) out[r * v.sr] = canonical_nan(d[r] - log_s);
    }
  }
}

}  // namespace

void run(const reduce::View& v, Kind kind, float* y) {
  const int64_t P = v.P1 * v.P0;
  if (P == 0 || v.R == 0) return;
  const int group = v.R <= kGroupMaxLine ? kGroup : 1;
  const int64_t groups = (P + group - 1) / group;
  // ~20 flops per element (the exp dominates).
  const int threads = threads_for(P * v.R * 20, int64_t{1} << 18);
  parallel_ranges(groups, threads, [&](int64_t gb, int64_t ge) {
    for (int64_t q = gb; q < ge; ++q) {
      const int64_t p0 = q * group;
      process_group(v, kind, y, p0, static_cast<int>(std::min<int64_t>(group, P - p0)));
    }
  });
}

}  // namespace softmax
}  // namespace repdl

// The class-index losses without weight or smoothing, and their gradients:
// cross_entropy's on an input's log_softmax_stats, nll_loss's on
// log-probabilities (docs/CONTRACT.md, "Losses").  The loss reads one
// element per sample, so it is a serial O(P) loop; what it replaces is a
// dozen small tensor ops (pick, two subtractions, the mask, the sum, the
// count and the division), about 85 us of per-call cost.
#include "softmax/class_nll.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "common/nan.h"
#include "softmax/softmax.h"

namespace repdl {
namespace softmax {
namespace {

bool is_valid(int64_t t, int64_t ignore_index) { return t != ignore_index; }

int64_t valid_count(const int64_t* target, int64_t P, int64_t ignore_index) {
  int64_t count = 0;
  for (int64_t p = 0; p < P; ++p) count += is_valid(target[p], ignore_index);
  return count;
}

}  // namespace

int64_t class_nll(const float* x, int64_t row_stride, int64_t col_stride, int64_t P, int64_t R,
                  const int64_t* target, int64_t ignore_index, Reduction reduction, float* stats, float* out) {
  for (int64_t p = 0; p < P; ++p)
    if (is_valid(target[p], ignore_index) && (target[p] < 0 || target[p] >= R)) return p;
  if (stats && R > 0) run(reduce::View{x, 1, 0, P, row_stride, R, col_stride}, Kind::log_softmax_stats, stats);
  else if (stats) std::fill_n(stats, 2 * P, std::numeric_limits<float>::quiet_NaN());  // the canonical NaN
  float total = 0.0f;
  int64_t count = 0;
  for (int64_t p = 0; p < P; ++p) {
    const int64_t t = target[p];
    // picked = fl(fl(x[p, t] - m) - log s): the log-probability log_softmax
    // would hold at [p, t] (or x[p, t] itself); nll = -picked, +0.0 for an
    // ignored sample.
    float nll = 0.0f;
    if (is_valid(t, ignore_index)) {
      ++count;
      const float xt = x[p * row_stride + t * col_stride];
      const float picked = stats ? (xt - stats[2 * p]) - stats[2 * p + 1] : xt;
      nll = canonical_nan(-picked);
    }
    if (reduction == Reduction::none) out[p] = nll;
    else total = total + nll;
  }
  if (reduction == Reduction::sum) *out = canonical_nan(total);
  // fl32 of the count is the int64's rounding to nearest (torch's .to(float32)).
  if (reduction == Reduction::mean) *out = canonical_nan(total / static_cast<float>(count));
  return -1;
}

void class_nll_backward(const float* x, const float* stats, int64_t P, int64_t R, const int64_t* target,
                        int64_t ignore_index, Reduction reduction, const float* g, float* dx) {
  std::vector<int64_t> index(static_cast<size_t>(P));
  std::vector<float> value(static_cast<size_t>(P));
  // 'mean': the loss's gradient divided by fl32(count) (the division's
  // backward), the same for every sample; 'sum' copies it, 'none' has one
  // per sample.  Then negated (the nll's sign) where the sample counts,
  // +0.0 at class 0 where it is ignored.
  float shared = reduction == Reduction::none ? 0.0f : g[0];
  if (reduction == Reduction::mean)
    shared = canonical_nan(shared / static_cast<float>(valid_count(target, P, ignore_index)));
  for (int64_t p = 0; p < P; ++p) {
    const bool valid = is_valid(target[p], ignore_index);
    const float gp = reduction == Reduction::none ? g[p] : shared;
    index[static_cast<size_t>(p)] = valid ? target[p] : 0;
    value[static_cast<size_t>(p)] = valid ? canonical_nan(-gp) : 0.0f;
  }
  if (stats) {
    onehot_backward(x, stats, P, R, index.data(), value.data(), dx);
    return;
  }
  std::fill_n(dx, P * R, 0.0f);
  for (int64_t p = 0; p < P; ++p) dx[p * R + index[static_cast<size_t>(p)]] = value[static_cast<size_t>(p)];
}

}  // namespace softmax
}  // namespace repdl

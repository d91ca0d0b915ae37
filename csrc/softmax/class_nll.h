// The class-index losses of cross_entropy (on log_softmax_stats) and nll_loss
// (on log-probabilities), and their gradients (class_nll.cpp).
#pragma once

#include <cstdint>

namespace repdl {
namespace softmax {

enum class Reduction { none = 0, mean = 1, sum = 2 };

// The loss of P samples, rows x[p*row_stride + c*col_stride] (c < R):
// stats (2 floats per row) gets each row's log_softmax_stats (m, log s;
// NaN when R is 0), then nll[p] = -fl(fl(x[p, t] - m) - log s) for t =
// target[p], +0.0 where t == ignore_index, and out holds nll (none),
// seqsum(nll) (sum) or seqsum(nll) / fl32(valid count) (mean).  With stats
// null, x holds log-probabilities (nll_loss): nll[p] = -x[p, t].  Returns
// -1, or the first sample whose target is neither ignore_index nor in [0,
// R), before any work (then nothing is written).
int64_t class_nll(const float* x, int64_t row_stride, int64_t col_stride, int64_t P, int64_t R,
                  const int64_t* target, int64_t ignore_index, Reduction reduction, float* stats, float* out);

// The loss's gradient with respect to x (dense, P x R) from the loss's
// gradient g (P floats for none, else one): the one-hot gradient -g (g /
// fl32(count) for mean) at each valid target (+0.0 elsewhere), through
// log_softmax's backward (onehot_backward) from x and its stats, or as it
// is when stats is null (x held log-probabilities).  Targets are valid
// (class_nll checked them).
void class_nll_backward(const float* x, const float* stats, int64_t P, int64_t R, const int64_t* target,
                        int64_t ignore_index, Reduction reduction, const float* g, float* dx);

}  // namespace softmax
}  // namespace repdl

// Instruction-set dispatch of the normalisation kernels (rows.inc, channels.inc, groups.inc).
#include "norm/norm.h"

#include "common/isa.h"
#include "common/nan.h"

namespace repdl {
namespace norm {
namespace {
const Kernels& active_kernels() {
#if defined(__x86_64__) || defined(__i386__)
  if (active_isa() >= Isa::avx512) return kAvx512Kernels;
  if (avx2_active()) return kAvx2Kernels;
#endif
  return kGenericKernels;
}
}  // namespace

void forward(const Rows& p, const float* x, float* y, float* mean, float* rstd) {
  active_kernels().forward_rows(p, x, y, mean, rstd);
}

void backward(const Rows& p, const float* g, const float* x, const float* mean, const float* rstd, float* dx,
              float* dw, float* db) {
  active_kernels().backward_rows(p, g, x, mean, rstd, dx, dw, db);
}

void forward(const Channels& p, const float* x, float* y, float* mean, float* ss, float* rstd) {
  active_kernels().forward_channels(p, x, y, mean, ss, rstd);
}

void backward(const Channels& p, const float* g, const float* x, const float* mean, const float* rstd, float* dx,
              float* dw, float* db) {
  active_kernels().backward_channels(p, g, x, mean, rstd, dx, dw, db);
}

void evaluate(const Channels& p, const float* x, const float* mean, const float* var, float* y) {
  active_kernels().evaluate_channels(p, x, mean, var, y);
}

void forward(const Groups& p, const float* x, float* y, float* mean, float* rstd) {
  active_kernels().forward_groups(p, x, y, mean, rstd);
}

void backward(const Groups& p, const float* g, const float* x, const float* mean, const float* rstd, float* dx,
              float* dw, float* db) {
  active_kernels().backward_groups(p, g, x, mean, rstd, dx, dw, db);
}

void update_running(int64_t C, float keep, float take, float n_less_one, const float* running_mean,
                    const float* running_var, const float* mean, const float* ss, float* new_mean, float* new_var) {
  for (int64_t c = 0; c < C; ++c) {
    new_mean[c] = canonical_nan(running_mean[c] * keep + mean[c] * take);
    new_var[c] = canonical_nan(running_var[c] * keep + (ss[c] / n_less_one) * take);
  }
}

}  // namespace norm
}  // namespace repdl

// Instruction-set dispatch of the normalisation kernels (rows.inc, channels.inc).
#include "norm/norm.h"

#include "common/fpenv.h"
#include "common/isa.h"
#include "common/nan.h"

namespace repdl {
namespace norm {
namespace generic_row {
void forward_rows(const Rows& p, const float* x, float* y, float* mean, float* rstd);
void backward_rows(const Rows& p, const float* g, const float* x, const float* mean, const float* rstd, float* dx,
                   float* dw, float* db);
void forward_channels(const Channels& p, const float* x, float* y, float* mean, float* ss, float* rstd);
void backward_channels(const Channels& p, const float* g, const float* x, const float* mean, const float* rstd,
                       float* dx, float* dw, float* db);
void evaluate_channels(const Channels& p, const float* x, const float* mean, const float* var, float* y);
}  // namespace generic_row
namespace avx2_row {
void forward_rows(const Rows& p, const float* x, float* y, float* mean, float* rstd);
void backward_rows(const Rows& p, const float* g, const float* x, const float* mean, const float* rstd, float* dx,
                   float* dw, float* db);
void forward_channels(const Channels& p, const float* x, float* y, float* mean, float* ss, float* rstd);
void backward_channels(const Channels& p, const float* g, const float* x, const float* mean, const float* rstd,
                       float* dx, float* dw, float* db);
void evaluate_channels(const Channels& p, const float* x, const float* mean, const float* var, float* y);
}  // namespace avx2_row

void forward(const Rows& p, const float* x, float* y, float* mean, float* rstd) {
#if defined(__x86_64__) || defined(__i386__)
  if (avx2_active()) return avx2_row::forward_rows(p, x, y, mean, rstd);
#endif
  generic_row::forward_rows(p, x, y, mean, rstd);
}

void backward(const Rows& p, const float* g, const float* x, const float* mean, const float* rstd, float* dx,
              float* dw, float* db) {
#if defined(__x86_64__) || defined(__i386__)
  if (avx2_active()) return avx2_row::backward_rows(p, g, x, mean, rstd, dx, dw, db);
#endif
  generic_row::backward_rows(p, g, x, mean, rstd, dx, dw, db);
}

void forward(const Channels& p, const float* x, float* y, float* mean, float* ss, float* rstd) {
#if defined(__x86_64__) || defined(__i386__)
  if (avx2_active()) return avx2_row::forward_channels(p, x, y, mean, ss, rstd);
#endif
  generic_row::forward_channels(p, x, y, mean, ss, rstd);
}

void backward(const Channels& p, const float* g, const float* x, const float* mean, const float* rstd, float* dx,
              float* dw, float* db) {
#if defined(__x86_64__) || defined(__i386__)
  if (avx2_active()) return avx2_row::backward_channels(p, g, x, mean, rstd, dx, dw, db);
#endif
  generic_row::backward_channels(p, g, x, mean, rstd, dx, dw, db);
}

void evaluate(const Channels& p, const float* x, const float* mean, const float* var, float* y) {
#if defined(__x86_64__) || defined(__i386__)
  if (avx2_active()) return avx2_row::evaluate_channels(p, x, mean, var, y);
#endif
  generic_row::evaluate_channels(p, x, mean, var, y);
}

void update_running(int64_t C, float keep, float take, float n_less_one, float* running_mean, float* running_var,
                    const float* mean, const float* ss) {
  IeeeFpGuard guard;
  for (int64_t c = 0; c < C; ++c) {
    if (running_mean != nullptr) running_mean[c] = canonical_nan(running_mean[c] * keep + mean[c] * take);
    if (running_var != nullptr) running_var[c] = canonical_nan(running_var[c] * keep + (ss[c] / n_less_one) * take);
  }
}

}  // namespace norm
}  // namespace repdl

// Instruction-set dispatch of the normalisation kernels (rows.inc).
#include "norm/norm.h"

#include "common/isa.h"

namespace repdl {
namespace norm {
namespace generic_row {
void forward_rows(const Rows& p, const float* x, float* y, float* mean, float* rstd);
void backward_rows(const Rows& p, const float* g, const float* x, const float* mean, const float* rstd, float* dx,
                   float* dw, float* db);
}  // namespace generic_row
namespace avx2_row {
void forward_rows(const Rows& p, const float* x, float* y, float* mean, float* rstd);
void backward_rows(const Rows& p, const float* g, const float* x, const float* mean, const float* rstd, float* dx,
                   float* dw, float* db);
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

}  // namespace norm
}  // namespace repdl

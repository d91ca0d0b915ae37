// The fused backward's threaded entry: threads take ranges of elements, the
// active instruction set's row (grad.h) does them.
#include "common/isa.h"
#include "common/parallel.h"
#include "elementwise/elementwise.h"
#include "elementwise/grad.h"

namespace repdl {
namespace elementwise {
namespace {
using GradRange = void (*)(Unary, const float*, const float*, const float*, float*, int64_t);

GradRange active_row() {
#if defined(__x86_64__) || defined(__i386__)
  switch (active_isa()) {
    case Isa::avx512: return grad_range_avx512;
    case Isa::avx2: return grad_range_avx2;
    default: break;
  }
#endif
  return grad_range_generic;
}
}  // namespace

void unary_grad_threaded(Unary f, const float* g, const float* x, const float* y, float* dx, int64_t n) {
  const GradRange row = active_row();
  // (A backward takes at least its forward's time per element.)
  parallel_ranges(n, threads_for(n, grain(f)), [&](int64_t s, int64_t e) { row(f, g + s, x + s, y + s, dx + s, e - s); });
}

}  // namespace elementwise
}  // namespace repdl

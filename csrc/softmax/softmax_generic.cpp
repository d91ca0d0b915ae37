// Portable row of the softmax line kernels.
#include <cmath>

#include "common/nan.h"
#include "common/scratch.h"
#include "elementwise/elementwise.h"
#include "softmax/softmax.h"

namespace repdl {
namespace softmax {
namespace {
#include "softmax/lines.inc"
}  // namespace

void process_group_generic(const reduce::View& v, Kind kind, float* y, int64_t p0, int count) {
  process_group(v, kind, y, p0, count);
}

void backward_group_generic(const reduce::View& v, bool log, const float* g, float* dx, int64_t p0, int count) {
  backward_group(v, log, g, dx, p0, count);
}

void onehot_backward_rows_generic(const float* y, int64_t R, const int64_t* index, const float* value, float* dx,
                               int64_t p0, int count) {
  onehot_backward_rows(y, R, index, value, dx, p0, count);
}

}  // namespace softmax
}  // namespace repdl

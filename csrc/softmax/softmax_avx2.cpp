// AVX2 row of the softmax line kernels: the portable text compiled for AVX2.
#if defined(__x86_64__) || defined(__i386__)
#include <cmath>

#include "common/nan.h"
#include "common/scratch.h"
#include "elementwise/elementwise.h"
#include "softmax/softmax.h"

// Everything above is compiled for the baseline; only what follows, which
// runs after isa.cpp has checked the CPU, may use AVX2 and FMA.
#pragma GCC target("avx2,fma")

namespace repdl {
namespace softmax {
namespace {
#include "softmax/lines.inc"
}  // namespace

void process_group_avx2(const reduce::View& v, Kind kind, float* y, int64_t p0, int count) {
  process_group(v, kind, y, p0, count);
}

void backward_group_avx2(const reduce::View& v, bool log, const float* g, float* dx, int64_t p0, int count) {
  backward_group(v, log, g, dx, p0, count);
}

void onehot_backward_rows_avx2(const float* y, int64_t R, const int64_t* index, const float* value, float* dx,
                               int64_t p0, int count) {
  onehot_backward_rows(y, R, index, value, dx, p0, count);
}

}  // namespace softmax
}  // namespace repdl
#endif

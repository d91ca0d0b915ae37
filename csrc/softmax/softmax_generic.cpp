// Portable row of the softmax line kernels.
#include <cmath>

#include "common/nan.h"
#include "common/prefetch.h"
#include "common/scratch.h"
#include "elementwise/elementwise.h"
#include "softmax/softmax.h"

namespace repdl {
namespace softmax {
namespace {
constexpr bool kFmaDivision = false;  // lines.inc's divide: IEEE division (no fma on the baseline)
constexpr bool kClaimDx = true;       // backward_group's requests for dx's lines, as the AVX-512 row
#include "softmax/lines.inc"
}  // namespace

const LineKernels kGenericLines = {process_group, backward_group, onehot_backward_rows};

}  // namespace softmax
}  // namespace repdl

// Portable row of the normalisation kernels.
#include <algorithm>
#include <cmath>
#include <vector>

#include "common/nan.h"
#include "common/parallel.h"
#include "common/prefetch.h"
#include "common/scratch.h"
#include "elementwise/elementwise.h"
#include "norm/norm.h"
#include "reduce/reduce.h"

namespace repdl {
namespace norm {
namespace generic_row {
#include "norm/rows.inc"
#include "norm/chains_portable.inc"
#include "norm/channels.inc"
#include "norm/groups.inc"
}  // namespace generic_row

const Kernels kGenericKernels = {generic_row::forward_rows, generic_row::backward_rows, generic_row::forward_channels,
                                 generic_row::backward_channels, generic_row::evaluate_channels,
                                 generic_row::forward_groups, generic_row::backward_groups};
}  // namespace norm
}  // namespace repdl

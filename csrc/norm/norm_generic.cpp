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
#include "norm/table.inc"
}  // namespace generic_row

const Kernels kGenericKernels = generic_row::kKernels;
}  // namespace norm
}  // namespace repdl

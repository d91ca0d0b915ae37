// Portable row of the reduction kernel table.
#include <algorithm>
#include <cmath>

#include "common/nan.h"
#include "reduce/reduce.h"

namespace repdl {
namespace reduce {
namespace {
#include "reduce/portable.inc"
}  // namespace

const Kernels kGenericKernels = {sum_any, sum_cols_portable, sqdev_any, sqdev_cols_portable, sumprod_any,
                                 [](int64_t) { return 16; }, sumprod_cols_portable,
                                 dot_any, dot_cols_portable, extremum_any, extremum_cols_portable,
                                 max_value_portable, max_rows_by_line<max_value_portable>,
                                 pairsum_contiguous_portable};

}  // namespace reduce
}  // namespace repdl

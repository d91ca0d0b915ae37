// Portable row of the arithmetic kernels (baseline instruction set).
#include <cmath>
#include <cstring>

#include "arith/arith.h"

namespace repdl {
namespace arith {
namespace {
#include "arith/rows.inc"
}  // namespace

const Rows kGenericRows = kRows;

}  // namespace arith
}  // namespace repdl

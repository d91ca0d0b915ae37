// Portable row of the optimizer steps (baseline instruction set).
#include <cmath>
#include <cstring>
#include <limits>

#include "optim/optim.h"

namespace repdl {
namespace optim {
namespace {
#include "optim/rows.inc"
}  // namespace

const Rows kGenericRows = kRows;

}  // namespace optim
}  // namespace repdl

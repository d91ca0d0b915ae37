// Correctly rounded float32 log, cos and sin for the Box-Muller transform:
// the elementwise family's serial functions (csrc/elementwise, issue 3),
// which pick their instruction set inside and give the same bits on every
// row.  Everything in csrc/random reaches them through this header, and the
// Python reference through src/repdl/random/_crmath.py, so the two stay
// paired.
#pragma once

#include <cstdint>

#include "elementwise/elementwise.h"

namespace repdl {
namespace random {
namespace crmath {

inline void log(const float* x, float* y, int64_t n) { elementwise::log(x, y, n); }
inline void cos(const float* x, float* y, int64_t n) { elementwise::cos(x, y, n); }
inline void sin(const float* x, float* y, int64_t n) { elementwise::sin(x, y, n); }

}  // namespace crmath
}  // namespace random
}  // namespace repdl

// AVX2 row of the optimizer steps: the portable text compiled for AVX2, so
// every loop runs eight lanes at a time (no fma: the contract's steps are
// separate roundings, and contraction is off).
#include <cmath>
#include <cstring>
#include <limits>

#include "optim/optim.h"

#if defined(__x86_64__) || defined(__i386__)
// Everything above is compiled for the baseline; only what follows, which
// runs after isa.cpp has checked the CPU, may use AVX2.
#pragma GCC target("avx2")

namespace repdl {
namespace optim {
namespace {
#include "optim/rows.inc"
}  // namespace

const Rows kAvx2Rows = kRows;

}  // namespace optim
}  // namespace repdl
#else
namespace repdl {
namespace optim {
const Rows kAvx2Rows = kGenericRows;  // never selected: isa_supported(avx2) is false
}  // namespace optim
}  // namespace repdl
#endif

// AVX2+FMA row of the arithmetic kernels: the portable text compiled for
// AVX2, so every loop runs eight lanes at a time and std::fma becomes
// vfmadd (the same single rounding).
#include <cmath>
#include <cstring>

#include "arith/arith.h"

#if defined(__x86_64__) || defined(__i386__)
// Everything above is compiled for the baseline; only what follows, which
// runs after isa.cpp has checked the CPU, may use AVX2 and FMA.
#pragma GCC target("avx2,fma")

namespace repdl {
namespace arith {
namespace {
#include "arith/rows.inc"
}  // namespace

const Rows kAvx2Rows = kRows;

}  // namespace arith
}  // namespace repdl
#else
namespace repdl {
namespace arith {
const Rows kAvx2Rows = kGenericRows;  // never selected: isa_supported(avx2) is false
}  // namespace arith
}  // namespace repdl
#endif

// Packing: copy a block of A or B into the micro-kernel's order, padding
// partial panels with zeros.  Packing moves values only, so it is free to
// read operands with any strides; this is what lets mm accept transposed and
// non-contiguous views at full speed.
#pragma once

#include <cstdint>

#include "gemm/gemm.h"

namespace repdl {
namespace gemm {

// A block rows [0, mc) x cols [0, kc) of `a` into ceil(mc/mr) micro-panels,
// each kc steps of mr consecutive floats.
void pack_a(const Operand& a, int64_t mc, int64_t kc, int mr, float* dst);

// Micro-panels [p0, p1) of the B block rows [0, kc) x cols [0, nc) of `b`;
// micro-panel p holds kc steps of nr consecutive floats, at dst + p*kc*nr.
void pack_b(const Operand& b, int64_t kc, int64_t nc, int nr, int64_t p0, int64_t p1, float* dst);

}  // namespace gemm
}  // namespace repdl

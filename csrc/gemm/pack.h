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

// A column-major A (rs == 1, cs != 1: the transposed operand of a weight
// gradient, g^T x) for a packer of MR rows: each k step of a full panel
// takes MR values that lie side by side in memory, one short copy (always
// inlined, so that it is vectorised for the calling packer's instruction
// set); the partial panel goes to pack_a.
template <int MR>
[[gnu::always_inline]] inline void pack_a_columns(const Operand& a, int64_t mc, int64_t kc, float* dst) {
  const int64_t full = mc / MR * MR;
  for (int64_t i0 = 0; i0 < full; i0 += MR)
    for (int64_t k = 0; k < kc; ++k)
      for (int i = 0; i < MR; ++i) dst[i0 * kc + k * MR + i] = a.p[i0 + k * a.cs + i];
  if (full < mc) pack_a({a.p + full, a.rs, a.cs}, mc - full, kc, MR, dst + full * kc);
}

// Micro-panels [p0, p1) of the B block rows [0, kc) x cols [0, nc) of `b`;
// micro-panel p holds kc steps of nr consecutive floats, at dst + p*kc*nr.
void pack_b(const Operand& b, int64_t kc, int64_t nc, int nr, int64_t p0, int64_t p1, float* dst);

}  // namespace gemm
}  // namespace repdl

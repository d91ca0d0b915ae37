// Selections and NaN handling for the portable float32 steps around the
// correctly rounded functions (param.cpp, grad_blocks.inc), as integer operations
// on bit patterns: a floating-point compare-and-branch per element costs
// more than the arithmetic when the signs are random, and GCC will not
// if-convert float comparisons (they may trap); integer selects vectorise.
// param.cpp is compiled for the baseline; grad_blocks.inc once per
// instruction set (grad_<isa>.cpp), with the same bits.
#pragma once

#include <cstdint>

#include "common/bits.h"
#include "common/nan.h"

namespace repdl {
namespace elementwise {

inline uint32_t all_if(bool c) { return c ? ~0u : 0u; }
// a > 0 for the float with bits a (false for +-0 and NaN).
inline bool positive(uint32_t a) { return a - 1u < 0x7F800000u; }
inline bool is_nan(uint32_t a) { return (a & 0x7FFFFFFFu) > 0x7F800000u; }
// A signed integer ordered like the float (+0 and -0 equal), for non-NaN a.
inline int32_t order_key(uint32_t a) {
  const int32_t s = static_cast<int32_t>(a) >> 31;
  return (static_cast<int32_t>(a & 0x7FFFFFFFu) ^ s) - s;
}
// common/nan.h's canonical_nan on the bit pattern, which GCC vectorises
// (its float self-comparison it does not).
inline float canonical(float v) { return is_nan(bits_of(v)) ? float_of(kCanonicalNanBits) : v; }
// m ? a : b, with a NaN result made canonical.
inline float pick(uint32_t m, float a, float b) { return canonical(float_of((bits_of(a) & m) | (bits_of(b) & ~m))); }
// m ? a : b bit for bit (a selection passes its operand through, NaN payload
// and all, as torch.where does).
inline float pick_raw(uint32_t m, float a, float b) { return float_of((bits_of(a) & m) | (bits_of(b) & ~m)); }

}  // namespace elementwise
}  // namespace repdl

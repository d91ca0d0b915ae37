// The contract's NaN rule: every NaN an op returns is the canonical quiet NaN
// 0x7FC00000.  Hardware differs in which NaN an invalid operation makes
// (x86: 0xFFC00000, CUDA: 0x7FFFFFFF) and in which input NaN's payload it
// passes on, so results are canonicalised where they are written.
#pragma once

#include <cstdint>
#include <cstring>

namespace repdl {

constexpr uint32_t kCanonicalNanBits = 0x7FC00000u;

inline float canonical_nan(float x) {
  if (x == x) return x;
  float q;
  std::memcpy(&q, &kCanonicalNanBits, sizeof q);
  return q;
}

}  // namespace repdl

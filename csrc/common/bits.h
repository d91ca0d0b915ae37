// A float32's bit pattern and back (memcpy, which compilers turn into a
// register move and vectorise): the integer steps on floats that the
// elementwise selections (elementwise/select.h) and reduce's grid sums
// (reduce/grid_sum.inc) take.
#pragma once

#include <cstdint>
#include <cstring>

namespace repdl {

inline uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

inline float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

}  // namespace repdl

// Software prefetch of a run of floats into L2, shared by the kernels that
// ask for their next group of lines or rows in one burst while the current
// one computes (softmax/lines.inc, norm/rows.inc).
#pragma once

#include <cstdint>

namespace repdl {

// The 64-byte lines of [p, p + n) asked into L2 (locality 2: prefetcht1 on
// x86), not L1: a burst of 128 prefetcht0 waited on L1's few miss buffers,
// and the lines reach L1 on demand from L2 in time.  (Callers test and
// locate the run themselves: with the test inside, GCC 12 dropped the
// prefetches.)
inline void prefetch_into_l2(const float* p, int64_t n) {
  for (int64_t i = 0; i < n; i += 64 / static_cast<int64_t>(sizeof(float))) __builtin_prefetch(p + i, 0, 2);
}

}  // namespace repdl

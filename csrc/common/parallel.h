// Threads in RepDL split *output elements* and nothing else: the chain of
// operations that produces one element runs in its one order, start to
// finish on one thread, so the thread count can change speed but never
// bits.  (The one relay, norm/rows.inc's parameter gradients, hands whole
// chains from thread to thread at a barrier, each continuing where the
// last stopped: the same operations in the same order.)
//
// OpenMP is used through libgomp, which `import repdl` shares with torch, so
// torch.set_num_threads / OMP_NUM_THREADS govern these kernels as well.
#pragma once

#include <omp.h>
#include <cstdint>
#include <algorithm>

#include "common/fpenv.h"

namespace repdl {

// Number of threads for a job of `work` units (roughly flops or bytes): one
// thread below `grain`, so tiny ops skip the fork/join cost, and one inside
// a parallel region (a kernel that gives whole jobs to threads calls the
// others serially).
inline int threads_for(int64_t work, int64_t grain) {
  if (omp_in_parallel()) return 1;
  const int max_threads = omp_get_max_threads();
  if (work < grain || max_threads <= 1) return 1;
  return static_cast<int>(std::min<int64_t>(max_threads, std::max<int64_t>(1, work / grain)));
}

// [begin, end) of part `part` when `n` items are cut into `parts` nearly
// equal contiguous ranges.
inline void split_range(int64_t n, int parts, int part, int64_t* begin, int64_t* end) {
  const int64_t base = n / parts, extra = n % parts;
  *begin = part * base + std::min<int64_t>(part, extra);
  *end = *begin + base + (part < extra ? 1 : 0);
}

// Runs body(begin, end) over contiguous ranges of [0, n) on up to `threads`
// threads.  Each thread of a parallel region holds an IeeeFpGuard while it
// works; on one thread, the body runs on the caller's, whose binding holds
// the guard already (pyargs.h, kernel_call).
template <class Body>
void parallel_ranges(int64_t n, int threads, const Body& body) {
  if (n <= 0) return;
  threads = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, n)));
  if (threads == 1) {
    body(int64_t{0}, n);
    return;
  }
#pragma omp parallel num_threads(threads)
  {
    IeeeFpGuard guard;
    int64_t b, e;
    split_range(n, omp_get_num_threads(), omp_get_thread_num(), &b, &e);
    if (b < e) body(b, e);
  }
}

}  // namespace repdl

// Per-thread scratch memory that outlives a call, so kernels do not pay for
// malloc/free (and page faults) on every invocation.  OpenMP worker threads
// are persistent, so their buffers are reused across parallel regions too.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>

namespace repdl {

// A 64-byte-aligned buffer of at least `n` floats belonging to the calling
// thread; `slot` tells apart buffers a thread needs at the same time.
inline float* thread_scratch(size_t n, int slot) {
  struct Deleter { void operator()(float* p) const { std::free(p); } };
  struct Buffer { std::unique_ptr<float, Deleter> p; size_t n = 0; };
  thread_local Buffer buffers[4];
  Buffer& b = buffers[slot];
  if (b.n < n) {
    const size_t bytes = ((n * sizeof(float) + 63) / 64) * 64;
    b.p.reset(static_cast<float*>(std::aligned_alloc(64, bytes)));
    if (!b.p) throw std::bad_alloc();
    b.n = n;
  }
  return b.p.get();
}

}  // namespace repdl

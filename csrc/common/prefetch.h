// Software prefetch, and when it pays: a run of floats asked into L2 in one
// burst (norm/rows.inc's next group of rows), a run claimed for writing
// (softmax's backward's dx), and lines asked for spread over a kernel's
// steps (SpreadPrefetch: the exponential's, the fmachains').
#pragma once

#include <cstdint>

namespace repdl {

// A thread's share of a tensor from which its lines are worth asking for
// ahead: with less they are mostly in L2 already (Zen 4: 1 MB a core), and
// the requests only cost (norm/rows.inc and softmax's lines measured it).
constexpr int64_t kPrefetchFromBytes = int64_t{2} << 20;

// Whether a tensor of `floats` float32 values split over `threads` comes
// from beyond L2, so that asking for its lines ahead pays.
inline bool from_memory(int64_t floats, int threads) {
  return floats * static_cast<int64_t>(sizeof(float)) / threads >= kPrefetchFromBytes;
}

// The 64-byte lines of [p, p + n) in one burst, with __builtin_prefetch's
// kWrite and kLocality.
template <int kWrite, int kLocality>
inline void prefetch_run(const float* p, int64_t n) {
  for (int64_t i = 0; i < n; i += 64 / static_cast<int64_t>(sizeof(float))) __builtin_prefetch(p + i, kWrite, kLocality);
}

// The lines of [p, p + n) asked into L1 with intent to write: for stores a
// kernel makes after a pass of loads, whose lines otherwise arrive one
// store miss at a time.  (The rows are compiled without PRFCHW, so on x86
// GCC emits prefetcht0: the lines come in for reading, which is what was
// measured.)
inline void prefetch_for_write(float* p, int64_t n) { prefetch_run<1, 3>(p, n); }

// The lines of [p, p + n) asked into L2 (locality 2: prefetcht1 on x86),
// not L1: a burst of 128 prefetcht0 waited on L1's few miss buffers, and
// the lines reach L1 on demand from L2 in time.  (Callers test and locate
// the run themselves: with the test inside, GCC 12 dropped the prefetches.)
inline void prefetch_into_l2(const float* p, int64_t n) { prefetch_run<0, 2>(p, n); }

// The cache lines a kernel asks for while it computes: `lines` 64-byte
// lines from `a` (and as many from `b`, when given), a share at each of the
// kernel's steps (a chunk of results, a step along its rows), so that their
// memory latency overlaps the arithmetic; whatever is left when the kernel
// ends goes at once.  kLocality is __builtin_prefetch's: 3 into L1
// (prefetcht0), 2 into L2 (prefetcht1).
template <int kLocality>
class SpreadPrefetch {
 public:
  SpreadPrefetch() = default;
  // [a, a + bytes) and [b, b + bytes) over the n / per_step + 1 steps of n results.
  SpreadPrefetch(const void* a, const void* b, int64_t bytes, int64_t n, int64_t per_step)
      : a_(static_cast<const char*>(a)), b_(static_cast<const char*>(b)), lines_(a ? (bytes + 63) / 64 : 0) {
    // Nothing to ask for (a kernel in L2): no divisions (two 64-bit ones,
    // for each of softmax's groups, sixteen lines of 16 among them).
    if (lines_ == 0) return;
    const int64_t steps = n / per_step + 1;
    per_step_ = (lines_ + steps - 1) / steps;
  }
  void step() { ask(per_step_); }
  void rest() { ask(lines_); }

 private:
  void ask(int64_t k) {
    for (; k > 0 && lines_ > 0; --k, --lines_, a_ += 64) {
      __builtin_prefetch(a_, 0, kLocality);
      if (b_) {
        __builtin_prefetch(b_, 0, kLocality);
        b_ += 64;
      }
    }
  }
  const char *a_ = nullptr, *b_ = nullptr;
  int64_t lines_ = 0, per_step_ = 0;
};

// The exponential's requests (elementwise.h's exp_prefetching) go into L1:
// into L2 measured 1.03-1.1 of softmax's time there.
using Ahead = SpreadPrefetch<3>;
// The fmachains of softmax's backward (reduce's sumprod_rows) ask into L2:
// into L1, 16 MB inputs took 1.15-1.2 of the time (Zen 4).
using AheadIntoL2 = SpreadPrefetch<2>;

}  // namespace repdl

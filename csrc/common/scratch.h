// Per-thread scratch memory that outlives a call, so kernels do not pay for
// malloc/free (and page faults) on every invocation.  OpenMP worker threads
// are persistent, so their buffers are reused across parallel regions too.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>

namespace repdl {

// Who owns which buffer.  A kernel that calls another kernel while holding
// a buffer must not share its slot: the callee would overwrite it.
enum class Scratch : int {
  gemm_a = 0,        // packed A block
  gemm_b = 1,        // packed B panel
  softmax_diff = 2,  // x - max, per line group (and a norm's gradient rows)
  softmax_exp = 3,   // exp(x - max), per line group (and a norm's normalised rows)
  conv_cols = 4,     // a convolution's im2col block
  conv_weight = 5,   // a convolution's rearranged weights (grad_input)
  conv_out = 6,      // a convolution's output block, or its dy block as GEMM operand
  gemm_edge = 7,     // a GEMM's partial last B panel, when B is read in place
  conv_phase = 8,    // a strided convolution's grad_input, one phase of every image (conv.cpp)
  count
};

// A 64-byte-aligned buffer of at least `n` floats belonging to the calling
// thread in the given slot.
inline float* thread_scratch(size_t n, Scratch slot) {
  struct Deleter { void operator()(float* p) const { std::free(p); } };
  struct Buffer { std::unique_ptr<float, Deleter> p; size_t n = 0; };
  thread_local Buffer buffers[static_cast<int>(Scratch::count)];
  Buffer& b = buffers[static_cast<int>(slot)];
  if (b.n < n) {
    const size_t bytes = ((n * sizeof(float) + 63) / 64) * 64;
    b.p.reset(static_cast<float*>(std::aligned_alloc(64, bytes)));
    if (!b.p) throw std::bad_alloc();
    b.n = n;
  }
  return b.p.get();
}

}  // namespace repdl

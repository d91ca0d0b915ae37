// Reduction entry points: cut the outputs among threads, hand each run of
// outputs to the layout's kernel from the active ISA's table.
#include "reduce/reduce.h"

#include <algorithm>
#include <vector>

#include "common/nan.h"
#include "common/parallel.h"

namespace repdl {
namespace reduce {
namespace {

// Below this many elements per thread a reduction stays on one thread.
constexpr int64_t kElementsPerThread = int64_t{1} << 15;

// Calls fn(segment, first_output, r1) for the runs of consecutive i0 that
// make up each thread's share of the P1*P0 outputs, once per outer reduced
// index r1 in ascending order (from r1 > 0 on, the kernels continue the
// chains of the call before: accumulate).
template <class Fn>
void for_segments(const View& v, const Fn& fn) {
  const int64_t P = v.P1 * v.P0;
  const int threads = threads_for(P * std::max<int64_t>(v.R * v.R1, 1), kElementsPerThread);
  parallel_ranges(P, threads, [&](int64_t pb, int64_t pe) {
    while (pb < pe) {
      const int64_t i1 = pb / v.P0, i0 = pb % v.P0;
      const int64_t n = std::min(pe - pb, v.P0 - i0);
      for (int64_t r1 = 0; r1 < v.R1; ++r1)
        fn(Segment{v.x + i1 * v.s1 + i0 * v.s0 + r1 * v.sr1, n, v.s0, v.R, v.sr}, pb, r1);
      pb += n;
    }
  });
}

// A pairwise sum may be cut at aligned power-of-two blocks without changing
// a bit: every aligned block of 2^kChunkLog2 elements before the last such
// boundary is a perfect subtree, and the elements after it form a subtree
// whose shape is that of a standalone pairsum.  Blocks go to threads; their
// sums then enter a counter at level kChunkLog2, and the tail joins as the
// rightmost block.
constexpr int kChunkLog2 = 16;

float pairsum_line_parallel(const Kernels& k, const float* x, int64_t n, int threads) {
  const int64_t chunk = int64_t{1} << kChunkLog2;
  const int64_t m = n >> kChunkLog2, rem = n & (chunk - 1);
  std::vector<float> sums(static_cast<size_t>(m));
  parallel_ranges(m, threads, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) sums[static_cast<size_t>(i)] = k.pairsum_contiguous(x + i * chunk, chunk);
  });
  float level[64];
  for (int64_t i = 0; i < m; ++i) {
    float v = sums[static_cast<size_t>(i)];
    int l = 0;
    for (int64_t r = i; r & 1; r >>= 1, ++l) v = level[l] + v;
    level[l] = v;
  }
  bool have = rem > 0;
  float acc = have ? k.pairsum_contiguous(x + m * chunk, rem) : 0.0f;
  for (int l = 0; l < 64 && (m >> l) != 0; ++l)
    if ((m >> l) & 1) {
      acc = have ? level[l] + acc : level[l];
      have = true;
    }
  return canonical_nan(acc);
}

void sum_segment(const Kernels& k, const Segment& s, Order order, float* out, bool accumulate) {
  if (s.sr == 1) k.sum_rows(s, order, out, accumulate);
  else if (s.s0 == 1) k.sum_cols(s, order, out, accumulate);
  else kGenericKernels.sum_rows(s, order, out, accumulate);  // the generic rows kernel takes any layout
}

}  // namespace

const Kernels& kernels(Isa isa) {
#if defined(__x86_64__) || defined(__i386__)
  if (isa >= Isa::avx512) return avx512_kernels();
  if (isa >= Isa::avx2) return kAvx2Kernels;
#endif
  (void)isa;
  return kGenericKernels;
}

void sum(const View& v, Order order, float* out) {
  const Kernels& k = kernels(active_isa());
  const int64_t P = v.P1 * v.P0;
  const int threads = threads_for(v.R, kElementsPerThread);
  if (order == Order::pairwise && v.sr == 1 && P < threads) {
    for (int64_t p = 0; p < P; ++p)
      out[p] = pairsum_line_parallel(k, v.x + (p / v.P0) * v.s1 + (p % v.P0) * v.s0, v.R, threads);
    return;
  }
  for_segments(v, [&](const Segment& s, int64_t p, int64_t r1) { sum_segment(k, s, order, out + p, r1 > 0); });
}

void mean(const View& v, float count, float* out) {
  const Kernels& k = kernels(active_isa());
  for_segments(v, [&](const Segment& s, int64_t p, int64_t r1) {
    sum_segment(k, s, Order::sequential, out + p, r1 > 0);
    if (r1 == v.R1 - 1)
      for (int64_t i = p; i < p + s.n; ++i) out[i] = canonical_nan(out[i] / count);
  });
}

void sqdev(const View& v, const float* mean, float* out) {
  const Kernels& k = kernels(active_isa());
  for_segments(v, [&](const Segment& s, int64_t p, int64_t r1) {
    if (s.sr == 1) k.sqdev_rows(s, mean + p, out + p, r1 > 0);
    else if (s.s0 == 1) k.sqdev_cols(s, mean + p, out + p, r1 > 0);
    else kGenericKernels.sqdev_rows(s, mean + p, out + p, r1 > 0);
  });
}

void sumprod(const View& a, const float* b, float* out) {
  const Kernels& k = kernels(active_isa());
  for_segments(a, [&](const Segment& s, int64_t p, int64_t r1) {
    const float* bs = b + (s.base - a.x);
    if (s.sr == 1) k.sumprod_rows(s, bs, out + p, r1 > 0, {});
    else if (s.s0 == 1) k.sumprod_cols(s, bs, out + p, r1 > 0);
    else kGenericKernels.sumprod_rows(s, bs, out + p, r1 > 0, {});
  });
}

void dot(const View& v, const float* vec, int64_t vec_stride, float* out, bool accumulate) {
  const Kernels& k = kernels(active_isa());
  for_segments(v, [&](const Segment& s, int64_t p, int64_t) {
    if (s.sr == 1) k.dot_rows(s, vec, vec_stride, out + p, accumulate);
    else if (s.s0 == 1) k.dot_cols(s, vec, vec_stride, out + p, accumulate);
    else kGenericKernels.dot_rows(s, vec, vec_stride, out + p, accumulate);
  });
}

void extremum(const View& v, bool is_min, float* value, int64_t* index) {
  const Kernels& k = kernels(active_isa());
  for_segments(v, [&](const Segment& s, int64_t p, int64_t) {
    if (s.sr == 1) k.extremum_rows(s, is_min, value + p, index + p);
    else if (s.s0 == 1) k.extremum_cols(s, is_min, value + p, index + p);
    else kGenericKernels.extremum_rows(s, is_min, value + p, index + p);
  });
}

}  // namespace reduce
}  // namespace repdl

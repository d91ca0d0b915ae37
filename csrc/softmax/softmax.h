// softmax, log_softmax and logsumexp along one index (docs/CONTRACT.md,
// "Softmax family").  Lines are described by reduce::View: line p = (i1, i0)
// holds x[i1*s1 + i0*s0 + r*sr], r = 0..R-1.  softmax and log_softmax write
// y at the same offsets as x; logsumexp writes one value per line, densely.
#pragma once

#include <algorithm>
#include <cstdint>

#include "reduce/reduce.h"

namespace repdl {
namespace softmax {

enum class Kind { softmax = 0, log_softmax = 1, logsumexp = 2, log_softmax_stats = 3 };

// Attention's steps between its scores and their softmax (docs/CONTRACT.md,
// "Attention"), taken as each line is first read: z = fl(x * scale), then
// with an additive mask fl(z + m), with a keep mask (bool) z where it holds
// and -inf elsewhere; NaN canonical, as the mul and add ops write it.  The
// mask's element (line p, r) lies at m + (p / P0) * m1 + (p % P0) * m0 + r
// (elements: floats, or bytes for a keep mask): the view's lines with
// strides of their own, 0 where the mask is broadcast.
struct Scores {
  enum class Mask : int { none = 0, add = 1, keep = 2 };
  float scale;
  Mask mask;
  const void* m;
  int64_t m1, m0;
};

// Kind softmax / log_softmax: `y` is the base of an output with x's strides.
// Kind logsumexp: `y` holds P1*P0 floats.  Kind log_softmax_stats: `y`
// holds 2*P1*P0 floats, per line its m (the contract's max) and log(s): the
// line's log_softmax is then fl(fl(x - m) - log(s)) element by element, so
// a caller that needs a few log-probabilities (cross_entropy's picks) or
// needs them later (its backward) keeps two floats per line, not the line.
// With `scores`, each line is first taken through those steps (softmax
// and log_softmax).
void run(const reduce::View& v, Kind kind, float* y, const Scores* scores = nullptr);

// The gradient of softmax (log: log_softmax) from its output y (the view's
// x) and the output gradient g, which has y's strides; dx (overlapping
// neither) is written with them too.  softmax: dx = y * (g - fmachain(g,
// y)); log_softmax: dx = g - exp(y) * seqsum(g), per line.  With `scores`
// (softmax only), the gradient of the scores before attention's steps:
// each dx then becomes fl((keep ? dx : +0.0) * scale) for a keep mask,
// fl(dx * scale) otherwise (an added mask passes the gradient unchanged),
// NaN canonical.
void backward(const reduce::View& v, bool log, const float* g, float* dx, const Scores* scores = nullptr);

// log_softmax's gradient when g is +0.0 but for value[p] at class index[p]
// (0 <= index[p] < R) of each of the P dense rows x[p*R .. p*R + R), from
// the input x and its log_softmax_stats (2 floats per row): the bits of
// backward(..., log = true, g) on y = log_softmax(x) with that g, neither
// of which is formed.  dx is dense, P x R.
void onehot_backward(const float* x, const float* stats, int64_t P, int64_t R, const int64_t* index,
                     const float* value, float* dx);

// Lines go in groups, one sequential chain per vector lane of the
// reduction kernels: kWideGroup lines where they are at most
// kWideGroupMaxLine long, else kGroup.  Sixteen lines run as two chains of
// eight interleaved (reduce_avx2.cpp's rows_groups<2>), where one chain
// waited on each add: 0.91-0.94 of the forward's time at 64x128x128,
// 16x512x512 and 4096x1000.  Longer lines lost with sixteen (1.13 at
// 1024x2048, 1.18 at 64x32768: the group's scratch leaves L2).  The
// backward's fmachains lost with sixteen too while its rows were
// transposed by 8x8 shuffles (1.06-1.13); with the rows kernels' broadcast
// loads they gain (docs/PERFORMANCE.md, "The rows kernels' loads;
// softmax's backward in groups of sixteen").
constexpr int kGroup = 8;
constexpr int kWideGroup = 16;
constexpr int64_t kWideGroupMaxLine = 1024;

// Lines of up to this length go in groups of kGroup (lines.inc); longer
// ones in as many as the same scratch holds (kGroup * kGroupMaxLine floats
// a buffer, 1 MB), at least one: a lone line's sum is one chain waiting on
// each add, where a few side by side share that wait (a 50K-class
// vocabulary's loss on a few rows: (4, 50000) took 2.5x torch's time one
// line at a time).
constexpr int64_t kGroupMaxLine = int64_t{1} << 15;

// Lines shorter than 128 go in groups of kShortGroupFloats floats, up to
// kMostLines lines: a group's own steps (its scratch, its offsets, each
// kernel's call and setup) cost as much for sixteen lines of 16 as for
// sixteen of 1000.  2048 floats, 8 KB a buffer, keep a group's x, x - m
// and exponentials in a 32 KB L1.  Kernel time against groups of sixteen
// (Sapphire Rapids, 1 thread): lines of 16 (128 a group) softmax 0.88,
// log_softmax 0.83, their backward 0.81 and 0.74; lines of 32 (64) 0.82-0.92;
// lines of 64 (32) 0.91-0.98.  4096 floats gained 0.87-1.0 more on
// Sapphire Rapids' 48 KB L1 and are not taken: the three buffers would
// fill it.
constexpr int64_t kShortGroupFloats = 2048;
constexpr int kMostLines = 128;

// Whether lines of length R go in groups of kShortGroupFloats floats.
inline bool short_lines(int64_t R) { return R * kWideGroup < kShortGroupFloats; }

// The lines per group for lines of length R, forward and backward.
inline int group_lines(int64_t R) {
  if (short_lines(R)) return static_cast<int>(std::min<int64_t>(kMostLines, kShortGroupFloats / R));
  if (R <= kWideGroupMaxLine) return kWideGroup;
  return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(kGroup, kGroup * kGroupMaxLine / R)));
}

// The line kernels, one table per instruction set (softmax_<isa>.cpp, each
// the text of lines.inc compiled for it): a group of lines p0 ..
// p0+count-1 (count <= group_lines(R)), and
// dense rows p0 .. p0+count-1 (count <= kGroup) of the P rows of
// onehot_backward.  from_memory: ask for the next group's lines (and the
// backward's dx lines) ahead; softmax.cpp decides, by prefetch.h's rule.
struct LineKernels {
  void (*process_group)(const reduce::View& v, Kind kind, const Scores* scores, float* y, int64_t p0, int count,
                        bool from_memory);
  void (*backward_group)(const reduce::View& v, bool log, const Scores* scores, const float* g, float* dx, int64_t p0,
                         int count, bool from_memory);
  void (*onehot_backward_rows)(const float* x, const float* stats, int64_t P, int64_t R, const int64_t* index,
                               const float* value, float* dx, int64_t p0, int count, bool from_memory);
};
extern const LineKernels kGenericLines;
extern const LineKernels kAvx2Lines;    // x86 only
extern const LineKernels kAvx512Lines;  // x86 only

}  // namespace softmax
}  // namespace repdl

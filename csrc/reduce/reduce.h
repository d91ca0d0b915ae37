// Reductions along one (coalesced) index: sequential and pairwise sums, the
// sum of squared deviations behind var/std, and max/min with first-index
// ties.  Contract: docs/CONTRACT.md, "Reductions".
//
// Python brings every reduction to one canonical view: outputs indexed by
// (i1, i0) (the kept dims, coalesced into at most two groups), each reducing
// R elements x[i1*s1 + i0*s0 + r*sr], r = 0..R-1, in ascending r.  Outputs
// are written densely, out[i1*P0 + i0].  Threads split outputs; each output's
// chain runs whole on one thread.
#pragma once

#include <cstdint>

#include "common/isa.h"
#include "common/prefetch.h"

namespace repdl {
namespace reduce {

struct View {
  const float* x;
  int64_t P1, s1;  // outer kept group
  int64_t P0, s0;  // inner kept group
  int64_t R, sr;   // reduced index
  // An outer reduced index, for reduced dims on both sides of a kept one
  // (a convolution bias's or a per-channel weight's sums over (0, 2, 3)):
  // each chain runs over (r1, r) with r1 outer, continued call by call
  // (sequential chains only: sum's sequential order, mean, sqdev, sumprod;
  // dot and extremum take views without one).
  int64_t R1 = 1, sr1 = 0;
};

// One run of outputs along i0: n outputs whose chains start at base + i*s0.
struct Segment {
  const float* base;
  int64_t n, s0, R, sr;
};

enum class Order { sequential = 0, pairwise = 1 };

// Per-ISA segment kernels.  `rows` kernels require sr == 1 (each chain walks
// contiguous memory), `cols` kernels require s0 == 1 (neighbouring outputs
// are neighbours in memory); `any` kernels take every layout.
struct Kernels {
  // With accumulate (sequential order only), the kernels continue each
  // chain from the value already in out: a chain split into several calls
  // (batch norm's, sample by sample) gives the bits of one call.
  void (*sum_rows)(const Segment&, Order, float* out, bool accumulate);
  void (*sum_cols)(const Segment&, Order, float* out, bool accumulate);
  void (*sqdev_rows)(const Segment&, const float* mean, float* out, bool accumulate);
  void (*sqdev_cols)(const Segment&, const float* mean, float* out, bool accumulate);
  // out[i] = fmachain over r of (a element (i, r), b element (i, r)); b has
  // a's layout, its segment starting at b_base.  The rows kernel asks for
  // `ahead`'s lines as it goes (softmax's backward: the next group's lines).
  void (*sumprod_rows)(const Segment& a, const float* b_base, float* out, bool accumulate, AheadIntoL2 ahead);
  // How many rows s0 floats apart sumprod_rows runs side by side: sixteen,
  // or eight where sixteen rows of its two inputs would crowd an L1 set
  // (the x86 rows kernels; the generic row says sixteen, which leaves its
  // callers' groups as they were).  A caller that groups lines for it
  // (softmax's backward) then keeps no more of them in flight than the
  // chains use.
  int (*sumprod_rows_side_by_side)(int64_t s0);
  void (*sumprod_cols)(const Segment& a, const float* b_base, float* out, bool accumulate);
  // out[i] = fmachain over r of (segment element (i, r), v[r * v_stride]),
  // starting from +0.0 or, with accumulate, continuing from out[i]
  void (*dot_rows)(const Segment&, const float* v, int64_t v_stride, float* out, bool accumulate);
  void (*dot_cols)(const Segment&, const float* v, int64_t v_stride, float* out, bool accumulate);
  // value and first index of the maximum (is_min: minimum) of each output
  void (*extremum_rows)(const Segment&, bool is_min, float* value, int64_t* index);
  void (*extremum_cols)(const Segment&, bool is_min, float* value, int64_t* index);
  // the value max() returns for n >= 1 contiguous floats
  float (*max_value)(const float* x, int64_t n);
  // out[i] = max_value of row i (sr == 1): softmax's m for a group of lines
  // of up to sixteen floats at once.
  void (*max_rows)(const Segment&, float* out);
  // pairsum of n contiguous floats (one long line).
  float (*pairsum_contiguous)(const float* x, int64_t n);
};

const Kernels& kernels(Isa isa);
extern const Kernels kGenericKernels;
extern const Kernels kAvx2Kernels;
const Kernels& avx512_kernels();  // (x86 only)

// Entry points (threaded).  `out` has P1*P0 floats (and `index` as many
// int64 for extrema).
void sum(const View& v, Order order, float* out);
// out = fl(seqsum / count): the sequential sum, then one IEEE division by
// count per output, made by the thread that summed it (so under its IEEE
// environment, with no second pass or call): mean's node.
void mean(const View& v, float count, float* out);
// out = fmachain(d, d) with d[r] = x[r] - mean[p]: var's second pass.
void sqdev(const View& v, const float* mean, float* out);
// out = fmachain(a line, b line) for every line; b has a's layout (strides),
// starting at b.
void sumprod(const View& a, const float* b, float* out);
// out = fmachain(x line, v) for every line: matrix-vector products (the
// gemv shapes of mm, M == 1 or N == 1), v read at v[r * v_stride]; with
// accumulate each chain continues from the value already in out.
void dot(const View& v, const float* vec, int64_t vec_stride, float* out, bool accumulate = false);
// First index of the maximum (is_min: minimum); NaN beats every number.
void extremum(const View& v, bool is_min, float* value, int64_t* index);

}  // namespace reduce
}  // namespace repdl

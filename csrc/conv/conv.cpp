// The three convolution GEMMs.  Each builds its B operand in a bounded
// scratch block of output (or input) columns, in exactly the layout the
// chain order needs, and hands it to gemm::run; the columns of one block
// are independent outputs, and for grad_weight the blocks are successive
// pieces of one chain (gemm's accumulate), taken in ascending order.
#include "conv/conv.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "arith/arith.h"
#include "common/parallel.h"
#include "common/scratch.h"
#include "conv/direct.h"
#include "gemm/gemm.h"

namespace repdl {
namespace conv {
namespace {

constexpr int64_t kBlockFloats = int64_t{1} << 18;  // 1 MiB of B per block: it stays in L2 while gemm packs it

int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }

// Columns per block for a B operand of `rows` rows.
int64_t block_columns(int64_t rows, int64_t total) {
  const int64_t cols = std::max<int64_t>(64, (kBlockFloats / std::max<int64_t>(rows, 1)) / 32 * 32);
  return std::min(cols, total);
}

// [lo, hi): the output positions o (of `out`) along one axis whose tap
// o*s + k*d - p lies inside [0, size).
void valid_range(int64_t size, int64_t s, int64_t p, int64_t k, int64_t d, int64_t out, int64_t* lo, int64_t* hi) {
  const int64_t off = k * d - p;
  *lo = std::min(out, std::max<int64_t>(0, ceil_div(-off, s)));
  *hi = std::max(*lo, std::min(out, floor_div(size - 1 - off, s) + 1));
}

// Short runs (a small layer's output rows are a few floats) cost more as
// memcpy/memset calls than as plain loops, so the loops stay loops, in
// these helpers and in the functions that build B operands from them.
#pragma GCC push_options
#pragma GCC optimize("no-tree-loop-distribute-patterns")
inline void zero(float* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = 0.0f;
}
inline void copy(float* dst, const float* src, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
}
// Every other float (stride 2, a ResNet stem's and downsampling layers'):
// with the stride a constant GCC vectorises the gather (loads and
// shuffles), where the general strided loop goes a float at a time.
inline void copy_every_other(float* dst, const float* src, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = src[2 * i];
}

// One row of a B operand where stride is 1 and the planes are equally wide
// (a "same" convolution's): position j = (r, c) of the dst_rows x w plane
// takes the src_rows x w plane's (r + row_shift, c + col_shift) wherever c
// lies in [c_lo, c_hi) and that row inside, +0.0 elsewhere.  So the valid
// rows are one run of src, shifted by a constant, copied in one call, and
// their columns outside [c_lo, c_hi), which the run fills with the
// neighbouring rows' ends, are zeroed after.  im2col's rows are such (the
// taps of x), and grad_input's (dy placed by a tap).  (Row by row, 32 x 32
// planes took a copy and two zero calls per 30 floats: a fifth of the
// forward's time.)  [j0, j0 + ncols) of the positions, into dst.
struct Shift {
  int64_t src_rows, dst_rows, w, row_shift, col_shift, c_lo, c_hi;
};

void shifted_plane(const Shift& s, const float* src, int64_t j0, int64_t ncols, float* dst) {
  const int64_t j1 = j0 + ncols, w = s.w;
  const auto zero_positions = [&](int64_t a, int64_t b) {
    if (b > a) zero(dst + (a - j0), b - a);
  };
  // the rows whose source row lies inside, as positions in the block
  const int64_t r0 = std::clamp<int64_t>(-s.row_shift, 0, s.dst_rows);
  const int64_t r1 = std::clamp<int64_t>(s.src_rows - s.row_shift, r0, s.dst_rows);
  const int64_t a = std::clamp(r0 * w, j0, j1), b = std::clamp(r1 * w, a, j1);
  zero_positions(j0, a);
  zero_positions(b, j1);
  // The run's source [a + shift, b + shift) clipped to src: what the clip
  // drops lies in the first or last valid row's outer columns.
  const int64_t shift = s.row_shift * w + s.col_shift;
  const int64_t ca = std::clamp(-shift, a, b), cb = std::clamp(s.src_rows * w - shift, ca, b);
  zero_positions(a, ca);
  if (cb > ca) std::memcpy(dst + (ca - j0), src + ca + shift, static_cast<size_t>(cb - ca) * sizeof(float));
  zero_positions(cb, b);
  // Each row's columns outside [left, right): one or two floats at a 3 x 3
  // kernel's side taps, none at its centre.  Rows wholly inside the run take
  // plain stores; clipping is for the run's first and last rows (at 16 x 16
  // planes the clipped calls on every row cost as much as the copy).
  const int64_t left = std::max<int64_t>(s.c_lo, 0), right = std::min(s.c_hi, w);
  if (left == 0 && right == w) return;
  for (int64_t rs = a / w * w; rs < b; rs += w) {
    if (rs >= a && rs + w <= b) {
      float* d = dst + (rs - j0);
      for (int64_t c = 0; c < left; ++c) d[c] = 0.0f;
      for (int64_t c = right; c < w; ++c) d[c] = 0.0f;
      continue;
    }
    zero_positions(std::max(rs, a), std::min(rs + left, b));
    zero_positions(std::max(rs + right, a), std::min(rs + w, b));
  }
}

// Calls row(k, channel, kh, kw, lo, hi, col_off) for the rows k = (channel,
// kh, kw) lexicographic in [k0, k1) of an im2col-like operand, with the
// valid output columns [lo, hi) of tap column kw (valid_range) and its
// column offset kw*dw - pw.  The row's indices come from counters and
// each kw's range from a table made once: three divisions and
// valid_range's per row were most of grad_input's time building B at 8 x 8
// planes (64 -> 128 channels, 2 threads: 1.65 ms against 0.8 for its GEMM).
template <class Row>
void for_each_tap_row(const Geometry& g, int64_t k0, int64_t k1, const Row& row) {
  std::vector<int64_t> lo(g.kw), hi(g.kw);
  for (int64_t kw = 0; kw < g.kw; ++kw) valid_range(g.w, g.sw, g.pw, kw, g.dw, g.ow, &lo[kw], &hi[kw]);
  const int64_t kk = g.kh * g.kw;
  int64_t channel = k0 / kk, kh = k0 % kk / g.kw, kw = k0 % g.kw;
  for (int64_t k = k0; k < k1; ++k) {
    row(k, channel, kh, kw, lo[kw], hi[kw], kw * g.dw - g.pw);
    if (++kw == g.kw) {
      kw = 0;
      if (++kh == g.kh) kh = 0, ++channel;
    }
  }
}

// im2col of one image's group (x at its first channel): cols[(k - k0) * ld
// + (j - j0)] = the tap of output position j in [j0, j0 + ncols) for
// k = (c, kh, kw) lexicographic in [k0, k1), +0.0 in the padding.
void im2col(const Geometry& g, const float* x, int64_t j0, int64_t ncols, float* cols, int64_t ld, int64_t k0,
            int64_t k1) {
  for_each_tap_row(g, k0, k1, [&](int64_t k, int64_t c, int64_t kh, int64_t, int64_t lo, int64_t hi, int64_t col_off) {
    const float* xc = x + c * g.h * g.w;
    float* row = cols + (k - k0) * ld;
    if (g.sh == 1 && g.sw == 1 && g.ow == g.w) {
      shifted_plane({g.h, g.oh, g.w, kh * g.dh - g.ph, col_off, lo, hi}, xc, j0, ncols, row);
      return;
    }
    for (int64_t j = j0; j < j0 + ncols;) {
      const int64_t oh = j / g.ow, first = j % g.ow;
      const int64_t last = first + std::min(g.ow - first, j0 + ncols - j);  // this output row's [first, last)
      float* dst = row + (j - j0);  // output position (oh, first)
      const int64_t ih = oh * g.sh - g.ph + kh * g.dh;
      if (ih < 0 || ih >= g.h) {
        zero(dst, last - first);
      } else {
        const float* src = xc + ih * g.w;
        const int64_t a = std::clamp(lo, first, last), b = std::clamp(hi, a, last);
        zero(dst, a - first);
        if (g.sw == 1) {
          copy(dst + (a - first), src + a + col_off, b - a);
        } else if (g.sw == 2) {
          copy_every_other(dst + (a - first), src + 2 * a + col_off, b - a);
        } else {
          for (int64_t ow = a; ow < b; ++ow) dst[ow - first] = src[ow * g.sw + col_off];
        }
        zero(dst + (b - first), last - b);
      }
      j += last - first;
    }
  });
}

// The B operand of grad_input for one image's group: b[(k - k0) * ld +
// (j - j0)] = dy[oc, oh, ow] for k = (oc, kh, kw) in [k0, k1), where the
// input position j = (ih, iw) is reached by tap (kh, kw) from output
// (oh, ow), +0.0 where no output reaches it (padding, stride holes).  Each
// row is zeroed, then the outputs that reach it are written: for an input
// row ih the outputs ow with iw = ow*sw - pw + kw*dw land every sw-th
// position.
void gather_dy(const Geometry& g, const float* dy, int64_t j0, int64_t ncols, float* b, int64_t ld, int64_t k0,
               int64_t k1) {
  const int64_t j1 = j0 + ncols;
  // [lo, hi): the outputs ow whose tap lands inside [0, w)
  for_each_tap_row(g, k0, k1, [&](int64_t k, int64_t oc, int64_t kh, int64_t, int64_t lo, int64_t hi,
                                  int64_t col_off) {
    const float* d = dy + oc * g.oh * g.ow;
    float* row = b + (k - k0) * ld;
    if (g.sh == 1 && g.sw == 1 && g.ow == g.w) {  // input (ih, iw) takes dy's (ih - row_off, iw - col_off)
      shifted_plane({g.oh, g.h, g.w, g.ph - kh * g.dh, -col_off, lo + col_off, hi + col_off}, d, j0, ncols, row);
      return;
    }
    std::fill_n(row, ncols, 0.0f);
    for (int64_t ih = j0 / g.w; ih <= (j1 - 1) / g.w; ++ih) {
      const int64_t th = ih + g.ph - kh * g.dh;
      if (th < 0 || th % g.sh != 0 || th / g.sh >= g.oh) continue;
      const float* drow = d + (th / g.sh) * g.ow;
      const int64_t base = ih * g.w;  // position of (ih, 0)
      // positions base + ow*sw + col_off for ow in [lo, hi), clipped to [j0, j1)
      int64_t a = lo, e = hi;
      if (base + a * g.sw + col_off < j0) a = std::max(a, ceil_div(j0 - base - col_off, g.sw));
      if (base + (e - 1) * g.sw + col_off >= j1) e = std::min(e, floor_div(j1 - 1 - base - col_off, g.sw) + 1);
      if (g.sw == 1) {
        if (e > a) std::memcpy(row + (base + a + col_off - j0), drow + a, static_cast<size_t>(e - a) * sizeof(float));
      } else {
        for (int64_t ow = a; ow < e; ++ow) row[base + ow * g.sw + col_off - j0] = drow[ow];
      }
    }
  });
}

// (The options above extend to here: GCC inlines no function into one
// compiled with other options, and the row builders call zero and copy
// once or twice a row: as calls, a fifth of their time at 8 x 8 planes.)
#pragma GCC pop_options

// Runs fill(k0, k1) over the rows [0, rows) of a B block: split over
// threads when the caller is not already one of several.
template <class Fill>
void fill_rows(int64_t rows, int64_t ncols, const Fill& fill) {
  parallel_ranges(rows, threads_for(rows * ncols, int64_t{1} << 16), fill);
}

// Runs job(t) for t in [0, jobs): whole jobs per thread when they keep the
// threads three quarters busy or more, else one after another, each then
// threaded inside.  A job is an image's GEMMs (or a group's), whose M is a
// layer's channels: split over threads inside, such a GEMM ran at about
// 0.7 of two threads' speed.  Whole jobs at any size (the rule had been
// "below 2^24 flops a job"), 2 threads, new / old time: conv 3x3 (32, 64,
// 56, 56) forward 0.65-0.83, with its backward 0.86-0.93; (8, 128, 28, 28)
// 0.88-0.90 and 0.99; (32, 64, 16, 16) -> 64 0.62-0.74 and 0.85-0.87.
template <class Job>
void for_jobs(int64_t jobs, int64_t flops_per_job, const Job& job) {
  const int threads = threads_for(jobs * flops_per_job, int64_t{1} << 21);
  const int64_t rounds = (jobs + threads - 1) / threads;
  if (threads > 1 && jobs >= threads && 4 * jobs >= 3 * rounds * threads) {
    parallel_ranges(jobs, threads, [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) job(t);
    });
    return;
  }
  for (int64_t t = 0; t < jobs; ++t) job(t);
}

const gemm::Batch kSingle{0, nullptr, nullptr, nullptr};

// How the columns of a B operand with `rows` rows are cut into blocks of
// at most kBlockFloats: several whole images side by side when an image's
// P columns are few (one GEMM then serves them all, and its tiles are
// full), else one image's columns in pieces of `cols`.
struct Blocks {
  int64_t images, cols;
};

Blocks blocks_for(int64_t rows, int64_t p, int64_t n) {
  const int64_t cols = block_columns(rows, p * n);
  return cols >= p ? Blocks{std::min(n, cols / p), p} : Blocks{1, cols};
}

// C (m x width) = A (m x K, row stride K) times B, for the images [n0, n1)
// side by side (each nc = P columns) or one image's columns [j0, j0 + nc):
// fill(n, j0, nc, dst, ld, k0, k1) writes rows [k0, k1) of image n's
// columns, and image n's C rows land at out(n) + j0 with row stride P.
template <class Fill, class Out>
void image_block_gemm(int64_t m, int64_t K, int64_t P, const float* a, int64_t n0, int64_t n1, int64_t j0,
                      int64_t nc, const Fill& fill, const Out& out) {
  const int64_t images = n1 - n0, width = images * nc;
  float* b = thread_scratch(static_cast<size_t>(K * width), Scratch::conv_cols);
  fill_rows(K, width, [&](int64_t k0, int64_t k1) {
    for (int64_t i = 0; i < images; ++i) fill(n0 + i, j0, nc, b + k0 * width + i * nc, width, k0, k1);
  });
  if (images == 1) {
    gemm::run({m, nc, K, {a, K, 1}, {b, nc, 1}, out(n0) + j0, P}, kSingle);
    return;
  }
  float* c = thread_scratch(static_cast<size_t>(m * width), Scratch::conv_out);
  gemm::run({m, width, K, {a, K, 1}, {b, width, 1}, c, width}, kSingle);
  for (int64_t i = 0; i < images; ++i)
    for (int64_t r = 0; r < m; ++r)
      std::memcpy(out(n0 + i) + r * P, c + r * width + i * P, static_cast<size_t>(P) * sizeof(float));
}

// Images per block, at most `images`, that load the busiest of `threads`
// least when whole jobs go to threads: 32 images in blocks of 3 are 11
// jobs, 18 images for one of two threads and 14 for the other; in blocks
// of 2, 16 each.  Ties keep the larger block.
int64_t even_images(int64_t images, int64_t n, int64_t groups, int threads) {
  int64_t best = images, best_load = 0;
  for (int64_t b = images; b >= 1 && threads > 1; --b) {
    const int64_t load = ceil_div(groups * ceil_div(n, b), threads) * b;
    if (b == images || load < best_load) best = b, best_load = load;
  }
  return best;
}

// Every (group, block of images) as one job of image_block_gemm calls,
// then done(gr, n0, n1) on the job's finished outputs.
template <class A, class Fill, class Out, class Done>
void blocked_gemms(const Geometry& g, int64_t m, int64_t K, int64_t P, const A& a_of_group, const Fill& fill,
                   const Out& out, const Done& done) {
  Blocks bl = blocks_for(K, P, g.n);
  bl.images = even_images(bl.images, g.n, g.groups, threads_for(2 * m * K * P * g.n * g.groups, int64_t{1} << 21));
  const int64_t image_blocks = (g.n + bl.images - 1) / bl.images;
  for_jobs(g.groups * image_blocks, 2 * m * K * P * bl.images, [&](int64_t t) {
    const int64_t gr = t % g.groups, n0 = (t / g.groups) * bl.images, n1 = std::min(g.n, n0 + bl.images);
    const float* a = a_of_group(gr);
    for (int64_t j0 = 0; j0 < P; j0 += bl.cols) {
      image_block_gemm(m, K, P, a, n0, n1, j0, std::min(bl.cols, P - j0),
                       [&](int64_t n, int64_t j, int64_t nc, float* dst, int64_t ld, int64_t k0, int64_t k1) {
                         fill(gr, n, j, nc, dst, ld, k0, k1);
                       },
                       [&](int64_t n) { return out(gr, n); });
    }
    done(gr, n0, n1);
  });
}

// What a job does after its GEMMs when nothing is left to do.
void nothing_more(int64_t, int64_t, int64_t) {}

// grad_input of a strided layer, phase by phase.  Along an axis of stride
// s, the input positions i with (i + pad) mod s = rho are reached only by
// the taps t with t*d mod s = rho, each from the output (i + pad - t*d) / s;
// every other tap meets a stride hole, a +0.0 term.  So a phase's positions,
// every s-th from i0, are a plane of their own, and each tap that reaches
// them a shifted copy of dy's plane: a GEMM over those taps alone (about
// 1/(sh sw) of the terms) in the contract's (oc, kh, kw) order.
//
// Leaving the holes out changes no bit but the sign of some zero results.
// A hole's term w * (+0.0) is a zero when w is finite, with w's sign, and
// both chains start at +0.0 and meet the same other terms in the same
// order.  Adding a zero leaves a nonzero sum as it is, so the chains agree
// wherever their sums are not zero; where both are zeros of different
// signs, the chain over every term holds +0.0: a hole can turn -0.0 into
// +0.0 but never +0.0 into -0.0 (+0 + -0 = +0 when rounding to nearest),
// and another term either decides the result alone (a nonzero exact
// value) or adds a zero p, taking (+0, -0) to (+0, p).  So the phases' +0.0
// results, zero gradients and stride-only positions among them, stand, and
// only a -0.0 (an underflowing product's) is replayed over every term
// (full_chain).  A NaN or infinite weight, whose hole terms are NaN, sends
// the layer to the GEMMs over every term, as do more -0.0 results than the
// replays' budget (kReplayShare).
struct PhaseAxis {
  int64_t first, count;           // positions first + a*s, a < count
  std::vector<int64_t> taps, off;  // the taps that reach them, from outputs a + off
};

PhaseAxis phase_axis(int64_t size, int64_t s, int64_t pad, int64_t k, int64_t d, int64_t rho) {
  PhaseAxis p;
  p.first = ((rho - pad) % s + s) % s;
  p.count = p.first < size ? (size - p.first + s - 1) / s : 0;
  for (int64_t t = 0; t < k; ++t)
    if (t * d % s == rho) {
      p.taps.push_back(t);
      p.off.push_back((p.first + pad - t * d) / s);  // exact: p.first + pad = rho (mod s)
    }
  return p;
}

// The B operand of one phase of grad_input for one image's group (dy at its
// first channel): b[(k - k0) * ld + (j - j0)] = dy[oc, a + off_h, b + off_w]
// for k = (oc, tap row, tap column) over the phase's taps and position j =
// (a, b) of the phase's plane, +0.0 where that output lies outside dy.
void gather_phase(const Geometry& g, const PhaseAxis& ph, const PhaseAxis& pw, const float* dy, int64_t j0,
                  int64_t ncols, float* b, int64_t ld, int64_t k0, int64_t k1) {
  const int64_t th = static_cast<int64_t>(ph.taps.size()), tw = static_cast<int64_t>(pw.taps.size());
  const int64_t wp = pw.count;
  for (int64_t k = k0; k < k1; ++k) {
    const int64_t oc = k / (th * tw), off_h = ph.off[(k / tw) % th], off_w = pw.off[k % tw];
    const float* d = dy + oc * g.oh * g.ow;
    float* row = b + (k - k0) * ld;
    const int64_t lo = std::clamp<int64_t>(-off_w, 0, wp), hi = std::clamp<int64_t>(g.ow - off_w, lo, wp);
    for (int64_t j = j0; j < j0 + ncols;) {
      const int64_t a = j / wp, first = j % wp;
      const int64_t last = first + std::min(wp - first, j0 + ncols - j);
      float* dst = row + (j - j0);
      const int64_t oh = a + off_h;
      if (oh < 0 || oh >= g.oh) {
        zero(dst, last - first);
      } else {
        const int64_t x = std::clamp(lo, first, last), y = std::clamp(hi, x, last);
        zero(dst, x - first);
        copy(dst + (x - first), d + oh * g.ow + x + off_w, y - x);
        zero(dst + (y - first), last - y);
      }
      j += last - first;
    }
  }
}

// dx[n, ch, ih, iw] by the contract's chain over every (oc, kh, kw), stride
// holes and padding as +0.0 terms.
float full_chain(const Geometry& g, const float* dy, const float* w, int64_t n, int64_t ch, int64_t ih, int64_t iw) {
  const int64_t cg = g.c / g.groups, ocg = g.oc / g.groups, gr = ch / cg, c = ch % cg;
  float acc = 0.0f;
  for (int64_t oc = gr * ocg; oc < (gr + 1) * ocg; ++oc)
    for (int64_t kh = 0; kh < g.kh; ++kh)
      for (int64_t kw = 0; kw < g.kw; ++kw) {
        const int64_t th = ih + g.ph - kh * g.dh, tw = iw + g.pw - kw * g.dw;
        float v = 0.0f;
        if (th >= 0 && tw >= 0 && th % g.sh == 0 && tw % g.sw == 0 && th / g.sh < g.oh && tw / g.sw < g.ow)
          v = dy[((n * g.oc + oc) * g.oh + th / g.sh) * g.ow + tw / g.sw];
        acc = std::fma(w[((oc * cg + c) * g.kh + kh) * g.kw + kw], v, acc);
      }
  return acc;
}

bool all_finite(const float* v, int64_t n) {
  bool finite = true;
  for (int64_t i = 0; i < n; ++i) finite &= std::isfinite(v[i]);
  return finite;
}

// -0.0 results replayed at most: a share of dx (each replay is one scalar
// chain, about fifty times an element's share of the GEMMs), or a few.
constexpr int64_t kReplayShare = 512, kReplaysAtLeast = 64;

bool negative_zero(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits == 0x80000000u;
}

// grad_input of a strided layer by phases (above); false, with dx partly
// written, where it must run over every term instead.
bool grad_input_by_phase(const Geometry& g, const float* dy, const float* w, float* dx) {
  const int64_t cg = g.c / g.groups, ocg = g.oc / g.groups, kk = g.kh * g.kw, P = g.h * g.w;
  const int64_t planes = g.n * g.c;
  if (!all_finite(w, g.oc * cg * kk)) return false;
  float* phase_out = thread_scratch(static_cast<size_t>(planes * ceil_div(g.h, g.sh) * ceil_div(g.w, g.sw)),
                                    Scratch::conv_phase);
  const int threads = threads_for(planes * P, int64_t{1} << 16);
  std::vector<unsigned char> has_negative_zero(static_cast<size_t>(planes), 0);
  for (int64_t rho_h = 0; rho_h < g.sh; ++rho_h) {
    const PhaseAxis ph = phase_axis(g.h, g.sh, g.ph, g.kh, g.dh, rho_h);
    for (int64_t rho_w = 0; rho_w < g.sw; ++rho_w) {
      const PhaseAxis pw = phase_axis(g.w, g.sw, g.pw, g.kw, g.dw, rho_w);
      const int64_t pp = ph.count * pw.count, taps = static_cast<int64_t>(ph.taps.size() * pw.taps.size());
      const int64_t K = ocg * taps;
      if (pp == 0) continue;
      if (K == 0) {
        std::fill_n(phase_out, planes * pp, 0.0f);  // every term a hole: +0.0
      } else {
        // A[gr][c, (oc, tap)] = w[gr*ocg + oc, c, tap], the phase's taps only.
        float* a = thread_scratch(static_cast<size_t>(g.groups * cg * K), Scratch::conv_weight);
        for (int64_t gr = 0; gr < g.groups; ++gr)
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t oc = 0; oc < ocg; ++oc)
              for (size_t i = 0; i < ph.taps.size(); ++i)
                for (size_t j = 0; j < pw.taps.size(); ++j)
                  a[(gr * cg + c) * K + (oc * ph.taps.size() + i) * pw.taps.size() + j] =
                      w[((gr * ocg + oc) * cg + c) * kk + ph.taps[i] * g.kw + pw.taps[j]];
        blocked_gemms(
            g, cg, K, pp, [&](int64_t gr) { return a + gr * cg * K; },
            [&](int64_t gr, int64_t n, int64_t j0, int64_t nc, float* dst, int64_t ld, int64_t k0, int64_t k1) {
              gather_phase(g, ph, pw, dy + (n * g.oc + gr * ocg) * g.oh * g.ow, j0, nc, dst, ld, k0, k1);
            },
            [&](int64_t gr, int64_t n) { return phase_out + (n * g.c + gr * cg) * pp; }, nothing_more);
      }
      parallel_ranges(planes, threads, [&](int64_t b, int64_t e) {
        for (int64_t q = b; q < e; ++q) {
          bool found = false;
          for (int64_t a = 0; a < ph.count; ++a) {
            float* row = dx + q * P + (ph.first + a * g.sh) * g.w + pw.first;
            const float* src = phase_out + q * pp + a * pw.count;
            for (int64_t j = 0; j < pw.count; ++j) {
              row[j * g.sw] = src[j];
              found |= negative_zero(src[j]);
            }
          }
          if (found) has_negative_zero[q] = 1;
        }
      });
    }
  }
  std::vector<int64_t> replays;
  const int64_t budget = std::max(kReplaysAtLeast, planes * P / kReplayShare);
  for (int64_t q = 0; q < planes; ++q)
    for (int64_t i = q * P; has_negative_zero[q] && i < (q + 1) * P; ++i)
      if (negative_zero(dx[i])) {
        if (static_cast<int64_t>(replays.size()) == budget) return false;
        replays.push_back(i);
      }
  for (const int64_t i : replays) dx[i] = full_chain(g, dy, w, i / (g.c * P), i / P % g.c, i % P / g.w, i % g.w);
  return true;
}

}  // namespace

void add_bias(const float* bias, float* rows, int64_t count, int64_t P) {
  const arith::Rows& r = arith::rows();
  for (int64_t i = 0; i < count; ++i) r.binary(arith::Binary::add, rows + i * P, 1, bias + i, 0, rows + i * P, P);
}

void forward(const Geometry& g, const float* x, const float* w, const float* bias, float* y) {
  const int64_t cg = g.c / g.groups, ocg = g.oc / g.groups;
  const int64_t K = cg * g.kh * g.kw, P = g.oh * g.ow;
  if (ocg == 0 || P == 0 || g.n == 0) return;
  if (direct_applies(g)) return direct_forward(g, x, w, bias, y);
  const auto out = [&](int64_t gr, int64_t n) { return y + (n * g.oc + gr * ocg) * P; };
  blocked_gemms(
      g, ocg, K, P, [&](int64_t gr) { return w + gr * ocg * K; },
      [&](int64_t gr, int64_t n, int64_t j0, int64_t nc, float* dst, int64_t ld, int64_t k0, int64_t k1) {
        im2col(g, x + (n * g.c + gr * cg) * g.h * g.w, j0, nc, dst, ld, k0, k1);
      },
      out, [&](int64_t gr, int64_t n0, int64_t n1) {
        if (bias != nullptr)
          for (int64_t n = n0; n < n1; ++n) add_bias(bias + gr * ocg, out(gr, n), ocg, P);
      });
}

void grad_input(const Geometry& g, const float* dy, const float* w, float* dx) {
  const int64_t cg = g.c / g.groups, ocg = g.oc / g.groups, kk = g.kh * g.kw;
  const int64_t K = ocg * kk, P = g.h * g.w;
  if (cg == 0 || P == 0 || g.n == 0) return;
  if (direct_input_applies(g)) return direct_grad_input(g, dy, w, dx);
  if ((g.sh > 1 || g.sw > 1) && grad_input_by_phase(g, dy, w, dx)) return;
  // A[gr][c, (oc, kh, kw)] = w[gr*ocg + oc, c, kh, kw]: the weights with the
  // chain index (oc, kh, kw) contiguous per input channel c.
  float* a = thread_scratch(static_cast<size_t>(g.groups * cg * K), Scratch::conv_weight);
  for (int64_t gr = 0; gr < g.groups; ++gr)
    for (int64_t c = 0; c < cg; ++c)
      for (int64_t oc = 0; oc < ocg; ++oc)
        std::memcpy(a + (gr * cg + c) * K + oc * kk, w + ((gr * ocg + oc) * cg + c) * kk,
                    static_cast<size_t>(kk) * sizeof(float));
  blocked_gemms(
      g, cg, K, P, [&](int64_t gr) { return a + gr * cg * K; },
      [&](int64_t gr, int64_t n, int64_t j0, int64_t nc, float* dst, int64_t ld, int64_t k0, int64_t k1) {
        gather_dy(g, dy + (n * g.oc + gr * ocg) * g.oh * g.ow, j0, nc, dst, ld, k0, k1);
      },
      [&](int64_t gr, int64_t n) { return dx + (n * g.c + gr * cg) * P; }, nothing_more);
}

void grad_weight(const Geometry& g, const float* x, const float* dy, float* dw) {
  const int64_t cg = g.c / g.groups, ocg = g.oc / g.groups;
  const int64_t K = cg * g.kh * g.kw, P = g.oh * g.ow;
  if (ocg == 0 || K == 0) return;
  if (g.n == 0 || P == 0) {  // empty chains
    std::fill_n(dw, g.oc * K, 0.0f);
    return;
  }
  if (direct_weight_applies(g)) return direct_grad_weight(g, x, dy, dw);
  const Blocks bl = blocks_for(K, P, g.n);
  // One chain per weight over (n, oh, ow): blocks of images in order, and
  // within an image the blocks of output positions in order.  The weights'
  // columns [k0, k1) of group gr: the unit of work a thread owns.
  const auto columns = [&](int64_t gr, int64_t k0, int64_t k1) {
    float* dwg = dw + gr * ocg * K;
    float* cols = thread_scratch(static_cast<size_t>((k1 - k0) * bl.images * bl.cols), Scratch::conv_cols);
    float* dys = thread_scratch(static_cast<size_t>(ocg * bl.images * bl.cols), Scratch::conv_out);
    for (int64_t n0 = 0; n0 < g.n; n0 += bl.images) {
      const int64_t images = std::min(bl.images, g.n - n0);
      for (int64_t j0 = 0; j0 < P; j0 += bl.cols) {
        const int64_t nc = std::min(bl.cols, P - j0), width = images * nc;
        for (int64_t i = 0; i < images; ++i) {
          const int64_t n = n0 + i;
          im2col(g, x + (n * g.c + gr * cg) * g.h * g.w, j0, nc, cols + i * nc, width, k0, k1);
          if (images > 1)  // dy of these images side by side, as A's columns
            for (int64_t r = 0; r < ocg; ++r)
              std::memcpy(dys + r * width + i * nc, dy + (n * g.oc + gr * ocg + r) * P + j0,
                          static_cast<size_t>(nc) * sizeof(float));
        }
        const gemm::Operand a = images > 1 ? gemm::Operand{dys, width, 1}
                                           : gemm::Operand{dy + (n0 * g.oc + gr * ocg) * P + j0, P, 1};
        gemm::Problem p{ocg, k1 - k0, width, a, {cols, 1, width}, dwg + k0, K};
        p.accumulate = n0 > 0 || j0 > 0;
        gemm::run(p, kSingle);
      }
    }
  };
  const int64_t flops = 2 * ocg * K * P * g.n;
  const int threads = threads_for(flops * g.groups, int64_t{1} << 21);
  if (g.groups >= threads) {  // whole groups per thread
    for_jobs(g.groups, flops, [&](int64_t gr) { columns(gr, 0, K); });
    return;
  }
  // Few groups: the threads split each group's weight columns instead
  // (every column's chains stay on one thread).
  for (int64_t gr = 0; gr < g.groups; ++gr)
    parallel_ranges(K, threads, [&](int64_t k0, int64_t k1) { columns(gr, k0, k1); });
}

}  // namespace conv
}  // namespace repdl

// The three convolution GEMMs.  Each builds its B operand in a bounded
// scratch block of output (or input) columns, in exactly the layout the
// chain order needs, and hands it to gemm::run; the columns of one block
// are independent outputs, and for grad_weight the blocks are successive
// pieces of one chain (gemm's accumulate), taken in ascending order.
#include "conv/conv.h"

#include <algorithm>
#include <cstring>

#include "common/parallel.h"
#include "common/scratch.h"
#include "gemm/gemm.h"

namespace repdl {
namespace conv {
namespace {

constexpr int64_t kBlockFloats = int64_t{1} << 18;  // 1 MiB of B per block: it stays in L2 while gemm packs it
constexpr int64_t kJobFlopsThreshold = int64_t{1} << 24;  // per-job work below which jobs go to threads whole

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

// im2col of one image's group (x at its first channel): cols[k * ncols +
// (j - j0)] = the tap of output position j in [j0, j0 + ncols) for
// k = (c, kh, kw) lexicographic, +0.0 in the padding; rows [k0, k1).
void im2col(const Geometry& g, const float* x, int64_t j0, int64_t ncols, float* cols, int64_t k0, int64_t k1) {
  for (int64_t k = k0; k < k1; ++k) {
    const int64_t c = k / (g.kh * g.kw), kh = (k / g.kw) % g.kh, kw = k % g.kw;
    const float* xc = x + c * g.h * g.w;
    float* row = cols + k * ncols;
    int64_t lo, hi;
    valid_range(g.w, g.sw, g.pw, kw, g.dw, g.ow, &lo, &hi);
    const int64_t col_off = kw * g.dw - g.pw;
    for (int64_t j = j0; j < j0 + ncols;) {
      const int64_t oh = j / g.ow, first = j % g.ow;
      const int64_t last = first + std::min(g.ow - first, j0 + ncols - j);  // this output row's [first, last)
      float* dst = row + (j - j0);  // output position (oh, first)
      const int64_t ih = oh * g.sh - g.ph + kh * g.dh;
      if (ih < 0 || ih >= g.h) {
        std::fill(dst, dst + (last - first), 0.0f);
      } else {
        const float* src = xc + ih * g.w;
        const int64_t a = std::clamp(lo, first, last), b = std::clamp(hi, a, last);
        std::fill(dst, dst + (a - first), 0.0f);
        if (g.sw == 1) {
          std::memcpy(dst + (a - first), src + a + col_off, static_cast<size_t>(b - a) * sizeof(float));
        } else {
          for (int64_t ow = a; ow < b; ++ow) dst[ow - first] = src[ow * g.sw + col_off];
        }
        std::fill(dst + (b - first), dst + (last - first), 0.0f);
      }
      j += last - first;
    }
  }
}

// The B operand of grad_input for one image's group: b[(oc, kh, kw) *
// ncols + (j - j0)] = dy[oc, oh, ow] where the input position j = (ih, iw)
// is reached by tap (kh, kw) from output (oh, ow), +0.0 where no output
// reaches it (padding, stride holes); rows [k0, k1).  Each row is zeroed,
// then the outputs that reach it are written: for an input row ih the
// outputs ow with iw = ow*sw - pw + kw*dw land every sw-th position.
void gather_dy(const Geometry& g, const float* dy, int64_t j0, int64_t ncols, float* b, int64_t k0, int64_t k1) {
  const int64_t j1 = j0 + ncols;
  for (int64_t k = k0; k < k1; ++k) {
    const int64_t oc = k / (g.kh * g.kw), kh = (k / g.kw) % g.kh, kw = k % g.kw;
    const float* d = dy + oc * g.oh * g.ow;
    float* row = b + k * ncols;
    std::fill_n(row, ncols, 0.0f);
    int64_t lo, hi;  // outputs ow whose tap lands inside [0, w)
    valid_range(g.w, g.sw, g.pw, kw, g.dw, g.ow, &lo, &hi);
    const int64_t col_off = kw * g.dw - g.pw;
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
  }
}

// Runs fill(k0, k1) over the rows [0, rows) of a B block: split over
// threads when the caller is not already one of several.
template <class Fill>
void fill_rows(int64_t rows, int64_t ncols, const Fill& fill) {
  parallel_ranges(rows, threads_for(rows * ncols, int64_t{1} << 16), fill);
}

// Runs job(t) for t in [0, jobs): whole jobs per thread when there are
// enough of them and each is small, else one after another (each then
// threaded inside).
template <class Job>
void for_jobs(int64_t jobs, int64_t flops_per_job, const Job& job) {
  const int threads = threads_for(jobs * flops_per_job, int64_t{1} << 21);
  if (threads > 1 && jobs >= threads && flops_per_job < kJobFlopsThreshold) {
    parallel_ranges(jobs, threads, [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) job(t);
    });
    return;
  }
  for (int64_t t = 0; t < jobs; ++t) job(t);
}

const gemm::Batch kSingle{0, nullptr, nullptr, nullptr};

}  // namespace

void forward(const Geometry& g, const float* x, const float* w, float* y) {
  const int64_t cg = g.c / g.groups, ocg = g.oc / g.groups;
  const int64_t K = cg * g.kh * g.kw, P = g.oh * g.ow;
  if (ocg == 0 || P == 0) return;
  for_jobs(g.n * g.groups, 2 * ocg * K * P, [&](int64_t t) {
    const int64_t n = t / g.groups, gr = t % g.groups;
    const float* xg = x + (n * g.c + gr * cg) * g.h * g.w;
    float* yg = y + (n * g.oc + gr * ocg) * P;
    const int64_t cols_per_block = block_columns(K, P);
    float* cols = thread_scratch(static_cast<size_t>(K * cols_per_block), Scratch::conv_cols);
    for (int64_t j0 = 0; j0 < P; j0 += cols_per_block) {
      const int64_t nc = std::min(cols_per_block, P - j0);
      fill_rows(K, nc, [&](int64_t k0, int64_t k1) { im2col(g, xg, j0, nc, cols, k0, k1); });
      const gemm::Problem p{ocg, nc, K, {w + gr * ocg * K, K, 1}, {cols, nc, 1}, yg + j0, P};
      gemm::run(p, kSingle);
    }
  });
}

void grad_input(const Geometry& g, const float* dy, const float* w, float* dx) {
  const int64_t cg = g.c / g.groups, ocg = g.oc / g.groups, kk = g.kh * g.kw;
  const int64_t K = ocg * kk, P = g.h * g.w;
  if (cg == 0 || P == 0) return;
  for_jobs(g.n * g.groups, 2 * cg * K * P, [&](int64_t t) {
    const int64_t n = t / g.groups, gr = t % g.groups;
    // A[c, (oc, kh, kw)] = w[gr*ocg + oc, c, kh, kw]: the weights with the
    // chain index (oc, kh, kw) contiguous per input channel c.
    float* a = thread_scratch(static_cast<size_t>(cg * K), Scratch::conv_weight);
    const float* wg = w + gr * ocg * cg * kk;
    for (int64_t c = 0; c < cg; ++c)
      for (int64_t oc = 0; oc < ocg; ++oc)
        std::memcpy(a + c * K + oc * kk, wg + (oc * cg + c) * kk, static_cast<size_t>(kk) * sizeof(float));
    const float* dyg = dy + (n * g.oc + gr * ocg) * g.oh * g.ow;
    float* dxg = dx + (n * g.c + gr * cg) * P;
    const int64_t cols_per_block = block_columns(K, P);
    float* b = thread_scratch(static_cast<size_t>(K * cols_per_block), Scratch::conv_cols);
    for (int64_t j0 = 0; j0 < P; j0 += cols_per_block) {
      const int64_t nc = std::min(cols_per_block, P - j0);
      fill_rows(K, nc, [&](int64_t k0, int64_t k1) { gather_dy(g, dyg, j0, nc, b, k0, k1); });
      const gemm::Problem p{cg, nc, K, {a, K, 1}, {b, nc, 1}, dxg + j0, P};
      gemm::run(p, kSingle);
    }
  });
}

void grad_weight(const Geometry& g, const float* x, const float* dy, float* dw) {
  const int64_t cg = g.c / g.groups, ocg = g.oc / g.groups;
  const int64_t K = cg * g.kh * g.kw, P = g.oh * g.ow;
  if (ocg == 0 || K == 0) return;
  if (g.n == 0 || P == 0) {  // empty chains
    std::fill_n(dw, g.oc * K, 0.0f);
    return;
  }
  for_jobs(g.groups, 2 * ocg * K * P * g.n, [&](int64_t gr) {
    float* dwg = dw + gr * ocg * K;
    const int64_t cols_per_block = block_columns(K, P);
    float* cols = thread_scratch(static_cast<size_t>(K * cols_per_block), Scratch::conv_cols);
    // One chain per weight over (n, oh, ow): images in order, and within an
    // image the blocks of output positions in order.
    for (int64_t n = 0; n < g.n; ++n) {
      const float* xg = x + (n * g.c + gr * cg) * g.h * g.w;
      const float* dyg = dy + (n * g.oc + gr * ocg) * P;
      for (int64_t j0 = 0; j0 < P; j0 += cols_per_block) {
        const int64_t nc = std::min(cols_per_block, P - j0);
        fill_rows(K, nc, [&](int64_t k0, int64_t k1) { im2col(g, xg, j0, nc, cols, k0, k1); });
        gemm::Problem p{ocg, K, nc, {dyg + j0, P, 1}, {cols, 1, nc}, dwg, K};
        p.accumulate = n > 0 || j0 > 0;
        gemm::run(p, kSingle);
      }
    }
  });
}

}  // namespace conv
}  // namespace repdl

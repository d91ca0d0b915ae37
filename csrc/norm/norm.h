// Layer and RMS normalisation over dense rows (rows.inc), batch
// normalisation over channels (channels.inc) and group normalisation over
// groups of channels (groups.inc): docs/CONTRACT.md section 11,
// forward and backward fused into a few passes per group of rows.
// Every value is the contract's composition of primitives, rounding by
// rounding: the row chains (seqsum, fmachain) run in the reduction kernels'
// eight-lanes layout (batch and group norm's backward: in gradient_chains,
// below), the rest row by row.
//
//   centered (layer norm): mean = seqsum(x) / n; ss = fmachain(d, d), d = x - mean;
//                          rstd = rsqrt(ss / n + eps); xhat = (x - mean) * rstd
//   rms:                   rstd = rsqrt(fmachain(x, x) / n + eps); xhat = x * rstd
//   y = xhat * w + b        (each factor optional, one rounding each)
//
// Backward, with gy = g * w (or g):
//   centered: dx = ((gy - seqsum(gy) / n) - xhat * (fmachain(gy, xhat) / n)) * rstd
//   rms:      dx = (gy - xhat * (fmachain(gy, xhat) / n)) * rstd
//   dw[c] = seqsum over rows of g * xhat;  db[c] = seqsum over rows of g
// (xhat recomputed from x, mean and rstd, which gives its forward bits).
#pragma once

#include <cstdint>

namespace repdl {
namespace norm {

struct Rows {
  int64_t rows, n;
  bool centered;
  float eps;
  const float* w;  // n floats or nullptr
  const float* b;  // n floats or nullptr
};

// y (rows, n); mean and rstd one float per row (mean unused when !centered).
void forward(const Rows& r, const float* x, float* y, float* mean, float* rstd);
// dx (rows, n) always; dw and db (n floats) when not nullptr.
void backward(const Rows& r, const float* g, const float* x, const float* mean, const float* rstd, float* dx,
              float* dw, float* db);

// Batch normalisation in training: x (N, C, L) contiguous, statistics per
// channel over its (n, l) elements in that order (channels.inc), w and b one
// float per channel or nullptr; the same formulas as centered Rows.
struct Channels {
  int64_t N, C, L;
  float eps;
  const float* w;
  const float* b;
};

// y (N, C, L); mean, ss (fmachain(d, d), for the running variance) and rstd
// one float per channel.
void forward(const Channels& p, const float* x, float* y, float* mean, float* ss, float* rstd);
// dx always; dw and db (C floats) when not nullptr.
void backward(const Channels& p, const float* g, const float* x, const float* mean, const float* rstd, float* dx,
              float* dw, float* db);
// Evaluation: y = ((x - mean) * rsqrt(var + eps)) * w + b from the running
// statistics (one float per channel each), every sample on its own.
void evaluate(const Channels& p, const float* x, const float* mean, const float* var, float* y);

// Group normalisation: x (N, C, L) contiguous, C = G * Cg, statistics per
// (n, g) over the Cg * L floats of its channels (the centered Rows'
// formulas), the affine step per channel (w and b one float per channel or
// nullptr); dw and db per channel over (n, l) in that order.
struct Groups {
  int64_t N, G, Cg, L;
  float eps;
  const float* w;
  const float* b;
};

// y (N, C, L); mean and rstd one float per (n, g).
void forward(const Groups& p, const float* x, float* y, float* mean, float* rstd);
// dx always; dw and db (C floats) when not nullptr.
void backward(const Groups& p, const float* g, const float* x, const float* mean, const float* rstd, float* dx,
              float* dw, float* db);

// The backward's chains of batch and group norm over `count` <= 16 rows
// side by side (chains_<isa>.inc's gradient_chains): row q of g at g + q *
// stride, of x likewise, read as `runs` runs of len elements in order.  Per
// row, s1[q] and s2[q] continue over every run; per run j and row, dw and
// db continue at j * 16 + q (w likewise).  Per element, h = (x - mean[q]) *
// rstd[q] (the forward's xhat), gy = g * w, s1 = s1 + gy, s2 = fma(gy, h,
// s2), dw = dw + g * h, db = db + g, each step rounded as written.  Every
// array holds 16 floats per run: a kernel may compute the lanes past count
// (their rows repeat the last row) and store them, and the caller drops
// them.
constexpr int kChainRows = 16;

struct RowChains {
  const float* mean;
  const float* rstd;
  float* s1;
  float* s2;
  const float* w;
  float* dw;
  float* db;
};

// The kernels of one instruction set (norm_<isa>.cpp: rows.inc,
// channels.inc and groups.inc compiled for it), behind the entry points
// above.
struct Kernels {
  void (*forward_rows)(const Rows&, const float* x, float* y, float* mean, float* rstd);
  void (*backward_rows)(const Rows&, const float* g, const float* x, const float* mean, const float* rstd,
                        float* dx, float* dw, float* db);
  void (*forward_channels)(const Channels&, const float* x, float* y, float* mean, float* ss, float* rstd);
  void (*backward_channels)(const Channels&, const float* g, const float* x, const float* mean,
                            const float* rstd, float* dx, float* dw, float* db);
  void (*evaluate_channels)(const Channels&, const float* x, const float* mean, const float* var, float* y);
  void (*forward_groups)(const Groups&, const float* x, float* y, float* mean, float* rstd);
  void (*backward_groups)(const Groups&, const float* g, const float* x, const float* mean, const float* rstd,
                          float* dx, float* dw, float* db);
};
extern const Kernels kGenericKernels;
extern const Kernels kAvx2Kernels;    // x86 only
extern const Kernels kAvx512Kernels;  // x86 only

// The running statistics' update: new = running * keep + stat * take (keep
// = fl32(1 - momentum), take = fl32(momentum); two products, one sum), stat
// the batch mean, or the unbiased variance ss / fl32(n - 1) for the
// variance.  C floats each.
void update_running(int64_t C, float keep, float take, float n_less_one, const float* running_mean,
                    const float* running_var, const float* mean, const float* ss, float* new_mean, float* new_var);

}  // namespace norm
}  // namespace repdl

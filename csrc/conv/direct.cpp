// Drivers of the direct convolution (direct.h): zero-padded copies of the
// operands, per-tap offsets, and the split of the work over threads (whole
// images and groups for the correlations, blocks of taps for the weight
// gradient: never one chain across two threads).
#include "conv/direct.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "common/isa.h"
#include "common/nan.h"
#include "common/parallel.h"
#include "common/scratch.h"

namespace repdl {
namespace conv {
namespace {

const direct::Kernels& kernels() {
  switch (active_isa()) {
    case Isa::avx512: return direct::kAvx512;
    case Isa::avx2: return direct::kAvx2;
    default: return direct::kGeneric;
  }
}

int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

// dst (rows x cols, zeroed) receives src (h x w) at row `top`, column `left`;
// parts of src that fall outside dst are dropped.
void place(const float* src, int64_t h, int64_t w, float* dst, int64_t rows, int64_t cols, int64_t top,
           int64_t left) {
  std::fill_n(dst, rows * cols, 0.0f);
  const int64_t c0 = std::max<int64_t>(0, -left), c1 = std::min(w, cols - left);
  for (int64_t r = std::max<int64_t>(0, -top); r < h && r + top < rows; ++r)
    if (c1 > c0) std::memcpy(dst + (r + top) * cols + left + c0, src + r * w + c0, (c1 - c0) * sizeof(float));
}

// The input planes of a forward or weight-gradient correlation: x padded
// by (ph, pw) and cut into sh x sw phases, so that every tap of a strided
// layer reads its phase at stride 1.  Phase (py, px)'s element (u, v) is
// the padded input's (u*sh + py, v*sw + px); the phases lie side by side
// in one plane of (sh*rows) x (sw*cols) floats, phase (py, px) from row
// py*rows and column px*cols, so that tap (a, b) of output (r, s) is the
// plane's element (r + roff[a], s + coff[b]) with roff[a] = (a*dh) / sh +
// ((a*dh) % sh) * rows.  Stride 1 has one phase: the padded input itself.
// A chain's terms are the same products in the same order at any layout.
struct Phases {
  int64_t rows, cols;  // one phase's
  int64_t plane_cols, plane;
  std::vector<int64_t> roff, coff;

  explicit Phases(const Geometry& g)
      : rows(g.oh + (g.kh - 1) * g.dh / g.sh), cols(g.ow + (g.kw - 1) * g.dw / g.sw), plane_cols(g.sw * cols),
        plane(g.sh * rows * plane_cols), roff(g.kh), coff(g.kw) {
    for (int64_t a = 0; a < g.kh; ++a) roff[a] = a * g.dh / g.sh + a * g.dh % g.sh * rows;
    for (int64_t b = 0; b < g.kw; ++b) coff[b] = b * g.dw / g.sw + b * g.dw % g.sw * cols;
  }

  // One channel's plane (src h x w) into dst.
  void place(const Geometry& g, const float* src, float* dst) const {
    if (g.sh == 1 && g.sw == 1) return conv::place(src, g.h, g.w, dst, rows, cols, g.ph, g.pw);
    std::fill_n(dst, plane, 0.0f);
    for (int64_t py = 0; py < g.sh; ++py)
      for (int64_t u = 0; u < rows; ++u) {
        const int64_t y = u * g.sh + py - g.ph;
        if (y < 0 || y >= g.h) continue;
        for (int64_t px = 0; px < g.sw; ++px) {
          float* d = dst + (py * rows + u) * plane_cols + px * cols;
          const float* row = src + y * g.w + px - g.pw;  // element v is row[v * sw]
          const int64_t v0 = std::min<int64_t>((g.pw - px + g.sw - 1) / g.sw, cols), last = g.w - 1 + g.pw - px;
          const int64_t v1 = last < 0 ? v0 : std::clamp<int64_t>(last / g.sw + 1, v0, cols);
          for (int64_t v = v0; v < v1; ++v) d[v] = row[v * g.sw];
        }
      }
  }
};

// Scratch for `floats` of padded planes and the correlation's column slack
// after them (zeroed: the lanes read there are never stored, but need not
// be garbage).
float* padded_planes(int64_t floats, const direct::Kernels& k) {
  float* p = thread_scratch(static_cast<size_t>(floats + k.column_slack), Scratch::conv_cols);
  std::fill_n(p + floats, k.column_slack, 0.0f);
  return p;
}

// The floats of one image (of a group) in the weight gradient's chunks: its
// padded input planes and its dy as rows of channels.
int64_t weight_grad_floats(const Geometry& g, const direct::Kernels& k) {
  const int64_t cg = g.c / g.groups, ocg = g.oc / g.groups;
  return cg * Phases(g).plane + g.oh * g.ow * round_up(ocg, k.lanes);
}

// One correlation per (image, group), whole jobs per thread.
template <class Job>
void per_image_group(const Geometry& g, int64_t flops_per_job, const Job& job) {
  const int64_t jobs = g.n * g.groups;
  parallel_ranges(jobs, threads_for(jobs * flops_per_job, int64_t{1} << 21), [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) job(t / g.groups, t % g.groups);
  });
}

}  // namespace

bool direct_applies(const Geometry& g) {
  // Any stride (Phases: a strided layer's taps read its input's phases at
  // stride 1; (32, 16, 32, 32) to 32, 3x3 stride 2: 0.86 of im2col and the
  // GEMM's time, its weight gradient 0.68).  Few channels on both sides:
  // there im2col's copies and small GEMM tiles cost more than the
  // convolution itself (LeNet's layers: 3-4x faster direct; a 64-channel
  // layer is faster as GEMM).  Depthwise layers included: (32, 64, 56, 56)
  // 3x3 forward 5.7 ms direct against 23 ms as GEMMs.  A row whose tiles
  // hold more chains takes more input channels on rows of a vector or more
  // (Kernels::wide_in_channels); below a vector most lanes idle ((32, 64,
  // 8, 8) to 64: 1.8x the GEMMs' time).
  const direct::Kernels& k = kernels();
  const int64_t cg = g.c / g.groups, ocg = g.oc / g.groups;
  if (ocg <= 32 && (cg <= 16 || (cg <= k.wide_in_channels && g.ow >= k.lanes))) return true;
  // Rows of three taps one column apart run unrolled (correlate_block):
  // on the AVX-512 row, rows of one or two vectors take up to 128 channels
  // on either side so, forward and grad_input (new / old time, 2 threads:
  // forward (32, 32, 16, 16) to 64 0.94, (32, 64, 16, 16) to 64 0.89,
  // (32, 128, 16, 16) to 64 0.84; grad_input (32, 32, 16, 16) to 128 0.74,
  // (32, 16, 16, 16) to 128 0.52, (32, 64, 16, 16) to 128 0.90).  Wider
  // rows and rows of half a vector lose ((8, 32, 56, 56) to 64 1.04, (32,
  // 32, 8, 8) to 64 1.07), and so does the AVX2 row, eight chains a tile
  // ((32, 64, 16, 16) to 64: 1.15 forward, 1.20 grad_input).
  const int64_t most = k.unrolled_channels;
  return g.kw == 3 && g.dw == 1 && g.sw == 1 && cg <= most && ocg <= most && g.ow >= k.lanes &&
         g.ow <= 2 * k.lanes;
}

bool direct_input_applies(const Geometry& g) {
  // The forward's bounds, at stride 1: a strided layer's input positions
  // take taps of one phase each (conv.cpp's grad_input_by_phase).
  return g.sh == 1 && g.sw == 1 && direct_applies(g);
}

bool direct_weight_applies(const Geometry& g) {
  // A depthwise layer has a kernel of its own (depthwise_grad_weight).
  if (g.c == g.groups && g.oc == g.groups) return true;
  // The weight gradient's vectors run over output channels: with fewer than
  // 4 per group most lanes idle (depthwise layers through this kernel: 101
  // ms against 30 ms as GEMMs).  Its input channels are the taps' rows of
  // the chains, which blocks of taps take in turn while a chunk of images
  // stays in L2: up to 64 of them it beats im2col and the GEMM (new / old
  // time, 2 threads: (32, 32, 32, 32) to 32 channels 0.81, (32, 64, 32, 32)
  // 0.72, (32, 32, 16, 16) 0.72-0.74 on the AVX-512 row, 0.91-0.98 on
  // AVX2); with 64 outputs it wins while two images' chunk fits a 2 MB L2
  // ((32, 64, 8, 8) to 64: 0.80, (8, 64, 32, 32) 0.89, (32, 64, 16, 16)
  // 0.93), and loses beyond ((8, 64, 56, 56): 1.12).
  const int64_t cg = g.c / g.groups, ocg = g.oc / g.groups;
  const bool fits = ocg <= 32 || (ocg <= 64 && 2 * weight_grad_floats(g, kernels()) <= int64_t{1} << 19);
  return cg <= 64 && ocg >= 4 && fits;
}

void direct_forward(const Geometry& g, const float* x, const float* w, const float* bias, float* y) {
  const direct::Kernels& k = kernels();
  const int64_t cg = g.c / g.groups, ocg = g.oc / g.groups, kk = g.kh * g.kw, P = g.oh * g.ow;
  const Phases ph(g);
  per_image_group(g, 2 * ocg * cg * kk * P, [&](int64_t n, int64_t gr) {
    float* xp = padded_planes(cg * ph.plane, k);
    const float* xg = x + (n * g.c + gr * cg) * g.h * g.w;
    for (int64_t i = 0; i < cg; ++i) ph.place(g, xg + i * g.h * g.w, xp + i * ph.plane);
    const direct::Correlation c{xp, ph.plane, ph.plane_cols, w + gr * ocg * cg * kk, cg * kk, kk, cg, g.kh, g.kw,
                                ph.roff.data(), ph.coff.data(), g.oh, g.ow, y + (n * g.oc + gr * ocg) * P, P};
    k.correlate(c, 0, ocg);
    if (bias != nullptr) add_bias(bias + gr * ocg, c.out, ocg, P);
  });
}

void direct_grad_input(const Geometry& g, const float* dy, const float* w, float* dx) {
  const direct::Kernels& k = kernels();
  const int64_t cg = g.c / g.groups, ocg = g.oc / g.groups, kk = g.kh * g.kw, P = g.h * g.w;
  // dx[i, r, s] takes dy[o, r + ph - a*dh, s + pw - b*dw]: dy placed at
  // (top, left) makes every offset non-negative.
  const int64_t top = std::max<int64_t>(0, (g.kh - 1) * g.dh - g.ph);
  const int64_t left = std::max<int64_t>(0, (g.kw - 1) * g.dw - g.pw);
  const int64_t rows = g.h + g.ph + top, cols = g.w + g.pw + left;
  std::vector<int64_t> roff(g.kh), coff(g.kw);
  for (int64_t a = 0; a < g.kh; ++a) roff[a] = g.ph - a * g.dh + top;
  for (int64_t b = 0; b < g.kw; ++b) coff[b] = g.pw - b * g.dw + left;
  per_image_group(g, 2 * ocg * cg * kk * P, [&](int64_t n, int64_t gr) {
    float* dyp = padded_planes(ocg * rows * cols, k);
    const float* dyg = dy + (n * g.oc + gr * ocg) * g.oh * g.ow;
    for (int64_t o = 0; o < ocg; ++o)
      place(dyg + o * g.oh * g.ow, g.oh, g.ow, dyp + o * rows * cols, rows, cols, top, left);
    // chain over (o, a, b): the correlation's input channels are the layer's outputs
    const direct::Correlation c{dyp, rows * cols, cols, w + gr * ocg * cg * kk, kk, cg * kk, ocg, g.kh, g.kw,
                                roff.data(), coff.data(), g.h, g.w, dx + (n * g.c + gr * cg) * P, P};
    k.correlate(c, 0, cg);
  });
}

namespace {

// A depthwise layer's weight gradient: threads own blocks of a vector's
// channels, and for each image transpose their channels' padded input and
// dy so that the channels lie innermost, then continue each channel's
// chains of every tap over the image's positions.  As GEMMs (one row of C a
// group) the chains went a tap at a time through the dot kernels: (32, 64,
// 56, 56) 8.1 ms against torch's 6.9.
void depthwise_grad_weight(const Geometry& g, const direct::Kernels& k, const float* x, const float* dy, float* dw) {
  const int64_t lanes = k.lanes, kk = g.kh * g.kw, P = g.oh * g.ow;
  const Phases ph(g);
  const int64_t plane = ph.plane;
  const int64_t blocks = (g.c + lanes - 1) / lanes;
  parallel_ranges(blocks, threads_for(2 * g.c * kk * P * g.n, int64_t{1} << 21), [&](int64_t b0, int64_t b1) {
    float* xp = thread_scratch(static_cast<size_t>(lanes * plane), Scratch::conv_cols);
    float* xt = thread_scratch(static_cast<size_t>(plane * lanes), Scratch::conv_phase);
    float* dyt = thread_scratch(static_cast<size_t>(P * lanes), Scratch::conv_out);
    std::vector<float> chains(static_cast<size_t>(kk * lanes));
    for (int64_t blk = b0; blk < b1; ++blk) {
      const int64_t c0 = blk * lanes, count = std::min(lanes, g.c - c0);
      std::fill(chains.begin(), chains.end(), 0.0f);
      for (int64_t n = 0; n < g.n; ++n) {
        for (int64_t i = 0; i < count; ++i) ph.place(g, x + (n * g.c + c0 + i) * g.h * g.w, xp + i * plane);
        k.transpose_channels(xp, count, plane, lanes, xt);
        k.transpose_channels(dy + (n * g.c + c0) * P, count, P, lanes, dyt);
        k.depthwise_weight_grad(
            {xt, ph.plane_cols, dyt, g.oh, g.ow, g.kh, g.kw, ph.roff.data(), ph.coff.data(), chains.data()});
      }
      for (int64_t i = 0; i < count; ++i)
        for (int64_t t = 0; t < kk; ++t) dw[(c0 + i) * kk + t] = canonical_nan(chains[t * lanes + i]);
    }
  });
}

// The weight gradient's operands for images [i0, i1) of the chunk from
// image n0, group gr: their padded input planes in xp (cg planes an image)
// and the dy of output channels [o0, o0 + count) of the group as rows of
// ocp channels in dyt (transpose_channels).
void prepare_images(const Geometry& g, const Phases& ph, const direct::Kernels& k, const float* x, const float* dy,
                    int64_t gr, int64_t n0, int64_t i0, int64_t i1, int64_t o0, int64_t count, int64_t ocp,
                    float* xp, float* dyt) {
  const int64_t cg = g.c / g.groups, ocg = g.oc / g.groups, P = g.oh * g.ow;
  for (int64_t i = i0; i < i1; ++i) {
    const int64_t n = n0 + i;
    for (int64_t c = 0; c < cg; ++c)
      ph.place(g, x + ((n * g.c) + gr * cg + c) * g.h * g.w, xp + (i * cg + c) * ph.plane);
    k.transpose_channels(dy + (n * g.oc + gr * ocg + o0) * P, count, P, ocp, dyt + i * P * ocp);
  }
}

// Images a weight-gradient chunk takes: its padded input and transposed
// dy (`floats` an image) stay in L2, half a MB, while every block of taps
// passes over them; the chains continue from chunk to chunk (accumulate).
// Chunks of 16 MB, as before, had each of a 32-channel layer's 36 tap
// blocks stream dy from memory: new / old time, (32, 16, 32, 32) to 32
// channels, 1 thread 0.61-0.64, 2 threads 0.58-0.59.
int64_t chunk_images(int64_t floats) { return std::max<int64_t>(1, (int64_t{1} << 17) / floats); }

}  // namespace

void direct_grad_weight(const Geometry& g, const float* x, const float* dy, float* dw) {
  const direct::Kernels& k = kernels();
  if (g.c == g.groups && g.oc == g.groups) return depthwise_grad_weight(g, k, x, dy, dw);
  const int64_t cg = g.c / g.groups, ocg = g.oc / g.groups, kk = g.kh * g.kw, K = cg * kk, P = g.oh * g.ow;
  const Phases ph(g);
  const int64_t plane = ph.plane, vectors = (ocg + k.lanes - 1) / k.lanes;
  const int threads = threads_for(2 * ocg * K * P * g.n, int64_t{1} << 21);
  const auto run = [&](const float* xp, const float* dyt, int64_t ocp, int64_t images, int64_t count, float* out,
                       bool accumulate, int64_t t0, int64_t t1) {
    const direct::WeightGrad wg{xp,     cg * plane, plane, ph.plane_cols,  dyt,           ocp,
                                images, g.oh,       g.ow,  count,          g.kh,          g.kw,
                                ph.roff.data(), ph.coff.data(), out, K, accumulate};
    k.weight_grad(wg, t0, t1);
  };
  if (threads > 1 && vectors >= threads && 2 * cg * plane <= 3 * P * ocg) {
    // Threads own whole vectors of output channels: each transposes its
    // channels' dy alone and runs every tap over them, in one parallel
    // region for all chunks, and reads no other thread's scratch (where
    // threads split the taps, each read the dy that the other transposed,
    // and a first layer, (32, 3, 32, 32) to 32 channels, took longer on two
    // threads than on one).  Each thread places every input plane: where
    // those outweigh dy by half, splitting taps costs less.  New / old
    // time, 2 threads: (32, 3, 32, 32) to 32 0.48, (32, 16, 32, 32) to 32
    // 0.84, (32, 32, 16, 16) to 64 0.81, (8, 64, 32, 32) to 64 0.94,
    // (32, 32, 32, 32) to 32 1.02; (32, 64, 32, 32) to 32 1.17, which
    // keeps the split of taps.
    for (int64_t gr = 0; gr < g.groups; ++gr) {
      parallel_ranges(vectors, threads, [&](int64_t v0, int64_t v1) {
        const int64_t o0 = v0 * k.lanes, count = std::min(v1 * k.lanes, ocg) - o0, ocp = (v1 - v0) * k.lanes;
        const int64_t chunk = chunk_images(cg * plane + P * ocp);
        float* xp = thread_scratch(static_cast<size_t>(chunk * cg * plane), Scratch::conv_cols);
        float* dyt = thread_scratch(static_cast<size_t>(chunk * P * ocp), Scratch::conv_out);
        for (int64_t n0 = 0; n0 < g.n; n0 += chunk) {
          const int64_t images = std::min(chunk, g.n - n0);
          prepare_images(g, ph, k, x, dy, gr, n0, 0, images, o0, count, ocp, xp, dyt);
          run(xp, dyt, ocp, images, count, dw + (gr * ocg + o0) * K, n0 > 0, 0, K);
        }
      });
    }
    return;
  }
  // Otherwise (one thread, fewer vectors than threads, or heavy input
  // planes) the threads prepare a chunk's images together (at least an
  // image each), then own equal ranges of taps.
  const int64_t ocp = vectors * k.lanes;
  const int64_t chunk = std::max<int64_t>(threads, chunk_images(weight_grad_floats(g, k)));
  for (int64_t gr = 0; gr < g.groups; ++gr) {
    for (int64_t n0 = 0; n0 < g.n; n0 += chunk) {
      const int64_t images = std::min(chunk, g.n - n0);
      float* xp = thread_scratch(static_cast<size_t>(images * cg * plane), Scratch::conv_cols);
      float* dyt = thread_scratch(static_cast<size_t>(images * P * ocp), Scratch::conv_out);
      parallel_ranges(images, threads, [&](int64_t b, int64_t e) {
        prepare_images(g, ph, k, x, dy, gr, n0, b, e, 0, ocg, ocp, xp, dyt);
      });
      // Each thread's taps in the kernel's register blocks: a first layer's
      // 27 taps (of 16 outputs) split 14 : 13 (in whole blocks of 8, 16 :
      // 11).
      parallel_ranges(K, threads, [&](int64_t t0, int64_t t1) {
        run(xp, dyt, ocp, images, ocg, dw + gr * ocg * K, n0 > 0, t0, t1);
      });
    }
  }
}

}  // namespace conv
}  // namespace repdl

// Direct convolution (any padding, dilation and groups; grad_input at
// stride 1), for layers with few channels, where im2col would write kh*kw
// copies of every input value for GEMMs too small to repay it (how few,
// kernel by kernel and row by row, is direct.cpp's direct_applies,
// direct_input_applies and direct_weight_applies, from measurements).  The
// chains are the contract's, term for term (docs/CONTRACT.md,
// "Convolution"):
//
//   forward      y[o, r, s]   = chain over (i, a, b) of w[o, i, a, b] * xp[i, r*sh + a*dh, s*sw + b*dw]
//   grad_input   dx[i, r, s]  = chain over (o, a, b) of w[o, i, a, b] * dyp[o, r + ra, s + sb]
//   grad_weight  dw[o, i, a, b] = chain over (n, r, s) of dy[n, o, r, s] * xp[n, i, r*sh + a*dh, s*sw + b*dw]
//
// on zero-padded copies xp and dyp, whose zeros are exactly the +0.0 terms
// that im2col writes for padding taps (xp cut into its stride's phases, so
// that each tap reads a phase at stride 1: direct.cpp's Phases).  Both
// forward and grad_input are one correlation of padded planes with per-tap
// offsets; lanes of a vector hold neighbouring output columns (correlate)
// or output channels (weight_grad, depthwise_weight_grad's input channels
// too), never two terms of one chain.
#pragma once

#include <cstdint>
#include <type_traits>

#include "conv/conv.h"

namespace repdl {
namespace conv {

// Whether a geometry takes the direct path (conv.cpp asks), and the three
// drivers (direct.cpp), with conv.h's signatures.
bool direct_applies(const Geometry& g);         // forward
bool direct_input_applies(const Geometry& g);   // grad_input
bool direct_weight_applies(const Geometry& g);  // grad_weight
void direct_forward(const Geometry& g, const float* x, const float* w, const float* bias, float* y);
void direct_grad_input(const Geometry& g, const float* dy, const float* w, float* dx);
void direct_grad_weight(const Geometry& g, const float* x, const float* dy, float* dw);

namespace direct {

// out[o][r][s] = fmachain over (i, a, b) ascending of w[o*w_o + i*w_i + a*kb + b] *
// src[i*src_ch + (r + roff[a]) * src_row + s + coff[b]], for o in [o0, o1), every r < rows, s < cols.
// A correlate step reads whole vectors: src must be readable `column_slack`
// floats past the last row's last tap (the lanes past `cols` are never stored).
struct Correlation {
  const float* src;
  int64_t src_ch, src_row;
  const float* w;
  int64_t w_o, w_i;
  int64_t in_ch, ka, kb;
  const int64_t* roff;
  const int64_t* coff;
  int64_t rows, cols;
  float* out;
  int64_t out_ch;  // floats between output planes (rows * cols when dense)
};

// dw[o*dw_o + t] for taps t = (i, a, b) lexicographic in [t0, t1) and every
// o < oc: fmachain over positions (n, r, s) ascending of dyt[((n*rows + r)*cols
// + s) * ocp + o] * src[n*src_img + i*src_ch + (r + roff[a]) * src_row + s + coff[b]],
// from +0.0 or, with accumulate, continuing from dw (the images of one chain
// come in several calls).
struct WeightGrad {
  const float* src;
  int64_t src_img, src_ch, src_row;
  const float* dyt;
  int64_t ocp;  // dyt's channel stride: oc rounded up to Kernels::lanes
  int64_t n, rows, cols, oc, ka, kb;
  const int64_t* roff;
  const int64_t* coff;
  float* dw;
  int64_t dw_o;
  bool accumulate;
};

// A depthwise layer's weight gradient (one input and one output channel a
// group), one image, V::kLanes channels side by side, a channel a lane:
// chains[t * lanes + l] continues channel l's chain of tap t = (a, b) over
// the image's positions (r, s) ascending, fma(dyt[(r*ow + s) * lanes + l],
// xt[((r + roff[a]) * cols + s + coff[b]) * lanes + l], chain): the padded
// input and dy with the channels innermost (transpose_channels).
struct DepthwiseGrad {
  const float* xt;
  int64_t cols;
  const float* dyt;
  int64_t oh, ow, ka, kb;
  const int64_t* roff;
  const int64_t* coff;
  float* chains;
};

// Every ISA's row: the same chains on different vector widths.
struct Kernels {
  int lanes;             // a vector's: a correlation's output columns, a weight gradient's channels
  int column_slack;      // floats a correlate step may read past a row's last tap (its widest step's columns)
  int wide_in_channels;  // input channels per group a correlation takes on rows of a vector or more
  int unrolled_channels;  // channels per group either side takes on rows of three unrolled taps (0: none)
  void (*correlate)(const Correlation&, int64_t o0, int64_t o1);
  void (*weight_grad)(const WeightGrad&, int64_t t0, int64_t t1);
  void (*depthwise_weight_grad)(const DepthwiseGrad&);
  // dy's planes (oc x P) as rows of ocp channels, WeightGrad's dyt.
  void (*transpose_channels)(const float* dy, int64_t oc, int64_t P, int64_t ocp, float* dyt);
};
extern const Kernels kGeneric;
extern const Kernels kAvx2;
extern const Kernels kAvx512;

}  // namespace direct
}  // namespace conv
}  // namespace repdl

// 2-D convolution as GEMM over the zero-filled im2col matrix
// (docs/CONTRACT.md, "Convolution").  For each output element the chain is
//     acc = +0.0;  for (c, kh, kw) lexicographic:  acc = fma32(w, x_tap, acc)
// with taps that fall in padding entering as +0.0; grad_input chains over
// (oc, kh, kw) with padding and stride holes as +0.0, grad_weight over
// (n, oh, ow).  Each is one GEMM per (image, group) or per group whose
// contraction order is exactly that chain, so blocking, threads and the
// instruction set cannot change a bit (a strided layer's grad_input leaves
// the holes out, phase by phase, with the same bits: conv.cpp).  Convolution in 1-D is the case
// H = KH = 1; transposed convolution is grad_input.
//
// Tensors are dense (NCHW; weights (OC, C / groups, KH, KW)).  The
// forward's bias (or none: nullptr) is added to each output after its
// chain, one rounding, job by job while the job's outputs are in cache.
#pragma once

#include <cstdint>

namespace repdl {
namespace conv {

struct Geometry {
  int64_t n, c, h, w;           // input
  int64_t oc, kh, kw;           // weight (oc, c / groups, kh, kw)
  int64_t oh, ow;               // output
  int64_t sh, sw, ph, pw, dh, dw;
  int64_t groups;
};

// y (n, oc, oh, ow) = conv(x, w) (+ bias (oc), where not nullptr)
void forward(const Geometry& g, const float* x, const float* w, const float* bias, float* y);
// dx (n, c, h, w) from the output gradient dy (n, oc, oh, ow)
void grad_input(const Geometry& g, const float* dy, const float* w, float* dx);
// dw (oc, c / groups, kh, kw) from x and dy
void grad_weight(const Geometry& g, const float* x, const float* dy, float* dw);

// rows[i * P + j] = fl32(rows[i * P + j] + bias[i]) for i < count, j < P:
// the add op's bits (its row kernel: canonical NaN), for the forward's
// outputs of `count` channels of one image.
void add_bias(const float* bias, float* rows, int64_t count, int64_t P);

}  // namespace conv
}  // namespace repdl

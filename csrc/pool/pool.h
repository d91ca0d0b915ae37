// Max and average pooling over 2-D planes (docs/CONTRACT.md section 12), one
// thread per range of planes.  A window is given by per-axis tables: row
// table entry [oh * kh + i] is the input row of the window's i-th row for
// output row oh (-1 outside the input), and likewise for columns; the window
// is walked in row-major order over those entries.
//
//   max: the first maximum of the in-range elements (NaN beats every
//        number, equal values keep the first), its flat position h*w + c
//   avg: seqsum of the in-range elements from +0.0, then / divisor[o]
//        (padding would add +0.0 terms, which change nothing: a sum that
//        starts at +0.0 never holds -0.0)
// Backward: dx starts at +0.0 per plane; outputs in ascending order add
// their gradient (max: at its index; avg: g / divisor at every in-range
// window element), one rounding each.
#pragma once

#include <cstdint>

namespace repdl {
namespace pool {

struct Windows {
  int64_t planes, h, w, oh, ow, kh, kw;
  const int64_t* rows;  // oh * kh entries
  const int64_t* cols;  // ow * kw entries
};

void max_forward(const Windows& win, const float* x, float* y, int64_t* index);
void max_backward(const Windows& win, const float* g, const int64_t* index, float* dx);
void avg_forward(const Windows& win, const float* x, const float* divisor, float* y);
void avg_backward(const Windows& win, const float* g, const float* divisor, float* dx);

}  // namespace pool
}  // namespace repdl

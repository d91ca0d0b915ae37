// The entry points: coalesce the index space, split it over threads, hand
// contiguous runs of outputs to the instruction set's row kernel.  Each
// output is one operation on its own inputs, so how the space is cut can
// never change a bit.
#include <algorithm>
#include <cstring>

#include "arith/arith.h"
#include "common/parallel.h"

namespace repdl {
namespace arith {
namespace {

constexpr int64_t kGrain = int64_t{1} << 15;  // elements per thread, at least

// Drops size-1 dims and merges neighbours that every input walks as one
// (the dense output always does), so a dense or simply broadcast operation
// becomes one or two long rows.
template <int N>
Iter<N> coalesced(const Iter<N>& it) {
  Iter<N> c;
  c.ndim = 0;
  std::copy(it.in, it.in + N, c.in);
  for (int d = 0; d < it.ndim; ++d) {
    if (it.sizes[d] == 1) continue;
    bool merge = c.ndim > 0;
    for (int k = 0; k < N && merge; ++k)
      merge = c.strides[k][c.ndim - 1] == it.strides[k][d] * it.sizes[d];
    if (merge) {
      c.sizes[c.ndim - 1] *= it.sizes[d];
      for (int k = 0; k < N; ++k) c.strides[k][c.ndim - 1] = it.strides[k][d];
      continue;
    }
    c.sizes[c.ndim] = it.sizes[d];
    for (int k = 0; k < N; ++k) c.strides[k][c.ndim] = it.strides[k][d];
    ++c.ndim;
  }
  if (c.ndim == 0) {  // a single element
    c.ndim = 1;
    c.sizes[0] = 1;
    for (int k = 0; k < N; ++k) c.strides[k][0] = 0;
  }
  return c;
}

// Calls row(inputs, inner strides, y, n) over the outputs [begin, end) of the
// row-major space, one contiguous run of the innermost dim at a time.
template <int N, class Row>
void for_runs(const Iter<N>& it, int64_t begin, int64_t end, float* y, const Row& row) {
  const int last = it.ndim - 1;
  int64_t index[kMaxDims];
  int64_t rest = begin;
  for (int d = last; d >= 0; --d) {
    index[d] = rest % it.sizes[d];
    rest /= it.sizes[d];
  }
  const float* p[N];
  int64_t inner[N];
  for (int64_t pos = begin; pos < end;) {
    for (int k = 0; k < N; ++k) {
      int64_t off = 0;
      for (int d = 0; d <= last; ++d) off += index[d] * it.strides[k][d];
      p[k] = it.in[k] + off;
      inner[k] = it.strides[k][last];
    }
    const int64_t n = std::min(it.sizes[last] - index[last], end - pos);
    row(p, inner, y + pos, n);
    pos += n;
    index[last] += n;
    for (int d = last; d > 0 && index[d] == it.sizes[d]; --d) {
      index[d] = 0;
      ++index[d - 1];
    }
  }
}

template <int N, class Row>
void run(const Iter<N>& raw, float* y, const Row& row) {
  int64_t total = 1;
  for (int d = 0; d < raw.ndim; ++d) total *= raw.sizes[d];
  if (total == 0) return;
  const Iter<N> it = coalesced(raw);
  parallel_ranges(total, threads_for(total, kGrain),
                  [&](int64_t b, int64_t e) { for_runs(it, b, e, y, row); });
}

}  // namespace

const Rows& rows() { return avx2_active() ? kAvx2Rows : kGenericRows; }

void binary(Binary op, const Iter<2>& it, float* y) {
  const Rows& r = rows();
  run(it, y, [&](const float* const* p, const int64_t* s, float* out, int64_t n) {
    r.binary(op, p[0], s[0], p[1], s[1], out, n);
  });
}

void binary_scalar(Binary op, const Iter<1>& it, float s, bool scalar_left, float* y) {
  const Rows& r = rows();
  run(it, y, [&](const float* const* p, const int64_t* st, float* out, int64_t n) {
    if (scalar_left) r.binary(op, &s, 0, p[0], st[0], out, n);
    else r.binary(op, p[0], st[0], &s, 0, out, n);
  });
}

void compare(const float* x, int64_t n, Compare op, float h, uint8_t* mask) {
  const Rows& r = rows();
  parallel_ranges(n, threads_for(n, kGrain), [&](int64_t b, int64_t e) { r.compare(x + b, e - b, op, h, mask + b); });
}

void clamp_backward(const float* x, const float* g, int64_t n, float lo, float hi, bool inclusive, float* dx) {
  const Rows& r = rows();
  parallel_ranges(n, threads_for(n, kGrain), [&](int64_t b, int64_t e) {
    r.clamp_backward(x + b, g + b, e - b, lo, hi, inclusive, dx + b);
  });
}

void clamp(const Iter<1>& it, float lo, float hi, float* y) {
  const Rows& r = rows();
  run(it, y, [&](const float* const* p, const int64_t* s, float* out, int64_t n) {
    r.clamp(p[0], s[0], lo, hi, out, n);
  });
}

void fma(const Iter<3>& it, float* y) {
  const Rows& r = rows();
  run(it, y, [&](const float* const* p, const int64_t* s, float* out, int64_t n) {
    r.fma(p[0], s[0], p[1], s[1], p[2], s[2], out, n);
  });
}

}  // namespace arith
}  // namespace repdl

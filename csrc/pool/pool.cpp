#include "pool/pool.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "common/nan.h"
#include "common/parallel.h"

namespace repdl {
namespace pool {
namespace {

// body(plane) for every plane, planes split over threads.
template <class Body>
void over_planes(const Windows& win, const Body& body) {
  const int64_t work = win.planes * win.oh * win.ow * win.kh * win.kw;
  parallel_ranges(win.planes, threads_for(work, int64_t{1} << 16), [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) body(p);
  });
}

// visit(position) for the in-range elements of output (i, j)'s window in row-major order.
template <class Visit>
void for_window(const Windows& win, int64_t i, int64_t j, const Visit& visit) {
  for (int64_t a = 0; a < win.kh; ++a) {
    const int64_t r = win.rows[i * win.kh + a];
    if (r < 0) continue;
    for (int64_t b = 0; b < win.kw; ++b) {
      const int64_t c = win.cols[j * win.kw + b];
      if (c >= 0) visit(r * win.w + c);
    }
  }
}

}  // namespace

// Whether every entry of a window table's row e (k entries) is in range.
std::vector<char> complete(const int64_t* table, int64_t n, int64_t k) {
  std::vector<char> full(static_cast<size_t>(n));
  for (int64_t e = 0; e < n; ++e)
    full[e] = std::all_of(table + e * k, table + (e + 1) * k, [](int64_t v) { return v >= 0; });
  return full;
}

namespace {

// Column tables whose windows all lie inside the input and step evenly,
// cols[j * kw + b] = c0 + j * step + b * spread (every sliding window whose
// columns need no padding), turn a window element (a, b) of a whole output
// row into one strided run of an input row: a pool's rule then runs as one
// pass per window element over a block of outputs, which the compiler
// vectorises.  (The windows and their order are the tables' as everywhere.)
struct EvenCols {
  bool even;  // the columns step evenly, and every plane position fits the 32-bit offsets below
  int64_t c0, step, spread;
};

EvenCols even_cols(const Windows& win) {
  const int64_t* c = win.cols;
  EvenCols e{win.h * win.w <= INT32_MAX, c[0], win.ow > 1 ? c[win.kw] - c[0] : 0, win.kw > 1 ? c[1] - c[0] : 0};
  for (int64_t j = 0; j < win.ow && e.even; ++j)
    for (int64_t b = 0; b < win.kw && e.even; ++b) {
      const int64_t v = c[j * win.kw + b];
      e.even = v >= 0 && v == e.c0 + j * e.step + b * e.spread;
    }
  return e;
}

constexpr int64_t kBlock = 64;  // outputs of a row per pass: the running values stay in L1

// visit(first, src, here) for the elements (a, b) of the windows of outputs
// [j0, j0 + n) of one row, in the window's row-major order, for even columns
// and window rows all inside the input: src is output j0's element, output
// j0 + l's is src[l * step]; `here` is the element's position less the
// column's own part (c0 + j * step), in 32 bits so that selects of it stay as
// wide as the values'.
template <class Visit>
void for_block_elements(const Windows& win, const EvenCols& ec, const float* xp, const int64_t* rows, int64_t j0,
                        const Visit& visit) {
  for (int64_t a = 0; a < win.kh; ++a)
    for (int64_t b = 0; b < win.kw; ++b) {
      const int32_t here = static_cast<int32_t>(rows[a] * win.w + b * ec.spread);
      visit(a == 0 && b == 0, xp + here + ec.c0 + j0 * ec.step, here);
    }
}

void max_block(const Windows& win, const EvenCols& ec, const float* xp, const int64_t* rows, int64_t j0, int64_t n,
               float* y, int64_t* index) {
  float best[kBlock];
  int32_t off[kBlock];
  for_block_elements(win, ec, xp, rows, j0, [&](bool first, const float* src, int32_t here) {
    if (first) {
      for (int64_t l = 0; l < n; ++l) {
        best[l] = src[l * ec.step];
        off[l] = here;
      }
      return;
    }
    for (int64_t l = 0; l < n; ++l) {
      const float v = src[l * ec.step];
      const bool replace = (v > best[l]) | ((v != v) & (best[l] == best[l]));
      best[l] = replace ? v : best[l];
      off[l] = replace ? here : off[l];
    }
  });
  for (int64_t l = 0; l < n; ++l) {
    y[l] = canonical_nan(best[l]);
    index[l] = off[l] + ec.c0 + (j0 + l) * ec.step;
  }
}

void avg_block(const Windows& win, const EvenCols& ec, const float* xp, const int64_t* rows, int64_t j0, int64_t n,
               const float* divisor, float* y) {
  float acc[kBlock];
  std::fill_n(acc, n, 0.0f);
  for_block_elements(win, ec, xp, rows, j0, [&](bool, const float* src, int32_t) {
    for (int64_t l = 0; l < n; ++l) acc[l] = acc[l] + src[l * ec.step];
  });
  for (int64_t l = 0; l < n; ++l) y[l] = canonical_nan(acc[l] / divisor[l]);
}

}  // namespace

void max_forward(const Windows& win, const float* x, float* y, int64_t* index) {
  const std::vector<char> full_rows = complete(win.rows, win.oh, win.kh), full_cols = complete(win.cols, win.ow, win.kw);
  const EvenCols ec = even_cols(win);
  over_planes(win, [&](int64_t p) {
    const float* xp = x + p * win.h * win.w;
    for (int64_t i = 0; i < win.oh; ++i) {
      const int64_t row_start = (p * win.oh + i) * win.ow;
      if (ec.even && full_rows[i]) {
        for (int64_t j0 = 0; j0 < win.ow; j0 += kBlock)
          max_block(win, ec, xp, win.rows + i * win.kh, j0, std::min(kBlock, win.ow - j0), y + row_start + j0,
                    index + row_start + j0);
        continue;
      }
      for (int64_t j = 0; j < win.ow; ++j) {
        const int64_t o = row_start + j;
        if (full_rows[i] && full_cols[j]) {
          // A window inside the input (the common case): no range checks,
          // and the extremum rule as selects (replace when strictly larger,
          // or NaN over a number).
          const int64_t* rows = win.rows + i * win.kh;
          const int64_t* cols = win.cols + j * win.kw;
          int64_t at = rows[0] * win.w + cols[0];
          float best = xp[at];
          for (int64_t a = 0; a < win.kh; ++a)
            for (int64_t b = a == 0 ? 1 : 0; b < win.kw; ++b) {
              const int64_t q = rows[a] * win.w + cols[b];
              const float v = xp[q];
              const bool replace = (v > best) | ((v != v) & (best == best));
              best = replace ? v : best;
              at = replace ? q : at;
            }
          y[o] = canonical_nan(best);
          index[o] = at;
          continue;
        }
        int64_t at = -1;
        float best = 0.0f;
        for_window(win, i, j, [&](int64_t q) {
          const float v = xp[q];
          if (at < 0 || v > best || (v != v && best == best)) {
            best = v;
            at = q;
          }
        });
        y[o] = at < 0 ? -INFINITY : canonical_nan(best);
        index[o] = at < 0 ? win.h * win.w : at;
      }
    }
  });
}

void max_backward(const Windows& win, const float* g, const int64_t* index, float* dx) {
  over_planes(win, [&](int64_t p) {
    float* dp = dx + p * win.h * win.w;
    std::fill_n(dp, win.h * win.w, 0.0f);
    const int64_t outputs = win.oh * win.ow, base = p * outputs;
    for (int64_t o = 0; o < outputs; ++o) {
      const int64_t q = index[base + o];
      if (q < win.h * win.w) dp[q] = dp[q] + g[base + o];
    }
    for (int64_t q = 0; q < win.h * win.w; ++q) dp[q] = canonical_nan(dp[q]);
  });
}

void avg_forward(const Windows& win, const float* x, const float* divisor, float* y) {
  const std::vector<char> full_rows = complete(win.rows, win.oh, win.kh);
  const EvenCols ec = even_cols(win);
  over_planes(win, [&](int64_t p) {
    const float* xp = x + p * win.h * win.w;
    float* yp = y + p * win.oh * win.ow;
    for (int64_t i = 0; i < win.oh; ++i) {
      const int64_t row_start = i * win.ow;
      if (ec.even && full_rows[i]) {
        for (int64_t j0 = 0; j0 < win.ow; j0 += kBlock)
          avg_block(win, ec, xp, win.rows + i * win.kh, j0, std::min(kBlock, win.ow - j0),
                    divisor + row_start + j0, yp + row_start + j0);
        continue;
      }
      for (int64_t j = 0; j < win.ow; ++j) {
        float acc = 0.0f;
        for_window(win, i, j, [&](int64_t q) { acc = acc + xp[q]; });
        yp[row_start + j] = canonical_nan(acc / divisor[row_start + j]);
      }
    }
  });
}

void avg_backward(const Windows& win, const float* g, const float* divisor, float* dx) {
  over_planes(win, [&](int64_t p) {
    float* dp = dx + p * win.h * win.w;
    std::fill_n(dp, win.h * win.w, 0.0f);
    for (int64_t i = 0; i < win.oh; ++i)
      for (int64_t j = 0; j < win.ow; ++j) {
        const int64_t o = i * win.ow + j;
        const float t = g[p * win.oh * win.ow + o] / divisor[o];
        for_window(win, i, j, [&](int64_t q) { dp[q] = dp[q] + t; });
      }
    for (int64_t q = 0; q < win.h * win.w; ++q) dp[q] = canonical_nan(dp[q]);
  });
}

}  // namespace pool
}  // namespace repdl

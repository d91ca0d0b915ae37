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

void max_forward(const Windows& win, const float* x, float* y, int64_t* index) {
  const std::vector<char> full_rows = complete(win.rows, win.oh, win.kh), full_cols = complete(win.cols, win.ow, win.kw);
  over_planes(win, [&](int64_t p) {
    const float* xp = x + p * win.h * win.w;
    for (int64_t i = 0; i < win.oh; ++i)
      for (int64_t j = 0; j < win.ow; ++j) {
        const int64_t o = (p * win.oh + i) * win.ow + j;
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
  over_planes(win, [&](int64_t p) {
    const float* xp = x + p * win.h * win.w;
    for (int64_t i = 0; i < win.oh; ++i)
      for (int64_t j = 0; j < win.ow; ++j) {
        float acc = 0.0f;
        for_window(win, i, j, [&](int64_t q) { acc = acc + xp[q]; });
        const int64_t o = i * win.ow + j;
        y[p * win.oh * win.ow + o] = canonical_nan(acc / divisor[o]);
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

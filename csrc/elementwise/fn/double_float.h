// The steps the float32 paths of the vector rows share (fn/exp_f32.h,
// fn/logistic_f32.h): a result carried as a pair h + lo of floats, and the
// rounding that proves itself.  Written in the rows' float32 vocabulary
// (row_avx2.h, row_avx512.h).  docs/elementwise.md ("exp: the float32
// path") has the argument.

// The relative half-width of the interval round_proven rounds: every path
// that calls it bounds its error, rounding slack included, below this
// (exp: 2^-34.74, sigmoid and silu: 2^-35.06, each relative to |h|).
constexpr float kProvenRelative = 0x1.6a09e6p-35f;  // 2^-34.5

// fl(h + lo), proven to be the rounding of the true value v too, where
// |v - (h + lo)| <= |h| 2^-34.5: the two sums below bracket v (each inner
// fma rounds once, inside the margin the callers leave), and rounding is
// monotone, so when they agree every value between them, v included, rounds
// to the same float.  *hard: the lanes where they differ (v may round
// either way; about 2^-10 of lanes for values spread over binades), or
// either is NaN.  Nothing here depends on the grid: it holds below powers
// of two and for subnormal results alike.
inline F round_proven(F h, F lo, FM* hard) {
  const F e = f32_splat(kProvenRelative);
  const F below = f32_add(h, f32_fnma(h, e, lo)), above = f32_add(h, f32_fma(h, e, lo));
  *hard = f32_ne(below, above);
  return below;
}

// fl(h + lo), and *d = (h + lo) - fl(h + lo) exactly, for |lo| <= |h|
// (Fast2Sum: y - h is exact by Sterbenz, and a sum's rounding error is a
// float): a pair renormalised, so that |*d| <= ulp(y) / 2.
inline F two_sum_fast(F h, F lo, F* d) {
  const F y = f32_add(h, lo);
  *d = f32_sub(lo, f32_sub(y, h));
  return y;
}

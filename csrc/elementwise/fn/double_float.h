// The steps the fast paths of the vector rows share (fn/exp_f32.h,
// fn/logistic_f32.h, fn/rsqrt_f32.h and the coarse float64 tiers): a result
// carried as a pair h + lo of floats, the rounding that proves itself, and
// the exact rules by which their rescues settle hard lanes.  Written in the
// rows' float32 vocabulary (row_avx2.h, row_avx512.h).  docs/elementwise.md
// ("exp: the float32 path", "The rescue of hard blocks") has the argument.

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
// round_within takes the half-width as an argument, for a path whose bound
// needs a wider one (softplus_f32.h: 2^-34).
inline F round_within(F h, F lo, float relative, FM* hard) {
  const F e = f32_splat(relative);
  const F below = f32_add(h, f32_fnma(h, e, lo)), above = f32_add(h, f32_fma(h, e, lo));
  *hard = f32_ne(below, above);
  return below;
}
inline F round_proven(F h, F lo, FM* hard) { return round_within(h, lo, kProvenRelative, hard); }

// fl(h + lo), and *d = (h + lo) - fl(h + lo) exactly, for |lo| <= |h|
// (Fast2Sum: y - h is exact by Sterbenz, and a sum's rounding error is a
// float): a pair renormalised, so that |*d| <= ulp(y) / 2.
inline F two_sum_fast(F h, F lo, F* d) {
  const F y = f32_add(h, lo);
  *d = f32_sub(lo, f32_sub(y, h));
  return y;
}

// 1 / (a + b + low) = y0 / (1 - *t), y0 the return value, for a, b >= 0 in
// either order and |low| <= 2^-24 (a + b): dh = fl(a + b) and dl its exact
// error (Fast2Sum with the larger first) plus low, y0 = fl(1 / dh), 1 - dh
// y0 exact (one fma), *t = fl(1 - dh y0 - dl y0), |*t| < 2^-22.4 (|dl| <=
// 2^-23 dh).  The quotients of sigmoid (1 + e^-x, fn/logistic_f32.h) and
// tanh (W + 2^(1-m), fn/tanh_f32.h).
inline F reciprocal_of_sum(F a, F b, F low, F* t) {
  const F one = f32_splat(1.0f);
  const F dh = f32_add(a, b);
  const F dl = f32_add(f32_sub(f32_min(a, b), f32_sub(dh, f32_max(a, b))), low);
  const F y0 = f32_div(one, dh);
  *t = f32_fnma(dl, y0, f32_fnma(dh, y0, one));
  return y0;
}

// Exact rules for the lanes a fast path leaves hard: each kernel's
// rescue() (run_fast, row_simd.inc) writes `value` into the lanes of m,
// which then leave *hard.  The rules hold for a range of inputs as a
// whole (exp(x) = +0 for every x <= -103.972084, say), so they need no
// rounding test.  Each threshold is the float32 input where the correctly
// rounded result reaches the limit (test_rescue_thresholds_are_the_edges
// checks it and its neighbours against MPFR; the exhaustive crosscheck,
// every input).
inline F settle_lanes(FM m, F value, F y, uint32_t* hard) {
  *hard &= ~fm_bits(m);
  return f32_select(m, value, y);
}

// A second evaluation's results y_new in the lanes of m, whose hard bits
// become new_hard's.
inline F replace_lanes(FM m, F y_new, uint32_t new_hard, F y, uint32_t* hard) {
  *hard = (*hard & ~fm_bits(m)) | (new_hard & fm_bits(m));
  return f32_select(m, y_new, y);
}

// NaN in, the contract's NaN out (0x7FC00000): the one rule every rescue has.
inline F settle_nan(F x, F y, uint32_t* hard) {
  return settle_lanes(f32_ne(x, x), f32_splat(__builtin_nanf("")), y, hard);
}

// x/2 plus a positive perturbation far below its rounding unit, rounded:
// x/2 where that is a float, else (x odd on the 2^-149 grid, x/2 a tie
// between two subnormals) the neighbour towards +inf.  The rule near zero
// of silu and gelu, f(x) = x/2 + c x^2 + O(x^4) with c > 0 (the float64
// path's gelu_near_zero).  A -0 half keeps its sign: silu(-2^-149) = -0.
inline F half_above(F x) {
  const F h = f32_mul(x, f32_splat(0.5f));
  const F e = f32_fnma(h, f32_splat(2.0f), x);  // x - 2h exactly: 0 or +-2^-149
  return f32_select(f32_lt(f32_splat(0.0f), e), f32_add(h, f32_splat(0x1p-149f)), h);
}

// The tails where a function has reached its limit: x <= lo gives below,
// x >= hi gives above (an infinite edge: the function's value at that
// infinity), NaN gives NaN.  Blocks whose hard lanes all lie inside (lo,
// hi) leave at once: gelu's x in [-14.4, -5.65] and erfc's z in [4, 10.1]
// stay hard in 40% of blocks of randn * 3, and the rules would cost those
// blocks a tenth of their time.
inline F settle_tails(F x, F y, float lo, float below, float hi, float above, uint32_t* hard) {
  const FM inside = fm_and(f32_lt(f32_splat(lo), x), f32_lt(x, f32_splat(hi)));  // NaN: outside
  if ((~fm_bits(inside) & *hard) == 0) return y;
  y = settle_lanes(f32_le(x, f32_splat(lo)), f32_splat(below), y, hard);
  y = settle_lanes(f32_ge(x, f32_splat(hi)), f32_splat(above), y, hard);
  return settle_nan(x, y, hard);
}

// sigmoid, silu and gelu_tanh on float32 lanes, correctly rounded with
// their own rounding test: the fast paths of the vector rows in front of
// Sigmoid (sigmoid.h), Silu (silu.h) and GeluTanh (gelu_tanh.h), as
// exp_f32.h is in front of Exp.  The error analysis is in
// docs/elementwise.md ("sigmoid and silu: the float32 path", "gelu_tanh:
// the float32 path"; GeluTanhF32 at the end of this file).
//
//   E = e^-x = 2^m (Ey + Ed)        ExpF32::unscaled<true> at min(x, 64),
//                                   renormalised (|Ed| <= ulp(Ey) / 2)
//   1 + E = Dh + Dl                 Dh = fl(1 + Eh), Dl: its error + El
//   y0 = fl(1 / Dh),  r = 1 - Dh y0 (exact, one fma)
//   1 / (1 + E) = y0 / (1 - t),     t = r - Dl y0,  |t| < 2^-22.4
//   sigmoid(x) = y0 + fl(y0 t),     silu(x) = x times that pair
//
// sigmoid is 1 / (1 + e^-x) for every x, not u / (1 + u) with u = e^-|x|
// on one side: e^-x up to e^48 costs nothing here (the pair is scaled by an
// exact power of two), and one quotient serves both signs.  The result is
// rounded by round_proven (fn/double_float.h).  Hard lanes: round_proven's,
// x < -48 (results below e^-48, where a flushed subnormal low part could
// matter) and NaN; for silu also 0 < |x| < 2^-64 and |x| = inf (silu(+-0)
// is x).  The rescues below settle most of x < -48, the infinities and NaN.
// For x > 64, e^-64 stands in for e^-x: both sigmoids and both silus round
// alike, far from any midpoint.

struct LogisticF32 {
  ExpF32 exp;

  // 1 / (1 + e^-x) = y0 + *low within 2^-35.07 relative in the lanes of
  // *quotient, x >= -48 (and +inf); there y0 >= 2^-69.3.  The other lanes
  // (NaN among them) hold any value: their e^-x is not scaled, so that the
  // quotients below 2^-126 that it would give take no microcode assist
  // (ExpF32::scale_where; sigmoid of randn * 50 took 13.6 times its time on
  // random inputs).
  F reciprocal(F x, F* low, FM* quotient) const {
    F lo, sk, kn, ed;
    *quotient = f32_ge(x, f32_splat(-48.0f));
    const F h = exp.unscaled<true>(f32_min(x, f32_splat(64.0f)), &lo, &sk, &kn);
    const F ey = two_sum_fast(h, lo, &ed);
    // 2^m, m in [-93, 70]
    const F eh = ExpF32::scale_where(*quotient, ey, sk, kn), el = ExpF32::scale_where(*quotient, ed, sk, kn);
    F t;
    const F y0 = reciprocal_of_sum(f32_splat(1.0f), eh, el, &t);  // 1 and Eh: either may be the larger
    *low = f32_mul(y0, t);
    return y0;
  }
};

// The rounding of each function from the pair y0 + low of 1 / (1 + e^-x)
// (LogisticF32::reciprocal) in the lanes of `quotient`, with its hard lanes
// in *hard.
inline F sigmoid_from(F y0, F low, FM quotient, FM* hard) {
  FM unproven;
  const F y = round_proven(y0, low, &unproven);
  *hard = fm_or(unproven, fm_not(quotient));  // NaN: hard
  return y;
}

// x (h + lo) as the pair ph + *low: x h = ph + pl exactly (one fms; silu
// and gelu_tanh keep |x h| >= 2^-66, so nothing underflows, and tanh's
// products below that are exact, fn/tanh_f32.h), and x lo + pl rounded
// once, within 2^-24 |x lo|.
inline F times_pair(F x, F h, F lo, F* low) {
  const F ph = f32_mul(x, h);
  *low = f32_fma(x, lo, f32_fms(x, h, ph));
  return ph;
}

// x times the pair q + low of a logistic quotient 1 / (1 + e^-u) (silu: u =
// x; gelu_tanh: u = t(x)) in the lanes of `quotient` (u >= -48).
inline F product_from(F x, F q, F low, FM quotient, FM* hard) {
  FM unproven;
  F pl;
  const F ph = times_pair(x, q, low, &pl);
  const F y = round_proven(ph, pl, &unproven);
  // f(+-0) = +-0 is x itself (round_proven's sum would make -0 +0), so
  // zeros, common in activations, need no float64 evaluation; the rest of
  // |x| < 2^-64 does (the float64 path's near-zero rule).
  const F a = f32_abs(x);
  const FM zero = f32_bits_zero(a);
  const FM in_range =
      fm_and(quotient, fm_and(fm_or(f32_ge(a, f32_splat(0x1p-64f)), zero), f32_le(a, f32_splat(0x1.fffffep127f))));
  *hard = fm_or(unproven, fm_not(in_range));
  return f32_select(zero, x, y);
}

// The rescues of the hard lanes (run_fast).  Below the quotient's range,
// x < -48: sigmoid(x) = e^x (1 - d), 0 < d = sigmoid(x) < 2^-69, so exp's
// pair and its bound (2^-34.74, rounding slack included, of the 2^-34.5
// round_proven allows) prove sigmoid's rounding as well, and so do exp's
// own rescue's rules and its results below 2^-126 (where d < 2^-125): sigmoid
// rounds as exp does there.  silu(x) = x e^x (1 - d) is x times that pair
// on (-108.660309, -48): x h exactly (one fms) plus x lo rounded once
// (2^-36.97 more: 2^-34.58 in all), renormalised by Fast2Sum and scaled by
// ExpF32::scale_rounded, which rounds the results below 2^-126 on their
// grid; then silu(x) rounds to -0 for x <= -108.660309 (-inf included),
// silu(+inf) = +inf, and 0 < |x| < 2^-64 gives half_above(x).  Left hard:
// what round_proven cannot prove.
inline F sigmoid_rescue(const ExpF32& exp, F x, F y, uint32_t* hard) {
  const FM below = f32_lt(x, f32_splat(-48.0f));
  if (fm_bits(below) & *hard) {
    uint32_t exp_hard;
    F e = exp.eval(x, &exp_hard);
    if (exp_hard != 0) e = exp.rescue(x, e, &exp_hard);
    y = replace_lanes(below, e, exp_hard, y, hard);
  }
  return settle_nan(x, y, hard);
}

// silu(x) rounds to -0 for x <= kSiluZeroAtOrBelow (-inf included).
constexpr float kSiluZeroAtOrBelow = -0x1.b2a428p+6f;  // -108.660309

inline F silu_rescue(const ExpF32& exp, F x, F y, uint32_t* hard) {
  const FM band = fm_and(f32_lt(f32_splat(kSiluZeroAtOrBelow), x), f32_lt(x, f32_splat(-48.0f)));
  if (fm_bits(band) & *hard) {
    F lo, sk, kn, pl, d;
    const F h = exp.unscaled(x, &lo, &sk, &kn);
    const F ph = times_pair(x, h, lo, &pl);
    const F p = two_sum_fast(ph, pl, &d);
    uint32_t band_hard;
    const F s = ExpF32::scale_rounded(band, p, d, sk, kn, -0x1p23f, &band_hard);
    y = replace_lanes(band, s, band_hard, y, hard);
  }
  const FM near_zero = f32_lt(f32_abs(x), f32_splat(0x1p-64f));
  if (fm_bits(near_zero) & *hard) y = settle_lanes(near_zero, half_above(x), y, hard);
  return settle_tails(x, y, kSiluZeroAtOrBelow, -0.0f, __builtin_inff(), __builtin_inff(), hard);
}

struct SigmoidF32 {
  LogisticF32 logistic;

  F eval(F x, uint32_t* hard) const {
    F low;
    FM quotient, h;
    const F y0 = logistic.reciprocal(x, &low, &quotient);
    const F y = sigmoid_from(y0, low, quotient, &h);
    *hard = fm_bits(h);
    return y;
  }
  F rescue(F x, F y, uint32_t* hard) const { return sigmoid_rescue(logistic.exp, x, y, hard); }
};

struct SiluF32 {
  LogisticF32 logistic;

  F eval(F x, uint32_t* hard) const {
    F low;
    FM quotient, h;
    const F q = logistic.reciprocal(x, &low, &quotient);
    const F y = product_from(x, q, low, quotient, &h);
    *hard = fm_bits(h);
    return y;
  }
  F rescue(F x, F y, uint32_t* hard) const { return silu_rescue(logistic.exp, x, y, hard); }
};

// silu and sigmoid from one quotient: silu's forward when its backward will
// read sigmoid(x) (the rows' silu_sigmoid).  A lane is hard for both when it
// is hard for either; each output is the single kernel's in every other lane.
struct SiluSigmoidF32 {
  LogisticF32 logistic;

  std::array<F, 2> eval(F x, uint32_t* hard) const {
    F low;
    FM quotient, hy, hs;
    const F q = logistic.reciprocal(x, &low, &quotient);
    const F y = product_from(x, q, low, quotient, &hy), s = sigmoid_from(q, low, quotient, &hs);
    *hard = fm_bits(fm_or(hy, hs));
    return {y, s};
  }
  // Each output's rescue on the lanes hard for either (a lane settled for
  // one output and not the other is queued, and both are recomputed there).
  std::array<F, 2> rescue(F x, const std::array<F, 2>& v, uint32_t* hard) const {
    uint32_t hy = *hard, hs = *hard;
    const std::array<F, 2> out{silu_rescue(logistic.exp, x, v[0], &hy), sigmoid_rescue(logistic.exp, x, v[1], &hs)};
    *hard = hy | hs;
    return out;
  }
};

// gelu_tanh(x) = x sigmoid(t), t = A x + B x^3 (A = 2 sqrt(2/pi), B = A
// 0.044715; GeluTanh's formula, fn/gelu_tanh.h), for t >= -48.  t is
// carried as a pair th + tl (|tl| <= ulp(th)/2, |t| < 64 on x clamped to
// [-8.87, 8.87]), the quotient's pair is sigmoid(th), and the first-order
// term sigmoid(th) (1 - sigmoid(th)) tl moves it to sigmoid(t).
// docs/elementwise.md ("gelu_tanh: the float32 path") has the analysis.
// Hard lanes: silu's (product_from), with t < -48 in place of x < -48; the
// rescue settles the tails, NaN and the near-zero rule.
constexpr float kGeluTanhAF32[2] = {0x1.988454p+0f, -0x1.857936p-25f};  // 2 sqrt(2/pi), within 2^-53.5
constexpr float kGeluTanhBF32[2] = {0x1.2444f2p-4f, 0x1.49b16ap-29f};   // its 0.044715 times, within 2^-49.8
// gelu_tanh(x) rounds to -0 for x <= kGeluTanhZeroAtOrBelow (-inf included).
constexpr float kGeluTanhZeroAtOrBelow = -0x1.58aaf4p+3f;  // -10.7708683

struct GeluTanhF32 {
  LogisticF32 logistic;

  // t = x (A + B x^2) for |x| <= 8.87 as th + *tl, within 2^-43.95 |t|
  // (docs/elementwise.md).
  static F argument(F x, F* tl) {
    const F x2h = f32_mul(x, x), x2l = f32_fms(x, x, x2h);  // x^2 exactly (normal x^2)
    // u = A + B x^2: both terms positive; Fast2Sum on the larger first.
    const F bh = f32_mul(f32_splat(kGeluTanhBF32[0]), x2h);
    const F be = f32_fma(f32_splat(kGeluTanhBF32[0]), x2l,
                         f32_fma(f32_splat(kGeluTanhBF32[1]), x2h, f32_fms(f32_splat(kGeluTanhBF32[0]), x2h, bh)));
    const F a = f32_splat(kGeluTanhAF32[0]);
    const F uh = f32_add(a, bh);
    const F ue = f32_add(f32_sub(f32_max(a, bh), uh), f32_min(a, bh));  // exact
    const F ul = f32_add(ue, f32_add(be, f32_splat(kGeluTanhAF32[1])));
    // x u, renormalised so that |tl| <= ulp(th)/2.
    const F ph = f32_mul(x, uh);
    return two_sum_fast(ph, f32_fma(x, ul, f32_fms(x, uh, ph)), tl);
  }

  // sigmoid(t(x)) = y0 + *low within 2^-34.78 relative in the lanes of
  // *in_range, t >= -48 (LogisticF32::reciprocal).
  F quotient(F x, F* low, FM* in_range) const {
    const F xc = f32_min(f32_max(x, f32_splat(-8.87f)), f32_splat(8.87f));  // NaN: -8.87 (out of range)
    F tl, lo;
    const F th = argument(xc, &tl);
    const F y0 = logistic.reciprocal(th, &lo, in_range);
    *low = f32_add(lo, f32_mul(f32_mul(y0, f32_sub(f32_splat(1.0f), y0)), tl));
    return y0;
  }

  F eval(F x, uint32_t* hard) const {
    F low;
    FM in_range, h;
    const F y0 = quotient(x, &low, &in_range);
    const F y = product_from(x, y0, low, in_range, &h);
    *hard = fm_bits(h);
    return y;
  }
  // Left hard: t < -48 above the edge (x in (-10.77, -7.9)) and what
  // round_proven cannot prove.
  static F rescue(F x, F y, uint32_t* hard) {
    const FM near_zero = f32_lt(f32_abs(x), f32_splat(static_cast<float>(kGeluTiny)));
    if (fm_bits(near_zero) & *hard) y = settle_lanes(near_zero, half_above(x), y, hard);
    return settle_tails(x, y, kGeluTanhZeroAtOrBelow, -0.0f, __builtin_inff(), __builtin_inff(), hard);
  }
};

// tanh on float32 lanes, correctly rounded with its own rounding test: the
// fast path of the vector rows in front of Tanh (tanh.h), on exp's table
// and reduction steps (fn/exp_f32.h, ExpSteps).  The error analysis is in
// docs/elementwise.md ("tanh: the float32 path").
//
//   a = min(|x|, 9.5),  2a = k ln2/N + rh + rl,  k = N m + j  (ExpSteps::reduce)
//   e^(2a) - 1 = 2^m W,  W = (Th - v) + Th (s + small) + (Tl + Th rl)(1 + s),  v = 2^-m
//   tanh a = (e^(2a) - 1) / (e^(2a) + 1) = W / (W + 2v)
//
// tanh as expm1(2a) / (expm1(2a) + 2), the float64 path's quotient, whose
// terms are all positive; but its cancellation, e^(2a) - 1 near a = 0, is
// carried out exactly: Th - v is a float (Sterbenz for m = 0, and 2^-m on
// Th's grid for m <= 23), e^rh - 1 = s + small keeps rh^2/2 (expm1_split),
// and Th s joins Th - v by Fast2Sum.  So W is accurate relative to itself,
// not to e^(2a), down to W = rh for k = 0.  Nothing is scaled: the
// quotient is the same with 2^-m in place of 1.  The sign of x is put on
// the rounded tanh a (rounding to nearest is odd), so tanh(+-0) = +-0.
// a >= 9.0109 rounds to 1; the clamp's 9.5 gives 1 - 2^-26.4, which
// rounds to 1 far from a midpoint, and so do the infinities.  Hard lanes:
// round_proven's, NaN among them (the rescue gives the contract's NaN).

// The row's table: 32 entries on the AVX-512 row (exp's), 16 on the AVX2
// row, whose exp has 8 (docs/elementwise.md: with 8, rh^3/6's roundings
// alone would reach 2^-33.5 of W).
constexpr int kTanhF32N = TanhF32Table::kEntries;
static_assert(kTanhF32N == 16 || kTanhF32N == 32, "tanh's float32 path is analysed for tables of 16 and 32");

struct TanhF32 {
  using Steps = ExpSteps<kTanhF32N>;
  TanhF32Table th_table{kExpF32Entries<kTanhF32N>.hi}, tl_table{kExpF32Entries<kTanhF32N>.lo};

  // tanh a = q + *low (the return value is q) within 2^-37.18 relative
  // for N = 32, 2^-35.13 for N = 16 (measured: 2^-37.34, 2^-36.06), a =
  // min(|x|, 9.5); NaN gives NaN.
  F magnitude(F x, F* low) const {
    const F one = f32_splat(1.0f);
    const F a = f32_min(f32_splat(9.5f), f32_abs(x));  // NaN stays NaN: round_proven's hard lane
    F sk, kn, rl, small;
    const F rh = Steps::reduce(f32_add(a, a), &sk, &kn, &rl);
    const F s = Steps::expm1_split(rh, &small);
    const F th = th_table.lookup(sk), tl = tl_table.lookup(sk);
    const F m_bits = Steps::exponent_bits(sk);
    const F v = f32_sub_bits(one, m_bits), v2 = f32_sub_bits(f32_splat(2.0f), m_bits);  // 2^-m, 2^(1-m)
    // W = w + wl: Th - v, exact (m <= 23) or within 2^-24 (m in [24, 27],
    // where tanh is within 2^-22.9 of 1 and W's error reaches it times
    // 2v / (W + 2v) < 2^-23); Th s exactly as ph + pl; their sum by Fast2Sum
    // (|Th - v| >= |ph|, or Th - v = 0 for k = 0).
    const F ph = f32_mul(th, s), pl = f32_fms(th, s, ph);
    F he;
    const F wh = two_sum_fast(f32_sub(th, v), ph, &he);
    const F c = f32_fma(th, rl, tl);
    F wl;
    const F w = two_sum_fast(wh, f32_fma(th, small, f32_fma(c, s, f32_add(c, f32_add(he, pl)))), &wl);
    // 1 / (W + 2v) = y0 / (1 - t), |t| < 2^-22.4 (|wl| <= 2^-24 w).
    F t;
    const F y0 = reciprocal_of_sum(w, v2, wl, &t);
    return times_pair(y0, w, f32_fma(w, t, wl), low);
  }

  F eval(F x, uint32_t* hard) const {
    F low;
    const F q = magnitude(x, &low);
    FM unproven;
    const F y = round_proven(q, low, &unproven);
    *hard = fm_bits(unproven);
    return f32_or_sign(y, x);
  }
  static F rescue(F x, F y, uint32_t* hard) { return settle_nan(x, y, hard); }
};

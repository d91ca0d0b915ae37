// What the erf family's coarse float64 evaluations share: their window and
// the exact rules by which their rescues settle hard lanes.  Two kinds of
// evaluation stand on them: the AVX-512 row's pieces (fn/erfc_coarse.h)
// and the AVX2 row's series (fn/erf_series.h).  An evaluation C derives
// from the function's rules and adds eval(D) and outside(F); Float64Tier
// (row_simd.inc) takes C::kWindow and C::rescue from here.  Written in the
// rows' float32 vocabulary.

// W = 2^20 ulps: a relative error below 2^-33 is below 2^20 ulps (|v| <
// 2^53 ulps of v).
constexpr int kCoarseWindow = 1 << 20;

// For |x| >= 4, erf(x) = +-(1 - 1.5e-8) or closer, inside the half-gap
// below 1 (2^-25), so +-1 is the rounded result (an exact rule; +-inf
// included), which the pieces return there and the rescue gives the
// series' lanes.
struct ErfRules {
  static constexpr int kWindow = kCoarseWindow;
  static constexpr double kC0 = 0x1.20dd750429b6dp+0;  // 2/sqrt(pi)
  // Subnormal x, whose results lie on the grid of 2^-149 (below 2^-126 and
  // up to c0 2^-126): erf(x) = c0 x (1 - x^2/3 ...), whose correction
  // (2^-252 relative) moves nothing, is fl32(fl64(c0) x): x = j 2^-149, j <
  // 2^23, and the product's error (within 2^-52 relative: c0's rounding
  // and the product's) stays below the distance from c0 j to the nearest
  // half-integer for every j (the crosscheck compares all of them with
  // the float64 path).  One at a time through that path, subnormal inputs
  // took 37 times the random-input time.
  static F rescue(F x, F y, uint32_t* hard) {
    const F a = f32_abs(x);
    const FM tiny = f32_lt(a, f32_splat(0x1p-126f));
    if (fm_bits(tiny) & *hard) y = settle_lanes(tiny, narrow(widen_lo(x) * D(kC0), widen_hi(x) * D(kC0)), y, hard);
    const FM one = f32_ge(a, f32_splat(4.0f));
    if (fm_bits(one) & *hard) y = settle_lanes(one, f32_or_sign(f32_splat(1.0f), x), y, hard);
    return settle_nan(x, y, hard);
  }
};

// erfc(z) = 2 for z <= -4 (erfc(-4) = 2 - 1.5e-8 rounds to 2, as every
// erfc below does), which the pieces return there and the rescue gives the
// series' lanes.
struct ErfcRules {
  static constexpr int kWindow = kCoarseWindow;
  // erfc(z) rounds to +0 for z >= 10.0541954 (+inf included).
  static F rescue(F z, F y, uint32_t* hard) { return settle_tails(z, y, -4.0f, 2.0f, 0x1.41bbf8p+3f, 0.0f, hard); }
};

// Above 5.65, gelu(x) = x (1 - Q), Q = erfc(x/sqrt 2)/2 < 8.1e-9 < 2^-26,
// lies within the half-gap below x, so x is the rounded result (an exact
// rule, not the window's argument; +inf included), which the pieces return
// there and the rescue gives the series' lanes.
constexpr double kGeluIdentity = 5.65;
struct GeluRules {
  static constexpr int kWindow = kCoarseWindow;
  // gelu(x) rounds to -0 for x <= -14.3560686 (-inf included); near zero
  // (|x| < 2^-60, gelu_near_zero's range) it is half_above(x), which
  // settles the subnormal results there.
  static F rescue(F x, F y, uint32_t* hard) {
    const FM near_zero = f32_lt(f32_abs(x), f32_splat(static_cast<float>(kGeluTiny)));
    if (fm_bits(near_zero) & *hard) y = settle_lanes(near_zero, half_above(x), y, hard);
    const FM identity = f32_lt(f32_splat(static_cast<float>(kGeluIdentity)), x);  // +inf included
    if (fm_bits(identity) & *hard) y = settle_lanes(identity, x, y, hard);
    return settle_tails(x, y, -0x1.cb64eap+3f, -0.0f, __builtin_inff(), __builtin_inff(), hard);
  }
};

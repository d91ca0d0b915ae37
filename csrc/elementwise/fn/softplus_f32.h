// softplus(x) = max(x, 0) + ln(1 + e^-|x|) and logsigmoid(x) = -softplus(-x)
// on float32 lanes, correctly rounded with their own rounding test: the
// AVX2 row's fast paths in front of Softplus and Logsigmoid (softplus.h,
// logsigmoid.h), whose accurate evaluations take an exp and a log, each
// gathering from a table (the AVX-512 row has softplus_coarse.h's coarse
// float64 evaluations instead).  After exp_f32.h, logistic_f32.h and
// log_f32.h.  docs/elementwise.md ("log1p, softplus and logsigmoid: the
// float32 paths") has the error analysis.
//
// For z = x (softplus) or -x (logsigmoid) with |z| < 48:
//   u + ul = e^-|z|            exp's unscaled pair (2^-36.0 on the AVX2 row's
//                              table of eight), renormalised by Fast2Sum and
//                              scaled by 2^m (exact: u >= 2^-69.3)
//   l + ll = ln(1 + u + ul)    Log1pF32::pair (2^-35.19; u's error reaches
//                              it shrunk by u / ((1 + u) ln(1 + u)) <= 1)
//   s + e  = max(z, 0) + l     Fast2Sum on the larger first (both >= 0)
// rounded by round_within(s, e + ll): the terms have one sign, so the
// relative bounds carry over, and the two roundings of the low part (each
// 2^-24 of at most 2^-13.44 s) bring the total to 2^-34.19, which is why the
// test's half-width is 2^-34 here and not round_proven's 2^-34.5.
// Hard: |z| >= 48 and NaN (the rescue's rules), and the lanes whose
// rounding the test cannot prove.
constexpr float kSoftplusRelative = 0x1p-34f;

// The sign bit flipped (0x80000000 added to the pattern): -a exactly, zeros
// and NaN included.
inline F negated(F a) { return f32_add_bits(a, f32_splat(-0.0f)); }

// softplus(z) for z >= 48 is z itself (ln(1 + e^-z) < e^-48 = 2^-69.2,
// inside z's half-gap; +inf included); below -48, softplus(z) = e^z (1 -
// d) with 0 < d < e^z / 2 < 2^-70, so exp's path and rescue round it, as
// they round sigmoid there (logistic_f32.h's sigmoid_rescue, which also
// settles NaN).
inline F softplus_rescue(const ExpF32& exp, F z, F y, uint32_t* hard) {
  y = settle_lanes(f32_ge(z, f32_splat(48.0f)), z, y, hard);
  return sigmoid_rescue(exp, z, y, hard);
}

template <bool kLogsigmoid>
struct SoftplusF32 {
  ExpF32 exp;
  Log1pF32 log1p;

  // softplus(z) = s + *lo (s the return value) within 2^-34.19 relative
  // (2^-24 of *lo, round_within's inner rounding, included) for |z| < 48;
  // the other lanes hold garbage.
  F pair(F z, F* lo) const {
    const F a = f32_min(f32_abs(z), f32_splat(48.0f));  // NaN: 48
    F elo, sk, kn, d;
    const F h = exp.unscaled<true>(a, &elo, &sk, &kn);
    const F uh = two_sum_fast(h, elo, &d);
    F ll, e;
    const F l = log1p.pair(ExpF32::scale(uh, sk, kn), ExpF32::scale(d, sk, kn), &ll);
    const F zp = f32_max(z, f32_splat(0.0f));
    const F s = two_sum_fast(f32_max(zp, l), f32_min(zp, l), &e);
    *lo = f32_add(e, ll);
    return s;
  }

  F eval(F x, uint32_t* hard) const {
    const F z = kLogsigmoid ? negated(x) : x;
    F lo;
    const F s = pair(z, &lo);
    FM unproven;
    const F y = round_within(s, lo, kSoftplusRelative, &unproven);
    *hard = fm_bits(fm_or(unproven, fm_not(f32_lt(f32_abs(z), f32_splat(48.0f)))));
    return kLogsigmoid ? negated(y) : y;
  }
  F rescue(F x, F y, uint32_t* hard) const {
    // (The negation would leave NaN's sign bit set: the contract's NaN again.)
    if constexpr (kLogsigmoid) return settle_nan(x, negated(softplus_rescue(exp, negated(x), negated(y), hard)), hard);
    return softplus_rescue(exp, x, y, hard);
  }
};

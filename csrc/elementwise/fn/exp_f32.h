// exp on float32 lanes, correctly rounded with its own rounding test: the
// fast path of the vector rows (row_simd.inc, run_fast), in front of Exp
// (exp.h), which settles the lanes this test cannot.  Written once in the
// rows' float32 vocabulary (row_avx2.h: eight lanes, row_avx512.h:
// sixteen), each row choosing its table (ExpF32Table: N = 32 entries on the
// AVX-512 row, N = 8 on the AVX2 row).  The error analysis is in
// docs/elementwise.md ("exp: the float32 path").
//
//   x = k ln2/N + r,   k = round(N x / ln2) = N m + j,
//   e^x = 2^m T_j e^r,  T_j = 2^(j/N) = Th + Tl (float32 pair),
//   r = rh + rl:  rh = x - k C1 exactly (one fma), rl = -k C2,
//   T_j e^r = h + lo:   h = fl(Th + Th s), lo = the rest in float32,
//
// with s = rh (N = 32: e^rh - 1 - rh by a degree-4 polynomial, |rh| <=
// 0.010832) or s = fl(rh + rh^2/2) (N = 8: rh^2 split exactly, Taylor to
// degree 6, |rh| <= 0.043324).
//
// The value h + lo is carried unscaled (in [0.957, 2.03]) and rounded by
// round_proven (fn/double_float.h) before the exact scaling by 2^m.  A lane
// is hard where round_proven cannot prove its rounding, or when |x| > 87 or
// x is NaN (results that overflow, or fall under 2^-126 where the scaling
// would not commute with rounding, and NaN, are Exp's).  The unscaled pair
// is also the logistic family's e^-x (fn/logistic_f32.h).
alignas(64) constexpr float kExpTableF32[2][32] = {
#include "elementwise/fn/exp_table_f32.inc"
};

// The steps on a table of N = 8, 16 or 32 entries 2^(j/N) that exp (on
// its row's ExpF32Table), exp2, the logistic paths and tanh (on its row's
// TanhF32Table, fn/tanh_f32.h) share.
template <int N>
struct ExpSteps {
  static_assert(N == 8 || N == 16 || N == 32, "analysed for tables of 8, 16 and 32 entries");
  static constexpr int kBits = __builtin_ctz(N);
  // 1.5 2^23 / N: added to N x / N, it rounds x to a multiple of 1/N (k/N),
  // holding k in its low bits as 1.5 2^23 would hold it added to N x.
  static constexpr float kMagic = 0x1.8p23f / N;

  // 2^(j/N) = hi + lo + e, |e| <= 2^-49: every (32/N)-th pair of the table.
  struct Entries {
    alignas(64) float hi[N];
    alignas(64) float lo[N];
  };
  static constexpr Entries entries() {
    Entries t{};
    for (int j = 0; j < N; ++j) {
      t.hi[j] = kExpTableF32[0][j * (32 / N)];
      t.lo[j] = kExpTableF32[1][j * (32 / N)];
    }
    return t;
  }

  // x = k ln2/N + rh + *rl, k = round(N x / ln2) = N m + j, for |x| <= 87
  // (the return value is rh): *sk holds k as kMagic + k/N, *kn as k/N
  // (ExpF32::scale() takes both).  kNegated: the reduction of -x, the
  // negation folded into the first two steps (fnma for fma, fnms for fnma:
  // the same values, one instruction fewer than negating x).
  //
  // The reduction counts in units of 1/N: k/N, not k, comes out of the
  // magic's subtraction, because it is what the scaling reads (floor(k/N) =
  // m), and every product below is the one with k, scaled by 1/N and N
  // (exactly: powers of two), so each value is k's bit for bit and the
  // multiplication by 1/N is gone.
  template <bool kNegated = false>
  static F reduce(F x, F* sk, F* kn, F* rl) {
    // fl32(1/ln2) = fl32(N/ln2)/N; C1 = fl32(ln2/N) and C2 = fl32(ln2/N -
    // C1), here times N: float32 constants for ln2 scaled by a power of two,
    // exactly.
    const F inv = f32_splat(0x1.715476p+0f), magic = f32_splat(kMagic);
    const F c1 = f32_splat(0x1.62e43p-1f);
    *sk = kNegated ? f32_fnma(x, inv, magic) : f32_fma(x, inv, magic);
    // sk holds kMagic + k/N, whose significand bits are 1.5 2^23 + k's: the
    // low log2(N) bits j, the bits above them N m (the magic's bits all sit
    // above bit 21, |k| <= 4017).
    *kn = f32_sub(*sk, magic);
    // x - k C1 is exact: for k != 0, |x| >= ln2/(2N) makes x a multiple of
    // 2^-30 (N = 32), 2^-29 (N = 16) or 2^-28 (N = 8), as is k C1, and |x -
    // k C1| < 2^-6 (2^-5, 2^-4): 24 bits.  rl = -k C2 within 2^-45.5 (N = 8:
    // 2^-45.1), |rl| < 2^-21.9 (|k| <= 4017, or 1004 for N = 8; tanh's N =
    // 16 reduces |x| <= 19: |k| <= 439, within 2^-48).
    *rl = f32_mul(*kn, f32_splat(0x1.05c61p-29f));
    return kNegated ? f32_fnms(*kn, c1, x) : f32_fnma(*kn, c1, x);
  }

  // m << 23, m = floor(k/N), for reduce's sk: (bits of sk, less j) << (23 -
  // log2 N) (the magic's bits and sk's exponent shift out).
  static F exponent_bits(F sk) { return f32_shl_bits(f32_and_bits(sk, ~(N - 1u)), 23 - kBits); }

  // e^rh - 1 = s + *small for |rh| <= ln2/(2N) (slightly more: 0.010832,
  // 0.021662, 0.043324), with the rh^2/2 that rounding rh + q would lose
  // kept: s = fl(rh + rh^2/2) by one fma (rh/2 is exact), its error sl
  // within 2^-53 by another (rh - s is exact by Sterbenz, |sl| <= 2^-29),
  // and *small = sl + rh^2 (rh P(rh)), P Taylor's 1/6 + rh/24 + rh^2/120 (+
  // rh^3/720 for N <= 16): the first omitted term, r^6/720 (N = 32) or
  // r^7/5040 (N = 16, 8), is below 2^-48.7, 2^-50.9 or 2^-43.9.  Exp's N =
  // 8 reduction and tanh (fn/tanh_f32.h) use it.
  static F expm1_split(F rh, F* small) {
    const F hr = f32_mul(rh, f32_splat(0.5f));
    const F s = f32_fma(rh, hr, rh);
    const F sl = f32_fma(rh, hr, f32_sub(rh, s));
    constexpr float kP[] = {0x1.6c16c2p-10f, 0x1.111112p-7f, 0x1.555556p-5f, 0x1.555556p-3f};  // 1/720 ... 1/6
    constexpr int kFirst = N == 32 ? 1 : 0;
    F p = f32_splat(kP[kFirst]);
    for (int i = kFirst + 1; i < 4; ++i) p = f32_fma(p, rh, f32_splat(kP[i]));
    *small = f32_fma(f32_mul(rh, rh), f32_mul(p, rh), sl);
    return s;
  }
};
template <int N>
constexpr typename ExpSteps<N>::Entries kExpF32Entries = ExpSteps<N>::entries();

constexpr int kExpF32N = ExpF32Table::kEntries;
static_assert(kExpF32N == 8 || kExpF32N == 32, "exp's float32 path is analysed for N = 8 and N = 32");
using ExpF32Steps = ExpSteps<kExpF32N>;
constexpr float kExpMagic = ExpF32Steps::kMagic;

// exp(x) rounds to +0 for x <= kExpZeroAtOrBelow (e^x <= 2^-150, the tie
// with the least subnormal, goes to even) and to +inf for x >=
// kExpInfAtOrAbove: the edges of exp's rescue, and of the functions whose
// tails are exp's (softplus, logsigmoid, sigmoid).
constexpr float kExpZeroAtOrBelow = -0x1.9fe36ap+6f;  // -103.972084
constexpr float kExpInfAtOrAbove = 0x1.62e430p+6f;    // 88.7228394

struct ExpF32 {
  ExpF32Table th_table{kExpF32Entries<kExpF32N>.hi}, tl_table{kExpF32Entries<kExpF32N>.lo};

  // Every result of a block at or below this is +0, which run_fast stores
  // without evaluating the block (a causal mask's -inf in softmax).
  static constexpr float kZeroAtOrBelow = kExpZeroAtOrBelow;

  // For |x| <= 87: e^x = 2^m (h + *lo) within 2^-35.08 relative (N = 32;
  // N = 8: 2^-36.0; the unscaled value lies in [0.957, 2.03], |*lo| <
  // 2^-13); *sk and *kn hold the reduction's k = N m + j (ExpSteps::reduce).
  // kNegated: the same for e^-x.  Beyond 87 and for NaN the lanes hold
  // garbage.
  template <bool kNegated = false>
  F unscaled(F x, F* lo, F* sk, F* kn) const {
    F rl;
    const F rh = ExpF32Steps::reduce<kNegated>(x, sk, kn, &rl);
    return reduced(*sk, rh, rl, lo);
  }

  // T_j e^(rh + rl) = h + *lo (the return value is h) for |rh| <= ln2/(2N)
  // (slightly more: 0.010832, 0.043324), |rl| < 2^-21.9, j the low bits of
  // sk: within 2^-35.08 (N = 32) or 2^-36.0 (N = 8) relative plus |rl|
  // times rl's own error.
  F reduced(F sk, F rh, F rl, F* lo) const {
    const F th = th_table.lookup(sk), tl = tl_table.lookup(sk);
    // With s standing for e^rh - 1 but its small part: h = fl(Th + Th s);
    // th - h is exact (Sterbenz), so he is the rounding error of h, itself
    // rounded (|he| <= 2^-23, error 2^-47).  T e^r - h = he + Th small +
    // (Tl + Th rl)(1 + s + small) + O(2^-42), with c = fl(Tl + Th rl).
    if constexpr (kExpF32N == 32) {
      // s = rh, small = q = e^rh - 1 - rh: Taylor to degree 4, the first
      // omitted term, r^5/120, below 2^-39.5.
      const F p = f32_fma(f32_fma(f32_splat(0x1.555556p-5f), rh, f32_splat(0x1.555556p-3f)), rh, f32_splat(0.5f));
      const F q = f32_mul(f32_mul(rh, rh), p);
      const F h = f32_fma(th, rh, th);
      const F he = f32_fma(th, rh, f32_sub(th, h));
      const F c = f32_fma(th, rl, tl);
      *lo = f32_fma(th, q, f32_fma(c, f32_add(rh, q), f32_add(c, he)));
      return h;
    } else {
      // Four times the reduced range makes rh^2/2 (up to 2^-10.06) too
      // large to round as q above (2^-34 where the budget is 2^-35): s +
      // small from expm1_split, whose c small (2^-37.1) is left out of lo.
      F small;
      const F s = ExpF32Steps::expm1_split(rh, &small);
      const F h = f32_fma(th, s, th);
      const F he = f32_fma(th, s, f32_sub(th, h));
      const F c = f32_fma(th, rl, tl);
      *lo = f32_fma(th, small, f32_fma(c, s, f32_add(c, he)));
      return h;
    }
  }

  // a 2^m (f32_scale_pow2: rounded once, exact where the result is
  // normal) for reduce's sk and kn: m = floor(kn).
  static F scale(F a, F sk, F kn) { return f32_scale_pow2(a, kn, ExpF32Steps::exponent_bits(sk)); }
  // scale() in the lanes of m, where the result is normal; the others, which
  // the caller marks hard, hold +0 (for finite a) and cost no microcode
  // assist (f32_scale_pow2_where).
  static F scale_where(FM m, F a, F sk, F kn) {
    return f32_scale_pow2_where(m, a, kn, ExpF32Steps::exponent_bits(sk));
  }

  // fl32(e^x) in the lanes that are not hard; *hard: the hard lanes (bit j: lane j).
  F eval(F x, uint32_t* hard) const {
    const FM in_range = f32_le(f32_abs(x), f32_splat(87.0f));  // NaN: false
    F lo, sk, kn;
    const F h = unscaled(x, &lo, &sk, &kn);
    FM unproven;
    const F y = round_proven(h, lo, &unproven);
    *hard = fm_bits(fm_or(unproven, fm_not(in_range)));
    // Exact and commuting with the rounding: the result is normal.
    return scale_where(in_range, y, sk, kn);
  }

  // fl32((hi + lo) 2^m), m = floor(kn) of unscaled's sk and kn, in the
  // lanes of `band`, for results of one sign (grid: +-2^23, that sign) near
  // or below 2^-126, where scale() would round a second time; |lo| <=
  // ulp(hi) / 2, |hi| in [0.49, 2^8].  The other lanes hold any value, and
  // their W is not computed (scale_where): outside the band W falls below
  // 2^-126 (x beyond exp's zero edge), whose microcode assists made exp's
  // rescue half of softmax's time on logits spread as randn * 50.
  // W = (hi + lo) 2^(m + 149), the result in units of the least subnormal,
  // is exact as a pair (kn + 149 in place of kn; m + 149 >= -8 keeps hi
  // normal, lo may lose 2^-150).  Below 2^-126 the float32 grid is W's
  // integer grid; from 2^-126 on, W's own float32 grid is the result's
  // scaled.  So c = +-2^23 is added where |W| < 2^23 (c + W
  // in [2^23, 2^24) in magnitude, whose floats are the integers), Fast2Sum
  // keeps the sum exact as a pair, and round_proven rounds it: its margin
  // 2^-34.5 |c + W| >= 2^-11.5 covers an error of 2^-34.58 |W| <= 2^-11.58
  // (exp's pair, silu's product) plus the low part's roundings (2^-24).
  // (unscaled's reduction stays exact down to -108.7, |k| <= 5016 or 1255:
  // docs/elementwise.md, "The rescue of hard blocks".)
  static F scale_rounded(FM band, F hi, F lo, F sk, F kn, float grid, uint32_t* hard) {
    const F shift = f32_splat(149.0f);
    const F sk_w = f32_add(sk, shift), kn_w = f32_add(kn, shift);
    const F ws = scale_where(band, hi, sk_w, kn_w), ls = scale_where(band, lo, sk_w, kn_w);
    const F unit = f32_splat(0x1p23f);
    const FM subnormal = f32_lt(f32_abs(ws), unit);
    const F c = f32_select(subnormal, f32_splat(grid), f32_splat(0.0f));
    const F t = f32_add(c, ws);
    FM unproven;
    const F w = round_proven(t, f32_add(f32_sub(ws, f32_sub(t, c)), ls), &unproven);
    *hard = fm_bits(unproven);
    // w 2^-149, less c 2^-149, on the bits: the exponent field drops by 149
    // (a normal result), or by 150 with c's leading bit (a subnormal one,
    // whose bits are then the sign and the integer |w - c|).  Integer
    // steps, because an arithmetic result below 2^-126 costs a microcode
    // assist on Zen 4: f32_mul(w - c, 2^-149) took a quarter of exp's
    // rescue's time.
    return f32_sub_bits(w, f32_select(subnormal, unit, f32_splat(0x1p22f)));
  }

  // e^x in the lanes of `band`, x in (-103.972084, -87]: the results below
  // 2^-126 and near it.
  F below_normal(FM band, F x, uint32_t* hard) const {
    F lo, sk, kn, d;
    const F pair_h = unscaled(x, &lo, &sk, &kn);
    const F h = two_sum_fast(pair_h, lo, &d);
    return scale_rounded(band, h, d, sk, kn, 0x1p23f, hard);
  }

  // The hard lanes' rescue (run_fast): below_normal for x in
  // (kExpZeroAtOrBelow, -87), and the tails (-inf and +inf among them).
  // Left hard: |x| in (87, kExpInfAtOrAbove) and what round_proven cannot
  // prove.
  F rescue(F x, F y, uint32_t* hard) const {
    const FM band = fm_and(f32_lt(f32_splat(kExpZeroAtOrBelow), x), f32_lt(x, f32_splat(-87.0f)));
    if (fm_bits(band) & *hard) {
      uint32_t band_hard;
      const F tiny = below_normal(band, x, &band_hard);
      y = replace_lanes(band, tiny, band_hard, y, hard);
    }
    return settle_tails(x, y, kExpZeroAtOrBelow, 0.0f, kExpInfAtOrAbove, __builtin_inff(), hard);
  }
};

// exp2 on the same table: x = k/N + r exactly, 2^x = 2^m T_j e^(r ln2).
// k = round(N x) (the magic's addition rounds x to k/N); r = x - k/N is
// exact (|r| <= 1/(2N); for k != 0, |x| >= 1/(2N) makes x a multiple
// of 2^-29 (N = 32) or 2^-27 (N = 8), and so is r, which needs at most 23
// bits).  r ln2 = rh + rl: rh = fl(r L1), rl = its exact product error (one
// fma) plus r L2, with ln2 = L1 + L2 + e (float32 pair, |e| < 2^-53.3):
// |rh| <= ln2/(2N), |rl| < 2^-28.9 within 2^-52, far inside exp's bounds
// (|rl| < 2^-21.9 within 2^-45.5), so exp's analysis covers the pair
// (docs/elementwise.md).  Hard: |x| > 125 (the scaled result must be
// normal) and NaN.  Integer x give h = 1, lo = 0: 2^x exactly.
struct Exp2F32 {
  ExpF32 exp;

  F eval(F x, uint32_t* hard) const {
    const F sk = f32_add(x, f32_splat(kExpMagic));
    const F kn = f32_sub(sk, f32_splat(kExpMagic));
    const F r = f32_sub(x, kn);
    const F l1 = f32_splat(0x1.62e430p-1f), l2 = f32_splat(-0x1.05c610p-29f);
    const F rh = f32_mul(r, l1);
    const F rl = f32_fma(r, l2, f32_fms(r, l1, rh));
    F lo;
    const F h = exp.reduced(sk, rh, rl, &lo);
    FM unproven;
    const F y = round_proven(h, lo, &unproven);
    const FM in_range = f32_le(f32_abs(x), f32_splat(125.0f));  // NaN: false
    *hard = fm_bits(fm_or(unproven, fm_not(in_range)));
    return ExpF32::scale_where(in_range, y, sk, kn);
  }

  // 2^x rounds to +0 for x <= -150 (2^-150 is the tie between 0 and the
  // least subnormal, and goes to even) and to +inf for x >= 128.
  static F rescue(F x, F y, uint32_t* hard) {
    return settle_tails(x, y, -150.0f, 0.0f, 128.0f, __builtin_inff(), hard);
  }
};

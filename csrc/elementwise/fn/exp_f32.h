// exp on float32 lanes, correctly rounded with its own rounding test: the
// fast path of the vector rows (row_simd.inc, run_fast), in front of Exp
// (exp.h), which settles the lanes this test cannot.  Written once in the
// rows' float32 vocabulary (row_avx2.h: eight lanes, row_avx512.h:
// sixteen; both hold the table in registers, F32Table32).  The error analysis is in
// docs/elementwise.md ("exp: the float32 path").
//
//   x = k ln2/32 + r,   k = round(32 x / ln2) = 32m + j,
//   e^x = 2^m T_j e^r,  T_j = 2^(j/32) = Th + Tl (float32 pair),
//   r = rh + rl:  rh = x - k C1 exactly (one fma), rl = -k C2,
//   e^rh = 1 + rh + q,  q = rh^2 (1/2 + rh/6 + rh^2/24),
//   T_j e^r = h + lo:   h = fl(Th + Th rh), lo = the rest in float32.
//
// The value h + lo is carried unscaled (in [0.98, 2.03]); fl(h + lo) is
// the result before the exact scaling by 2^m, and d = (h + lo) - fl(h + lo)
// is computed exactly.  A lane is hard when |d| lies within 2^-10 ulp of
// half an ulp (the evaluation's error is below 2^-11.1 ulp), when the
// result is a power of two approached from below (the midpoint below is a
// quarter ulp away), or when |x| > 87 or x is NaN (results that overflow,
// or fall under 2^-126 where the grid changes, and NaN, are Exp's).
// About 2^-9 of inputs are hard.
alignas(64) constexpr float kExpTableF32[2][32] = {
#include "elementwise/fn/exp_table_f32.inc"
};

struct ExpF32 {
  F32Table32 th_table{kExpTableF32[0]}, tl_table{kExpTableF32[1]};

  // fl32(e^x) in the lanes that are not hard; *hard: the hard lanes.
  F eval(F x, FM* hard) const {
    const FM in_range = f32_le(f32_abs(x), f32_splat(87.0f));  // NaN: false
    // sk holds kMagic + k: its low five bits are j, its bits from the
    // fifth up are 32m (the magic's bits all sit above bit 21, |k| <= 4017).
    const F sk = f32_fma(x, f32_splat(0x1.715476p+5f), f32_splat(0x1.8p23f));
    const F k = f32_sub(sk, f32_splat(0x1.8p23f));
    // C1 = fl32(ln2/32), C2 = fl32(ln2/32 - C1): x - k C1 is exact (for
    // k != 0, |x| >= 2^-7 makes x and k C1 multiples of 2^-30, and |rh| <
    // 2^-6); rl = -k C2 within 2^-45.5, |rl| < 2^-21.9.
    const F rh = f32_fnma(k, f32_splat(0x1.62e43p-6f), x);
    const F minus_rl = f32_mul(k, f32_splat(-0x1.05c61p-34f));
    const F th = th_table.lookup(sk), tl = tl_table.lookup(sk);
    // Taylor to degree 4: the first omitted term, r^5/120, is below 2^-39.5.
    const F p = f32_fma(f32_fma(f32_splat(0x1.555556p-5f), rh, f32_splat(0x1.555556p-3f)), rh, f32_splat(0.5f));
    const F q = f32_mul(f32_mul(rh, rh), p);
    // h = fl(Th + Th rh); th - h is exact (Sterbenz), so he is the
    // rounding error of h, itself rounded (|he| <= 2^-23, error 2^-47).
    const F h = f32_fma(th, rh, th);
    const F he = f32_fma(th, rh, f32_sub(th, h));
    // T e^r - h = he + Th q + (Tl + Th rl)(1 + rh + q) + O(2^-42).
    const F c = f32_fnma(th, minus_rl, tl);
    const F lo = f32_fma(th, q, f32_fma(c, f32_add(rh, q), f32_add(c, he)));
    const F y = f32_add(h, lo);
    // y - h is exact (Sterbenz) and the rounding error of h + lo is a
    // float: d is exact.
    const F d = f32_sub(lo, f32_sub(y, h));
    // (1/2 - 2^-10) ulp(y) from y's exponent: 2^(e - 24) (1 - 2^-9).
    const F limit = f32_add_bits(f32_and_bits(y, 0x7F800000u), 0x7F8000u - (25u << 23));
    const FM near = f32_ge(f32_abs(d), limit);
    const FM below = fm_and(f32_significand_zero(y), f32_lt(d, f32_splat(0.0f)));
    *hard = fm_or(fm_or(near, below), fm_not(in_range));
    // 2^m: (kMagic + k - j) << 18 is m << 23 (the magic's bits shift out).
    return f32_add_bits(y, f32_shl_bits(f32_and_bits(sk, ~31u), 18));
  }
};

// rsqrt on float32 lanes, correctly rounded with its own rounding test: the
// fast path of the vector rows in front of Rsqrt (rsqrt.h), as exp_f32.h is
// in front of Exp.  The error analysis is in docs/elementwise.md ("rsqrt:
// the float32 path").
//
//   y = f32_rsqrt_seed(x)             |y sqrt(x) - 1| <= 2^-14: vrsqrt14ps
//                                     (AVX-512), rsqrtps and a Newton step
//                                     (AVX2)
//   e = 1 - x y^2                     y^2 = yh + yl exactly (one fma), then
//                                     two fmas: |error| <= 2^-36
//   1/sqrt x = y (1 - e)^(-1/2) = y + y (e/2 + 3 e^2/8) + O(y e^3)
//
// (y + y e/2 alone where the row's seed is within 2^-21, kRsqrtSeedBits:
// the AVX2 row's, |e| < 2^-20.69, 3 e^2/8 < 2^-42.8 y), rounded by
// round_proven (fn/double_float.h) with h = y.  Hard: x outside
// [2^-96, 2^96] (zeros, negatives, subnormals, infinities, NaN, and the
// ranges where y^2's low part would leave the normal numbers).  There y^2
// is not computed (the AVX-512 row's masked products), so that its parts
// below 2^-126 cost no microcode assist: 64K of +-1e30 took 13 times the
// random-input time.  Masking the seed instead measured 1.06-1.08 of the
// time on random inputs (the range test then precedes it); the products
// wait for the seed anyway.

struct RsqrtF32 {
  F eval(F x, uint32_t* hard) const {
    const F one = f32_splat(1.0f);
    const FM in_range = fm_and(f32_ge(x, f32_splat(0x1p-96f)), f32_le(x, f32_splat(0x1p96f)));  // NaN: false
    const F y = f32_rsqrt_seed(x);
    const F yh = f32_mul_where(in_range, y, y);
    const F yl = f32_fms_where(in_range, y, y, yh);
    const F e = f32_fnma(x, yl, f32_fnma(x, yh, one));
    // With the finer seed, one product after e, where y (e (3 e/8 + 1/2))
    // was three dependent operations: 64K, 1 thread, Zen 3, the kernel in
    // 0.89-0.90 of the time (`ab_kernels.py`, both orders).
    const F lo = kRsqrtSeedBits >= 21 ? f32_mul(f32_mul(y, f32_splat(0.5f)), e)
                                      : f32_mul(y, f32_mul(e, f32_fma(e, f32_splat(0.375f), f32_splat(0.5f))));
    FM unproven;
    const F r = round_proven(y, lo, &unproven);
    *hard = fm_bits(fm_or(unproven, fm_not(in_range)));
    return r;
  }

  // The hard lanes' rescue (run_fast).  Positive x outside [2^-96, 2^96]
  // go through eval at x 2^64 or x 2^-64 (exact: x 2^64 of a subnormal is
  // normal), landing in [2^-85, 2^64], and rsqrt(x) = rsqrt(x 2^64) 2^32 or
  // rsqrt(x 2^-64) 2^-32 exactly (results from 2^-64 to 2^74.5, normal).
  // Then the special values: rsqrt(+-0) = +-inf (1/x), NaN for x < 0 (-inf
  // included), rsqrt(+inf) = +0.
  F rescue(F x, F y, uint32_t* hard) const {
    const F zero = f32_splat(0.0f), inf = f32_splat(__builtin_inff());
    const FM tiny = fm_and(f32_lt(zero, x), f32_lt(x, f32_splat(0x1p-96f)));
    const FM scaled = fm_or(tiny, fm_and(f32_lt(f32_splat(0x1p96f), x), f32_lt(x, inf)));
    if (fm_bits(scaled) & *hard) {
      uint32_t scaled_hard;
      const F r = eval(f32_mul(x, f32_select(tiny, f32_splat(0x1p64f), f32_splat(0x1p-64f))), &scaled_hard);
      y = replace_lanes(scaled, f32_mul(r, f32_select(tiny, f32_splat(0x1p32f), f32_splat(0x1p-32f))), scaled_hard,
                        y, hard);
    }
    y = settle_lanes(fm_not(f32_ne(x, zero)), f32_div(f32_splat(1.0f), x), y, hard);
    y = settle_lanes(f32_lt(x, zero), f32_splat(__builtin_nanf("")), y, hard);
    y = settle_lanes(f32_ge(x, inf), zero, y, hard);
    return settle_nan(x, y, hard);
  }
};

// rsqrt on float32 lanes, correctly rounded with its own rounding test: the
// fast path of the vector rows in front of Rsqrt (rsqrt.h), as exp_f32.h is
// in front of Exp.  The error analysis is in docs/elementwise.md ("rsqrt:
// the float32 path").
//
//   y = fl(1 / fl(sqrt x))            IEEE, |y sqrt(x) - 1| < 2^-22.9
//   e = 1 - x y^2                     y^2 = yh + yl exactly (one fma), then
//                                     two fmas: |error| < 2^-44.8
//   1/sqrt x = y (1 - e)^(-1/2) = y + y (e/2 + 3 e^2/8) + O(y e^3)
//
// rounded by round_proven (fn/double_float.h) with h = y.  Hard: x outside
// [2^-96, 2^96] (zeros, negatives, subnormals, infinities, NaN, and the
// ranges where y^2's low part would leave the normal numbers).

struct RsqrtF32 {
  F eval(F x, uint32_t* hard) const {
    const F one = f32_splat(1.0f);
    const F y = f32_div(one, f32_sqrt(x));
    const F yh = f32_mul(y, y);
    const F yl = f32_fms(y, y, yh);
    const F e = f32_fnma(x, yl, f32_fnma(x, yh, one));
    const F lo = f32_mul(y, f32_mul(e, f32_fma(e, f32_splat(0.375f), f32_splat(0.5f))));
    FM unproven;
    const F r = round_proven(y, lo, &unproven);
    const FM in_range = fm_and(f32_ge(x, f32_splat(0x1p-96f)), f32_le(x, f32_splat(0x1p96f)));  // NaN: false
    *hard = fm_bits(fm_or(unproven, fm_not(in_range)));
    return r;
  }
};

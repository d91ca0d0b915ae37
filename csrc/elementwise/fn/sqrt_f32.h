// sqrt on the fma ports, with a rounding test that is exact: the AVX-512
// row's partner of the IEEE square root (run_beside_divider, row_simd.inc).
// vsqrtps on 16 lanes occupies the divider about 6 cycles, longer than the
// 15 port instructions below; run on alternate blocks, the two proceed side
// by side.  The argument is in docs/elementwise.md ("sqrt: Newton beside
// the divider").
//
//   y = f32_rsqrt_seed(x)          |y sqrt(x) - 1| <= 2^-14 (vrsqrt14ps:
//                                  the vendor's bits, which no output bit
//                                  depends on)
//   g = x y, h = y/2, then twice   g <- fl(g + (x - g^2) h): a Newton step
//                                  (x - g^2 by one fma), the last rounding
//                                  being the candidate's
//
// The candidate s is accepted where s prev(s) < x < s next(s), prev and
// next its float32 neighbours (bit patterns -1 and +1): for positive s the
// exact condition that sqrt(x) lies strictly between the midpoints s -
// (s - prev)/2 and s + (next - s)/2, less the boundary cases, which go to
// the IEEE instruction (docs).  Each comparison is the sign of one fma,
// which rounding cannot change, so the test holds for any s whatever the
// seed.  Zeros, negatives, infinities and NaN fail it (s is NaN), and so
// does every x below 2^-100, evaluated as 0: there x - g^2 would leave the
// normal numbers, and subnormal results cost a microcode assist each (64K
// inputs near 1e-35 took 451 us, against 15 through vsqrtps alone).
struct SqrtF32 {
  // The lanes where s is fl32(sqrt x), for positive x and any positive s:
  // s prev(s) < x < s next(s) (the boundary x = s next(s) excluded).
  static FM rounds_to_sqrt(F x, F s) {
    const F zero = f32_splat(0.0f), ulp_bit = f32_splat(0x1p-149f);  // bit pattern 1
    const F above = f32_fms(s, f32_add_bits(s, ulp_bit), x), below = f32_fms(s, f32_sub_bits(s, ulp_bit), x);
    return fm_and(f32_lt(zero, above), f32_lt(below, zero));  // NaN: false
  }

  F eval(F x, uint32_t* hard) const {
    const F xn = f32_select(f32_ge(x, f32_splat(0x1p-100f)), x, f32_splat(0.0f));
    const F y = f32_rsqrt_seed(xn);
    const F h = f32_mul(y, f32_splat(0.5f));
    F g = f32_mul(xn, y);
    g = f32_fma(f32_fnma(g, g, xn), h, g);
    const F s = f32_fma(f32_fnma(g, g, xn), h, g);
    *hard = fm_bits(fm_not(rounds_to_sqrt(x, s)));
    return s;
  }
};

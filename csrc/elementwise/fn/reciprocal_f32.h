// 1/x on the fma ports, with a rounding test that is exact: the AVX-512
// row's partner of the IEEE division (run_beside_divider, row_simd.inc), as
// fn/sqrt_f32.h is the square root's.  The argument is in
// docs/elementwise.md ("reciprocal: Newton beside the divider").
//
//   q = f32_rcp_estimate_where(x)  within 2^-14 of 1/x (vrcp14ps: the
//                                  vendor's bits, which no output bit
//                                  depends on); NaN for |x| > 2^96
//   twice  q <- fl(q + q (1 - x q))  Newton steps (1 - x q by one fma); the
//                                  second result is the candidate
//
// q is accepted where |fl(1 - x q)| < |x| u/2, u the spacing below |q|:
// with 1 - x q = x (1/x - q), the condition that 1/x lies within half that
// spacing of q, which is the rounding condition itself unless q is a power
// of two (then the spacing above is 2u, and the half-ulp above q goes to
// the IEEE instruction).  The bound is |x| times a power of two, exact
// wherever a pass is possible, and rounding is monotone, so a rounded 1 -
// x q never passes what the exact one fails: the test holds for any q,
// whatever the estimate.  At the largest float it is exact too (its upper
// midpoint is the overflow threshold).  Zeros fail (0 inf is NaN), and so
// does |x| > 2^96, whose estimate is NaN: above it q (1 - x q) falls below
// 2^-126, and each subnormal intermediate costs a microcode assist (64K
// inputs near 1e37 took 291 us, against 11 through vdivps alone).
struct ReciprocalF32 {
  // The lanes where q is fl32(1 / x), for any finite nonzero q that the
  // steps below can give (docs): |1 - x q| < |x| u/2, u the spacing below
  // |q| (2^e 2^-23, e the exponent of q's neighbour towards zero).
  static FM rounds_to_reciprocal(F x, F q) {
    const F below_exponent = f32_and_bits(f32_sub_bits(q, f32_splat(0x1p-149f)), 0x7F800000u);
    const F bound = f32_mul(f32_abs(x), f32_mul(below_exponent, f32_splat(0x1p-24f)));
    return f32_lt(f32_abs(f32_fnma(x, q, f32_splat(1.0f))), bound);  // NaN: false
  }

  F eval(F x, uint32_t* hard) const {
    const F one = f32_splat(1.0f);
    F q = f32_rcp_estimate_where(f32_le(f32_abs(x), f32_splat(0x1p96f)), x, f32_splat(__builtin_nanf("")));  // NaN: NaN
    for (int step = 0; step < 2; ++step) q = f32_fma(q, f32_fnma(x, q, one), q);
    *hard = fm_bits(fm_not(rounds_to_reciprocal(x, q)));
    return q;
  }
};

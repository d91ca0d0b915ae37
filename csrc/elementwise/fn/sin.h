// sin(x) = fl32(sin x), x in radians.  W = 64 ulps; error <= 2.5 ulp:
// x = k pi/2 + r (sincos_reduce: Cody-Waite below 2^20, Payne-Hanek above),
// then +-sin r or +-cos r by polynomials.  sin(+-0) = +-0, sin(+-inf) = NaN.
struct Sin {
  static constexpr bool kTable = true;
  static D eval(D x) {
    U q;
    const D r = sincos_reduce(x, &q);
    return select(eq(x, D(0.0)), x, sin_quadrant(r, q));
  }
};

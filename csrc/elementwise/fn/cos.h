// cos(x) = fl32(cos x), x in radians.  W = 64 ulps; error <= 2.5 ulp: as sin,
// with cos x = sin(x + pi/2), i.e. quadrant q + 1.  cos(+-inf) = NaN.
struct Cos {
  static constexpr bool kTable = true;
  static D eval(D x) {
    U q;
    const D r = sincos_reduce(x, &q);
    return sin_quadrant(r, q + U(1));
  }
};

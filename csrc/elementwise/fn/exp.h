// exp(x) = fl32(e^x).  Runtime window W = 64 ulps; evaluation error <= 2.5 ulp:
// x = k ln2 + r (exp_reduce), e^x = 2^k e^r with e^r by exp_reduced; the
// scaling by 2^k is exact.  x is clamped to [-105, 90]: e^-105 < 2^-151
// rounds to +0 and e^90 > 2^129 to +inf, as e^x does beyond.
struct Exp {
  static constexpr bool kTable = true;
  static D eval(D x) {
    x = vmin(D(90.0), vmax(D(-105.0), x));  // NaN stays NaN
    D kmagic;
    const D r = exp_reduce(x, &kmagic);
    return exp_reduced(r) * pow2_from_magic(kmagic);
  }
};

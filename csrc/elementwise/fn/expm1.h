// expm1(x) = fl32(e^x - 1).  W = 64 ulps; error <= 5 ulp: x = k ln2 + r,
// e^x - 1 = 2^k (e^r - 1) + (2^k - 1), one fma; both terms have the sign
// of the result or |2^k (e^r - 1)| <= 0.3 |2^k - 1| (k != 0), so the sum
// loses at most a factor 4.4 (k = 1).  k = 0 gives e^r - 1 itself, accurate
// relative to tiny x.  x is clamped to [-40, 90]; +-0 returns x.
struct Expm1 {
  static constexpr bool kTable = true;
  static D eval(D x) {
    const D c = vmin(D(90.0), vmax(D(-40.0), x));  // NaN stays NaN
    D kmagic;
    const D r = exp_reduce(c, &kmagic);
    const D scale = pow2_from_magic(kmagic);
    const D y = fma(scale, expm1_reduced(r), scale - 1.0);
    return select(eq(x, D(0.0)), x, y);
  }
};

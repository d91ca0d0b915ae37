// mish(x) = fl32(x tanh(ln(1 + e^x))), one rounding.  With u = e^x,
// tanh(ln(1 + u)) = n / (n + 2), n = u (u + 2): every term positive.  W = 64
// ulps; error <= 15 ulp: u relative <= 5 2^-53 (exp.h), u + 2 <= 6, n <= 12,
// n / (n + 2) passes on n's error times 2 / (n + 2) <= 1, plus the roundings
// of n + 2, the quotient and the product with x.  u uses min(x, 40), where
// n / (n + 2) is already 1 in float64 (mish(x) = x for larger x), and x is
// clamped at -120 as in silu.h: mish(-inf) = -0, mish(+-0) = +-0, mish(+inf)
// = +inf.
struct Mish {
  static constexpr bool kTable = true;
  static D eval(D x) {
    x = vmax(D(-120.0), x);  // NaN stays NaN
    D kmagic;
    const D r = exp_reduce(vmin(D(40.0), x), &kmagic);
    const D u = exp_reduced(r) * pow2_from_magic(kmagic);
    const D n = u * (u + D(2.0));
    return x * (n / (n + D(2.0)));
  }
};

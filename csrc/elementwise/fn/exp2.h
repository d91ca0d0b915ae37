// exp2(x) = fl32(2^x).  W = 64 ulps; error <= 2 ulp: k = round(x), r = x - k
// exactly, 2^r = e^(r ln2) with r ln2 rounded once (|error| <= 2^-54.5, a
// relative error of the result), e^t by exp_reduced, exact scaling by 2^k.
// Integer x give exactly 2^x.  x is clamped to [-152, 130].
struct Exp2 {
  static constexpr bool kTable = true;
  static D eval(D x) {
    x = vmin(D(130.0), vmax(D(-152.0), x));  // NaN stays NaN
    const D kmagic = x + kMagic;
    const D r = x - (kmagic - kMagic);
    return exp_reduced(r * kLn2) * pow2_from_magic(kmagic);
  }
};

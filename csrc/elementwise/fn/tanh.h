// tanh(x) = fl32(tanh x).  W = 64 ulps; error <= 12 ulp: with a = min(|x|,
// 20), e = e^(2a) - 1 by Expm1 (expm1.h: <= 5 ulp, relative <= 10 2^-53;
// 2a is exact), tanh a = e / (e + 2) with every term >= 0; the quotient
// passes on e's relative error times 2 / (e + 2) <= 1, plus two roundings.
// At a = 20 the quotient is 1 in float64 (tanh 20 = 1 - 8.5e-18), as tanh
// is for every larger |x|.  The sign of x is put back last, so tanh(+-0) =
// +-0 and tanh(+-inf) = +-1.
struct Tanh {
  static constexpr bool kTable = true;
  static D eval(D x) {
    const D a = vmin(D(20.0), abs_(x));  // NaN stays NaN
    const D e = Expm1::eval(a + a);
    const D t = e / (e + D(2.0));
    return from_bits(bits(t) | (bits(x) & U(kSignBit)));
  }
};

// selu(x) = fl32(S x) for x > 0, fl32(S A (e^x - 1)) otherwise, with the
// float32 constants S = fl32(1.0507009873554804934193349852946) and A =
// fl32(1.6732632423543772848170429916717) taken as exact reals (CONTRACT.md
// section 6).  S x and S A have at most 48 bits: exact in float64.  W = 64
// ulps; error: 0 for x > 0, else <= 11 ulp (Expm1's 5 ulp, relative <= 10
// 2^-53, and one product).  selu(+-0) = +-0, selu(-inf) = fl32(-S A).
constexpr double kSeluS = 0x1.0cfabep+0;
constexpr double kSeluSA = 0x1.0cfabep+0 * 0x1.ac5afap+0;
struct Selu {
  static constexpr bool kTable = true;
  static D eval(D x) { return select(gt(x, D(0.0)), x * kSeluS, Expm1::eval(x) * kSeluSA); }
};

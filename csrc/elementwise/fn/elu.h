// elu(x) = x for x > 0, fl32(e^x - 1) otherwise (torch's alpha = 1; celu
// with alpha = 1 is the same function).  W = 64 ulps; error <= 5 ulp (Expm1,
// expm1.h); x itself is exact.  elu(+-0) = +-0, elu(-inf) = -1.
struct Elu {
  static constexpr bool kTable = true;
  static D eval(D x) { return select(gt(x, D(0.0)), x, Expm1::eval(x)); }
};

// softplus(x) = fl32(ln(1 + e^x)) (torch's beta = 1, threshold = 20: for x
// > 20, and already for x > 14.556090354919434, the correctly rounded
// result is x itself).
// W = 64 ulps; error <= 12 ulp: max(x, 0) + ln(1 + e^-|x|), two terms of
// one sign; ln(1 + u) as in logsigmoid.h (11 ulp with u's error).
// softplus(+-0) = ln 2, softplus(-inf) = +0, softplus(+inf) = +inf.
struct Softplus {
  static constexpr bool kTable = true;
  static D eval(D x) {
    const D l = log1p_unit(exp_nonpos(neg_abs(x)));
    return vmax(D(0.0), x) + l;  // NaN stays NaN
  }
};

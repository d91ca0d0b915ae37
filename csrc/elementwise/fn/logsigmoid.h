// logsigmoid(x) = fl32(ln(1 / (1 + e^-x))) = fl32(-ln(1 + e^-x)).  W = 64
// ulps; error <= 12 ulp: u = e^-|x| (relative <= 5 2^-53), l = ln(1 + u)
// (logistic.h: 6 ulp + u's 5), then -(l - min(x, 0)): for x < 0 that is x
// - l, two terms of one sign (one more rounding).  logsigmoid(+-0) = -ln 2,
// logsigmoid(-inf) = -inf; for large x the result is -e^-x, which rounds to
// -0, and so does logsigmoid(+inf).
struct Logsigmoid {
  static constexpr bool kTable = true;
  static D eval(D x) {
    const D l = log1p_unit(exp_nonpos(neg_abs(x)));
    return -(l - vmin(D(0.0), x));  // NaN stays NaN
  }
};

// sigmoid(x) = fl32(1 / (1 + e^-x)).  W = 64 ulps; error <= 10 ulp: u =
// e^-|x| (logistic.h: relative <= 5 2^-53), d = 1 + u (relative <= (1 +
// 5 u/(1 + u)) 2^-53 <= 3.5 2^-53), then 1 / d for x >= 0 (4.5 2^-53) and
// u / d for x < 0 (9.5 2^-53).  sigmoid(+-0) = 1/2, sigmoid(+inf) = 1,
// sigmoid(-inf) = +0 (u = e^-120 there, below every float32).
struct Sigmoid {
  static constexpr bool kTable = true;
  static D eval(D x) {
    const D u = exp_nonpos(neg_abs(x));
    return select(lt(x, D(0.0)), u, D(1.0)) / (D(1.0) + u);
  }
};

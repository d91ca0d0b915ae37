// log(x) = fl32(ln x).  W = 64 ulps; error <= 3 ulp: x = 2^k z, piece i,
// ln x = (k ln2hi + T_i) + (k ln2lo + log1p(r)) with T_i = -ln c_i.  The
// piece around 1 has c = 1 and T = 0, so for x near 1 the result is
// log1p(r) alone and nothing cancels; elsewhere |ln x| >= |T_i|/2 or >=
// 0.34|k|.  Special: log(+-0) = -inf, log(x < 0) = NaN, log(+inf) = +inf.
inline D log_special(D x, D y) {
  const M ok = m_and(gt(x, D(0.0)), lt(x, D(__builtin_inf())));
  const D s = select(eq(x, D(0.0)), D(-__builtin_inf()), select(eq(x, D(__builtin_inf())), x, D(__builtin_nan(""))));
  return select(ok, y, s);
}

struct Log {
  static constexpr bool kTable = true;
  static D eval(D x) {
    D k;
    U row;
    const D r = log_reduce(x, &k, &row);
    const D t = gather(&kLogTable[0][1], row);
    const D hi = fma(k, kLn2Hi, t);
    const D lo = fma(k, kLn2Lo, log1p_reduced(r));
    return log_special(x, hi + lo);
  }
};

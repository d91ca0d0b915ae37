// log1p(x) = fl32(ln(1 + x)).  W = 64 ulps; error <= 3 ulp.  For |x| <
// 2^-29: x - x^2/2 in one fma (the next term is below 2^-58 relative).
// Otherwise u = 1 + x, which is exact for float32 x in (-1, 2^53) with |x|
// >= 2^-29 (x's last bit is >= 2^-52), and log(u) as in log.h (for larger x
// the rounding of u changes ln u by < 2^-53, far below an ulp of ln u).
// Special: log1p(-1) = -inf, log1p(x < -1) = NaN, log1p(+inf) = +inf; +-0
// return x.
struct Log1p {
  static constexpr bool kTable = true;
  static D eval(D x) {
    const D u = x + 1.0;
    D k;
    U row;
    const D r = log_reduce(u, &k, &row);
    const D t = gather(&kLogTable[0][1], row);
    const D hi = fma(k, kLn2Hi, t);
    const D lo = fma(k, kLn2Lo, log1p_reduced(r));
    const D big = log_special(u, hi + lo);
    const D small = fma(x * -0.5, x, x);
    const D ax = from_bits(bits(x) & U(0x7FFFFFFFFFFFFFFFull));
    return select(lt(ax, D(0x1p-29)), small, big);
  }
};

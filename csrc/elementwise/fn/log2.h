// log2(x) = fl32(log2 x).  W = 64 ulps; error <= 3 ulp: x = 2^k z, piece i,
// log2 x = k + (T2_i + log1p(r)/ln2) with T2_i = -log2 c_i; k is exact and
// the bracket is below 0.51 in magnitude.  Powers of two give exactly k.
// Special values as log.
struct Log2 {
  static constexpr bool kTable = true;
  static D eval(D x) {
    D k;
    U row;
    const D r = log_reduce(x, &k, &row);
    const D t = gather(&kLogTable[0][2], row);
    constexpr double kInvLn2 = 0x1.71547652b82fep+0;
    return log_special(x, k + fma(log1p_reduced(r), D(kInvLn2), t));
  }
};

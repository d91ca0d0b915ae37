// log10(x) = fl32(log10 x).  W = 64 ulps; error <= 3 ulp: x = 2^k z, piece
// i, log10 x = (k lg2hi + T10_i) + (k lg2lo + log1p(r)/ln10) with T10_i =
// -log10 c_i and lg2 = log10(2) = lg2hi + lg2lo (lg2hi of 32 bits: k lg2hi
// exact).  Special values as log.
struct Log10 {
  static constexpr bool kTable = true;
  static D eval(D x) {
    D k;
    U row;
    const D r = log_reduce(x, &k, &row);
    const D t = gather(&kLogTable[0][3], row);
    constexpr double kLg2Hi = 0x1.3441350a00000p-2, kLg2Lo = -0x1.0c0219dc1da99p-39;
    constexpr double kInvLn10 = 0x1.bcb7b1526e50ep-2;
    const D hi = fma(k, kLg2Hi, t);
    const D lo = fma(log1p_reduced(r), D(kInvLn10), k * kLg2Lo);
    return log_special(x, hi + lo);
  }
};

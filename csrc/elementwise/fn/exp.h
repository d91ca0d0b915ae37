// exp(x) = fl32(e^x).  Runtime window W = 64 ulps; evaluation error <= 4 ulp.
// x is clamped to [-105, 90]: e^-105 < 2^-151 rounds to +0 and e^90 > 2^129
// to +inf, as e^x does beyond.
//
// exp has its own reduction, finer than the exp family's (exp_reduce): it is
// the inner loop of softmax, log_softmax and cross_entropy, and a table of
// 32 values of 2^(j/32) shrinks the reduced argument to |r| <= ln2/64, where
// a degree-5 polynomial does what a degree-11 one does on |r| <= ln2/2.
//   x = (32m + j) ln2/32 + r,   e^x = 2^m 2^(j/32) e^r,
// with k = 32m + j = round(32 x / ln2) held as kMagic + k, so that its low
// five bits are j and (k - j) << 47 adds m to the exponent of 2^(j/32),
// exactly (the scaled value stays a normal float64 in the clamped range).
// Errors: r <= 2^-53 |r| + 2^-70 (k ln2hi/32 is exact: 32-bit kLn2Hi times
// |k| < 2^13), table 0.5 ulp, polynomial 2.56 ulp (tools/cr/polyfit.py), the
// final fma 0.5 ulp.
alignas(32) constexpr double kExp2Table32[32] = {
#include "elementwise/fn/exp_table.inc"
};
// (e^r - 1 - r) / r^2 on |r| <= 0.01084 (tools/cr/polyfit.py, "table of 32").
constexpr double kExpQ32[4] = {0x1.fffffffff5751p-2, 0x1.5555555552523p-3, 0x1.5555acf3b796ap-5,
                               0x1.111143226c71fp-7};

struct Exp {
  static constexpr bool kTable = true;
  static D eval(D x) {
    x = vmin(D(90.0), vmax(D(-105.0), x));  // NaN stays NaN
    const D s = fma(x, D(32 * kLog2e), D(kMagic));
    const D k = s - D(kMagic);
    const D r = fma(-k, D(kLn2Lo / 32), fma(-k, D(kLn2Hi / 32), x));
    // NaN's low five bits are an index like any other: the lane stays NaN.
    const U j = bits(s) & U(31);
    const D scale = from_bits(bits(gather(kExp2Table32, j)) + shl(bits(s) - j, 47));
    const D q = fma(fma(fma(D(kExpQ32[3]), r, D(kExpQ32[2])), r, D(kExpQ32[1])), r, D(kExpQ32[0]));
    return fma(scale, fma(r * r, q, r), scale);
  }
};

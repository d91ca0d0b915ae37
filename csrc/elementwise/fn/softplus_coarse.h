// softplus and logsigmoid to 2^-34 relative in float64: the coarse
// evaluations the AVX-512 row puts in front of Softplus (softplus.h) and
// Logsigmoid (logsigmoid.h), as log_coarse.h is in front of Log1p: both are
// max(x, 0) + ln(1 + e^-|x|), up to signs, and the accurate evaluation's
// exp and log each gather from a table.  Here e^-|x| uses sixteen values
// of 2^(j/16) and ln(1 + u) the log family's sixteen pieces, all in
// registers (D16Table).  docs/elementwise.md ("softplus and logsigmoid")
// has the error analysis.
//
// Written in the row vocabulary with D16Table (row_avx512.h); after
// log_coarse.h.

// 2^(j/16): the even entries of exp's table of 2^(j/32) (fn/exp_table.inc,
// each rounded to float64).
template <size_t... j>
constexpr std::array<double, sizeof...(j)> every_other(const double* t, std::index_sequence<j...>) {
  return {t[2 * j]...};
}
alignas(64) constexpr std::array<double, 16> kExp2Table16 = every_other(kExp2Table32, std::make_index_sequence<16>{});

// e^-a for 0 <= a <= 110 within 2^-42 relative: -a = (16m + j) ln2/16 + r,
// k = 16m + j = round(-16a/ln2) held as kMagic + k, r = -a - k C (C =
// fl64(ln2/16): |k| <= 2540 makes k's share of C's error below 2^-46.7 in
// r, one fma's rounding 2^-53 |r|), |r| <= ln2/32 (1 + 2^-40); e^r = 1 + r
// + r^2 (1/2 + r/6 + r^2/24 + r^3/120) (Taylor: the first omitted term is
// below 2^-42.6 of e^r); 2^m added to 2^(j/16)'s exponent (exact: the
// result stays above 2^-159, a normal float64).
struct ExpNegCoarse {
  D16Table table{kExp2Table16.data()};

  D eval(D a) const {
    const D s = fma(a, D(-16 * kLog2e), D(kMagic));
    const D k = s - D(kMagic);
    const D r = fma(k, D(-kLn2 / 16), -a);
    const D scale = from_bits(bits(table.lookup(s)) + shl(bits(s) - (bits(s) & U(15)), 48));
    const D q = fma(fma(fma(D(1.0 / 120), r, D(1.0 / 24)), r, D(1.0 / 6)), r, D(0.5));
    return fma(scale, fma(r * r, q, r), scale);
  }
};

// ln(1 + e^-a) for a >= 0 (a above 110 taken as 110: e^-110 < 2^-158.7,
// which every caller's result absorbs or which lies below 2^-126, hard),
// within 2^-35.8 relative.  With u = e^-a (2^-42): for u < 2^-7, u (1 -
// u/2 + u^2/3 - u^3/4 + u^4/5) (the first omitted term is u^5/6 < 2^-37.5
// relative; its u's error passes through unchanged); else ln(1 + u) on the
// log pieces, where 1 + u in [1.0078, 2] is rounded by 2^-53 absolutely,
// which is below 2^-46 of the result (>= 0.0077), and u's error shrinks by
// u / ((1 + u) ln(1 + u)) <= 1.
struct Log1pExpNeg {
  ExpNegCoarse exp;
  LogPieces pieces;

  D eval(D a) const {
    const D u = exp.eval(vmin(a, D(110.0)));
    const D series = u * fma(fma(fma(fma(D(0.2), u, D(-0.25)), u, D(1.0 / 3)), u, D(-0.5)), u, D(1.0));
    const LogPieces::Reduced q = pieces.reduce(u + D(1.0));
    return select(lt(u, D(0x1p-7)), series, pieces.ln(q, q.r));
  }
};

// Hard: infinities and NaN (the accurate path's special values).
inline FM softplus_outside(F x) { return fm_not(f32_lt(f32_abs(x), f32_splat(__builtin_inff()))); }

// softplus(x) = max(x, 0) + ln(1 + e^-|x|): two terms of one sign.
struct SoftplusCoarse {
  static constexpr int kWindow = LogCoarseBase::kWindow;
  Log1pExpNeg tail;

  D eval(D x) const { return vmax(D(0.0), x) + tail.eval(abs_of(x)); }
  static FM outside(F x) { return softplus_outside(x); }
  // softplus(x) < e^x rounds to +0 where e^x does (kExpZeroAtOrBelow,
  // exp_f32.h: the same edge, test_rescue_thresholds_are_the_edges),
  // softplus(+inf) = +inf.
  static F rescue(F x, F y, uint32_t* hard) {
    return settle_tails(x, y, kExpZeroAtOrBelow, 0.0f, __builtin_inff(), __builtin_inff(), hard);
  }
};

// logsigmoid(x) = -(max(-x, 0) + ln(1 + e^-|x|)).
struct LogsigmoidCoarse {
  static constexpr int kWindow = LogCoarseBase::kWindow;
  Log1pExpNeg tail;

  D eval(D x) const { return -(vmax(D(0.0), -x) + tail.eval(abs_of(x))); }
  static FM outside(F x) { return softplus_outside(x); }
  // logsigmoid(x) = -softplus(-x): -0 for x >= -kExpZeroAtOrBelow, -inf at -inf.
  static F rescue(F x, F y, uint32_t* hard) {
    return settle_tails(x, y, -__builtin_inff(), -__builtin_inff(), -kExpZeroAtOrBelow, -0.0f, hard);
  }
};

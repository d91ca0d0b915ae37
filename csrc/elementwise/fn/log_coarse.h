// log, log2, log10 and log1p to 2^-34 relative in float64: the coarse
// evaluations the AVX-512 row puts in front of Log, Log2, Log10 and Log1p
// (row_avx512.cpp, Float64Tier in row_simd.inc), as erfc_coarse.h is in
// front of Erfc.  The accurate evaluation (log.h) reduces by a table of 128
// pieces, which costs two eight-lane gathers per block; 2^-34 is reached
// with 16 pieces held in registers (D16Table) and a polynomial one degree
// longer.  docs/elementwise.md ("The log family: the coarse float64
// evaluation") has the error analysis.
//
// Written in the row vocabulary with D16Table (row_avx512.h).

// Rows c_i, -ln c_i, -log2 c_i, -log10 c_i (tools/cr/polyfit.py --log-pieces).
alignas(64) constexpr double kLogPieces[4][16] = {
#include "elementwise/fn/log_pieces.inc"
};
constexpr uint64_t kLogPiecesOff = 0x3fe6800000000000ull;  // 0.703125
constexpr int kLogPiecesOne = 9;                            // [1 - 2^-6, 1 + 2^-5), c = 1

// A positive finite x = 2^k z, z in [0.703125, 1.40625), piece i = bits 48-51
// of bits(z) - bits(0.703125), r = z c_i - 1 in [-0.0295, 0.0313] (one
// fma: its only rounding is the final one, 2^-53 |r|), and log1p(r) = r -
// r^2/2 + r^3 L(r) (approximation 2^-36 relative, tools/cr/polyfit.py).
// Results: ln x = k ln2 + T_i + log1p(r), the other bases likewise; |ln x|
// >= |ln(1 - 2^-6)| = 0.0157 off piece 9 and >= 0.341 |k| for k != 0, so
// the absolute roundings of k ln2, T_i and the sums (2^-52 or so) stay
// below 2^-46 relative; on piece 9 with k = 0 the result is log1p(r) alone,
// relative to which every rounding counts once.  Total < 2^-35.9.
struct LogPieces {
  D16Table c{kLogPieces[0]}, t_ln{kLogPieces[1]}, t_log2{kLogPieces[2]}, t_log10{kLogPieces[3]};

  // r, with *k (a double) and *piece (its low four bits index the tables).
  static D reduce(D x, D* k, D* piece) {
    const U ix = bits(x);
    const U tmp = ix - U(kLogPiecesOff);
    *piece = from_bits(shr(tmp, 48));
    const U kb = shr(tmp + U(uint64_t{1} << 62), 52);  // k + 1024, without an arithmetic shift
    *k = from_bits(kb + U(kMagicBits)) - D(kMagic + 1024.0);
    return from_bits(ix - (tmp & U(0xFFF0000000000000ull)));  // z
  }

  static D log1p_small(D r) {
    constexpr double kL[4] = {0x1.555554543e14ap-2, -0x1.00000f4382c19p-2, 0x1.99de0e9aeed7bp-3,
                              -0x1.547e8f2cf6400p-3};
    const D r2 = r * r;
    return fma(r2, fma(r, estrin4(r, r2, kL), D(-0.5)), r);
  }
};

// Hard: x <= 0, +inf and NaN (log's special values are the accurate path's).
inline FM log_outside(F x) {
  return fm_not(fm_and(f32_lt(f32_splat(0.0f), x), f32_lt(x, f32_splat(__builtin_inff()))));
}

constexpr int kLogWindow = 1 << 19;  // 2^-34 relative < 2^19 ulps (|v| < 2^53 ulps of v)

struct LogCoarse {
  static constexpr int kWindow = kLogWindow;
  LogPieces pieces;

  D eval(D x) const {
    D k, piece;
    const D z = LogPieces::reduce(x, &k, &piece);
    const D r = fma(z, pieces.c.lookup(piece), D(-1.0));
    return fma(k, D(kLn2), pieces.t_ln.lookup(piece)) + LogPieces::log1p_small(r);
  }
  static FM outside(F x) { return log_outside(x); }
};

// log2 x = k + (T2_i + log1p(r)/ln2): k exact, the bracket below 0.51.
struct Log2Coarse {
  static constexpr int kWindow = kLogWindow;
  LogPieces pieces;

  D eval(D x) const {
    D k, piece;
    const D z = LogPieces::reduce(x, &k, &piece);
    const D r = fma(z, pieces.c.lookup(piece), D(-1.0));
    return k + fma(LogPieces::log1p_small(r), D(0x1.71547652b82fep+0), pieces.t_log2.lookup(piece));
  }
  static FM outside(F x) { return log_outside(x); }
};

// log10 x = (k log10(2) + T10_i) + log1p(r)/ln10.
struct Log10Coarse {
  static constexpr int kWindow = kLogWindow;
  LogPieces pieces;

  D eval(D x) const {
    D k, piece;
    const D z = LogPieces::reduce(x, &k, &piece);
    const D r = fma(z, pieces.c.lookup(piece), D(-1.0));
    return fma(k, D(0x1.34413509f79ffp-2), pieces.t_log10.lookup(piece)) +
           LogPieces::log1p_small(r) * D(0x1.bcb7b1526e50ep-2);
  }
  static FM outside(F x) { return log_outside(x); }
};

// log1p x = log(u), u = 1 + x (exact in float64 for float32 x in (-1, 2^53)
// with |x| >= 2^-29; rounded above, where ln u moves by < 2^-53).  On piece
// 9 with k = 0, where u lies in [1 - 2^-6, 1 + 2^-5), r = u - 1 is x itself,
// so a tiny x, which 1 + x would round away, keeps its bits.  Hard: x <= -1,
// +inf and NaN.
struct Log1pCoarse {
  static constexpr int kWindow = kLogWindow;
  LogPieces pieces;

  D eval(D x) const {
    D k, piece;
    const D z = LogPieces::reduce(x + D(1.0), &k, &piece);
    const D ax = abs_of(x);
    const D r = select(lt(ax, D(0x1p-7)), x, fma(z, pieces.c.lookup(piece), D(-1.0)));
    return fma(k, D(kLn2), pieces.t_ln.lookup(piece)) + LogPieces::log1p_small(r);
  }
  static FM outside(F x) {
    return fm_not(fm_and(f32_lt(f32_splat(-1.0f), x), f32_lt(x, f32_splat(__builtin_inff()))));
  }
};

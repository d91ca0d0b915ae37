// log1p to 2^-34 relative in float64, and the pieces' ln that softplus and
// logsigmoid (softplus_coarse.h) use: the coarse evaluation the AVX-512 row
// puts in front of Log1p (row_avx512.cpp, Float64Tier in row_simd.inc), as
// erfc_coarse.h is in front of Erfc (log, log2 and log10 have float32
// paths there, log_f32.h).  The accurate evaluation (log.h) reduces by a
// table of 128 pieces, which costs two eight-lane gathers per block; 2^-34
// is reached with 16 pieces held in registers (D16Table) and a polynomial
// one degree longer.  docs/elementwise.md ("The log family: the coarse float64
// evaluation") has the error analysis.
//
// Written in the row vocabulary with D16Table (row_avx512.h).

// Rows c_i, -ln c_i (tools/cr/polyfit.py --log-pieces).
alignas(64) constexpr double kLogPieces[2][16] = {
#include "elementwise/fn/log_pieces.inc"
};
constexpr uint64_t kLogPiecesOff = 0x3fe6800000000000ull;  // 0.703125
constexpr int kLogPiecesOne = 9;                            // [1 - 2^-6, 1 + 2^-5), c = 1

// A positive finite x = 2^k z, z in [0.703125, 1.40625), piece i = bits 48-51
// of bits(z) - bits(0.703125), r = z c_i - 1 in [-0.0295, 0.0313] (one
// fma: its only rounding is the final one, 2^-53 |r|), and log1p(r) = r -
// r^2/2 + r^3 L(r) (approximation 2^-36 relative, tools/cr/polyfit.py).
// Results: ln x = k ln2 + T_i + log1p(r); |ln x| >= |ln(1 - 2^-6)| =
// 0.0157 off piece 9 and >= 0.341 |k| for k != 0, so the absolute roundings
// of k ln2, T_i and the sums (2^-52 or so) stay below 2^-46 relative; on
// piece 9 with k = 0 the result is log1p(r) alone, relative to which every
// rounding counts once.  Total < 2^-35.9.
struct LogPieces {
  D16Table c{kLogPieces[0]}, t_ln{kLogPieces[1]};

  struct Reduced {
    D k;      // x = 2^k z (k as a double)
    D piece;  // its low four bits index the tables
    D r;      // z c_i - 1
  };

  Reduced reduce(D x) const {
    const U ix = bits(x);
    const U tmp = ix - U(kLogPiecesOff);
    const D piece = from_bits(shr(tmp, 48));
    const U kb = shr(tmp + U(uint64_t{1} << 62), 52);  // k + 1024, without an arithmetic shift
    const D z = from_bits(ix - (tmp & U(0xFFF0000000000000ull)));
    return {from_bits(kb + U(kMagicBits)) - D(kMagic + 1024.0), piece, fma(z, c.lookup(piece), D(-1.0))};
  }

  // ln x = k ln2 + T_i + log1p(r), for x reduced to q and r (q.r or x's own).
  D ln(const Reduced& q, D r) const { return fma(q.k, D(kLn2), t_ln.lookup(q.piece)) + log1p_small(r); }

  static D log1p_small(D r) {
    constexpr double kL[4] = {0x1.555554543e14ap-2, -0x1.00000f4382c19p-2, 0x1.99de0e9aeed7bp-3,
                              -0x1.547e8f2cf6400p-3};
    const D r2 = r * r;
    return fma(r2, fma(r, estrin4(r, r2, kL), D(-0.5)), r);
  }
};

// What the coarse evaluations on the pieces share (log1p's here,
// softplus's and logsigmoid's in softplus_coarse.h): the pieces and the
// window (2^-34 relative is below 2^19 ulps, |v| < 2^53 ulps of v).
struct LogCoarseBase {
  static constexpr int kWindow = 1 << 19;
  LogPieces pieces;
};

// log1p x = log(u), u = 1 + x (exact in float64 for float32 x in (-1, 2^53)
// with |x| >= 2^-29; rounded above, where ln u moves by < 2^-53).  On piece
// 9 with k = 0, where u lies in [1 - 2^-6, 1 + 2^-5), r = u - 1 is x itself,
// so a tiny x, which 1 + x would round away, keeps its bits.  Hard: x <= -1,
// +inf, NaN, and +-0: log1p(-0) = -0, but k ln2 + (the piece's ln c + ...)
// adds to +0, and near_midpoints lets an exact zero stand.
struct Log1pCoarse : LogCoarseBase {
  D eval(D x) const {
    const LogPieces::Reduced q = pieces.reduce(x + D(1.0));
    return pieces.ln(q, select(lt(abs_of(x), D(0x1p-7)), x, q.r));
  }
  static FM outside(F x) {
    return fm_not(fm_and(fm_and(f32_lt(f32_splat(-1.0f), x), f32_lt(x, f32_splat(__builtin_inff()))),
                         f32_ne(x, f32_splat(0.0f))));
  }
  static F rescue(F x, F y, uint32_t* hard) { return log1p_rescue(x, y, hard); }  // log_f32.h
};

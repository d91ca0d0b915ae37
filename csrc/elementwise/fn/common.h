// Building blocks shared by several kernels, written in the row vocabulary
// (row_generic.h / row_avx2.h / row_avx512.h: D, M, U, fma, select, ...).  Included inside
// a row namespace; includes nothing itself.
//
// Error bounds are in float64 ulps of the result ("ulp"), 1 ulp = 2^-52
// relative at most.  Coefficients come from tools/cr/polyfit.py, which
// prints them with their approximation error.

constexpr double kMagic = 0x1.8p52;  // x + kMagic - kMagic = x rounded to an integer, |x| < 2^51
constexpr uint64_t kMagicBits = 0x4338000000000000ull;

// Polynomials by Estrin's scheme (pairs c_i + c_{i+1} z, then powers z^2,
// z^4, z^8): a quarter of Horner's dependency chain, which is what limits
// these loops; the rounding error stays below 1 ulp of the polynomial.
inline D pair(D z, double c0, double c1) { return fma(D(c1), z, D(c0)); }
inline D estrin4(D z, D z2, const double (&c)[4]) {  // degree 3
  return fma(pair(z, c[2], c[3]), z2, pair(z, c[0], c[1]));
}
inline D estrin6(D z, D z2, D z4, const double (&c)[6]) {  // degree 5
  return fma(pair(z, c[4], c[5]), z4, fma(pair(z, c[2], c[3]), z2, pair(z, c[0], c[1])));
}
inline D estrin10(D z, D z2, D z4, D z8, const double (&c)[10]) {  // degree 9
  const D lo = fma(fma(pair(z, c[6], c[7]), z2, pair(z, c[4], c[5])), z4,
                   fma(pair(z, c[2], c[3]), z2, pair(z, c[0], c[1])));
  return fma(pair(z, c[8], c[9]), z8, lo);
}

// 2^k for integer-valued k held as kMagic + k (|k| <= 1022): built from bits.
inline D pow2_from_magic(D k_plus_magic) {
  return from_bits(shl(bits(k_plus_magic) + U(uint64_t{1023} - kMagicBits), 52));
}

// ---- exp family -------------------------------------------------------------
constexpr double kLog2e = 0x1.71547652b82fep+0;
constexpr double kLn2 = 0x1.62e42fefa39efp-1;
constexpr double kLn2Hi = 0x1.62e42ff000000p-1;  // 32 bits: k * kLn2Hi exact for |k| < 2^21
constexpr double kLn2Lo = -0x1.718432a1b0e26p-35;

// e^r - 1 - r = r^2 Q(r) on |r| <= 0.3466 (> ln2/2 + the rounding of k);
// approximation error 0.15 ulp of e^r.
constexpr double kExpQ[10] = {
    0x1.0000000000001p-1,  0x1.5555555555556p-3,  0x1.5555555553d64p-5,  0x1.11111111109b4p-7,
    0x1.6c16c1788b646p-10, 0x1.a01a01a7c3d59p-13, 0x1.a019b90eefe8ep-16, 0x1.71de0daf7a6ccp-19,
    0x1.2891834686c7ep-22, 0x1.af38a71a18cb9p-26};

// e^r - 1 = r + r^2 Q(r), |r| <= 0.3466: error <= 1 ulp (relative, also for tiny r).
inline D expm1_reduced(D r) {
  const D r2 = r * r, r4 = r2 * r2;
  return fma(r2, estrin10(r, r2, r4, r4 * r4, kExpQ), r);
}

// e^r = 1 + (r + r^2 Q(r)), |r| <= 0.3466: error <= 1.5 ulp.
inline D exp_reduced(D r) { return D(1.0) + expm1_reduced(r); }

// x = k ln2 + r with k = round(x / ln2), |x| <= 200: kmagic = kMagic + k,
// r with error <= 2^-53 |r| + 2^-70.  (x - k*kLn2Hi is exact by Sterbenz.)
inline D exp_reduce(D x, D* kmagic) {
  const D s = x * kLog2e + kMagic;
  const D k = s - kMagic;
  *kmagic = s;
  const D r = fma(-k, kLn2Hi, x);
  return fma(-k, kLn2Lo, r);
}

// ---- log family -------------------------------------------------------------
// The 128-piece table (tools/cr/polyfit.py --log-table): per piece
// {c, -ln c, -log2 c, -log10 c}.
alignas(32) constexpr double kLogTable[128][4] = {
#include "elementwise/fn/log_table.inc"
};
constexpr uint64_t kLogOff = 0x3fe6b00000000000ull;

// x > 0 finite (any float64): x = 2^k z, z in [0.709, 1.418), piece i of z,
// r = z c_i - 1 (|r| <= 2^-8, error <= 2^-53 |r|; exact for piece 74 around
// 1, where c = 1).  Returns r; sets *k (as a double) and *row (= 4 i, the
// piece's offset in kLogTable).
inline D log_reduce(D x, D* k, U* row) {
  const U ix = bits(x);
  const U tmp = ix - U(kLogOff);
  *row = shl(shr(tmp, 45) & U(127), 2);
  const U kb = shr(tmp + U(uint64_t{1} << 62), 52);  // k + 1024, without an arithmetic shift
  *k = from_bits(kb + U(kMagicBits)) - D(kMagic + 1024.0);
  const D z = from_bits(ix - (tmp & U(0xFFF0000000000000ull)));
  const D c = gather(&kLogTable[0][0], *row);
  return fma(z, c, D(-1.0));
}

// log1p(r) = r - r^2/2 + r^3 L(r) for |r| <= 2^-8: approximation error
// 0.58 ulp, total error <= 1.2 ulp (relative).
inline D log1p_reduced(D r) {
  constexpr double kL[4] = {0x1.5555555542fa2p-2, -0x1.ffffffffdfe06p-3, 0x1.999abebc8a4c4p-3, -0x1.555655d3ecf0ep-3};
  const D r2 = r * r;
  return fma(r2, fma(r, estrin4(r, r2, kL), D(-0.5)), r);
}

// ---- sin and cos ------------------------------------------------------------
constexpr double kTwoOverPi = 0x1.45f306dc9c883p-1;
// pi/2 = kP1 + kP2 + kP3 + 1e-37; kP1 and kP2 have 33 bits, so k * kP1 and
// k * kP2 are exact for |k| < 2^20.
constexpr double kP1 = 0x1.921fb54400000p+0;
constexpr double kP2 = 0x1.0b4611a600000p-34;
constexpr double kP3 = 0x1.3198a2e037073p-69;

// x = k pi/2 + r, |r| <= pi/4 (1 + 2^-30), error of r <= 2^-52 |r|; *q = k
// mod 4 in the low two bits.  |x| < 2^20 by Cody and Waite (x - k kP1 is
// exact); larger |x| lane by lane by reduce_pio2_large; inf and NaN give
// r = NaN.
inline D sincos_reduce(D x, U* q) {
  const D s = x * kTwoOverPi + kMagic;
  const D k = s - kMagic;
  D r = fma(-k, kP1, x);
  r = fma(-k, kP2, r);
  r = fma(-k, kP3, r);
  U qq = bits(s);
  const D ax = from_bits(bits(x) & U(0x7FFFFFFFFFFFFFFFull));
  const int big = movemask(m_not(lt(ax, D(0x1p20))));  // also inf and NaN
  if (big != 0) {
    for (int j = 0; j < kLanes; ++j) {
      if (!((big >> j) & 1)) continue;
      const double xj = lane(x, j);
      if (xj - xj == 0) {  // finite
        int64_t qj;
        set_lane(r, j, reduce_pio2_large(static_cast<float>(xj), &qj));
        set_lane(qq, j, static_cast<uint64_t>(qj));
      } else {
        set_lane(r, j, xj - xj);  // NaN
      }
    }
  }
  *q = qq;
  return r;
}

// [sin r, cos r, -sin r, -cos r][q mod 4] for |r| <= pi/4: error <= 1.2 ulp.
inline D sin_quadrant(D r, U q) {
  const D z = r * r, z2 = z * z, z4 = z2 * z2;
  // sin r = r + r^3 S(z), cos r = 1 - z/2 + z^2 C(z): approximation errors 0.18 and 0.011 ulp.
  constexpr double kS[6] = {-0x1.5555555555555p-3, 0x1.1111111110bb1p-7, -0x1.a01a019e83460p-13,
                            0x1.71de379607474p-19, -0x1.ae600a7a70c62p-26, 0x1.5e0ae8e372075p-33};
  constexpr double kC[6] = {0x1.5555555555555p-5, -0x1.6c16c16c16966p-10, 0x1.a01a019f4e7d9p-16,
                            -0x1.27e4fa179895fp-22, 0x1.1eeb68a508535p-29, -0x1.907d724680d4ep-37};
  const D s = estrin6(z, z2, z4, kS);
  const D c = estrin6(z, z2, z4, kC);
  const D sin_r = fma(r * z, s, r);
  const D cos_r = D(1.0) + fma(z2, c, z * -0.5);
  const D v = select(ieq(q & U(1), U(0)), sin_r, cos_r);
  return from_bits(bits(v) ^ shl(q & U(2), 62));
}

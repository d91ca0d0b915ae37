// sin and cos to 2^-45 relative in float64 for |x| < 2^17: the coarse
// evaluations the AVX-512 row puts in front of Sin and Cos (row_avx512.cpp,
// Float64Tier in row_simd.inc), as erfc_coarse.h is in front of Erfc.  The
// accurate evaluation (sin.h, cos.h) reduces by pi/2 and evaluates both
// sin r and cos r to degree 13 on |r| <= pi/4; here x = k pi/16 + r with
// |r| <= pi/32, the sines and cosines of k pi/16 from a table of sixteen
// in registers (D16Table), and one polynomial each for sin r - r and cos r
// - 1, of degree 7 and 8.  docs/elementwise.md ("sin and cos: the coarse
// float64 evaluation") has the error analysis.
//
// Written in the row vocabulary with D16Table (row_avx512.h).

// Rows sin(j pi/16), cos(j pi/16), -sin(j pi/16), j = 0..15
// (tools/cr/polyfit.py --sincos-table).
alignas(64) constexpr double kSinCosTable[3][16] = {
#include "elementwise/fn/sincos_table.inc"
};

// With j = k mod 16 and (A, B) = (sin, cos) or (cos, -sin) of j pi/16
// (table rows kA and kB), both functions are
//   f(x) = +-(A cos r + B sin r) = +-(A + B r + (A cm + B sm)),
//   sm = sin r - r = r z (s3 + z (s5 + z s7)),  cm = cos r - 1 = z (c2 + z (c4 + z (c6 + z c8))),
// z = r^2, the sign that of (-1)^floor(k/16) (k pi/16 beyond pi negates A
// and B alike).  x = k pi/16 + r for |x| < 2^17 (|k| < 2^19.35): pi/16 =
// C1 + C2 + C3 + 1.25e-38 are the accurate path's parts of pi/2 over 8
// (exact); C1 has at most 33 bits, so k C1 is exact for |k| < 2^20 and x - k C1
// too (both multiples of 2^-35 for |x| >= pi/32, their difference below
// 2^-3), and the next two steps round once each: r is within 2^-52 |r|
// plus 2^-104, |r| <= (pi/32)(1 + 2^-33).  Taylor's first omitted terms:
// r^9/9! < 2^-45.2 |r| in sm, r^10/10! < 2^-55 in cm.
template <int kA, int kB>
struct SinCosCoarse {
  // 2^-45 relative (docs/elementwise.md) is below 2^8 ulps.
  static constexpr int kWindow = 1 << 9;
  D16Table a_table{kSinCosTable[kA]}, b_table{kSinCosTable[kB]};

  D eval(D x) const {
    // The accurate path's constants (fn/common.h) scaled by 8: exact.
    constexpr double kSixteenOverPi = kTwoOverPi * 8, kC1 = kP1 / 8, kC2 = kP2 / 8, kC3 = kP3 / 8;
    constexpr double kS[3] = {-0x1.5555555555555p-3, 0x1.1111111111111p-7, -0x1.a01a01a01a01ap-13};
    constexpr double kC[4] = {-0.5, 0x1.5555555555555p-5, -0x1.6c16c16c16c17p-10, 0x1.a01a01a01a01ap-16};
    const D sk = fma(x, D(kSixteenOverPi), D(kMagic));  // kMagic + k: k's low bits, two's complement
    const D minus_k = D(kMagic) - sk;
    D r = fma(minus_k, D(kC1), x);
    r = fma(minus_k, D(kC2), r);
    r = fma(minus_k, D(kC3), r);
    const D z = r * r;
    const D sm = (r * z) * fma(fma(D(kS[2]), z, D(kS[1])), z, D(kS[0]));
    const D cm = z * fma(fma(fma(D(kC[3]), z, D(kC[2])), z, D(kC[1])), z, D(kC[0]));
    const D a = a_table.lookup(sk), b = b_table.lookup(sk);
    const D v = fma(b, r, a + fma(a, cm, b * sm));
    return from_bits(bits(v) ^ (shl(bits(sk), 59) & U(0x8000000000000000ull)));
  }
};

// Both functions: hard for |x| >= 2^17, which the accurate path reduces,
// and for the infinities and NaN, whose result the rescue settles (NaN) in
// whole blocks.  sin x: hard also for |x| < 2^-12, zeros among them (whose
// sign the sums lose: -0 + +0 is +0), which the rescue settles as x
// itself: |sin x - x| <= |x|^3/6 < 2^-26.58 |x|, inside the half-gap below
// |x| (2^-25 |x| at a power of two, more elsewhere).  Beyond, no result
// comes near 2^-126: over every float32 in [2^-12, 2^17), |sin x| >=
// 2^-26.83 and |cos x| >= 2^-27.83 (x87 long double, both near x =
// 0x1.f9cbe2p+8 and its half), so the window test skips that check
// (kOutsideHasBelowNormal, row_simd.inc).
inline FM sincos_outside(F x) { return fm_not(f32_lt(f32_abs(x), f32_splat(0x1p17f))); }
inline F sincos_not_finite(F x, F y, uint32_t* hard) {
  const float nan = __builtin_nanf("");
  return settle_tails(x, y, -__builtin_inff(), nan, __builtin_inff(), nan, hard);
}

struct SinCoarse : SinCosCoarse<0, 1> {
  static constexpr bool kOutsideHasBelowNormal = true;
  // |x| < 2^-12, where sin x rounds to x: hard in outside(), settled in rescue().
  static FM rounds_to_x(F x) { return f32_lt(f32_abs(x), f32_splat(0x1p-12f)); }
  static FM outside(F x) { return fm_or(sincos_outside(x), rounds_to_x(x)); }
  static F rescue(F x, F y, uint32_t* hard) {
    y = settle_lanes(rounds_to_x(x), x, y, hard);
    return sincos_not_finite(x, y, hard);
  }
};

struct CosCoarse : SinCosCoarse<1, 2> {
  static constexpr bool kOutsideHasBelowNormal = true;
  static FM outside(F x) { return sincos_outside(x); }
  static F rescue(F x, F y, uint32_t* hard) { return sincos_not_finite(x, y, hard); }
};

// Pieces shared by erf, erfc and gelu (fn/erf.h, fn/erfc.h, fn/gelu.h),
// written in the row vocabulary.  Coefficients and constants: tools/cr/fit_erf.py.
//
// Error bounds are in units of u = 2^-53 relative, and one u is at most one
// float64 ulp of the value (ulp >= 2^-53 |v|), so a bound in u is a bound
// in ulps.  For the window test only the total matters: it must stay below
// W = 64.
#pragma once

constexpr double kSqrt1_2 = 0x1.6a09e667f3bcdp-1;  // 1/sqrt 2, relative error < 2^-54

// erf(z) = z P(z^2) for |z| <= 1/2: P of degree 9, approximation error
// 0.12 u.  With t = z^2 <= 1/4 (exact for float32 z) the terms alternate
// and shrink fast: |c0| + |c1 t| <= 1.23, the rest sum to < 0.008, and P >=
// 1.04.  Estrin's evaluation puts at most 4 roundings on the paths of c0
// and c1 t and at most 9 on the others, so it errs by <= (4 * 1.23 + 9 *
// 0.008) / 1.04 < 4.8 u; z P adds 1 u.  Total <= 6 u.
constexpr double kErfSmall[10] = {
    0x1.20dd750429b6dp+0,  -0x1.812746b0379e6p-2, 0x1.ce2f21a042b29p-4,  -0x1.b82ce3127f739p-6,
    0x1.565bcd0aa6349p-8,  -0x1.c02db23d41138p-11, 0x1.f9a2a6635fe79p-14, -0x1.f4bb9f7301dedp-17,
    0x1.b776442df3041p-20, -0x1.39fb524e9c1f7p-23};

inline D erf_small(D z) {
  const D u = z * z, u2 = u * u, u4 = u2 * u2;
  return z * estrin10(u, u2, u4, u4 * u4, kErfSmall);
}

// erfcx(z) = e^(z^2) erfc(z) = N(z) / D(z) on [0, 10.5], N and D of degree
// 9 and 10 with positive coefficients (D(0) = 1): approximation error 0.41
// u with the coefficients as stored.  For z >= 0 every term is positive, so
// each rounding multiplies every term it touches by (1 + d), |d| <= u, and
// the relative error of a sum is at most the largest number of roundings on
// one term's path: N by Estrin has at most 9 (z^8 carries 7: z^2 1, z^4 3,
// z^8 7), D = 1 + z D1(z) at most 10; the division 1.  A relative error e
// of z changes erfcx by at most |e| (|z erfcx'(z) / erfcx(z)| <= 1 for z >=
// 0).  Total <= 0.41 + 9 + 10 + 1 = 20.4 u, plus z's own relative error.
constexpr double kErfcxN[10] = {
    0x1.0000000000000p+0,  0x1.0c4209fdfd9d6p+1, 0x1.178db2c697e56p+1, 0x1.7243968bbf74fp+0,
    0x1.538048e2cbb11p-1,  0x1.bc984981b86d9p-3, 0x1.9f3b6376e1215p-5, 0x1.0b391fcad7616p-7,
    0x1.b06bff00eac32p-11, 0x1.5295c9ac7db12p-15};
constexpr double kErfcxD1[10] = {  // D(z) = 1 + z D1(z)
    0x1.9cb0c4801278bp+1, 0x1.349cc889e7893p+2, 0x1.1a98c63ddd511p+2,  0x1.5fd9c182b0a04p+1,
    0x1.382fff11ae4c2p+0, 0x1.91604052a4b53p-2, 0x1.72fbd39606d56p-4,  0x1.dad0144e326dep-7,
    0x1.7f39512dfeddfp-10, 0x1.2c10307c0c274p-14};
constexpr double kErfcxMax = 10.5;

// erfcx(z) for z >= 0; z above 10.5 is clamped (callers only use the
// result where it then no longer matters).  NaN stays NaN.
inline D erfcx_rational(D z) {
  z = vmin(D(kErfcxMax), z);
  const D z2 = z * z, z4 = z2 * z2, z8 = z4 * z4;
  const D n = estrin10(z, z2, z4, z8, kErfcxN);
  const D d = fma(z, estrin10(z, z2, z4, z8, kErfcxD1), D(1.0));
  return n / d;
}

// e^-s for 0 <= s <= 120 given exactly (s = x^2 or x^2/2 of a float32 x):
// x = k ln2 + r (exp_reduce), e^r (exp_reduced), times 2^k exactly (k >=
// -174).  Error <= 2.5 ulp (fn/exp.h), that is <= 5 u.  s is clamped to
// 120, where e^-s = 2^-173.1 makes every caller's result round like its
// limit; NaN stays NaN.
inline D exp_neg(D s) {
  s = vmin(D(120.0), s);
  D kmagic;
  const D r = exp_reduce(-s, &kmagic);
  return exp_reduced(r) * pow2_from_magic(kmagic);
}

// erfc(|z|) = e^(-s) erfcx(|z|) with s = z^2 given exactly: <= 20.4 + 5 + 1
// = 26.4 u plus the relative error of z.
inline D erfc_abs(D az, D s) { return exp_neg(s) * erfcx_rational(az); }

inline D abs_of(D x) { return from_bits(bits(x) & U(0x7FFFFFFFFFFFFFFFull)); }
inline D copy_sign(D magnitude, D sign) {
  return from_bits(bits(magnitude) | (bits(sign) & U(0x8000000000000000ull)));
}

// gelu near zero (both forms): f(x) = x/2 + x^2/sqrt(2 pi) + O(x^4), so for
// 0 < |x| < 2^-60, f(x) lies strictly above x/2 by less than 2^-60 |x/2|.
// x/2 is a float32 value or, for subnormal results, can be a float32
// rounding midpoint (x odd on the 2^-149 grid), where every faithful
// float64 value would sit within the window and need a table entry (about
// 2^24 of them).  Instead the rows return x/2 moved towards +inf by 2^-43
// |x/2|: that lies in the same open interval (x/2, x/2 + 2^-25 |x/2|) or
// (x/2, x/2 + 2^-150) as f(x), which holds no other float32 value or
// midpoint, so it rounds as f(x) does; and it is 512 to 1024 float64 ulps
// from x/2, beyond W and W_gen, so it is never looked up.  (This is the one
// place where a row's float64 value is deliberately further than W from
// f(x); the exhaustive verifier measures the float64 error for |x| >= 2^-60
// only.)  +-0 give +-0.
constexpr double kGeluTiny = 0x1p-60;
inline D gelu_near_zero(D x) {
  return x * select(lt(x, D(0.0)), D(0.5 - 0x1p-44), D(0.5 + 0x1p-44));
}

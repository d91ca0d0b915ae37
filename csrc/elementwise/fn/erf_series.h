// erf, erfc and gelu to 2^-33 relative in float64 without tables: the
// coarse evaluations that both vector rows put in front of Erf (erf.h),
// Erfc (erfc.h) and Gelu (gelu.h), the AVX-512 row with its pieces
// (fn/erfc_coarse.h) behind for stretches of inputs beyond the series
// (Float64Tier, DetourPath and run_fast in row_simd.inc).  On Zen 3
// a lookup per coefficient (vpermpd, four entries a register) cost more
// than the accurate path's rational; one series serves the middle of the
// range instead, where training's activations lie (|x| <= 3 holds 99.7%
// of a normal sample, |z| <= 2.125 for erf 96.6%), and the lanes beyond go
// through the accurate evaluation.  docs/elementwise.md ("erf, erfc and
// gelu: the series (the AVX2 row)") has the error analysis.
//
// Written in the row vocabulary, after fn/erf_rules.h.

// erf(z) = z P(z^2), |z| <= 2.125; erf(x/sqrt 2) = x G(x^2), |x| <= 3.0052
// (tools/cr/fit_erf.py --erf-series, which prints each table's relative
// error against P or G): P of degree 12 for erf (2^-35.87), whose window
// takes P's relative error as it stands; P and G of degree 14 for erfc and
// gelu (2^-43.45, 2^-43.43), whose 1 - z P and 1/2 + x G/2 cancel down to
// 2^-8.53 and 2^-9.53.  Degree 15 for all three until the forty-first
// round; with the shorter tables erf took 0.93 of the time, erfc 0.97,
// gelu 0.95 (64K, 1 thread, ab_kernels.py, 21 rounds).
#include "elementwise/fn/erf_series.inc"
constexpr float kErfSeriesZ = 2.125f;
constexpr float kGeluSeriesX = 3.0f;  // 3 / sqrt 2 < 2.125

// sum_k c[k] u^k as even and odd halves in u^2 by Horner's scheme, then
// one fma: two chains, not one, which keeps fewer blocks in flight
// (fn/erfc_coarse.h's pieces measured it: 68 us against 57); four chains
// in u^4 measured 0.95-0.97 of this, within noise.
template <int N>
inline D series(D u, const double (&c)[N]) {
  static_assert(N >= 2, "degree 1 or more");
  constexpr int kTopEven = (N - 1) % 2 == 0 ? N - 1 : N - 2, kTopOdd = kTopEven == N - 1 ? N - 2 : N - 1;
  const D w = u * u;
  D even = D(c[kTopEven]), odd = D(c[kTopOdd]);
  for (int k = kTopEven - 2; k >= 0; k -= 2) even = fma(even, w, D(c[k]));
  for (int k = kTopOdd - 2; k >= 1; k -= 2) odd = fma(odd, w, D(c[k]));
  return fma(odd, u, even);
}

// Phi(x) - 1/2 = erf(x/sqrt 2)/2 = x G(x^2)/2: G's coefficients halved,
// exactly (powers of two; the least near 2^-60 of a normal double).
constexpr int kGeluTerms = sizeof kGeluSeries / sizeof kGeluSeries[0];
struct HalvedSeries {
  double c[kGeluTerms];
};
constexpr HalvedSeries halved(const double (&c)[kGeluTerms]) {
  HalvedSeries h{};
  for (int k = 0; k < kGeluTerms; ++k) h.c[k] = c[k] / 2;
  return h;
}
constexpr HalvedSeries kPhiSeries = halved(kGeluSeries);

// The lanes of a, an absolute value, in (0, t): a's bit pattern less one
// is below t's as a float, where +0 wraps to a NaN pattern (never below).
inline FM nonzero_below(F a, float t) {
  return f32_lt(f32_sub_bits(a, f32_splat(0x1p-149f)), f32_splat(t));  // 0x1p-149f: the bit pattern 1
}

// Each series leaves every input beyond it to the rescue, and no select of
// the exact rules sits in its evaluation: one comparison in outside() and
// none per float64 half (gelu's block at 64K, 1 thread: about 70 operations
// on the two 512-bit ports before, 59 after).  Their outside() flags every
// input whose result could fall below 2^-126 (kOutsideHasBelowNormal), so
// the window test skips that check of the float64 values.

// erf(x) = x P(x^2) for |x| <= 2.125.  Hard: |x| > 2.125 (the rescue gives
// +-1 from 4 on: ErfRules), NaN, and the nonzero subnormal x, the only
// inputs with results below 2^-126 (erf(x) >= x for 0 <= x <= 0.6, erf(x)
// >= 0.6 there on), which the rescue settles.
struct ErfSeries : ErfRules {
  static constexpr bool kDetour = true;  // (row_simd.inc's DetourOf)
  static constexpr bool kOutsideHasBelowNormal = true;
  D eval(D x) const { return x * series(x * x, kErfSeries); }
  static FM outside(F x) {
    const F a = f32_abs(x);
    return fm_or(fm_not(f32_le(a, f32_splat(kErfSeriesZ))), nonzero_below(a, 0x1p-126f));  // NaN: not <=
  }
};

// erfc(z) = 1 - z P(z^2) for |z| <= 2.125, where erfc >= erfc(2.125) =
// 2^-8.53 (no result near 2^-126).  Hard: |z| > 2.125 (the rescue gives 2
// for z <= -4: ErfcRules), NaN.
struct ErfcSeries : ErfcRules {
  static constexpr bool kDetour = true;  // (row_simd.inc's DetourOf)
  static constexpr bool kOutsideHasBelowNormal = true;
  D eval(D z) const { return D(1.0) - z * series(z * z, kErfcSeries); }
  static FM outside(F z) { return fm_not(f32_le(f32_abs(z), f32_splat(kErfSeriesZ))); }  // NaN: not <=
};

// gelu(x) = x Phi(x) = x (1/2 + x G(x^2)/2) for |x| <= 3: one fma for the
// bracket, whose rounding is 2^-53 of Phi(x) >= Phi(-3), one product.  At x
// = +-0 the bracket is 1/2 and the product keeps x's sign.  Hard: |x| > 3
// (the rescue gives x above 5.65: GeluRules), NaN, and 0 < |x| < 2^-100:
// |gelu(x)| >= |x| Phi(-|x|), near |x|/2, so results below 2^-126 come from
// those alone, and the rescue's rule near zero settles them.
struct GeluSeries : GeluRules {
  static constexpr bool kDetour = true;  // (row_simd.inc's DetourOf)
  static constexpr bool kOutsideHasBelowNormal = true;
  D eval(D x) const { return x * fma(x, series(x * x, kPhiSeries.c), D(0.5)); }
  static FM outside(F x) {
    const F a = f32_abs(x);
    return fm_or(fm_not(f32_le(a, f32_splat(kGeluSeriesX))), nonzero_below(a, 0x1p-100f));  // NaN: not <=
  }
};

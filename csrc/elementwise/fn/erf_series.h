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
// (tools/cr/fit_erf.py --erf-series; each within 2^-47.2 of erf, absolute).
#include "elementwise/fn/erf_series.inc"
constexpr float kErfSeriesZ = 2.125f;
constexpr float kGeluSeriesX = 3.0f;  // 3 / sqrt 2 < 2.125

// sum_k c[k] u^k, degree 15, as even and odd halves in u^2 by Horner's
// scheme: two chains of seven fmas, not one of fifteen, which keeps fewer
// blocks in flight (fn/erfc_coarse.h's pieces measured it: 68 us against
// 57); four chains in u^4 measured 0.95-0.97 of this, within noise.
inline D series16(D u, const double* c) {
  const D w = u * u;
  D even = D(c[14]), odd = D(c[15]);
  for (int k = 12; k >= 0; k -= 2) {
    even = fma(even, w, D(c[k]));
    odd = fma(odd, w, D(c[k + 1]));
  }
  return fma(odd, u, even);
}

// erf(x) = x P(x^2) for |x| <= 2.125, +-1 for |x| >= 4 (ErfRules).  Hard:
// 2.125 < |x| < 4 and NaN; results below 2^-126 through the window test.
struct ErfSeries : ErfRules {
  static constexpr bool kDetour = true;  // (row_simd.inc's DetourOf)
  D eval(D x) const {
    return select(lt(abs_of(x), D(4.0)), x * series16(x * x, kErfSeries), copy_sign(D(1.0), x));
  }
  static FM outside(F x) {
    const F a = f32_abs(x);
    return fm_or(f32_ne(x, x), fm_and(f32_lt(f32_splat(kErfSeriesZ), a), f32_lt(a, f32_splat(4.0f))));
  }
};

// erfc(z) = 1 - z P(z^2) for |z| <= 2.125, 2 for z <= -4 (ErfcRules).
// Hard: z > 2.125, -4 < z < -2.125, NaN.
struct ErfcSeries : ErfcRules {
  static constexpr bool kDetour = true;  // (row_simd.inc's DetourOf)
  D eval(D z) const { return select(le(z, D(-4.0)), D(2.0), D(1.0) - z * series16(z * z, kErfSeries)); }
  static FM outside(F z) {
    const FM gap = fm_and(f32_lt(f32_splat(-4.0f), z), f32_lt(z, f32_splat(-kErfSeriesZ)));
    return fm_or(fm_not(f32_le(z, f32_splat(kErfSeriesZ))), gap);  // NaN: not <=
  }
};

// gelu(x) = (x/2) (1 + x G(x^2)) for |x| <= 3, as h + h t (one fma), h =
// x/2 exact; x above 5.65 (GeluRules).  Hard: x < -3, 3 < x <= 5.65, NaN;
// results below 2^-126 through the window test, which the rescue settles.
// t is x G(x^2) + 0 (one fma, the product's own rounding for x != 0): at x
// = -0 it is +0, so that h t is -0 and gelu(-0) = -0 + -0 = -0, where x
// G(x^2) would give (-0)(-0) + (-0) = +0.  The AVX-512 row's window test
// leaves zeros unflagged, and a rescue's rule reaches them only when a
// lane beside them is hard.
struct GeluSeries : GeluRules {
  static constexpr bool kDetour = true;  // (row_simd.inc's DetourOf)
  D eval(D x) const {
    const D h = x * D(0.5);
    return select(gt(x, D(kGeluIdentity)), x, fma(h, fma(x, series16(x * x, kGeluSeries), D(0.0)), h));
  }
  static FM outside(F x) {
    const FM middle = f32_le(f32_abs(x), f32_splat(kGeluSeriesX));
    return fm_not(fm_or(middle, f32_lt(f32_splat(static_cast<float>(kGeluIdentity)), x)));  // NaN: hard
  }
};

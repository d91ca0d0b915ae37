// erf, erfc and gelu to 2^-33 relative in float64: the coarse evaluations
// that the AVX-512 row puts in front of Erf (erf.h), Erfc (erfc.h) and
// Gelu (gelu.h) (row_avx512.cpp; Float64Tier and run_fast in
// row_simd.inc).  A value that lies further than kWindow float64 ulps from
// every float32 rounding midpoint rounds as the true value does, by the
// same argument as the hard-case tables' (cr.h), so it stands; the other
// lanes (about 2^-8) go through the accurate evaluation and its table.
// Because 2^-33 is all the window test needs, one polynomial of degree 9
// per quarter of [0, 4] replaces e^(-z^2), the rational erfcx and its
// division.  docs/elementwise.md ("erfc, gelu and the log family: the
// coarse float64 evaluation") has the error analysis.
//
// Written in the row vocabulary with D16Table (row_avx512.h), after
// fn/erf_rules.h.

// P[k][i]: the coefficient of t^k on piece i (tools/cr/fit_erf.py --erfc-pieces).
alignas(64) constexpr double kErfcPieces[10][16] = {
#include "elementwise/fn/erfc_pieces.inc"
};

// erfc(a) for 0 <= a < 4, within 2^-33.6 relative: piece i = floor(4a)
// (or its neighbour at a = i/4, where either has |t| = 1/8), t = a - c_i,
// the polynomial as even and odd halves in t^2 by Horner's scheme (two
// chains of five: one chain of ten dependent fmas kept too few blocks in
// flight, gelu 64K 68 us against 57).  Approximation <= 2^-33.7 (the
// file's header); t's rounding moves erfc by <= 9 * 2^-57 relative, and the
// polynomial's roundings add < 2^-48 (its terms sum to at most
// e^(|t| |erfc'/erfc|) <= e times its value).  Lanes at a >= 4 hold garbage.
struct ErfcPieces {
  D16Table p[10];

  ErfcPieces() : ErfcPieces(std::make_index_sequence<10>{}) {}
  template <size_t... k>
  explicit ErfcPieces(std::index_sequence<k...>) : p{D16Table(kErfcPieces[k])...} {}

  D eval(D a) const {
    // kMagic + round(4a - 1/2): the low four bits index the piece.
    const D s = fma(a, D(4.0), D(-0.5)) + D(kMagic);
    const D t = a - fma(s - D(kMagic), D(0.25), D(0.125));
    const D t2 = t * t;
    D even = p[8].lookup(s), odd = p[9].lookup(s);
    for (int k = 6; k >= 0; k -= 2) {
      even = fma(even, t2, p[k].lookup(s));
      odd = fma(odd, t2, p[k + 1].lookup(s));
    }
    return fma(odd, t, even);
  }
};

// erfc(z) = e for z >= 0, 2 - e for z < 0 (e = erfc(|z|) <= 1 <= 2 - e, so
// the subtraction keeps the relative bound), 2 for z <= -4 (erfc(-4) = 2 -
// 1.5e-8 rounds to 2, as every erfc below does).  Hard: z >= 4 (erfc < 1.6e-8,
// down to the subnormals) and NaN.
struct ErfcCoarse : ErfcRules {
  ErfcPieces pieces;

  D eval(D z) const {
    const D e = pieces.eval(abs_of(z));
    return select(lt(z, D(0.0)), select(le(z, D(-4.0)), D(2.0), D(2.0) - e), e);
  }
  static FM outside(F z) { return fm_not(f32_lt(z, f32_splat(4.0f))); }
};

// gelu(x) = (x/2) erfc(z), z = -x/sqrt 2 (Gelu's formula), for |x| <= 5.65,
// where |z| <= 3.9951 < 4.  z's rounding (2^-53) and the constant's (2^-54)
// move erfc by at most (2 z^2 + 1) 2^-52 < 2^-47 relative; the product two
// more roundings.  Above 5.65, x (GeluRules).  Hard: x < -5.65 (-inf
// included) and NaN.  Zeros keep their sign, and results below 2^-126
// (subnormal x/2) are hard through the window test.
struct GeluCoarse : GeluRules {
  ErfcPieces pieces;

  D eval(D x) const {
    const D e = pieces.eval(abs_of(x * D(-kSqrt1_2)));
    const D c = select(gt(x, D(0.0)), D(2.0) - e, e);
    return select(gt(x, D(kGeluIdentity)), x, (x * D(0.5)) * c);
  }
  static FM outside(F x) { return fm_not(f32_ge(x, f32_splat(static_cast<float>(-kGeluIdentity)))); }
};

// erf(x) = the sign of x times 1 - erfc(|x|) on the pieces for 2^-13 <=
// |x| < 4, where the cancellation costs at most a factor 1 / erf(|x|)
// against erfc <= 1: the approximation (2^-48.6 relative on piece 0,
// 2^-47.2 on piece 1; beyond, erfc's error times erfc(i/4) / erf(i/4) is at
// most 2^-48.0) and the polynomial's roundings (< 2^-48 of erfc) are below
// 2^-34.5 of erf(x) >= erf(2^-13) > 2^-12.8, and 1 - e is exact (e in
// [1/2, 1], Sterbenz; above |x| = 0.477, where e < 1/2, its rounding is
// 2^-54 of a result near 1/2).  Below 2^-13, erf(x) = x (c0 + c1 x^2), c0
// = 2/sqrt(pi) and c1 = -c0/3, the series' first two terms: the next one
// is x^4/10 < 2^-55 relative, and the three roundings and c0's, c1's add
// 2^-51.  So kCoarseWindow's 2^-33 holds (tools/cr/fast_paths.cpp --errors
// measures it).  The series x P(x^2) of the accurate path (erf_small, ten
// terms, within 6 u) took a fifth of this evaluation's time where the
// pieces alone meet the window.  For |x| >= 4, +-1 (ErfRules).  Hard: NaN;
// results below 2^-126 through the window test (zeros stand: x times a
// positive number keeps their sign), which the rescue settles.
struct ErfCoarse : ErfRules {
  ErfcPieces pieces;

  D eval(D x) const {
    constexpr double kC1 = -0x1.812746b0379e7p-2;  // -2/(3 sqrt(pi))
    const D ax = abs_of(x);
    const D big = copy_sign(select(lt(ax, D(4.0)), D(1.0) - pieces.eval(ax), D(1.0)), x);
    return select(lt(ax, D(0x1p-13)), x * fma(x * x, D(kC1), D(kC0)), big);
  }
  static FM outside(F x) { return f32_ne(x, x); }
};

#!/usr/bin/env python
"""Coefficients and constants of the erf family's C++ float64 evaluations
(csrc/elementwise/fn/erf_family.h: erf, erfc, gelu, gelu_tanh).

* erf(z) = z P(z^2) for |z| <= 1/2: P interpolates erf(sqrt u)/sqrt u at
  Chebyshev nodes of u in [0, 1/4] (tools/cr/polyfit.py, MPFR at 2000 bits).
* erfcx(z) = e^(z^2) erfc(z) = N(z) / D(z) for z in [0, 10.5]: a rational
  function of degree (9, 10), fitted by Sanathanan-Koerner iterations with
  Lawson reweighting (mpmath, 60 digits) towards the minimax relative error.
  All its coefficients are positive, which is what bounds the rounding error
  of evaluating N and D at z >= 0 (erf_family.h).
* The constants: 1/sqrt 2, 2/sqrt pi, and sqrt(2/pi) and 0.044715 (exact
  decimal) for gelu_tanh, as float64 or float64 pairs.
* erfc's pieces (--erfc-pieces, fn/erfc_pieces.inc): erfc(c + t) on the
  sixteen pieces [i/4, (i + 1)/4] of [0, 4], c the centre, as polynomials
  in t of degree 9, near-minimax in relative error (mpmath, 60 digits).
  The coarse float64 evaluation in front of erfc and gelu
  (fn/erfc_coarse.h) needs only 2^-32 relative, which is what lets one
  short polynomial per piece replace e^(-z^2) and the rational.
* The vector rows' series (--erf-series, fn/erf_series.inc): erf(z) = z
  P(z^2) for |z| <= 2.125 and erf(x/sqrt 2) = x G(x^2) for |x| <= 3.0052,
  interpolating at Chebyshev nodes (MPFR at 2000 bits), for
  fn/erf_series.h's coarse evaluations without tables: P of degree 12 for
  erf, whose window (2^-33 relative) takes P's own relative error, and P
  and G of degree 14 for erfc and gelu, whose 1 - z P and 1/2 + x G/2
  cancel down to 2^-8.53 and 2^-9.53 and so need about 2^-42 of P and G.

Every error printed is the largest relative error over a dense grid (and, for
the rational, a finer grid around its extrema), with the coefficients rounded
to float64 as printed, in units of 2**-53 (at most one float64 ulp).

    python tools/cr/fit_erf.py          # prints the C++ initialisers (about 1 minute)
    python tools/cr/fit_erf.py --erfc-pieces > csrc/elementwise/fn/erfc_pieces.inc
    python tools/cr/fit_erf.py --erf-series > csrc/elementwise/fn/erf_series.inc
"""
import os
import sys

import gmpy2
import mpmath as mp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import polyfit  # noqa: E402  (sets gmpy2's precision to 2000 bits)

mp.mp.dps = 60

SMALL = 0.5           # erf(z) = z P(z^2) for |z| <= SMALL
SMALL_DEGREE = 9
ZMAX = 10.5           # erfcx(z) = N(z)/D(z) for 0 <= z <= ZMAX
RAT_DEGREES = (9, 10)


def erfcx(z):
    return mp.exp(z * z) * mp.erfc(z)


def rational_fit(f, a, b, p, q, nodes=300, iterations=30):
    """N/D (D(0) = 1) near-minimax in relative error on [a, b]: weighted
    linear least squares on Chebyshev nodes, the weights 1/(f D_previous)
    (Sanathanan-Koerner) times Lawson's multiplicative update; the iterate
    with the smallest maximum error is kept."""
    zs = [(a + b) / 2 + (b - a) / 2 * mp.cos(mp.pi * (2 * i + 1) / (2 * nodes)) for i in range(nodes)]
    fs = [f(z) for z in zs]
    lam = [mp.mpf(1)] * nodes
    dprev = [mp.mpf(1)] * nodes
    best = None
    for _ in range(iterations):
        rows, rhs = [], []
        for z, fv, dp, lm in zip(zs, fs, dprev, lam):
            w = mp.sqrt(lm) / (fv * dp)
            rows.append([w * z ** k for k in range(p + 1)] + [-w * fv * z ** k for k in range(1, q + 1)])
            rhs.append(w * fv)
        sol = mp.qr_solve(mp.matrix(rows), mp.matrix(rhs))[0]
        num = [sol[k] for k in range(p + 1)]
        den = [mp.mpf(1)] + [sol[p + k] for k in range(1, q + 1)]
        errs = [(mp.polyval(num[::-1], z) / mp.polyval(den[::-1], z) - fv) / fv for z, fv in zip(zs, fs)]
        dprev = [mp.polyval(den[::-1], z) for z in zs]
        worst = max(abs(e) for e in errs)
        if best is None or worst < best[0]:
            best = (worst, num, den)
        total = sum(lm * abs(e) for lm, e in zip(lam, errs))
        lam = [lm * abs(e) / total for lm, e in zip(lam, errs)]
    return best[1], best[2]


def rational_error(num, den, a, b, samples=20000):
    """Largest |N/D - erfcx| / erfcx over a uniform grid, then refined by a
    local grid around the ten worst points, in units of 2**-53."""
    num = [mp.mpf(c) for c in num]
    den = [mp.mpf(c) for c in den]

    def err(z):
        v = erfcx(z)
        return abs((mp.polyval(num[::-1], z) / mp.polyval(den[::-1], z) - v) / v)

    h = (mp.mpf(b) - a) / samples
    grid = sorted(((err(a + h * i), a + h * i) for i in range(samples + 1)), reverse=True)
    worst = grid[0][0]
    for _, z in grid[:10]:
        for j in range(-50, 51):
            t = z + h * j / 50
            if a <= t <= b:
                worst = max(worst, err(t))
    return float(worst * 2 ** 53)


def hexlist(cs, per_line=3):
    items = [f"{float(c).hex()}" for c in cs]
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return ",\n    ".join(lines)


def split(v, bits):
    """v = hi + lo with hi rounded to `bits` significant bits (gmpy2 value)."""
    with gmpy2.context(precision=bits):
        hi = +v
    return float(hi), float(v - gmpy2.mpfr(float(hi)))


def main():
    # erf(z) = z P(z^2), |z| <= 1/2
    def p_small(u):
        if u == 0:
            return 2 / gmpy2.sqrt(gmpy2.const_pi())
        z = gmpy2.sqrt(u)
        return gmpy2.erf(z) / z
    polyfit.report("erf: P(u) = erf(sqrt u) / sqrt u, u = z^2",
                   polyfit.chebyshev_fit(p_small, 0, SMALL * SMALL, SMALL_DEGREE), p_small, 0, SMALL * SMALL,
                   lambda u: 1 / p_small(u))

    num, den = rational_fit(erfcx, mp.mpf(0), mp.mpf(ZMAX), *RAT_DEGREES)
    num64 = [float(c) for c in num]
    den64 = [float(c) for c in den]
    assert min(num64) > 0 and min(den64) > 0, "the error bound needs positive coefficients"
    e = rational_error(num64, den64, 0, ZMAX)
    print(f"// erfcx(z) = N(z)/D(z) on [0, {ZMAX}], degrees {RAT_DEGREES}: approximation error {e:.3g} "
          "units of 2^-53 (coefficients as printed)")
    print(f"constexpr double kErfcxN[{len(num64)}] = {{\n    {hexlist(num64)}}};")
    print(f"constexpr double kErfcxD[{len(den64)}] = {{\n    {hexlist(den64)}}};")

    with gmpy2.context(precision=600):
        pi = gmpy2.const_pi()
        r2 = gmpy2.sqrt(gmpy2.mpfr(2))
        c = gmpy2.sqrt(2 / pi)
        kappa = gmpy2.mpfr(44715) / 1000000
        a = 2 * c
        b = 2 * c * kappa
        print("// constants")
        print(f"1/sqrt(2) = {float(1 / r2).hex()}; 29-bit split {[v.hex() for v in split(1 / r2, 29)]}")
        print(f"2/sqrt(pi) = {float(2 / gmpy2.sqrt(pi)).hex()}")
        ah = float(a)
        bh = float(b)
        print(f"A = 2 sqrt(2/pi) = {ah.hex()} + {float(a - gmpy2.mpfr(ah)).hex()}")
        print(f"B = 2 sqrt(2/pi) 0.044715 = {bh.hex()} + {float(b - gmpy2.mpfr(bh)).hex()}")


# erfc's pieces: PIECES pieces of width 1/PER_UNIT from 0, degree PIECE_DEGREE.
PIECES, PER_UNIT, PIECE_DEGREE = 16, 4, 9
PIECE_BOUND = 2.0 ** -33.5  # the relative approximation error fn/erfc_coarse.h budgets for


def relative_fit(f, lo, hi, degree, nodes=120, iterations=25):
    """Coefficients of p(t), t = z - (lo + hi)/2, near-minimax in relative
    error on [lo, hi]: least squares weighted by 1/f on Chebyshev nodes with
    Lawson's multiplicative update (the iterate of smallest maximum error)."""
    c = (lo + hi) / 2
    ts = [(hi - lo) / 2 * mp.cos(mp.pi * (2 * i + 1) / (2 * nodes)) for i in range(nodes)]
    fs = [f(c + t) for t in ts]
    lam = [mp.mpf(1) / nodes] * nodes
    best = None
    for _ in range(iterations):
        rows = [[mp.sqrt(lm) * t ** k / fv for k in range(degree + 1)] for t, fv, lm in zip(ts, fs, lam)]
        coeffs = mp.qr_solve(mp.matrix(rows), mp.matrix([mp.sqrt(lm) for lm in lam]))[0]
        errs = [abs(mp.polyval(list(coeffs)[::-1], t) / fv - 1) for t, fv in zip(ts, fs)]
        if best is None or max(errs) < best[0]:
            best = (max(errs), [coeffs[k] for k in range(degree + 1)])
        total = sum(lm * e for lm, e in zip(lam, errs))
        lam = [lm * e / total for lm, e in zip(lam, errs)]
    return best[1]


def piece_error(coeffs, centre, samples=512):
    """Largest |p(t) - erfc(c + t)| / erfc(c + t) over a uniform grid of the
    piece, with the coefficients as given (float64)."""
    cs = [mp.mpf(c) for c in coeffs][::-1]
    half = mp.mpf(1) / (2 * PER_UNIT)
    return max(abs(mp.polyval(cs, t) / mp.erfc(centre + t) - 1)
               for t in (-half + 2 * half * i / samples for i in range(samples + 1)))


def erfc_pieces():
    print("// Generated by tools/cr/fit_erf.py --erfc-pieces; do not edit.")
    print(f"// erfc(c + t) = sum_k P[k][i] t^k on piece i, c = (i + 1/2)/{PER_UNIT}, |t| <= 1/{2 * PER_UNIT}:")
    print(f"// degree {PIECE_DEGREE}, near-minimax relative error (Lawson), coefficients rounded to float64.")
    rows, errors = [], []
    for i in range(PIECES):
        lo, hi = mp.mpf(i) / PER_UNIT, mp.mpf(i + 1) / PER_UNIT
        cs = [float(c) for c in relative_fit(mp.erfc, lo, hi, PIECE_DEGREE)]
        err = piece_error(cs, (lo + hi) / 2)
        assert err <= PIECE_BOUND, f"piece {i}: error 2^{float(mp.log(err, 2)):.2f} above the budget"
        errors.append(f"{float(mp.log(err, 2)):.1f}")
        rows.append(cs)
    print(f"// Relative approximation error per piece (log2, on a grid of 513 points): {', '.join(errors)}.")
    for k in range(PIECE_DEGREE + 1):
        print("{" + ", ".join(row[k].hex() for row in rows) + "},")


# The series: erf(z) = z P(z^2) for |z| <= SERIES_Z, in z^2; gelu's G(v) =
# erf(sqrt(v/2))/sqrt v, the same function of x = z sqrt 2.  Each table's
# degree, and the relative approximation error fn/erf_series.h budgets for.
SERIES_Z = 2.125
SERIES = (("kErfSeries", "P", 12, 2.0 ** -35.5), ("kErfcSeries", "P", 14, 2.0 ** -43.0),
          ("kGeluSeries", "G", 14, 2.0 ** -43.0))


def erf_series():
    print("// Generated by tools/cr/fit_erf.py --erf-series; do not edit.")
    print("// Interpolating at Chebyshev nodes in u, coefficients rounded to float64; the largest")
    print("// relative error against P or G on a grid of 4001 points, with the coefficients as printed:")
    sqrt2 = gmpy2.sqrt(gmpy2.mpfr(2))

    def p_erf(u):  # erf(sqrt u) / sqrt u
        return 2 / gmpy2.sqrt(gmpy2.const_pi()) if u == 0 else gmpy2.erf(gmpy2.sqrt(u)) / gmpy2.sqrt(u)

    def p_gelu(v):  # erf(sqrt(v/2)) / sqrt v
        return gmpy2.sqrt(2 / gmpy2.const_pi()) if v == 0 else gmpy2.erf(gmpy2.sqrt(v) / sqrt2) / gmpy2.sqrt(v)

    functions = {"P": (p_erf, SERIES_Z ** 2), "G": (p_gelu, 2 * SERIES_Z ** 2)}
    for name, which, degree, bound in SERIES:
        g, hi = functions[which]
        cs = [float(c) for c in polyfit.chebyshev_fit(g, 0, hi, degree)]
        worst = max(abs(polyfit.horner([gmpy2.mpfr(c) for c in cs], u) / g(u) - 1)
                    for u in (gmpy2.mpfr(hi) * i / 4000 for i in range(4001)))
        assert worst <= bound, f"{name}: error 2^{float(gmpy2.log2(worst)):.2f} above the budget"
        print(f"// {name}: {which} of degree {degree}, u in [0, {hi}], 2^{float(gmpy2.log2(worst)):.2f}")
        print(f"constexpr double {name}[{len(cs)}] = {{\n    {hexlist(cs, 4)}}};")


if __name__ == "__main__":
    if "--erfc-pieces" in sys.argv:
        erfc_pieces()
    elif "--erf-series" in sys.argv:
        erf_series()
    else:
        main()

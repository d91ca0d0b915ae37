#!/usr/bin/env python
"""Polynomial coefficients of the C++ float64 evaluations (csrc/elementwise/fn/).

Each polynomial interpolates a smooth remainder function at Chebyshev nodes,
computed with MPFR at 2000 bits, then rounds the coefficients to float64.
The printed error is the maximum over a dense grid of |p - g| relative to
the final function value, in units of 2**-53 (that is, float64 ulps); it
is the approximation part of each function's error bound in
docs/elementwise.md.  The exhaustive verifier measures the whole
evaluation's error over all 2**32 inputs.

    python tools/cr/polyfit.py            # prints every polynomial
    python tools/cr/polyfit.py --log-table > csrc/elementwise/fn/log_table.inc
    python tools/cr/polyfit.py --log-pieces > csrc/elementwise/fn/log_pieces.inc
    python tools/cr/polyfit.py --exp-table > csrc/elementwise/fn/exp_table.inc
    python tools/cr/polyfit.py --exp-table-f32 > csrc/elementwise/fn/exp_table_f32.inc
    python tools/cr/polyfit.py --sincos-table > csrc/elementwise/fn/sincos_table.inc
    python tools/cr/polyfit.py --log-table-f32 > csrc/elementwise/fn/log_table_f32.inc
"""
import struct
import sys

import gmpy2
from gmpy2 import mpfr

gmpy2.get_context().precision = 2000


def solve(a, b):
    n = len(b)
    a = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(a[r][c]))
        a[c], a[p] = a[p], a[c]
        for r in range(n):
            if r != c and a[r][c] != 0:
                f = a[r][c] / a[c][c]
                a[r] = [x - f * y for x, y in zip(a[r], a[c])]
    return [a[i][n] / a[i][i] for i in range(n)]


def chebyshev_fit(g, lo, hi, degree):
    lo, hi = mpfr(lo), mpfr(hi)
    n = degree + 1
    pi = gmpy2.const_pi()
    nodes = [(lo + hi) / 2 + (hi - lo) / 2 * gmpy2.cos((2 * j + 1) * pi / (2 * n)) for j in range(n)]
    nodes = [t if abs(t) > mpfr("1e-100") else mpfr("1e-100") for t in nodes]
    rows = [[t ** i for i in range(n)] for t in nodes]
    return solve(rows, [g(t) for t in nodes])


def horner(cs, t):
    acc = mpfr(0)
    for c in reversed(cs):
        acc = acc * t + c
    return acc


def report(label, coeffs, g, lo, hi, weight, samples=4000):
    """coeffs rounded to float64; error max |p(t) - g(t)| * weight(t) / 2**-53."""
    cs = [float(c) for c in coeffs]
    worst = mpfr(0)
    for i in range(samples + 1):
        t = mpfr(lo) + (mpfr(hi) - mpfr(lo)) * i / samples
        if t == 0:
            continue
        err = abs(horner([mpfr(c) for c in cs], t) - g(t)) * weight(t)
        worst = max(worst, err)
    print(f"// {label}: degree {len(cs) - 1} on [{lo}, {hi}], approximation error "
          f"{float(worst * 2 ** 53):.3g} ulp")
    for i, c in enumerate(cs):
        print(f"  {c.hex()},  // c{i}")
    return cs


LN2 = gmpy2.log(2)


def main():
    a = 0.3466  # > ln2/2 + margin for the rounded k
    # exp(r) = 1 + r + r^2 Q(r)
    def q_exp(t):
        return (gmpy2.exp(t) - 1 - t) / (t * t)
    report("exp: Q(r) = (e^r - 1 - r) / r^2", chebyshev_fit(q_exp, -a, a, 9), q_exp, -a, a,
           lambda t: t * t / gmpy2.exp(t))
    # exp's table route: e^r = 1 + r + r^2 Q(r) on |r| <= ln2/64 (+ margin
    # for the rounded k), after the 32-entry table of 2^(j/32).
    a32 = 0.01084
    report("exp (table of 32): Q(r) = (e^r - 1 - r) / r^2", chebyshev_fit(q_exp, -a32, a32, 3), q_exp, -a32, a32,
           lambda t: t * t / gmpy2.exp(t))
    # log1p(r) = r - r^2/2 + r^3 L(r),  |r| <= 2^-8.4 (table of 128)
    b = 0.00391  # 2^-8: the widest reduced argument of the 128-entry table
    def l_log(t):
        return (gmpy2.log1p(t) - t + t * t / 2) / t ** 3
    report("log: L(r) = (log1p(r) - r + r^2/2) / r^3", chebyshev_fit(l_log, -b, b, 3), l_log, -b, b,
           lambda t: abs(t ** 3 / gmpy2.log1p(t)))
    # the coarse log's 16 pieces (fn/log_coarse.h): the same form on their
    # reduced arguments, to 2^-34 relative and not 2^-53.
    lo16, hi16 = log_pieces_range()
    report("log (16 pieces): L(r) = (log1p(r) - r + r^2/2) / r^3", chebyshev_fit(l_log, lo16, hi16, 3), l_log,
           lo16, hi16, lambda t: abs(t ** 3 / gmpy2.log1p(t)))
    # sin(r) = r + r^3 S(r^2), cos(r) = 1 - r^2/2 + r^4 C(r^2), |r| <= pi/4 + margin
    z = 0.6170  # (pi/4)^2 = 0.61685
    def s_sin(u):
        s = gmpy2.sqrt(u)
        return (gmpy2.sin(s) - s) / (s * u)
    def c_cos(u):
        return (gmpy2.cos(gmpy2.sqrt(u)) - 1 + u / 2) / (u * u)
    report("sin: S(z) = (sin(r) - r) / r^3, z = r^2", chebyshev_fit(s_sin, 0, z, 5), s_sin, 0, z,
           lambda u: abs(gmpy2.sqrt(u) * u / gmpy2.sin(gmpy2.sqrt(u))))
    report("cos: C(z) = (cos(r) - 1 + r^2/2) / r^4, z = r^2", chebyshev_fit(c_cos, 0, z, 5), c_cos, 0, z,
           lambda u: abs(u * u / gmpy2.cos(gmpy2.sqrt(u))))


# The log family's table: z in [OFF, 2*OFF) (OFF = 0x3fe6b00000000000 =
# 0.708984375) is cut into 128 pieces by bits 45..51 of bits(z) - OFF; piece
# 74 is [1 - 2^-9, 1 + 2^-8), centred on 1 in the bit domain, so that near
# x = 1 the table adds exactly 0 and nothing cancels.  c_i ~ 1/centre_i
# (exactly 1 for piece 74), r = z*c_i - 1 has |r| <= 2^-8, and
# log(z) = -log(c_i) + log1p(r).
LOG_OFF = 0x3FE6B00000000000
LOG_ONE_INDEX = 74


def _d(b):
    return struct.unpack("<d", struct.pack("<Q", b))[0]


def log_table():
    print("// Generated by tools/cr/polyfit.py --log-table; do not edit.")
    print("// Per piece i: c_i (~1/centre), -ln(c_i), -log2(c_i), -log10(c_i), each rounded to float64.")
    for i in range(128):
        lo, hi = _d(LOG_OFF + i * 2 ** 45), _d(LOG_OFF + (i + 1) * 2 ** 45)
        c = 1.0 if i == LOG_ONE_INDEX else float(2 / (mpfr(lo) + mpfr(hi)))
        mc = mpfr(c)
        vals = [c, float(-gmpy2.log(mc)) + 0.0, float(-gmpy2.log2(mc)) + 0.0, float(-gmpy2.log10(mc)) + 0.0]
        print("{" + ", ".join(v.hex() for v in vals) + "},")


# The coarse log's table (fn/log_coarse.h): z in [OFF16, 2*OFF16) (OFF16 =
# 0x3fe6800000000000 = 0.703125) is cut into 16 pieces by bits 48..51 of
# bits(z) - OFF16; piece 9 is [1 - 2^-6, 1 + 2^-5), centred on 1 in the bit
# domain, with c = 1.
LOG16_OFF = 0x3FE6800000000000
LOG16_ONE_INDEX = 9


def _log_pieces():
    """(lo, hi, c) of each of the 16 pieces."""
    out = []
    for i in range(16):
        lo, hi = _d(LOG16_OFF + i * 2 ** 48), _d(LOG16_OFF + (i + 1) * 2 ** 48)
        out.append((lo, hi, 1.0 if i == LOG16_ONE_INDEX else float(2 / (mpfr(lo) + mpfr(hi)))))
    return out


def log_pieces_range():
    """The reduced arguments' extent, r = z c - 1 over every piece."""
    rs = [mpfr(z) * mpfr(c) - 1 for lo, hi, c in _log_pieces() for z in (lo, hi)]
    return min(rs), max(rs)


def log_pieces():
    print("// Generated by tools/cr/polyfit.py --log-pieces; do not edit.")
    print("// Rows c_i (~1/centre, 1 for piece 9), -ln(c_i), each rounded to float64.")
    cs = [c for _, _, c in _log_pieces()]
    rows = [cs, [float(-gmpy2.log(mpfr(c))) + 0.0 for c in cs]]
    for row in rows:
        print("{" + ", ".join(v.hex() for v in row) + "},")


# exp's table: 2^(j/32), j = 0..31, each rounded to float64 (error <= 2^-53
# relative, part of exp's bound).
def exp_table():
    print("// Generated by tools/cr/polyfit.py --exp-table; do not edit.")
    print("// 2^(j/32) for j = 0..31, rounded to float64.")
    for j in range(32):
        print(float(gmpy2.exp2(mpfr(j) / 32)).hex() + ",")


def _f32(v):
    """v rounded once to 24 bits, nearest-even (a float32 for the normal v here)."""
    with gmpy2.context(gmpy2.get_context(), precision=24):
        return +v


def f32_split(v):
    """(hi, lo): hi = v rounded to float32, lo = v - hi rounded to float32."""
    hi = _f32(v)
    return hi, _f32(v - hi)


# The float32 exp of the vector rows (fn/exp_f32.h): 2^(j/32) as hi + lo float32
# pairs (|2^(j/32) - hi - lo| <= 2^-49), and the split of ln2/32 it reduces
# with.
def exp_table_f32():
    print("// Generated by tools/cr/polyfit.py --exp-table-f32; do not edit.")
    print("// {hi[0..31]}, {lo[0..31]}: 2^(j/32) = hi + lo + e, |e| <= 2^-49, float32 each.")
    pairs = [f32_split(gmpy2.exp2(mpfr(j) / 32)) for j in range(32)]
    for j, (hi, lo) in enumerate(pairs):
        assert abs(gmpy2.exp2(mpfr(j) / 32) - hi - lo) <= mpfr(2) ** -49
    for part in (0, 1):
        print("{" + ", ".join(float(p[part]).hex() + "f" for p in pairs) + "},")
    c1, c2 = f32_split(gmpy2.log(2) / 32)
    print(f"// ln2/32 = C1 + C2 + e: C1 = {float(c1).hex()}, C2 = {float(c2).hex()}, "
          f"|e| = 2^{float(gmpy2.log2(abs(gmpy2.log(2) / 32 - c1 - c2))):.1f}")


# The coarse sin and cos's table (fn/sincos_coarse.h): sin(j pi/16),
# cos(j pi/16) and -sin(j pi/16) for j = 0..15, each rounded to float64
# (cos x reads the last two as sin x reads the first two).  The zeros (sin 0,
# cos(pi/2)) are exact, which the coarse evaluation's relative bound near
# the functions' own zeros rests on.
def sincos_table():
    print("// Generated by tools/cr/polyfit.py --sincos-table; do not edit.")
    print("// Rows sin(j pi/16), cos(j pi/16), -sin(j pi/16) for j = 0..15, rounded to float64 (the zeros exact).")
    angles = [gmpy2.const_pi() * j / 16 for j in range(16)]
    for g in (gmpy2.sin, gmpy2.cos, lambda a: -gmpy2.sin(a)):
        print("{" + ", ".join((float(g(a)) + 0.0).hex() for a in angles) + "},")


# The float32 log of the AVX-512 row (fn/log_f32.h): z in [OFF32, 2 OFF32)
# (OFF32 = 0x3f3e0000 = 0.7421875) is cut into 32 pieces by bits 18..22 of
# bits(z) - OFF32; piece 16 is [1 - 2^-7, 1 + 2^-6), centred on 1 in the bit
# domain, with c = 1.  Each other c_i is the dyadic (on a 2^-q grid, q
# from 2 to 11, one of the three nearest 2 / (lo + hi)) that minimises max
# |z c_i - 1| over the piece while keeping z c_i - 1 a float32: z is a
# multiple of 2^-24 below 1 and of 2^-23 above, so z c_i - 1 is a multiple
# of 2^-(24 + q) or 2^-(23 + q), and 24 bits hold it while |z c_i - 1| <
# 2^-q or 2^(1-q).  Then r = fl(z c_i - 1) (one fma) is exact.
LOG32_OFF = 0x3F3E0000
LOG32_ONE_INDEX = 16


def _f(b):
    return struct.unpack("<f", struct.pack("<I", b))[0]


def _log32_pieces():
    """(lo, hi, c, max |r|) of each of the 32 pieces (hi: the largest float in it)."""
    out = []
    for i in range(32):
        lo, hi = _f(LOG32_OFF + i * 2 ** 18), _f(LOG32_OFF + (i + 1) * 2 ** 18 - 1)
        if i == LOG32_ONE_INDEX:
            out.append((lo, hi, 1.0, max(abs(mpfr(lo) - 1), abs(mpfr(hi) - 1))))
            continue
        unit = 24 if hi < 1 else 23  # z's grid: 2^-unit
        best = None
        for q in range(2, 12):
            centre = round(2 / (mpfr(lo) + mpfr(hi)) * 2 ** q)
            for c in ((centre + d) / 2 ** q for d in (-1, 0, 1)):
                worst = max(abs(mpfr(lo) * c - 1), abs(mpfr(hi) * c - 1))
                if worst < mpfr(2) ** (24 - unit - q) and (best is None or worst < best[1]):
                    best = (c, worst)
        out.append((lo, hi, best[0], best[1]))
    return out


def _split15(v):
    """(hi, lo): hi = v rounded to 15 significant bits, lo = v - hi rounded to
    float32.  E hi is then exact for every |E| <= 149 (8 bits), the
    subnormals' E included."""
    e = int(gmpy2.floor(gmpy2.log2(abs(v))))
    hi = mpfr(round(v * 2 ** (14 - e))) / 2 ** (14 - e)
    return hi, _f32(v - hi)


# The three bases of the float32 log (fn/log_f32.h): ln, log2, log10.  Per
# base: T_i = -log_b(c_i) as a float32 pair, L_b(r) = (log1p(r) - r +
# r^2/2) / (r^3 ln b), log_b(2) as hi (15 bits) + lo, and 1/ln b as a
# float32 pair (1 and 0 for ln, whose s needs no scaling).
LOG32_BASES = [("ln", gmpy2.log), ("log2", gmpy2.log2), ("log10", gmpy2.log10)]


def log_table_f32():
    pieces = _log32_pieces()
    rmax = max(w for *_, w in pieces)
    print("// Generated by tools/cr/polyfit.py --log-table-f32; do not edit.")
    print(f"// c_i (1 for piece {LOG32_ONE_INDEX}; |r| <= 2^{float(gmpy2.log2(rmax)):.2f}); then per base (ln, log2, "
          f"log10): T_i = -log_b(c_i) as hi + lo,")
    print("// L_b(r) = (log1p(r) - r + r^2/2) / (r^3 ln b) of degree 3 (its error reaches the result times r^3 / (3 ln "
          "x) <= 2^-13.4),")
    print("// log_b(2) as hi (15 bits) + lo, 1/ln b as hi + lo; all float32.")
    print("{" + ", ".join((float(c) + 0.0).hex() + "f" for _, _, c, _ in pieces) + "},")
    rows = []
    for name, log_b in LOG32_BASES:
        ln_b = gmpy2.log(2) / log_b(mpfr(2))

        def l_log(t):
            return (gmpy2.log1p(t) - t + t * t / 2) / (t ** 3 * ln_b)
        coeffs = [_f32(c) for c in chebyshev_fit(l_log, -rmax, rmax, 3)]
        worst = max(abs(horner(coeffs, t) / l_log(t) - 1)
                    for t in (rmax * (2 * k - 400) / 400 for k in range(401)) if t != 0)
        print(f"// {name}: L relative error 2^{float(gmpy2.log2(worst)):.1f}")
        t = [f32_split(-log_b(mpfr(c))) for _, _, c, _ in pieces]
        k = (mpfr(1), mpfr(0)) if name == "ln" else f32_split(1 / ln_b)
        parts = [[h for h, _ in t], [l for _, l in t], coeffs, _split15(log_b(mpfr(2))), k]
        rows.append("{" + ", ".join("{" + ", ".join((float(v) + 0.0).hex() + "f" for v in part) + "}"
                                    for part in parts) + "}")
    print("{" + ",\n ".join(rows) + "},")


if __name__ == "__main__":
    if "--log-table" in sys.argv:
        log_table()
    elif "--log-pieces" in sys.argv:
        log_pieces()
    elif "--exp-table-f32" in sys.argv:
        exp_table_f32()
    elif "--exp-table" in sys.argv:
        exp_table()
    elif "--log-table-f32" in sys.argv:
        log_table_f32()
    elif "--sincos-table" in sys.argv:
        sincos_table()
    else:
        main()

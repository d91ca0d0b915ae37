"""Float64 scalar math with the same bits on every machine: the per-step
scalars of optimizers and learning-rate schedules (CONTRACT.md,
"Optimizers" and "Learning-rate schedules").

Python floats are IEEE-754 doubles and CPython rounds ``+ - * /`` and
``math.sqrt`` correctly, on every platform, with no contraction into fma.
``math.pow``, ``**`` on floats, ``math.cos`` and ``math.exp`` come from the
C library, whose last bit differs between glibc, musl, macOS and Windows
(and between releases), so they are never used for a number that reaches
a parameter.  What replaces them is written here, with a fixed order of
operations.
"""
import math

__all__ = ["powi", "cospi"]


def powi(x: float, n: int) -> float:
    """x**n for an integer n >= 0 by right-to-left binary exponentiation:
    ``r = 1; while n: (if n odd: r = r * x); n //= 2; (if n: x = x * x)``.
    Each product is one float64 rounding: at most 2*log2(n) of them, and
    the same bits everywhere.  (Squaring doubles the relative error it
    carries, so the result is within about n/2 ulps of x^n.)"""
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"powi: the exponent must be an integer >= 0, got {n!r}")
    x = float(x)
    result = 1.0
    while n:
        if n & 1:
            result = result * x
        n >>= 1
        if n:
            x = x * x
    return result


# Taylor coefficients of cos(pi r) and sin(pi r) in powers of r: the
# float64 values nearest to (-1)^k pi^(2k) / (2k)! and (-1)^k pi^(2k+1) /
# (2k+1)!, k = 0..8 (checked against MPFR by tests/test_float64.py).  On
# |r| <= 1/4 the first omitted terms are below 2^-58 relative.
_COS = tuple(float.fromhex(h) for h in (
    "0x1.0000000000000p+0", "-0x1.3bd3cc9be45dep+2", "0x1.03c1f081b5ac4p+2", "-0x1.55d3c7e3cbffap+0",
    "0x1.e1f506891babbp-3", "-0x1.a6d1f2a204a8cp-6", "0x1.f9d38a3763cc3p-10", "-0x1.b6e24f44b128fp-14",
    "0x1.20c62c2f2d7f5p-18"))
_SIN = tuple(float.fromhex(h) for h in (
    "0x1.921fb54442d18p+1", "-0x1.4abbce625be53p+2", "0x1.466bc6775aae2p+1", "-0x1.32d2cce62bd86p-1",
    "0x1.50783487ee782p-4", "-0x1.e3074fde8871fp-8", "0x1.e8f434d018d63p-12", "-0x1.6fadb9f155744p-16",
    "0x1.aaec32af93359p-21"))


def _horner(coefficients, z):
    """c0 + z*(c1 + z*(c2 + ...)), innermost first."""
    acc = coefficients[-1]
    for c in reversed(coefficients[:-1]):
        acc = acc * z + c
    return acc


def cospi(x: float) -> float:
    """cos(pi * x), within 2 float64 ulps (tests/test_float64.py measures
    the error against MPFR), the same bits everywhere.

    The reduction is exact: |x| mod 2 (``math.fmod`` is exact), then
    cos(pi x) = cos(pi (2 - x)) on (1, 2], = -cos(pi (1 - x)) on (1/2, 1],
    = sin(pi (1/2 - x)) on (1/4, 1/2]; each of those subtractions is exact
    by Sterbenz's lemma.  What is left, r in [0, 1/4], goes through the
    degree-16 Taylor polynomial of cos(pi r) or r times that of
    sin(pi r) / r, in Horner form in r^2."""
    x = float(x)
    if not math.isfinite(x):
        return math.nan
    x = math.fmod(abs(x), 2.0)
    if x > 1.0:
        x = 2.0 - x
    sign = 1.0
    if x > 0.5:
        x, sign = 1.0 - x, -1.0
    if x > 0.25:
        r = 0.5 - x
        return sign * (r * _horner(_SIN, r * r))
    return sign * _horner(_COS, x * x)

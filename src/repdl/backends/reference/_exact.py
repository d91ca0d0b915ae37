"""Correctly rounded float32 arithmetic written with float64 PyTorch ops.

This is what lets the reference backend be exact by construction on any
device whose float64 arithmetic is IEEE-754 (CPU, CUDA, MPS-less others):

* ``+ - * /`` and ``sqrt`` of float32 operands are computed in float64 and
  rounded once more to float32 (``sqrt32`` explains why an ulp of float64
  error is harmless there).  Because 53 >= 2*24 + 2, this double rounding
  is innocuous: the result is the correctly rounded float32 value (Figueroa,
  "When is double rounding innocuous?", SIGNUM 1995).
* ``fma32`` needs more: a*b is exact in float64 (24+24 bits), but a*b + c is
  not.  TwoSum gives the exact error e of s = fl64(a*b + c); nudging s to its
  odd neighbour when e != 0 makes it the *round-to-odd* value of a*b + c, and
  rounding a round-to-odd value of precision >= p+2 to precision p equals
  rounding the exact value (Boldo and Melquiond, "Emulation of FMA and
  correctly rounded sums: proved algorithms using rounding to odd", IEEE TC
  2008).

Every result NaN is replaced by the canonical quiet NaN (0x7FC00000), as the
contract requires of every op.
"""
import torch

__all__ = ["f64", "round32", "canonical_nan", "fma32", "fma32_raw", "add32", "sub32", "mul32", "div32", "sqrt32"]

CANONICAL_NAN = float("nan")  # torch materialises float('nan') as 0x7FC00000


def f64(x):
    return x.to(torch.float64)


def canonical_nan(x):
    """x with every NaN replaced by the canonical quiet NaN."""
    return torch.where(torch.isnan(x), torch.full_like(x, CANONICAL_NAN), x)


def round32(x64):
    """float64 -> float32, round to nearest even, NaN canonical."""
    return canonical_nan(x64.to(torch.float32))


def _round_to_odd_sum(p, c):
    """Round-to-odd float64 value of p + c (p, c float64 with p + c finite)."""
    s = p + c
    # TwoSum (Knuth): e is exactly (p + c) - s when s is finite.
    pp = s - c
    e = (p - pp) + (c - (s - pp))
    bits = s.view(torch.int64)
    inexact_even = (e != 0) & ((bits & 1) == 0) & torch.isfinite(s)
    # The exact value lies strictly between s and its neighbour towards e;
    # of those two, s is even, so the odd one is that neighbour.  Its bit
    # pattern is one step away: +1 when e pushes |s| up, -1 when down.
    step = torch.where((e > 0) == (s > 0), 1, -1)
    return torch.where(inexact_even, bits + step, bits).view(torch.float64)


def fma32_raw(a64, b64, c64):
    """float32 fma of float64-held float32 values, NaN left as is (for loops
    that canonicalise once at the end)."""
    return _round_to_odd_sum(a64 * b64, c64).to(torch.float32)


def fma32(a, b, c):
    """round32(a*b + c) with a single rounding; a, b, c float32, broadcast."""
    return canonical_nan(fma32_raw(f64(a), f64(b), f64(c)))


def add32(a, b):
    return round32(f64(a) + f64(b))


def sub32(a, b):
    return round32(f64(a) - f64(b))


def mul32(a, b):
    return round32(f64(a) * f64(b))


def div32(a, b):
    return round32(f64(a) / f64(b))


def sqrt32(a):
    """Correctly rounded float32 sqrt.  torch.sqrt on float32 is not (about
    17% of inputs differ on AVX2/AVX-512 CPUs), and on float64 it may be off
    by an ulp; that is still enough here: for a float32 x, sqrt(x) is never
    within 2^-50 relative of a float32 midpoint m (x = m*m would need 49 bits),
    so a float64 value within an ulp rounds to the correct float32."""
    return round32(torch.sqrt(f64(a)))

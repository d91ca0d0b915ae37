"""Python numbers entering float32 computations: ``fl32`` (docs/CONTRACT.md,
section 1), the one place where a Python number becomes a float32.

Every op rounds a Python number once, to nearest even, from its exact value:
an ``int`` of any size is never converted to float64 first (``float(2**60 +
2**36 + 1)`` would round it once to 53 bits, then again to 24), and nothing
here goes through a float arithmetic instruction whose result could be
subnormal, so ``torch.set_flush_denormal(True)`` cannot flush a parameter
such as ``1e-40`` to zero.  ``tensor32`` makes a 0-d float32 tensor from
those bits through an integer tensor, for the same reason.
"""
import math
import numbers
import struct
from fractions import Fraction

import torch

__all__ = ["fl32", "bits32", "tensor32", "float_of_bits"]

_MIN_NORMAL32 = 2.0 ** -126
_MAX_EXACT_INT = 1 << 24
_HALF_MIN_SUBNORMAL = 2.0 ** -150  # midpoint between 0 and 2**-149: rounds to 0 (even)


def _round_ratio(num: int, den: int) -> float:
    """fl32 of the positive rational num / den, exactly (ties to even,
    +inf from the overflow midpoint up)."""
    E = num.bit_length() - den.bit_length()  # num/den in [2**(E-1), 2**(E+1))
    if (num << max(-E, 0)) < (den << max(E, 0)):
        E -= 1  # now 2**E <= num/den < 2**(E+1)
    e = max(E - 23, -149)  # the float32 grid spacing there is 2**e
    n, d = (num, den << e) if e >= 0 else (num << -e, den)
    q, r = divmod(n, d)
    if 2 * r > d or (2 * r == d and q & 1):
        q += 1
    if q.bit_length() - 1 + e >= 128:
        return math.inf
    return math.ldexp(q, e)  # q <= 2**24: exact


def fl32(v) -> float:
    """The float32 value nearest to the real number ``v`` (ties to even;
    beyond the float32 range, +-inf), held in a Python float.

    ``v`` is a Python ``int`` (any size), ``float``, ``bool`` or another
    ``numbers.Real`` (numpy scalars, ``Fraction``); each is rounded once
    from its exact value."""
    if type(v) is float:
        if _MIN_NORMAL32 <= abs(v) < math.inf:
            try:  # a normal result: one IEEE conversion, which FTZ cannot touch
                return struct.unpack("<f", struct.pack("<f", v))[0]
            except OverflowError:
                return math.copysign(math.inf, v)
        if v != v:
            return math.nan  # the canonical NaN: its float32 bits are 0x7FC00000
        if abs(v) == math.inf:
            return v
        if abs(v) <= _HALF_MIN_SUBNORMAL:
            return math.copysign(0.0, v)
        # 2**-150 < |v| < 2**-126: the float32 grid is 2**-149.  Scaling by a
        # power of two is exact (the scaled value is a normal float64), and
        # round() rounds half to even exactly.
        return math.copysign(round(abs(v) * 2.0 ** 149) * 2.0 ** -149, v)
    if isinstance(v, bool):
        return 1.0 if v else 0.0
    if isinstance(v, int):
        if -_MAX_EXACT_INT <= v <= _MAX_EXACT_INT:
            return float(v)
        r = _round_ratio(abs(v), 1)
        return -r if v < 0 else r
    if isinstance(v, numbers.Rational):
        f = Fraction(v)
        if f == 0:
            return 0.0
        r = _round_ratio(abs(f.numerator), f.denominator)
        return -r if f < 0 else r
    if isinstance(v, numbers.Real):
        return fl32(float(v))  # numpy floating scalars: float() is exact for <= 64-bit formats
    raise TypeError(f"expected a real number, got {type(v).__name__}")


def bits32(v: float) -> int:
    """Bit pattern (unsigned) of a float32 value held in a Python float."""
    if v != 0.0 and abs(v) < _MIN_NORMAL32 and v == v:
        # a subnormal: its bits from the exact multiple of 2**-149
        mag = int(round(abs(v) * 2.0 ** 149))
        return mag | (0x80000000 if v < 0 else 0)
    return struct.unpack("<I", struct.pack("<f", v))[0]


def float_of_bits(b: int) -> float:
    """The float32 with bit pattern ``b``, as a Python float (exact)."""
    exp, mant = (b >> 23) & 0xFF, b & 0x7FFFFF
    if exp == 0:
        return math.copysign(mant * 2.0 ** -149, -1.0 if b >> 31 else 1.0)
    return struct.unpack("<f", struct.pack("<I", b))[0]


def tensor32(v: float, device=None) -> torch.Tensor:
    """0-d float32 tensor holding the float32 value ``v`` (a Python float
    that is already a float32 value) with its exact bits."""
    b = bits32(v)
    return torch.tensor(b - (1 << 32) if b >= 1 << 31 else b, dtype=torch.int32, device=device).view(torch.float32)

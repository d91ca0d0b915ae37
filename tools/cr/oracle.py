"""MPFR (gmpy2) oracle: the correctly rounded float32 value of f(x).

f(x) is computed at 256 bits, then rounded to binary32 (24 bits, subnormals
and overflow as IEEE-754, ties to even).  As a cross-check MPFR also rounds
f(x) directly to 24 bits (MPFR functions are correctly rounded at every
precision); the two must agree, which rules out a 256-bit value that lands
exactly on a midpoint (double rounding).
"""
import math
import struct

import gmpy2

CTX_WIDE = gmpy2.context(precision=256, emin=-100000, emax=100000)
CTX_F32 = gmpy2.context(precision=24, emin=-148, emax=128, subnormalize=True)
CANONICAL_NAN = 0x7FC00000


def f32(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]


def bits32(v: float) -> int:
    if math.isnan(v):
        return CANONICAL_NAN
    return struct.unpack("<I", struct.pack("<f", v))[0]


def settle(fn, xbits: int) -> int:
    """Bit pattern of fl32(fn(x)) for the float32 x with bit pattern xbits
    (finite x; fn a gmpy2 function)."""
    x = f32(xbits)
    with CTX_WIDE:
        wide = fn(gmpy2.mpfr(x))
    with CTX_F32:
        r = +wide
        direct = fn(gmpy2.mpfr(x))
    a, b = float(r), float(direct)
    if bits32(a) != bits32(b):
        raise ArithmeticError(f"MPFR cross-check failed for x = {x!r} (0x{xbits:08x}): {a!r} vs {b!r}")
    if a == 0.0 and math.copysign(1.0, a) != math.copysign(1.0, b):
        raise ArithmeticError(f"MPFR sign of zero disagrees for x = {x!r}")
    return bits32(a)

"""fl32 of Python numbers (contract section 1): every Python number that
enters a float32 computation is rounded once, from its exact value, to the
nearest float32 (ties to even) -- ints of any size never pass through
float64 -- and the ops use exactly that value."""
import math
import random
import struct
from fractions import Fraction

import gmpy2
import numpy as np
import pytest
import torch

import repdl
from repdl._scalar import bits32, fl32, float_of_bits, tensor32
from repdl.testing import assert_bitwise_equal

CTX = gmpy2.context(precision=24, emin=-148, emax=128, subnormalize=True)


def mpfr_fl32(v) -> float:
    """The oracle: MPFR's round-to-nearest-even of the exact rational."""
    num, den = (v.numerator, v.denominator) if isinstance(v, Fraction) else Fraction(v).as_integer_ratio()
    with gmpy2.context(CTX):
        return float(gmpy2.mpfr(gmpy2.mpq(num, den)))


def samples(count=40000, seed=3):
    rng = random.Random(seed)
    for _ in range(count):
        kind = rng.randrange(4)
        if kind == 0:
            yield rng.choice((1, -1)) * rng.getrandbits(rng.randrange(1, 300))
        elif kind == 1:
            v = struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
            if math.isfinite(v):
                yield v
        elif kind == 2:
            yield rng.uniform(-1, 1) * 2.0 ** rng.randrange(-160, 130)
        else:
            yield Fraction(rng.getrandbits(70) + 1, rng.getrandbits(70) + 1) * Fraction(2) ** rng.randrange(-200, 200)


def test_fl32_is_the_correctly_rounded_value():
    for v in samples():
        got, want = fl32(v), mpfr_fl32(v)
        assert got == want and math.copysign(1, got) == math.copysign(1, want), (v, got, want)


@pytest.mark.parametrize("v, want", [
    (2 ** 60 + 2 ** 36 + 1, 0x5D800001),      # float64 first would round to 2**60 + 2**36, a float32 tie
    (2 ** 24 + 1, 0x4B800000), (2 ** 24 + 3, 0x4B800002),  # ties to even
    ((1 << 128) - (1 << 103), 0x7F800000),    # the overflow midpoint rounds to inf
    ((1 << 128) - (1 << 103) - 1, 0x7F7FFFFF),
    (-(10 ** 400), 0xFF800000), (10 ** 400, 0x7F800000),
    (1e-40, 0x000116C2), (-2.0 ** -150, 0x80000000), (2.0 ** -150 * 1.0000001, 0x00000001),
    (3 * 2.0 ** -150, 0x00000002), (True, 0x3F800000), (0, 0), (-0.0, 0x80000000),
    (float("nan"), 0x7FC00000), (-float("nan"), 0x7FC00000), (Fraction(1, 3), 0x3EAAAAAB),
    (np.float64(0.1), 0x3DCCCCCD), (np.float32(2.5), 0x40200000),
])
def test_fl32_known_values(v, want):
    assert bits32(fl32(v)) == want


def test_bits_round_trip_including_subnormals():
    for b in (0, 1, 0x80000001, 0x007FFFFF, 0x00800000, 0x3F800000, 0xFF7FFFFF, 0x7F800000):
        assert bits32(float_of_bits(b)) == b
        assert tensor32(float_of_bits(b)).view(torch.int32).item() & 0xFFFFFFFF == b


def test_fl32_ignores_flush_to_zero():
    torch.set_flush_denormal(True)
    try:
        got = [bits32(fl32(v)) for v in (1e-40, -3 * 2.0 ** -149, 2 ** 60 + 2 ** 36 + 1)]
        t = tensor32(fl32(1e-40)).view(torch.int32).item()
    finally:
        torch.set_flush_denormal(False)
    assert got == [0x000116C2, 0x80000003, 0x5D800001] and t == 0x000116C2


N = 2 ** 60 + 2 ** 36 + 1  # fl32(N) = 0x5D800001; float(N) then float32 gives 0x5D800000


def test_ops_round_python_numbers_once():
    x = torch.tensor([2.0 ** 62, 3.0, -1e30])
    n32 = tensor32(fl32(N))
    assert_bitwise_equal(repdl.div(x, N), repdl.div(x, n32))
    assert_bitwise_equal(repdl.mul(x, N), repdl.mul(x, n32))
    assert_bitwise_equal(repdl.sub(N, x), repdl.sub(n32, x))
    one = torch.ones(1, 1)
    assert repdl.addmm(torch.zeros(1, 1), one, one, alpha=N).view(torch.int32).item() == 0x5D800001
    assert repdl.addmm(one, one, one, beta=N).view(torch.int32).item() == 0x5D800001
    y = torch.tensor([-2.0, -0.5, 0.25])
    assert_bitwise_equal(repdl.elu(y, alpha=N), repdl.mul(repdl.expm1(y), n32).where(y <= 0, y))
    assert_bitwise_equal(repdl.celu(y, alpha=1e-40), repdl.celu(y, alpha=float_of_bits(0x000116C2)))


def test_counts_beyond_2_24_are_rounded_once():
    # mean divides by fl32(n): for n = 2**24 + 3 that is 2**24 + 4, not a float64 detour
    n = 2 ** 24 + 3
    x = torch.ones(n)
    assert_bitwise_equal(repdl.mean(x), repdl.div(repdl.sum(x), tensor32(fl32(n))))

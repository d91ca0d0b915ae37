"""repdl._float64: powi (exact order of roundings) and cospi (accuracy
against MPFR, exact reduction, coefficients as MPFR rounds them)."""
import math
import random
from fractions import Fraction

import gmpy2
import pytest

from repdl import _float64
from repdl._float64 import cospi, powi

gmpy2.get_context().precision = 300
PI = gmpy2.const_pi()


def test_coefficients_are_the_nearest_doubles():
    for k, (c, s) in enumerate(zip(_float64._COS, _float64._SIN)):
        assert c == float((-1) ** k * PI ** (2 * k) / gmpy2.fac(2 * k))
        assert s == float((-1) ** k * PI ** (2 * k + 1) / gmpy2.fac(2 * k + 1))


def _points():
    rng = random.Random(7)
    yield from (rng.uniform(-6, 6) for _ in range(20000))
    yield from (k / 997 for k in range(-3000, 3001))
    yield from (0.5 + k * 2.0 ** -44 for k in range(-64, 65))  # near the zero, where the reduction must be exact
    yield from (0.25 + k * 2.0 ** -50 for k in range(-64, 65))  # the switch between the two polynomials
    yield from (2.0 ** -e for e in range(1, 1074, 7))
    yield from (1e15 + 0.5, 2.0 ** 52, -(2.0 ** 60))


def test_cospi_within_two_ulps_of_mpfr():
    worst = 0.0
    for x in _points():
        exact = gmpy2.cos(PI * gmpy2.mpfr(x))
        got = cospi(x)
        if abs(exact) < 2.0 ** -200:  # an exact zero (x an odd multiple of 1/2), blurred only by MPFR's pi
            assert got == 0.0, x
            continue
        worst = max(worst, float(abs(gmpy2.mpfr(got) - exact) / math.ulp(float(exact))))
    assert worst <= 2.0


def test_cospi_special_values():
    assert cospi(0.0) == 1.0 and cospi(1.0) == -1.0 and cospi(2.0) == 1.0 and cospi(-1.0) == -1.0
    assert cospi(0.5) == 0.0 and cospi(1.5) == 0.0
    assert cospi(1 / 3) == 0.5  # math.cos(math.pi / 3) is 0.5000000000000001
    assert math.isnan(cospi(math.inf)) and math.isnan(cospi(math.nan))


def test_powi_is_right_to_left_binary_exponentiation():
    for x in (0.999, 0.9, 1.0000001, 3.0, -0.5):
        for n in (0, 1, 2, 3, 7, 10, 100, 1001, 12345):
            r, base, k = 1.0, x, n
            while k:
                if k & 1:
                    r = r * base
                k >>= 1
                if k:
                    base = base * base
            assert powi(x, n) == r
            # and accurate: squaring doubles a relative error, so the bound
            # is that of n successive products, about n units in the last place
            exact = gmpy2.mpfr(Fraction(x)) ** n
            if 2.0 ** -1000 < abs(exact) < 2.0 ** 1000:  # no underflow or overflow
                assert abs(gmpy2.mpfr(powi(x, n)) - exact) <= abs(exact) * (n + 1) * 2.0 ** -53


@pytest.mark.parametrize("n", [-1, 1.5, True])
def test_powi_rejects_non_integer_exponents(n):
    with pytest.raises(ValueError):
        powi(2.0, n)

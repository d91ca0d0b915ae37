"""erf, erfc and gelu (both forms): what test_elementwise.py's shared tests
(MPFR over every binade, table entries, special values, C++ rows ==
reference) do not cover: gelu's API, its limits, the inputs next to zero
where x/2 is a float32 rounding midpoint, and the formulas' hard regions
(erfc's and gelu's tails), all against MPFR (docs/CONTRACT.md section 6)."""
import os
import sys

import pytest
import torch
import torch.nn.functional as F

import repdl
from repdl.backends import cpu, reference as ref
from repdl.testing import assert_bitwise_equal

from values import ROWS, check_all_paths, u32

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools", "cr"))
import oracle  # noqa: E402
from functions import FUNCTIONS  # noqa: E402

NAMES = ["erf", "erfc", "gelu", "gelu_tanh"]


def check_against_mpfr(name, xbits):
    check_all_paths(name, xbits, [oracle.settle(FUNCTIONS[name].mpfr, b) for b in xbits], "MPFR")


# ---- gelu next to zero: x/2 on a float32 rounding midpoint ------------------------------------

@pytest.mark.parametrize("name", ["gelu", "gelu_tanh"])
def test_gelu_next_to_zero(name):
    """For odd subnormal x and for x in [2^-126, 2^-125) with an odd last bit,
    x/2 is exactly a float32 midpoint and gelu(x) lies just above it (by
    about x^2/sqrt(2 pi)): the result is the neighbour towards +inf.  Every
    float64 evaluation that is faithful lands on the midpoint, so the rows
    use their near-zero rule (csrc/elementwise/fn/erf_family.h)."""
    g = torch.Generator().manual_seed(17)
    m = torch.randint(0, 1 << 23, (400,), generator=g).tolist()
    xbits = [1, 3, 5, 0x7FFFFF, 0x800001, 0x800003, 0xFFFFFF, 0x01000001, 0x1E800000, 0x1E7FFFFF]
    xbits += [v | 1 for v in m] + [0x800000 | v | 1 for v in m] + [0x800000 | v for v in m[:50]]
    xbits += [(127 - 61 - k) << 23 | v for k, v in enumerate(m[:60])]  # normal, below 2^-60
    xbits = sorted(set(xbits))
    xbits += [b | 0x80000000 for b in xbits]
    check_against_mpfr(name, xbits)


# ---- the tails: where the condition number meets a rounded argument ---------------------------

def _range_bits(lo, hi, count, seed):
    g = torch.Generator().manual_seed(seed)
    x = lo + (hi - lo) * torch.rand(count, generator=g, dtype=torch.float64)
    return sorted(set(u32(x.to(torch.float32))))


@pytest.mark.parametrize("name,lo,hi", [
    ("erfc", 3.0, 10.1), ("erfc", -4.0, -0.4), ("erf", 0.4, 4.0), ("erf", -1.0, 1.0),
    ("gelu", -14.8, -4.0), ("gelu", -4.0, 6.0), ("gelu_tanh", -11.2, -3.0), ("gelu_tanh", -3.0, 6.0),
])
def test_tails_against_mpfr(name, lo, hi):
    check_against_mpfr(name, _range_bits(lo, hi, 3000, seed=int(abs(lo * 10))))


@pytest.mark.parametrize("name", ["erf", "erfc", "gelu"])
def test_stretches_beyond_the_series(name, isa):
    """Stretches of inputs spread beyond the series (3 or 4 randn: a third
    of them outside it) between stretches inside it (randn), on every row
    (the isa fixture): each vector row takes the series, its queue of hard
    lanes, its detour (the AVX2 row's to the float64 path, the AVX-512
    row's to its pieces) and back (fn/erf_series.h, run_fast in
    row_simd.inc), and gives the reference's bits throughout."""
    g = repdl.random.Generator(23)
    x = torch.cat([repdl.random.randn(n, generator=g) * s
                   for n, s in ((5000, 1), (9000, 3), (700, 1), (6000, 4), (3001, 1), (4100, 3))])
    expected = getattr(ref, name)(x)
    assert_bitwise_equal(getattr(cpu, name)(x), expected)
    assert_bitwise_equal(getattr(repdl, name)(x.clone()), expected)


@pytest.mark.parametrize("name", ["erf", "erfc", "gelu", "sin", "cos"])
def test_every_subnormal_input_on_every_row(name):
    """+-0 and every subnormal input on each vector row against the generic
    row (the verified float64 path with its table).  The coarse float64
    tiers leave the window test's check of results below 2^-126 to
    outside(), which flags those inputs itself (kOutsideHasBelowNormal:
    erf's nonzero subnormals, gelu's 0 < |x| < 2^-100, sin's |x| < 2^-12,
    zeros among them): an input it missed would be rounded as if on the
    normal grid, or lose a zero's sign.  (gelu's results below 2^-126 from
    [2^-126, 2^-125): test_gelu_next_to_zero.)"""
    bits = torch.arange(0, 1 << 23, dtype=torch.int32)
    x = torch.cat([bits, bits | torch.iinfo(torch.int32).min]).view(torch.float32)
    saved = repdl.isa()
    try:
        repdl.set_isa("generic")
        want = getattr(cpu, name)(x).view(torch.int32)
        for isa in [row for row in ROWS if row != "generic"]:
            repdl.set_isa(isa)
            bad = (getattr(cpu, name)(x).view(torch.int32) != want).nonzero()
            assert len(bad) == 0, f"{isa}: {len(bad)} wrong, first x = {hex(u32(x[bad[0, 0]:bad[0, 0] + 1])[0])}"
    finally:
        repdl.set_isa(saved)


# ---- the public API -----------------------------------------------------------------------------

def test_gelu_api():
    x = torch.randn(1000, generator=torch.Generator().manual_seed(0))
    assert_bitwise_equal(repdl.gelu(x), cpu.gelu(x))
    assert_bitwise_equal(repdl.gelu(x, approximate="none"), cpu.gelu(x))
    assert_bitwise_equal(repdl.gelu(x, approximate="tanh"), cpu.gelu_tanh(x))
    # close to torch's float32 gelu (which rounds several float32 steps)
    assert (repdl.gelu(x) - F.gelu(x)).abs().max() < 1e-6
    assert (repdl.gelu(x, approximate="tanh") - F.gelu(x, approximate="tanh")).abs().max() < 1e-6
    assert (repdl.erf(x) - torch.erf(x)).abs().max() < 1e-6
    assert (repdl.erfc(x) - torch.erfc(x)).abs().max() < 1e-6
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        repdl.gelu(x, approximate="foo")
    with pytest.raises(TypeError, match="must be str"):
        repdl.gelu(x, approximate=None)
    with pytest.raises(TypeError):
        repdl.gelu(x, "tanh")  # keyword-only, as in torch
    for approximate in ("none", "tanh"):
        for dt in (torch.float16, torch.bfloat16, torch.float64):
            with pytest.raises(TypeError, match="float32"):
                repdl.gelu(torch.ones(3, dtype=dt), approximate=approximate)
        i = torch.tensor([-3, 0, 1, 2])
        assert_bitwise_equal(repdl.gelu(i, approximate=approximate), repdl.gelu(i.float(), approximate=approximate))


def test_limits():
    x = torch.tensor([float("-inf"), float("inf"), -0.0, 0.0, float("nan"), -1e30, 1e30, -15.0, -11.5])
    nan = 0x7FC00000
    want = {
        "erf": [0xBF800000, 0x3F800000, 0x80000000, 0, nan, 0xBF800000, 0x3F800000, 0xBF800000, 0xBF800000],
        "erfc": [0x40000000, 0, 0x3F800000, 0x3F800000, nan, 0x40000000, 0, 0x40000000, 0x40000000],
        "gelu": [0x80000000, 0x7F800000, 0x80000000, 0, nan, 0x80000000, u32(torch.tensor([1e30]))[0],
                 0x80000000, oracle.settle(FUNCTIONS["gelu"].mpfr, u32(torch.tensor([-11.5]))[0])],
        "gelu_tanh": [0x80000000, 0x7F800000, 0x80000000, 0, nan, 0x80000000, u32(torch.tensor([1e30]))[0],
                      0x80000000, 0x80000000],
    }
    for name in NAMES:
        for label, f in (("reference", getattr(ref, name)), ("cpu", getattr(cpu, name))):
            assert u32(f(x)) == want[name], (name, label, [hex(v) for v in u32(f(x))])

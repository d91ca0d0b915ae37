"""No flag changes a bit (contract section 1): every public op gives the
same bits with torch.set_flush_denormal(True) as without, on both backends,
for inputs whose results and intermediate values are subnormal."""
import pytest
import torch

from repdl import backends
from repdl.testing import assert_bitwise_equal
from repdl.verify import pattern

from public_ops import ALL, outputs

pytestmark = pytest.mark.skipif(not torch.set_flush_denormal(False), reason="no FTZ/DAZ control on this CPU")


def tiny_input():
    """Values around 2^-70 (their products are subnormal), a few subnormals
    themselves, and normal values (so softmax and friends see a range)."""
    x = pattern(8, 6, salt=17)
    scale = torch.tensor([2.0 ** -70, 2.0 ** -140, 2.0 ** -66, 1.0, 2.0 ** -127, 2.0 ** -63])
    return x * scale


def run(fn, args, backend, flush):
    with backends.use(backend):
        torch.set_flush_denormal(flush)
        try:
            return outputs(fn(*args))
        finally:
            torch.set_flush_denormal(False)


@pytest.mark.parametrize("backend", ["cpu", "reference"])
@pytest.mark.parametrize("name", sorted(ALL))
def test_flush_to_zero_changes_nothing(name, backend):
    fn, make = ALL[name]
    args = make(tiny_input())  # built with flushing off: the inputs keep their subnormals
    plain = run(fn, args, backend, False)
    flushed = run(fn, args, backend, True)
    for a, b in zip(flushed, plain):
        assert_bitwise_equal(a, b, f"{name} ({backend}) with flush-to-zero on")


def test_the_inputs_reach_subnormal_results():
    """The check above can fail: plain torch flushes these results, and many
    of the ops' exact results are subnormal."""
    x = tiny_input()
    torch.set_flush_denormal(True)
    try:
        flushed = x * x
    finally:
        torch.set_flush_denormal(False)
    assert not torch.equal(flushed.view(torch.int32), (x * x).view(torch.int32))
    subnormal = 0
    for name, (fn, make) in ALL.items():
        for out in run(fn, make(x), "cpu", False):
            subnormal += int(((out != 0) & (out.abs() < 2.0 ** -126)).any())
    assert subnormal >= 15, f"only {subnormal} ops returned subnormals"

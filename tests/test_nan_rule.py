"""The contract's NaN rule (section 1): every NaN any public op returns is
the canonical quiet NaN 0x7FC00000, whatever NaNs (sign, payload,
signalling or quiet) its inputs hold, on both backends."""
import pytest
import torch

import repdl
from repdl import backends
from repdl.verify import pattern

from public_ops import ALL, CASES, REJECTS_NAN, outputs
from values import f32

# Quiet and signalling NaNs of both signs with payloads: x86 forwards the
# payload of its first operand and makes 0xFFC00000 itself, CUDA makes
# 0x7FFFFFFF, a sign flip makes 0xFFC00000 from the canonical NaN.
NANS = [0x7FC00000, 0xFFC00000, 0x7FA00001, 0xFFFFFFFF, 0x7F800001, 0xFFC12345]


def nan_input():
    x = pattern(8, 6, salt=41) * 4
    flat = x.view(-1)
    for i, b in enumerate(NANS):
        flat[(7 * i + 3) % flat.numel()] = f32([b])[0]
    return x


def test_every_public_op_has_a_case():
    assert set(repdl.ops.__all__) <= set(CASES), set(repdl.ops.__all__) - set(CASES)


@pytest.mark.parametrize("backend", ["cpu", "reference"])
@pytest.mark.parametrize("name", sorted(ALL))
def test_every_nan_is_canonical(name, backend):
    fn, args = ALL[name]
    if name in REJECTS_NAN:
        with pytest.raises(RuntimeError, match="between 0 and 1"), backends.use(backend):
            fn(*args(nan_input()))
        return
    with backends.use(backend):
        results = outputs(fn(*args(nan_input())))
    if not results:
        pytest.skip(f"{name} returns no float32 tensor")
    bits = torch.cat([r.reshape(-1).view(torch.int32) for r in results])
    is_nan = torch.cat([torch.isnan(r).reshape(-1) for r in results])
    assert is_nan.any(), f"{name}: no NaN reached the output, so the check would prove nothing"
    bad = sorted({hex(b & 0xFFFFFFFF) for b in bits[is_nan].tolist()} - {hex(0x7FC00000)})
    assert not bad, f"{name} ({backend}) returned non-canonical NaNs {bad}"

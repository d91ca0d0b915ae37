"""pad moves values only: in every mode its bits are torch's own pad's."""
import pytest
import torch.nn.functional as F

import repdl
from repdl.testing import assert_bitwise_equal

from values import wide


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular", "constant"])
@pytest.mark.parametrize("shape, pads", [((1, 5), (2, 3)), ((2, 3, 4), (1, 2)), ((2, 3, 4), (3, 0, 2, 1)),
                                         ((1, 2, 3, 4, 5), (1, 1, 2, 0, 0, 2)), ((2, 6, 5), (-1, 2, 2, -2))],
                         ids=str)
def test_pad_gives_torchs_values(mode, shape, pads, gen):
    """Padding on one to three dims, uneven and negative (cropping) amounts;
    twice, the second time from the cached position tables."""
    if mode != "constant" and any(p < 0 for p in pads):
        pytest.skip("torch crops with constant padding only")
    x = wide(*shape, gen=gen)
    want = F.pad(x, pads, mode=mode)
    for _ in range(2):
        assert_bitwise_equal(repdl.pad(x, pads, mode=mode), want, f"{mode} {shape} {pads}")

"""Shared fixtures: every kernel test runs once per instruction set this CPU
supports, so the portable path is proven equal to the fast one in-process."""
import pytest
import torch

import repdl
from repdl import _C

ISAS = [isa for isa in ("generic", "avx2", "avx512") if _C.isa_supported(isa)]


@pytest.fixture(params=ISAS)
def isa(request):
    saved = repdl.isa()
    repdl.set_isa(request.param)
    yield request.param
    repdl.set_isa(saved)


@pytest.fixture
def gen():
    return torch.Generator().manual_seed(1234)

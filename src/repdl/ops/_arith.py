"""Basic float32 arithmetic between primitives (bias additions, scalings).

PyTorch's float32 ``+ - * /`` are IEEE-754 correctly rounded on every device
it supports (plain SSE/AVX lanes on CPU, ``add.rn``-style instructions on
CUDA), and ``a + b`` is evaluated with alpha = 1, so each is one correct
rounding, as the contract asks.  Python scalars are rounded to float32 first,
explicitly, so nothing depends on how a backend treats wrapped numbers.
Results have their NaNs canonicalised like every other op's.
"""
import torch

from ..backends.reference._exact import canonical_nan


def _scalar32(s, like):
    return torch.tensor(s, dtype=torch.float32, device=like.device)


def add32(a, b):
    return canonical_nan(torch.add(a, b))


def scale32(t, s):
    """fl32(s) * t, one rounding."""
    return canonical_nan(torch.mul(t, _scalar32(s, t)))

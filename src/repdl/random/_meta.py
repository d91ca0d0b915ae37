"""Draws on the meta device: outputs of the right size and dtype, no values.

Same functions and arguments as ``_cpu`` and ``_reference``.  The generator
has already reserved the draw's blocks, so a program traced on meta tensors
moves the stream exactly as it would on a real device."""
import torch

_META = torch.device("meta")


def _empty(n, dtype=torch.float32):
    return torch.empty(n, dtype=dtype, device=_META)


def words(seed, offset, n, device=None, per_element=1):
    return _empty(n * per_element if per_element == 1 else (n, per_element), torch.int64)


def uniform(seed, offset, n, device=None, a=None, span=None, out=None):
    return _empty(n)


def normal(seed, offset, n, device=None, mean=None, std=None, out=None):
    return _empty(n)


def randint(seed, offset, n, low, r, device=None, dtype=torch.int64):
    return _empty(n, dtype)


def randperm(seed, offset, n, device=None, dtype=torch.int64):
    return _empty(n, dtype)


def bernoulli_scalar(seed, offset, n, threshold, device=None):
    return _empty(n)


def bernoulli_tensor(seed, offset, p):
    return _empty(p.numel())


def keep_mask(seed, offset, n, threshold, device=None):
    return _empty(n, torch.bool)


def dropout(seed, offset, x, threshold, scale):
    return _empty(x.numel())


def trunc_normal(seed, offset, n, device, mean, std, a, b, out=None):
    return _empty(n)

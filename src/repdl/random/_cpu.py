"""The CPU path: thin wrappers over the C++ kernels (csrc/random).

Same functions and arguments as ``_reference`` (device is always the CPU
here), same bits.  Outputs are new dense tensors, or ``out`` when given (a
dense float32 CPU tensor of n elements).
"""
import torch

from .. import _C
from .._scalar import bits32
from ..backends.cpu.outputs import row_major


def _mask64(v: int) -> int:
    return v & 0xFFFFFFFFFFFFFFFF


def _new(n, dtype, out=None):
    return out if out is not None else row_major((n,), dtype)


def words(seed, offset, n, device=None, per_element=1):
    total = n * per_element
    w = _new(total, torch.int32)
    _C.philox_words(seed, offset, total, w.data_ptr())
    w = w.to(torch.int64) & 0xFFFFFFFF
    return w if per_element == 1 else w.reshape(n, per_element)


def uniform(seed, offset, n, device=None, a=None, span=None, out=None):
    y = _new(n, torch.float32, out)
    plain = a is None
    _C.philox_uniform(seed, offset, n, plain, bits32(0.0 if plain else a), bits32(1.0 if plain else span), y.data_ptr())
    return y


def normal(seed, offset, n, device=None, mean=None, std=None, out=None):
    y = _new(n, torch.float32, out)
    affine = mean is not None
    _C.philox_normal(seed, offset, n, affine, bits32(mean if affine else 0.0), bits32(std if affine else 1.0),
                     y.data_ptr())
    return y


def normal_from_words(w):
    w = w.to(torch.int64)
    w32 = torch.where(w >= 1 << 31, w - (1 << 32), w).to(torch.int32).contiguous()  # same 32 bits
    y = _new(w32.numel(), torch.float32)
    _C.philox_normal_from_words(w32.data_ptr(), w32.numel(), y.data_ptr())
    return y


def randint(seed, offset, n, low, r, device=None, dtype=torch.int64):
    y = _new(n, dtype)
    _C.philox_randint(seed, offset, n, low, r, y.data_ptr(), dtype == torch.int32)
    return y


def perm_keys(seed, offset, n, device=None):
    y = _new(n, torch.int64)
    _C.philox_perm_keys(seed, offset, n, y.data_ptr())
    return y


def randperm(seed, offset, n, device=None, dtype=torch.int64):
    y = _new(n, dtype)
    _C.philox_randperm(seed, offset, n, y.data_ptr(), dtype == torch.int32)
    return y


def bernoulli_scalar(seed, offset, n, threshold, device=None):
    y = _new(n, torch.float32)
    _C.philox_bernoulli_scalar(seed, offset, n, threshold, y.data_ptr())
    return y


def bernoulli_tensor(seed, offset, p):
    p = p.contiguous()
    y = _new(p.numel(), torch.float32)
    _C.philox_bernoulli_tensor(seed, offset, p.numel(), p.data_ptr(), y.data_ptr())
    return y


def keep_mask(seed, offset, n, threshold, device=None):
    y = _new(n, torch.bool)
    _C.philox_keep_mask(seed, offset, n, threshold, y.data_ptr())
    return y


def dropout(seed, offset, x, threshold, scale):
    x = x.contiguous()
    y = _new(x.numel(), torch.float32)
    _C.philox_dropout(seed, offset, x.numel(), threshold, bits32(scale), x.data_ptr(), y.data_ptr())
    return y


def trunc_normal(seed, offset, n, device, mean, std, a, b, out=None):
    y = _new(n, torch.float32, out)
    _C.philox_trunc_normal(seed, offset, n, bits32(mean), bits32(std), bits32(a), bits32(b), y.data_ptr())
    return y


def blocks(seed, base, nblocks, stream=0):
    """Raw blocks (base + t, stream) on the active ISA row: (nblocks, 4) words."""
    w = _new(4 * nblocks, torch.int32)
    _C.philox_blocks(seed, base, stream, nblocks, w.data_ptr())
    return (w.to(torch.int64) & 0xFFFFFFFF).reshape(nblocks, 4)

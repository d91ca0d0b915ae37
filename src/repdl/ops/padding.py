"""pad (torch.nn.functional.pad): constant, reflect, replicate, circular.

Padding moves values only, so the forward is exact in every mode; the modes
that copy one input element to several places (reflect, replicate,
circular) take its gradient as the sum of those places' gradients, in
ascending order of their position (``repdl::take_rows`` and
``repdl::index_accumulate``, docs/CONTRACT.md "Scatter-style ops").
Negative padding crops, as in torch.
"""
import functools
import itertools
import math
import numbers

import torch

from .. import _checks
from .._scalar import fl32, tensor32
from ..backends.reference._exact import canonical_nan
from . import scatter

__all__ = ["pad"]

_MODES = ("constant", "reflect", "replicate", "circular")


def _axis_map(size, left, right, mode, op):
    """For each output position along one axis, the input position it copies."""
    o = range(-left, size + right)
    if mode == "replicate":
        return [min(max(q, 0), size - 1) for q in o]
    if mode == "circular":
        if left > size or right > size:
            raise RuntimeError(f"repdl.{op}: circular padding of ({left}, {right}) needs at most the dim's size {size}")
        return [q % size for q in o]
    if left >= size or right >= size:  # reflect
        raise RuntimeError(f"repdl.{op}: reflect padding of ({left}, {right}) must be smaller than the dim's size {size}")
    period = 2 * (size - 1)
    r = [q % period if period else 0 for q in o]
    return [q if q < size else period - q for q in r]


@functools.lru_cache(maxsize=256)
def _positions(sizes, pairs, mode, op) -> tuple:
    """The flattened input position (row-major over the padded dims) of
    every output position, row-major, and the padded dims' new sizes:
    Python ints cached per geometry, which repeats every step (the same
    table from small torch ops cost about 30 us a call)."""
    maps = [_axis_map(size, l, r, mode, op) for size, (l, r) in zip(sizes, pairs)]
    strides = [1] * len(sizes)
    for i in range(len(sizes) - 2, -1, -1):
        strides[i] = strides[i + 1] * sizes[i + 1]
    flat = tuple(sum(q * st for q, st in zip(qs, strides)) for qs in itertools.product(*maps))
    return flat, tuple(len(m) for m in maps)


def pad(input, pad, mode="constant", value=None):
    """torch.nn.functional.pad.  `pad` is (left, right) pairs from the last
    dim backwards."""
    op = "pad"
    _checks.check_float32_tensor(op, "input", input)
    if mode not in _MODES:
        raise NotImplementedError(f"repdl.pad: mode {mode!r} is not supported; supported: {', '.join(_MODES)}")
    if not isinstance(pad, (tuple, list)) or len(pad) % 2 or len(pad) // 2 > input.dim() \
            or not all(isinstance(p, numbers.Integral) and not isinstance(p, bool) for p in pad):
        raise RuntimeError(f"repdl.pad: padding must be an even-length sequence of ints of at most 2 * "
                           f"{input.dim()} entries, got {pad!r}")
    if mode != "constant" and value not in (None, 0, 0.0):
        raise RuntimeError(f"repdl.pad: padding mode {mode!r} does not take a value")
    nd = len(pad) // 2
    dims = list(range(input.dim() - nd, input.dim()))
    pairs = [(int(pad[2 * (input.dim() - 1 - d)]), int(pad[2 * (input.dim() - 1 - d) + 1])) for d in dims]
    if mode == "constant":
        fill = fl32(0.0 if value is None else value)
        shape = list(input.shape)
        for d, (l, r) in zip(dims, pairs):
            shape[d] += l + r
            if shape[d] < 0:
                raise RuntimeError(f"repdl.pad: padding {pad} makes dim {d} of size {input.shape[d]} negative")
        out = tensor32(fill, input.device).expand(shape).clone()
        src, dst = input, out
        for d, (l, r) in zip(dims, pairs):
            size = input.shape[d]
            lo, hi = max(0, -l), size - max(0, -r)
            src = src.narrow(d, lo, max(0, hi - lo))
            dst = dst.narrow(d, max(0, l), max(0, hi - lo))
        dst.copy_(canonical_nan(src))  # a view copy: autograd's backward is the matching slice of the gradient
        return out
    sizes = tuple(input.shape[d] for d in dims)
    flat, padded = _positions(sizes, tuple(pairs), mode, op)
    batch = input.shape[:input.dim() - nd]
    x = input.reshape(-1, math.prod(sizes)).t()   # (padded-plane positions, batch)
    y = scatter.take_rows(x, torch.tensor(flat, dtype=torch.int64, device=input.device))
    return y.t().reshape(*batch, *padded)

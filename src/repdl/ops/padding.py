"""pad (torch.nn.functional.pad): constant, reflect, replicate, circular.

Padding moves values only, so the forward is exact in every mode; the modes
that copy one input element to several places (reflect, replicate,
circular) take its gradient as the sum of those places' gradients, in
ascending order of their position (``repdl::take_rows`` and
``repdl::index_accumulate``, docs/CONTRACT.md "Scatter-style ops").
Negative padding crops, as in torch.
"""
import numbers

import torch

from .. import _checks
from .._scalar import fl32, tensor32
from ..backends.reference._exact import canonical_nan
from . import scatter

__all__ = ["pad"]

_MODES = ("constant", "reflect", "replicate", "circular")


def _axis_map(size, left, right, mode, op):
    """For each output position along one axis, the input position it copies
    (-1: the constant)."""
    o = torch.arange(-left, size + right, device="cpu")
    if mode == "constant":
        return torch.where((o >= 0) & (o < size), o, torch.full_like(o, -1))
    if mode == "replicate":
        return o.clamp(0, size - 1)
    if mode == "circular":
        if left > size or right > size:
            raise RuntimeError(f"repdl.{op}: circular padding of ({left}, {right}) needs at most the dim's size {size}")
        return torch.remainder(o, size)
    if left >= size or right >= size:  # reflect
        raise RuntimeError(f"repdl.{op}: reflect padding of ({left}, {right}) must be smaller than the dim's size {size}")
    period = 2 * (size - 1)
    r = torch.remainder(o, period) if period else torch.zeros_like(o)
    return torch.where(r < size, r, period - r)


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
    maps = [_axis_map(input.shape[d], l, r, mode, op) for d, (l, r) in zip(dims, pairs)]
    # the flattened input position of every output position of the padded dims (row-major)
    strides = [1] * nd
    for i in range(nd - 2, -1, -1):
        strides[i] = strides[i + 1] * input.shape[dims[i + 1]]
    flat = sum((m * s).reshape([-1 if j == i else 1 for j in range(nd)]) for i, (m, s) in enumerate(zip(maps, strides)))
    batch = input.shape[:input.dim() - nd]
    x = input.reshape(-1, strides[0] * input.shape[dims[0]]).t()   # (padded-plane positions, batch)
    y = scatter.take_rows(x, flat.reshape(-1).to(input.device))
    return y.t().reshape(*batch, *flat.shape)

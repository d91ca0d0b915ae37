"""Pooling: max_pool1d/2d, avg_pool1d/2d, adaptive_avg_pool1d/2d and
adaptive_max_pool1d/2d with torch.nn.functional's signatures
(docs/CONTRACT.md section 12).

Four primitives over (planes, H, W), a window given by per-axis tables of
input rows and columns (-1 outside the input): ``repdl::max_pool`` (the
first maximum of the window in row-major order, NaN beating every number,
and its flat index), ``repdl::avg_pool`` (the sequential sum of the window
/ the divisor), and their gradients ``repdl::max_pool_backward`` and
``repdl::avg_pool_backward`` (outputs in ascending order add their
contribution to their input positions, from +0.0), each the other's
adjoint for double backward.  Sliding windows follow torch's output size
and divisor rules; adaptive ones torch's [floor(o*In/Out),
ceil((o+1)*In/Out)).
"""
import functools
import numbers
from typing import Tuple

import torch

from .. import _checks, backends
from .._library import mark_non_differentiable, primitive

__all__ = ["max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
           "adaptive_max_pool1d", "adaptive_max_pool2d"]

Tensor = torch.Tensor


def _pair(op, name, v, n, minimum):
    if isinstance(v, numbers.Integral) and not isinstance(v, bool):
        v = (int(v),) * n
    elif isinstance(v, (tuple, list)) and len(v) == n and all(isinstance(e, numbers.Integral) for e in v):
        v = tuple(int(e) for e in v)
    elif isinstance(v, (tuple, list)) and len(v) == 1 and isinstance(v[0], numbers.Integral):
        v = (int(v[0]),) * n
    else:
        raise TypeError(f"repdl.{op}: {name} must be an int or a tuple of {n} ints, got {v!r}")
    if any(e < minimum for e in v):
        raise RuntimeError(f"repdl.{op}: {name} must be >= {minimum}, got {v}")
    return v


def _out_size(size, k, s, p, d, ceil_mode):
    """torch's pooling output size: the last window must start inside the
    input or its left padding."""
    span = size + 2 * p - d * (k - 1) - 1
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


# The window tables (positions, divisors) are cached as Python numbers, per
# layer geometry, which repeats every step: built from small torch ops they
# cost 20-60 us a call (avg_pool2d on a small input took 74 us, 4 of them
# in its kernel).  Not as tensors: a cached tensor would outlive the fake
# and functional modes that tracing and torch.compile run under.

def _table(values, dtype, device, *shape):
    """A cached table as a new tensor of `shape` on the input's device (named,
    so that torch's default device does not place it)."""
    return torch.tensor(values, dtype=dtype, device=device).view(*shape)


@functools.lru_cache(maxsize=256)
def _sliding_positions(size, k, s, p, d, out) -> tuple:
    return tuple(q if 0 <= q < size else -1 for o in range(out) for q in range(o * s - p, o * s - p + k * d, d))


def _sliding(size, k, s, p, d, out, device):
    """(out, k) input positions of each window element along one axis (-1
    outside [0, size))."""
    return _table(_sliding_positions(size, k, s, p, d, out), torch.int64, device, out, k)


@functools.lru_cache(maxsize=256)
def _adaptive_windows(size, out) -> tuple:
    """torch's adaptive windows along one axis, [floor(o*size/out),
    ceil((o+1)*size/out)): their positions, padded with -1 to the longest
    (k), and their lengths."""
    starts = [o * size // out for o in range(out)]
    ends = [-(-(o + 1) * size // out) for o in range(out)]
    k = max(e - b for b, e in zip(starts, ends))
    positions = tuple(b + j if b + j < e else -1 for b, e in zip(starts, ends) for j in range(k))
    return positions, k, tuple(e - b for b, e in zip(starts, ends))


def _adaptive(size, out, device):
    """(out, k) positions of the adaptive windows along one axis (-1 past a
    window's end) and their lengths."""
    positions, k, lengths = _adaptive_windows(size, out)
    return _table(positions, torch.int64, device, out, k), lengths


# ---- primitives over (planes, h, w) with per-axis window tables -------------------------------

def _max_pool_impl(x: Tensor, rows: Tensor, cols: Tensor) -> Tuple[Tensor, Tensor]:
    return backends.for_tensor(x).max_pool(x, rows, cols)


def _max_pool_fake(x, rows, cols):
    shape = (x.shape[0], rows.shape[0], cols.shape[0])
    return x.new_empty(shape), x.new_empty(shape, dtype=torch.int64)


def _max_pool_setup(ctx, inputs, output):
    ctx.hw = inputs[0].shape[1:]
    mark_non_differentiable(ctx, output[1])
    ctx.save_for_backward(output[1])


def _max_pool_backward(ctx, g, unused):
    (index,) = ctx.saved_tensors
    return _max_pool_grad(g, index, *ctx.hw), None, None


def _max_pool_grad_impl(g: Tensor, index: Tensor, h: int, w: int) -> Tensor:
    return backends.for_tensor(g).max_pool_backward(g, index, h, w)


def _max_pool_grad_setup(ctx, inputs, output):
    ctx.save_for_backward(inputs[1])


def _max_pool_grad_backward(ctx, gg):
    """The gradient's gradient: each output takes the incoming value at its index (a gather)."""
    (index,) = ctx.saved_tensors
    planes = gg.shape[0]
    return gg.reshape(planes, -1).gather(1, index.reshape(planes, -1)).reshape(index.shape), None, None, None


def _avg_pool_impl(x: Tensor, rows: Tensor, cols: Tensor, divisor: Tensor) -> Tensor:
    return backends.for_tensor(x).avg_pool(x, rows, cols, divisor)


def _avg_pool_setup(ctx, inputs, output):
    x, rows, cols, divisor = inputs
    ctx.hw = x.shape[1:]
    ctx.save_for_backward(rows, cols, divisor)


def _avg_pool_backward(ctx, g):
    rows, cols, divisor = ctx.saved_tensors
    return _avg_pool_grad(g, rows, cols, divisor, *ctx.hw), None, None, None


def _avg_pool_grad_impl(g: Tensor, rows: Tensor, cols: Tensor, divisor: Tensor, h: int, w: int) -> Tensor:
    return backends.for_tensor(g).avg_pool_backward(g, rows, cols, divisor, h, w)


def _avg_pool_grad_setup(ctx, inputs, output):
    ctx.save_for_backward(*inputs[1:4])


def _avg_pool_grad_backward(ctx, gg):
    """The gradient's gradient is the pool itself (its adjoint)."""
    rows, cols, divisor = ctx.saved_tensors
    return _avg_pool(gg, rows, cols, divisor), None, None, None, None, None


_max_pool = primitive("max_pool", _max_pool_impl, _max_pool_fake, setup_context=_max_pool_setup,
                      backward=_max_pool_backward)
_max_pool_grad = primitive("max_pool_backward", _max_pool_grad_impl,
                           lambda g, index, h, w: g.new_empty(g.shape[0], h, w),
                           setup_context=_max_pool_grad_setup, backward=_max_pool_grad_backward)
_avg_pool = primitive("avg_pool", _avg_pool_impl,
                      lambda x, rows, cols, divisor: x.new_empty(x.shape[0], rows.shape[0], cols.shape[0]),
                      setup_context=_avg_pool_setup, backward=_avg_pool_backward)
_avg_pool_grad = primitive("avg_pool_backward", _avg_pool_grad_impl,
                           lambda g, rows, cols, divisor, h, w: g.new_empty(g.shape[0], h, w),
                           setup_context=_avg_pool_grad_setup, backward=_avg_pool_grad_backward)


def _planes(x):
    """x (N, C, H, W) as (N*C, H, W)."""
    return x.reshape(-1, x.shape[2], x.shape[3])


def _as_4d(op, input, nd):
    _checks.check_float32_tensor(op, "input", input)
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"repdl.{op}: expected {nd + 1}D or {nd + 2}D input, got shape {tuple(input.shape)}")
    x = input if input.dim() == nd + 2 else input.unsqueeze(0)
    if nd == 1:
        x = x.unsqueeze(2)
    if any(s == 0 for s in x.shape[2:]):
        raise RuntimeError(f"repdl.{op}: input of shape {tuple(input.shape)} has an empty spatial dim")
    return x


def _from_4d(y, input, nd):
    if nd == 1:
        y = y.squeeze(2)
    return y if input.dim() == nd + 2 else y.squeeze(0)


def _max(op, nd, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
    x = _as_4d(op, input, nd)
    k = _pair(op, "kernel_size", kernel_size, nd, 1)
    s = k if stride is None or (isinstance(stride, (list, tuple)) and not stride) else _pair(op, "stride", stride, nd, 1)
    p = _pair(op, "padding", padding, nd, 0)
    d = _pair(op, "dilation", dilation, nd, 1)
    if any(pi * 2 > ki for pi, ki in zip(p, k)):
        raise RuntimeError(f"repdl.{op}: pad should be at most half of effective kernel size, got padding={p}, "
                           f"kernel_size={k}")
    if nd == 1:
        k, s, p, d = (1, *k), (1, *s), (0, *p), (1, *d)
    n, c, h, w = x.shape
    oh, ow = (_out_size(x.shape[2 + i], k[i], s[i], p[i], d[i], ceil_mode) for i in range(2))
    if oh <= 0 or ow <= 0:
        raise RuntimeError(f"repdl.{op}: output size ({oh}, {ow}) is too small for input {tuple(input.shape)}")
    rows, cols = _sliding(h, k[0], s[0], p[0], d[0], oh, x.device), _sliding(w, k[1], s[1], p[1], d[1], ow, x.device)
    best, index = _max_pool(_planes(x), rows, cols)
    y = _from_4d(best.reshape(n, c, oh, ow), input, nd)
    return (y, _from_4d(index.reshape(n, c, oh, ow), input, nd)) if return_indices else y


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """torch.nn.functional.max_pool1d: the first maximum of each window."""
    return _max("max_pool1d", 1, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """torch.nn.functional.max_pool2d: the first maximum of each window in
    row-major order (NaN beats every number); indices are positions in the
    input plane, as torch's."""
    return _max("max_pool2d", 2, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


@functools.lru_cache(maxsize=256)
def _divisor_values(h, w, k, s, p, oh, ow, count_include_pad) -> tuple:
    """Per output position (row-major), torch's avg_pool divisor: the window
    clipped to the padded input (count_include_pad) or to the input itself,
    as a float (exact: a count below 2^24)."""
    def axis(size, k_, s_, p_, out):
        counts = []
        for o in range(out):
            start = o * s_ - p_
            end = min(start + k_, size + p_)
            counts.append(end - start if count_include_pad else min(end, size) - max(start, 0))
        return counts

    return tuple(float(a * b) for a in axis(h, k[0], s[0], p[0], oh) for b in axis(w, k[1], s[1], p[1], ow))


def _divisors(h, w, k, s, p, oh, ow, count_include_pad, divisor_override, device):
    """The oh * ow divisors, or divisor_override everywhere."""
    if divisor_override is not None:
        return torch.full((oh * ow,), float(divisor_override), dtype=torch.float32, device=device)
    return _table(_divisor_values(h, w, k, s, p, oh, ow, count_include_pad), torch.float32, device, oh * ow)


def _avg(op, nd, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    x = _as_4d(op, input, nd)
    k = _pair(op, "kernel_size", kernel_size, nd, 1)
    s = k if stride is None or (isinstance(stride, (list, tuple)) and not stride) else _pair(op, "stride", stride, nd, 1)
    p = _pair(op, "padding", padding, nd, 0)
    if any(pi * 2 > ki for pi, ki in zip(p, k)):
        raise RuntimeError(f"repdl.{op}: pad should be at most half of kernel size, got padding={p}, kernel_size={k}")
    if divisor_override is not None and (isinstance(divisor_override, bool) or
                                         not isinstance(divisor_override, numbers.Integral) or divisor_override == 0):
        raise RuntimeError(f"repdl.{op}: divisor must be a non-zero int, got {divisor_override!r}")
    if nd == 1:
        k, s, p = (1, *k), (1, *s), (0, *p)
    n, c, h, w = x.shape
    oh, ow = (_out_size(x.shape[2 + i], k[i], s[i], p[i], 1, ceil_mode) for i in range(2))
    if oh <= 0 or ow <= 0:
        raise RuntimeError(f"repdl.{op}: output size ({oh}, {ow}) is too small for input {tuple(input.shape)}")
    rows, cols = _sliding(h, k[0], s[0], p[0], 1, oh, x.device), _sliding(w, k[1], s[1], p[1], 1, ow, x.device)
    divisor = _divisors(h, w, k, s, p, oh, ow, count_include_pad, divisor_override, x.device)
    y = _avg_pool(_planes(x), rows, cols, divisor)
    return _from_4d(y.reshape(n, c, oh, ow), input, nd)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """torch.nn.functional.avg_pool1d: seqsum of the window / divisor."""
    return _avg("avg_pool1d", 1, input, kernel_size, stride, padding, ceil_mode, count_include_pad, None)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """torch.nn.functional.avg_pool2d: the sequential sum of the window in
    row-major order (padding as +0.0), divided by torch's divisor."""
    return _avg("avg_pool2d", 2, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def _adaptive_args(op, input, output_size, nd):
    x = _as_4d(op, input, nd)
    size = _pair(op, "output_size", output_size, nd, 1) if not isinstance(output_size, (list, tuple)) or \
        all(o is not None for o in output_size) else tuple(o if o is not None else x.shape[2 + nd - len(output_size) + i]
                                                           for i, o in enumerate(output_size))
    if nd == 1:
        size = (1, *size)
    return x, size


def _adaptive_pool(op, nd, input, output_size, largest, return_indices=False):
    x, (oh, ow) = _adaptive_args(op, input, output_size, nd)
    n, c, h, w = x.shape
    (rows, rlen), (cols, clen) = _adaptive(h, oh, x.device), _adaptive(w, ow, x.device)
    if largest:
        best, index = _max_pool(_planes(x), rows, cols)
        y = _from_4d(best.reshape(n, c, oh, ow), input, nd)
        return (y, _from_4d(index.reshape(n, c, oh, ow), input, nd)) if return_indices else y
    count = _table([float(a * b) for a in rlen for b in clen], torch.float32, x.device, oh * ow)
    return _from_4d(_avg_pool(_planes(x), rows, cols, count).reshape(n, c, oh, ow), input, nd)


def adaptive_avg_pool1d(input, output_size):
    """torch.nn.functional.adaptive_avg_pool1d."""
    return _adaptive_pool("adaptive_avg_pool1d", 1, input, output_size, False)


def adaptive_avg_pool2d(input, output_size):
    """torch.nn.functional.adaptive_avg_pool2d: torch's windows, seqsum / count."""
    return _adaptive_pool("adaptive_avg_pool2d", 2, input, output_size, False)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """torch.nn.functional.adaptive_max_pool1d."""
    return _adaptive_pool("adaptive_max_pool1d", 1, input, output_size, True, return_indices)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """torch.nn.functional.adaptive_max_pool2d: torch's windows, the first maximum."""
    return _adaptive_pool("adaptive_max_pool2d", 2, input, output_size, True, return_indices)

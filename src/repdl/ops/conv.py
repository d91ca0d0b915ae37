"""Convolutions: conv1d, conv2d, conv_transpose1d, conv_transpose2d
(docs/CONTRACT.md, "Convolution"), with torch.nn.functional's signatures.

Three primitives, each the gradient of the others: ``repdl::conv2d`` (the
forward: one fma chain per output over (c, kh, kw), then + bias with one
rounding), ``repdl::conv2d_input`` (its input gradient: a chain over (oc,
kh, kw), padding and stride holes entering as +0.0; also the transposed
convolution, whose bias is added afterwards) and ``repdl::conv2d_weight``
(its weight gradient: a chain over (n, oh, ow)).  A 1-D convolution is the 2-D
one with height 1.  Padding modes other than zeros pad first
(``ops.pad``), then convolve without padding.
"""
import numbers
from typing import List, Optional

import torch

from .. import _checks, backends
from .._library import primitive
from . import _grad
from . import _prims as P
from . import padding as _pad

__all__ = ["conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d"]

Tensor = torch.Tensor


def _out_size(size, k, s, p, d):
    return (size + 2 * p - d * (k - 1) - 1) // s + 1


# ---- primitives ------------------------------------------------------------------------------

def _conv2d_impl(x: Tensor, w: Tensor, bias: Optional[Tensor], stride: List[int], padding: List[int],
                 dilation: List[int], groups: int) -> Tensor:
    out_hw = [_out_size(x.shape[2 + i], w.shape[2 + i], stride[i], padding[i], dilation[i]) for i in range(2)]
    return backends.for_tensor(x).conv2d(x, w, bias, out_hw, stride, padding, dilation, groups)


def _conv2d_fake(x, w, bias, stride, padding, dilation, groups):
    out_hw = [_out_size(x.shape[2 + i], w.shape[2 + i], stride[i], padding[i], dilation[i]) for i in range(2)]
    return x.new_empty(x.shape[0], w.shape[0], *out_hw)


def _conv2d_input_impl(dy: Tensor, w: Tensor, input_size: List[int], stride: List[int], padding: List[int],
                       dilation: List[int], groups: int) -> Tensor:
    return backends.for_tensor(dy).conv2d_input(dy, w, input_size, stride, padding, dilation, groups)


def _conv2d_input_fake(dy, w, input_size, stride, padding, dilation, groups):
    return dy.new_empty(input_size)


def _conv2d_weight_impl(x: Tensor, dy: Tensor, weight_size: List[int], stride: List[int], padding: List[int],
                        dilation: List[int], groups: int) -> Tensor:
    return backends.for_tensor(x).conv2d_weight(x, dy, weight_size, stride, padding, dilation, groups)


def _conv2d_weight_fake(x, dy, weight_size, stride, padding, dilation, groups):
    return x.new_empty(weight_size)


def _save(ctx, inputs, output):
    ctx.save_for_backward(inputs[0], inputs[1])
    ctx.geometry = tuple(inputs[-4:])  # stride, padding, dilation, groups


def _conv2d_backward(ctx, g):
    """dx = conv2d_input(g, w), dw = conv2d_weight(x, g), dbias = g summed
    over (n, oh, ow), the gradient of a (OC, 1, 1) operand broadcast by add
    (one sequential sum in that order)."""
    x, w = ctx.saved_tensors
    need = ctx.needs_input_grad
    gx = _conv2d_input(g, w, list(x.shape), *ctx.geometry) if need[0] else None
    gw = _conv2d_weight(x, g, list(w.shape), *ctx.geometry) if need[1] else None
    gb = _grad.sum_to(g, (g.shape[1], 1, 1)).reshape(-1) if need[2] else None
    return gx, gw, gb, None, None, None, None


def _conv2d_input_backward(ctx, g):
    """y = conv2d_input(dy, w): d dy = conv2d(g, w), d w = conv2d_weight(g, dy)."""
    dy, w = ctx.saved_tensors
    need = ctx.needs_input_grad
    gdy = _conv2d(g, w, None, *ctx.geometry) if need[0] else None
    gw = _conv2d_weight(g, dy, list(w.shape), *ctx.geometry) if need[1] else None
    return gdy, gw, None, None, None, None, None


def _conv2d_weight_backward(ctx, g):
    """y = conv2d_weight(x, dy): d x = conv2d_input(dy, g), d dy = conv2d(x, g)."""
    x, dy = ctx.saved_tensors
    need = ctx.needs_input_grad
    gx = _conv2d_input(dy, g, list(x.shape), *ctx.geometry) if need[0] else None
    gdy = _conv2d(x, g, None, *ctx.geometry) if need[1] else None
    return gx, gdy, None, None, None, None, None


_conv2d = primitive("conv2d", _conv2d_impl, _conv2d_fake, setup_context=_save, backward=_conv2d_backward)
_conv2d_input = primitive("conv2d_input", _conv2d_input_impl, _conv2d_input_fake, setup_context=_save,
                          backward=_conv2d_input_backward)
_conv2d_weight = primitive("conv2d_weight", _conv2d_weight_impl, _conv2d_weight_fake, setup_context=_save,
                           backward=_conv2d_weight_backward)


# ---- arguments -------------------------------------------------------------------------------

def _tuple(op, name, v, n, minimum):
    if isinstance(v, numbers.Integral) and not isinstance(v, bool):
        v = (int(v),) * n
    elif isinstance(v, (tuple, list)) and len(v) == n and all(isinstance(e, numbers.Integral) and not isinstance(e, bool)
                                                              for e in v):
        v = tuple(int(e) for e in v)
    else:
        raise TypeError(f"repdl.{op}: {name} must be an int or a tuple of {n} ints, got {v!r}")
    if any(e < minimum for e in v):
        raise RuntimeError(f"repdl.{op}: {name} must be >= {minimum}, got {v}")
    return v


def _check(op, input, weight, bias, groups, nd, transposed):
    _checks.check_float32(op, input=input, weight=weight)
    if bias is not None:
        _checks.check_float32_tensor(op, "bias", bias)
    _checks.check_same_device(op, input=input, weight=weight, bias=bias)
    if isinstance(groups, bool) or not isinstance(groups, numbers.Integral) or groups < 1:
        raise RuntimeError(f"repdl.{op}: groups must be a positive integer, got {groups!r}")
    if weight.dim() != nd + 2:
        raise RuntimeError(f"repdl.{op}: expected weight of {nd + 2} dims, got shape {tuple(weight.shape)}")
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"repdl.{op}: expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input, got "
                           f"shape {tuple(input.shape)}")
    channels = input.shape[-nd - 1]
    if transposed:
        if channels != weight.shape[0] or weight.shape[0] % groups:
            raise RuntimeError(f"repdl.{op}: input of shape {tuple(input.shape)} needs {weight.shape[0]} "
                               f"channels divisible by groups={groups} for weight of shape {tuple(weight.shape)}")
        out_channels = weight.shape[1] * groups
    else:
        if weight.shape[0] % groups or channels != weight.shape[1] * groups:
            raise RuntimeError(f"repdl.{op}: input of shape {tuple(input.shape)} (channels {channels}) and weight "
                               f"of shape {tuple(weight.shape)} do not match with groups={groups}")
        out_channels = weight.shape[0]
    if bias is not None and tuple(bias.shape) != (out_channels,):
        raise RuntimeError(f"repdl.{op}: bias must have shape ({out_channels},), got {tuple(bias.shape)}")
    return out_channels


def _same_padding(op, kernel, dilation, stride):
    """torch's padding='same': total d*(k-1) split left = total // 2, right =
    the rest; stride must be 1."""
    if any(s != 1 for s in stride):
        raise RuntimeError(f"repdl.{op}: padding='same' is not supported for strided convolutions")
    total = [d * (k - 1) for k, d in zip(kernel, dilation)]
    return [t // 2 for t in total], [t - t // 2 for t in total]


def _as_batched(input, nd):
    return (input, False) if input.dim() == nd + 2 else (input.unsqueeze(0), True)


def _add_bias(y, bias):
    return y if bias is None else P.add(y, bias.reshape(-1, *([1] * (y.dim() - 2))))


def _conv(op, nd, input, weight, bias, stride, padding, dilation, groups, padding_mode="zeros"):
    _check(op, input, weight, bias, groups, nd, transposed=False)
    stride = _tuple(op, "stride", stride, nd, 1)
    dilation = _tuple(op, "dilation", dilation, nd, 1)
    x, unbatched = _as_batched(input, nd)
    kernel = tuple(weight.shape[2:])
    if isinstance(padding, str):
        if padding == "valid":
            left = right = (0,) * nd
        elif padding == "same":
            left, right = _same_padding(op, kernel, dilation, stride)
        else:
            raise ValueError(f"repdl.{op}: invalid padding string {padding!r}, should be one of 'valid', 'same'")
    else:
        left = right = _tuple(op, "padding", padding, nd, 0)
    if padding_mode != "zeros" or tuple(left) != tuple(right):
        # pad first (zeros, reflect, replicate or circular), then no padding
        x = _pad.pad(x, [p for l, r in zip(reversed(left), reversed(right)) for p in (l, r)],
                     "constant" if padding_mode == "zeros" else padding_mode)
        left = (0,) * nd
    w = weight
    if nd == 1:
        x, w = x.unsqueeze(2), w.unsqueeze(2)
        stride, left, dilation = (1, *stride), (0, *left), (1, *dilation)
    for i in range(nd):
        effective = dilation[-nd + i] * (kernel[i] - 1) + 1
        if x.shape[-nd + i] + 2 * left[-nd + i] < effective:
            raise RuntimeError(f"repdl.{op}: input of spatial size {tuple(x.shape[-nd:])} (padded by "
                               f"{tuple(left[-nd:])}) is smaller than the kernel's {effective}")
    y = _conv2d(x, w, bias, list(stride), list(left), list(dilation), int(groups))
    if nd == 1:
        y = y.squeeze(2)
    return y.squeeze(0) if unbatched else y


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor:
    """torch.nn.functional.conv1d: each output an fma chain over (c, k),
    padding taps +0.0; then + bias (one rounding)."""
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor:
    """torch.nn.functional.conv2d: each output an fma chain over (c, kh, kw)
    lexicographic, padding taps +0.0; then + bias (one rounding)."""
    return _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


def _conv_transpose(op, nd, input, weight, bias, stride, padding, output_padding, groups, dilation):
    _check(op, input, weight, bias, groups, nd, transposed=True)
    stride = _tuple(op, "stride", stride, nd, 1)
    padding = _tuple(op, "padding", padding, nd, 0)
    output_padding = _tuple(op, "output_padding", output_padding, nd, 0)
    dilation = _tuple(op, "dilation", dilation, nd, 1)
    for op_, s, d in zip(output_padding, stride, dilation):
        if op_ >= s and op_ >= d:
            raise RuntimeError(f"repdl.{op}: output padding must be smaller than either stride or dilation, "
                               f"got output_padding={output_padding}, stride={stride}, dilation={dilation}")
    x, unbatched = _as_batched(input, nd)
    kernel = weight.shape[2:]
    size = [(x.shape[2 + i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (kernel[i] - 1) + output_padding[i] + 1
            for i in range(nd)]
    if any(s <= 0 for s in size):
        raise RuntimeError(f"repdl.{op}: the output would have size {tuple(size)}")
    out_channels = weight.shape[1] * groups
    w = weight
    if nd == 1:
        x, w = x.unsqueeze(2), w.unsqueeze(2)
        size, stride, padding, dilation = [1, *size], (1, *stride), (0, *padding), (1, *dilation)
    y = _conv2d_input(x, w, [x.shape[0], out_channels, *size], list(stride), list(padding), list(dilation),
                      int(groups))
    if nd == 1:
        y = y.squeeze(2)
    y = _add_bias(y, bias)
    return y.squeeze(0) if unbatched else y


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1) -> Tensor:
    """torch.nn.functional.conv_transpose1d: conv1d's input gradient."""
    return _conv_transpose("conv_transpose1d", 1, input, weight, bias, stride, padding, output_padding, groups,
                           dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1) -> Tensor:
    """torch.nn.functional.conv_transpose2d: conv2d's input gradient, each
    output a chain over (in_channel, kh, kw) with stride holes +0.0."""
    return _conv_transpose("conv_transpose2d", 2, input, weight, bias, stride, padding, output_padding, groups,
                           dilation)

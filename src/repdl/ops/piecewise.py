"""Piecewise-linear functions: clamp, relu, relu6, hardtanh, leaky_relu,
prelu, hardsigmoid and hardswish, with torch's signatures
(docs/CONTRACT.md section 6, "Piecewise-linear functions").

``abs`` and ``sign`` are exact (bit operations): ``abs`` clears the sign
bit, ``sign`` is +1, -1, +0.0 (for either zero) or NaN; abs's gradient is
``g * sign(x)``.  ``repdl::clamp``: ``a = lo if x < lo else x``, then ``hi if
a > hi else a`` (selections, no rounding; a zero of either sign inside the
range is kept, as torch keeps relu(-0.0) = -0.0, and NaN stays NaN).  Its
gradient is g where lo < x < hi (torch's clamp: lo <= x <= hi), else +0.0.
The others compose it with one-rounding operations.
"""
import math
import numbers

import torch

from .. import _checks, backends
from .._library import primitive
from .._scalar import fl32
from . import _prims as P
from ._in_place import inplace_source, write_inplace

__all__ = ["clamp", "relu", "relu6", "hardtanh", "leaky_relu", "prelu", "hardsigmoid", "hardswish", "abs", "sign"]

Tensor = torch.Tensor


def _clamp_impl(x: Tensor, lo: float, hi: float, inclusive: bool) -> Tensor:
    return backends.for_tensor(x).clamp(x, lo, hi)


def _clamp_fake(x, lo, hi, inclusive):
    return torch.empty_like(x, memory_format=torch.contiguous_format)


def _clamp_setup(ctx, inputs, output):
    ctx.lo, ctx.hi, ctx.inclusive = inputs[1:]
    ctx.save_for_backward(inputs[0])


def _clamp_grad_impl(x: Tensor, g: Tensor, lo: float, hi: float, inclusive: bool) -> Tensor:
    return backends.for_tensor(x).clamp_backward(x, g, lo, hi, inclusive)


def _clamp_grad_setup(ctx, inputs, output):
    ctx.args = inputs[2:]
    ctx.save_for_backward(inputs[0])


def _clamp_grad_backward(ctx, gg):
    """linear in g: the same mask applied to the incoming gradient."""
    (x,) = ctx.saved_tensors
    return None, _clamp_grad(x, gg, *ctx.args), None, None, None


_clamp_grad = primitive("clamp_backward", _clamp_grad_impl, lambda x, g, lo, hi, inclusive: torch.empty_like(g),
                        setup_context=_clamp_grad_setup, backward=_clamp_grad_backward)


def _clamp_backward(ctx, g):
    (x,) = ctx.saved_tensors
    return _clamp_grad(x, g, ctx.lo, ctx.hi, ctx.inclusive), None, None, None


def _clamp_vmap(info, in_dims, x, lo, hi, inclusive):
    return _clamp(x, lo, hi, inclusive), in_dims[0]


_clamp = primitive("clamp", _clamp_impl, _clamp_fake, setup_context=_clamp_setup, backward=_clamp_backward,
                   vmap=_clamp_vmap)


def _number(op, name, v):
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"repdl.{op}: {name} must be a real number, got {type(v).__name__}")
    return fl32(v)


def clamp(input: Tensor, min=None, max=None) -> Tensor:
    """torch.clamp with number bounds: fl32(min) where x < min, then fl32(max)
    where above max, else x.  Gradient: g where min <= x <= max."""
    if min is None and max is None:
        raise RuntimeError("repdl.clamp: at least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        raise NotImplementedError("repdl.clamp: tensor bounds are not supported; pass Python numbers")
    lo = -math.inf if min is None else _number("clamp", "min", min)
    hi = math.inf if max is None else _number("clamp", "max", max)
    return _clamp(_checks.float32_input("clamp", input), lo, hi, True)


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """+0.0 where x < 0, else x (relu(-0.0) = -0.0, as torch).  Gradient: g where x > 0."""
    x = inplace_source(_checks.float32_input("relu", input), inplace)
    return write_inplace(input, _clamp(x, 0.0, math.inf, False), inplace)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """hardtanh(x, 0, 6)."""
    x = inplace_source(_checks.float32_input("relu6", input), inplace)
    return write_inplace(input, _clamp(x, 0.0, 6.0, False), inplace)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    """fl32(min_val) where x < it, fl32(max_val) where x > it, else x.  Gradient: g where min_val < x < max_val."""
    lo, hi = _number("hardtanh", "min_val", min_val), _number("hardtanh", "max_val", max_val)
    if lo > hi:
        raise ValueError(f"repdl.hardtanh: min_val ({min_val}) cannot be greater than max_val ({max_val})")
    x = inplace_source(_checks.float32_input("hardtanh", input), inplace)
    return write_inplace(input, _clamp(x, lo, hi, False), inplace)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """x where x > 0, else x * fl32(negative_slope) (one rounding)."""
    s = _number("leaky_relu", "negative_slope", negative_slope)
    x = inplace_source(_checks.float32_input("leaky_relu", input), inplace)
    return write_inplace(input, torch.where(P.positive(x), x, P.mul(x, s)), inplace)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """x where x > 0, else weight * x (one rounding); weight has 1 or C
    elements, C being dim 1 of input (dim 0 for a 1-D input)."""
    _checks.check_float32("prelu", input=input, weight=weight)
    _checks.check_same_device("prelu", input=input, weight=weight)
    if weight.dim() > 1:
        raise RuntimeError(f"repdl.prelu: weight must be 0-D or 1-D, got shape {tuple(weight.shape)}")
    w = weight.reshape(-1)
    if w.numel() != 1:
        channels = input.shape[1] if input.dim() > 1 else (input.shape[0] if input.dim() == 1 else 1)
        if w.numel() != channels:
            raise RuntimeError(f"repdl.prelu: weight has {w.numel()} elements, input has {channels} channels")
        w = w.reshape(-1, *([1] * (input.dim() - 2))) if input.dim() > 1 else w
    return torch.where(P.positive(input), input, P.mul(w, input))


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """relu6(x + 3) / 6: one addition, the clamp, one division."""
    x = inplace_source(_checks.float32_input("hardsigmoid", input), inplace)
    return write_inplace(input, P.div(_clamp(P.add(x, 3.0), 0.0, 6.0, False), 6.0), inplace)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """(x * relu6(x + 3)) / 6: one addition, the clamp, one product, one division."""
    x = inplace_source(_checks.float32_input("hardswish", input), inplace)
    return write_inplace(input, P.div(P.mul(x, _clamp(P.add(x, 3.0), 0.0, 6.0, False)), 6.0), inplace)


def _sign_of(x):
    """+1 where x > 0, -1 where x < 0, +0.0 for zeros, NaN for NaN (exact)."""
    one = torch.ones((), dtype=torch.float32, device=x.device)
    zero = torch.zeros((), dtype=torch.float32, device=x.device)
    bits = x.view(torch.int32)
    magnitude = bits & 0x7FFFFFFF
    s = torch.where(magnitude == 0, zero, torch.where(bits < 0, -one, one))
    return torch.where(magnitude > 0x7F800000, torch.full_like(x, math.nan), s)


def _abs_impl(x: Tensor) -> Tensor:
    magnitude = (x.view(torch.int32) & 0x7FFFFFFF)
    canonical = torch.where(magnitude > 0x7F800000, torch.full_like(magnitude, 0x7FC00000), magnitude)
    return canonical.view(torch.float32)


def _abs_setup(ctx, inputs, output):
    ctx.save_for_backward(inputs[0])


def _abs_backward(ctx, g):
    """dx = g * sign(x)."""
    (x,) = ctx.saved_tensors
    return P.mul(g, _sign_of(x))


_abs = primitive("abs", _abs_impl, lambda x: torch.empty_like(x), setup_context=_abs_setup, backward=_abs_backward,
                 vmap=lambda info, in_dims, x: (_abs(x), in_dims[0]))


def abs(input: Tensor) -> Tensor:  # noqa: A001  (torch's name)
    """|x|: the sign bit cleared (exact); NaN canonical.  Gradient: g * sign(x)."""
    _checks.check_tensor("abs", "input", input)
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        return torch.abs(input)  # integers: exact
    return _abs(_checks.float32_input("abs", input))


def sign(input: Tensor) -> Tensor:
    """+1, -1, +0.0 (for either zero) or NaN, as float32; not differentiated (its gradient is zero)."""
    return _sign_of(_checks.float32_input("sign", input).detach())

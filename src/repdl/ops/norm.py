"""Normalisations: layer_norm, group_norm, rms_norm, batch_norm and
instance_norm with torch.nn.functional's signatures (docs/CONTRACT.md,
"Normalisation").

Two primitives over the statistics' dims (row-major order of their
elements, n of them):

* ``repdl::normalize(x, dims, eps)`` -> (y, mean, ss, rstd): ``mean =
  seqsum(x) / fl32(n)``, ``ss = fmachain(d, d)`` with ``d = x - mean``,
  ``rstd = rsqrt(ss / fl32(n) + fl32(eps))`` (rsqrt correctly rounded),
  ``y = (x - mean) * rstd``.  Gradient: ``dx = ((g - s1 / fl32(n)) - y *
  (s2 / fl32(n))) * rstd`` with ``s1 = seqsum(g)``, ``s2 = fmachain(g, y)``.
* ``repdl::rms_normalize(x, dims, eps)`` -> (y, rstd): ``rstd =
  rsqrt(fmachain(x, x) / fl32(n) + fl32(eps))``, ``y = x * rstd``.
  Gradient: ``dx = (g - y * (fmachain(g, y) / fl32(n))) * rstd``.

The affine step is ``y * weight``, then ``+ bias``, one rounding each, and
its gradients are those of the arithmetic primitives (weight: the
sequential sum over the broadcast dims of ``g * y``).
"""
import math
import numbers
from typing import List, Tuple

import torch

from .. import _checks, backends
from .._library import Op
from .._scalar import fl32
from ..backends._views import keepdim_shape
from . import _prims as P
from . import elementwise, reductions

__all__ = ["layer_norm", "group_norm", "rms_norm", "batch_norm", "instance_norm"]

Tensor = torch.Tensor


def _count(x, dims):
    n = 1
    for d in dims:
        n *= x.shape[d]
    return n


# ---- primitives ------------------------------------------------------------------------------

def _normalize_impl(x: Tensor, dims: List[int], eps: float) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    be, n = backends.for_tensor(x), fl32(_count(x, dims))
    mean = be.binary_scalar("div", be.sum(x, tuple(dims), True, order="sequential"), n, False)
    ss = be.sqdev(x, mean, tuple(dims), True)
    rstd = be.rsqrt(be.binary_scalar("add", be.binary_scalar("div", ss, n, False), eps, False))
    return be.binary("mul", be.binary("sub", x, mean), rstd), mean, ss, rstd


def _normalize_fake(x, dims, eps):
    kept = keepdim_shape(x.shape, dims)
    return torch.empty_like(x), x.new_empty(kept), x.new_empty(kept), x.new_empty(kept)


def _normalize_setup(ctx, inputs, output):
    ctx.dims = inputs[1]
    ctx.mark_non_differentiable(*output[1:])
    ctx.save_for_backward(output[0], output[3])


def _normalize_backward(ctx, g, *unused):
    y, rstd = ctx.saved_tensors
    n = fl32(_count(y, ctx.dims))
    m1 = P.div(reductions._sum(g, ctx.dims, True, "sequential"), n)
    m2 = P.div(reductions._sumprod(g, y, ctx.dims, True), n)
    return P.mul(P.sub(P.sub(g, m1), P.mul(y, m2)), rstd), None, None


def _rms_normalize_impl(x: Tensor, dims: List[int], eps: float) -> Tuple[Tensor, Tensor]:
    be, n = backends.for_tensor(x), fl32(_count(x, dims))
    ms = be.binary_scalar("div", be.sumprod(x, x, tuple(dims), True), n, False)
    rstd = be.rsqrt(be.binary_scalar("add", ms, eps, False))
    return be.binary("mul", x, rstd), rstd


def _rms_normalize_fake(x, dims, eps):
    return torch.empty_like(x), x.new_empty(keepdim_shape(x.shape, dims))


def _rms_normalize_setup(ctx, inputs, output):
    ctx.dims = inputs[1]
    ctx.mark_non_differentiable(output[1])
    ctx.save_for_backward(*output)


def _rms_normalize_backward(ctx, g, unused):
    y, rstd = ctx.saved_tensors
    m = P.div(reductions._sumprod(g, y, ctx.dims, True), fl32(_count(y, ctx.dims)))
    return P.mul(P.sub(g, P.mul(y, m)), rstd), None, None


_normalize = Op("normalize", _normalize_impl, _normalize_fake, setup_context=_normalize_setup,
                backward=_normalize_backward)
_rms_normalize = Op("rms_normalize", _rms_normalize_impl, _rms_normalize_fake, setup_context=_rms_normalize_setup,
                    backward=_rms_normalize_backward)


# ---- arguments -------------------------------------------------------------------------------

def _eps(op, eps):
    if isinstance(eps, bool) or not isinstance(eps, numbers.Real):
        raise TypeError(f"repdl.{op}: eps must be a real number, got {type(eps).__name__}")
    return fl32(eps)


def _affine(y, weight, bias, shape):
    if weight is not None:
        y = P.mul(y, weight.reshape(shape))
    if bias is not None:
        y = P.add(y, bias.reshape(shape))
    return y


def _check_param(op, name, t, numel):
    if t is None:
        return
    _checks.check_float32(op, **{name: t})
    if t.numel() != numel:
        raise RuntimeError(f"repdl.{op}: {name} of shape {tuple(t.shape)} does not have {numel} elements")


# ---- layer, group, RMS, instance -------------------------------------------------------------

def layer_norm(input: Tensor, normalized_shape, weight: Tensor = None, bias: Tensor = None,
               eps: float = 1e-5) -> Tensor:
    """torch.nn.functional.layer_norm: statistics over the last
    len(normalized_shape) dims, then * weight, + bias (elementwise)."""
    _checks.check_float32("layer_norm", input=input)
    shape = (normalized_shape,) if isinstance(normalized_shape, numbers.Integral) else tuple(normalized_shape)
    if tuple(input.shape[input.dim() - len(shape):]) != shape or len(shape) > input.dim():
        raise RuntimeError(f"repdl.layer_norm: input of shape {tuple(input.shape)} does not end with normalized_shape "
                           f"{shape}")
    numel = math.prod(shape)
    _check_param("layer_norm", "weight", weight, numel)
    _check_param("layer_norm", "bias", bias, numel)
    _checks.check_same_device("layer_norm", input=input, weight=weight, bias=bias)
    dims = list(range(input.dim() - len(shape), input.dim()))
    y = _normalize(input, dims, _eps("layer_norm", eps))[0] if dims else input
    return _affine(y, weight, bias, shape)


def rms_norm(input: Tensor, normalized_shape, weight: Tensor = None, eps=None) -> Tensor:
    """torch.nn.functional.rms_norm: x * rsqrt(mean of squares + eps) over the
    last len(normalized_shape) dims, then * weight.  eps=None is float32's
    machine epsilon 2**-23, as torch."""
    _checks.check_float32("rms_norm", input=input)
    shape = (normalized_shape,) if isinstance(normalized_shape, numbers.Integral) else tuple(normalized_shape)
    if tuple(input.shape[input.dim() - len(shape):]) != shape or len(shape) > input.dim():
        raise RuntimeError(f"repdl.rms_norm: input of shape {tuple(input.shape)} does not end with normalized_shape "
                           f"{shape}")
    _check_param("rms_norm", "weight", weight, math.prod(shape))
    _checks.check_same_device("rms_norm", input=input, weight=weight)
    dims = list(range(input.dim() - len(shape), input.dim()))
    e = 2.0 ** -23 if eps is None else _eps("rms_norm", eps)
    return _affine(_rms_normalize(input, dims, e)[0], weight, None, shape)


def _channel_shape(x):
    return (-1, *([1] * (x.dim() - 2)))


def group_norm(input: Tensor, num_groups: int, weight: Tensor = None, bias: Tensor = None,
               eps: float = 1e-5) -> Tensor:
    """torch.nn.functional.group_norm: statistics per (sample, group) over
    the group's channels and every spatial position, then per-channel affine."""
    _checks.check_float32("group_norm", input=input)
    if input.dim() < 2:
        raise RuntimeError(f"repdl.group_norm: expected at least 2 dims, got shape {tuple(input.shape)}")
    n, c = input.shape[:2]
    if not isinstance(num_groups, numbers.Integral) or num_groups <= 0 or c % num_groups:
        raise RuntimeError(f"repdl.group_norm: expected number of channels {c} to be divisible by num_groups "
                           f"{num_groups}")
    _check_param("group_norm", "weight", weight, c)
    _check_param("group_norm", "bias", bias, c)
    _checks.check_same_device("group_norm", input=input, weight=weight, bias=bias)
    grouped = input.reshape(n, num_groups, -1)
    y = _normalize(grouped, [2], _eps("group_norm", eps))[0].reshape(input.shape)
    return _affine(y, weight, bias, _channel_shape(input))


def _update_running(running, stat, momentum):
    """running = running * fl32(1 - momentum) + stat * fl32(momentum), in
    place, three roundings (momentum a Python float)."""
    with torch.no_grad():
        running.copy_(P.add(P.mul(running, fl32(1.0 - momentum)), P.mul(stat.reshape(running.shape), fl32(momentum))))


def batch_norm(input: Tensor, running_mean, running_var, weight=None, bias=None, training: bool = False,
               momentum=0.1, eps: float = 1e-5) -> Tensor:
    """torch.nn.functional.batch_norm.  Training: statistics per channel over
    (N, *spatial); running_mean and running_var (when given) become
    running * fl32(1 - momentum) + stat * fl32(momentum), the variance
    unbiased (ss / fl32(n - 1)).  Evaluation: y = (x - running_mean) *
    rsqrt(running_var + fl32(eps)), then the affine step: every sample on
    its own, so eval-mode results are batch-invariant."""
    _checks.check_float32("batch_norm", input=input)
    if input.dim() < 2:
        raise ValueError(f"repdl.batch_norm: expected 2D or more input, got shape {tuple(input.shape)}")
    c = input.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight), ("bias", bias)):
        _check_param("batch_norm", name, t, c)
    _checks.check_same_device("batch_norm", input=input, weight=weight, bias=bias)
    shape = _channel_shape(input)
    e = _eps("batch_norm", eps)
    if not training:
        if running_mean is None or running_var is None:
            raise RuntimeError("repdl.batch_norm: running_mean and running_var must be given when training=False")
        rstd = elementwise.rsqrt(P.add(running_var.detach(), e))
        y = P.mul(P.sub(input, running_mean.detach().reshape(shape)), rstd.reshape(shape))
        return _affine(y, weight, bias, shape)
    dims = [0, *range(2, input.dim())]
    n = _count(input, dims)
    if n <= 1:
        raise ValueError(f"repdl.batch_norm: expected more than 1 value per channel when training, got input "
                         f"size {tuple(input.shape)}")
    y, mean, ss, _ = _normalize(input, dims, e)
    if running_mean is not None and momentum is not None:
        _update_running(running_mean, mean, momentum)
    if running_var is not None and momentum is not None:
        _update_running(running_var, P.div(ss, fl32(n - 1)), momentum)
    return _affine(y, weight, bias, shape)


def instance_norm(input: Tensor, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats: bool = True, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """torch.nn.functional.instance_norm: statistics per (sample, channel)
    over the spatial dims.  With running statistics, each becomes the mean
    over the batch (seqsum / fl32(N)) of the per-instance updates, as torch."""
    _checks.check_float32("instance_norm", input=input)
    if input.dim() < 3:
        raise ValueError(f"repdl.instance_norm: expected 3D or more input, got shape {tuple(input.shape)}")
    n, c = input.shape[:2]
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight), ("bias", bias)):
        _check_param("instance_norm", name, t, c)
    shape = _channel_shape(input)
    e = _eps("instance_norm", eps)
    if not use_input_stats:
        return batch_norm(input, running_mean, running_var, weight, bias, False, momentum, eps)
    dims = list(range(2, input.dim()))
    count = _count(input, dims)
    y, mean, ss, _ = _normalize(input, dims, e)
    for running, stat in ((running_mean, mean), (running_var, P.div(ss, fl32(count - 1)) if count > 1 else None)):
        if running is not None and stat is not None:
            with torch.no_grad():
                per_instance = P.add(P.mul(running.reshape(1, c), fl32(1.0 - momentum)),
                                     P.mul(stat.reshape(n, c), fl32(momentum)))
                running.copy_(P.div(reductions._sum(per_instance, [0], False, "sequential"), fl32(n)))
    return _affine(y, weight, bias, shape)

"""Gradient clipping with a fixed order (CONTRACT.md, "Gradient clipping"):
``clip_grad_norm_``, ``clip_grad_value_``, and the two halves of the first,
``get_total_norm`` and ``clip_grads_with_norm_``, with torch.nn.utils'
signatures.

The total p-norm of tensors t_1..t_k (in the order given) is

    S_i   = sum_pairwise(|t_i|^p)       over t_i's elements in row-major order
    total = (S_1 + S_2 + ... + S_k)^(1/p)   the S_i summed sequentially

with |x|^2 = x*x, |x|^1 = |x|, other integer p by repdl.pow's fixed
multiplications and fractional p as exp(p * log|x|), and the root as sqrt
(p = 2), nothing (p = 1) or exp(log(S) / p); every step correctly rounded
float32.  inf and -inf are the largest and smallest |x| (exact), 0 the
count of non-zero elements.
"""
import math
import numbers

import torch

from .. import ops
from .._scalar import fl32

__all__ = ["clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]


def _tensors(tensors):
    return [tensors] if isinstance(tensors, torch.Tensor) else list(tensors)


def _grads(parameters):
    return [p.grad for p in _tensors(parameters) if p.grad is not None]


def _check_foreach(op, foreach):
    if foreach:
        raise NotImplementedError(f"repdl.nn.utils.{op}: foreach=True selects torch's multi-tensor kernels, whose "
                                  "rounding is torch's; leave foreach unset")


def _power_sum(t, p: float):
    """sum_pairwise(|t|^p), a 0-d float32 tensor (p finite, > 0)."""
    a = ops.abs(t.reshape(-1))
    if p == 2:
        powered = ops.mul(a, a)
    elif p == 1:
        powered = a
    elif p == int(p):
        powered = ops.pow(a, int(p))
    else:
        powered = ops.exp(ops.mul(ops.log(a), fl32(p)))
    return ops.sum_pairwise(powered)


def _root(total, p: float):
    if p == 1:
        return total
    if p == 2:
        return ops.sqrt(total)
    return ops.exp(ops.div(ops.log(total), fl32(p)))


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The total norm of `tensors` as if concatenated into one vector, in
    the module docstring's order; a 0-d float32 tensor on the first
    tensor's device."""
    _check_foreach("get_total_norm", foreach)
    if not isinstance(norm_type, numbers.Real):
        raise TypeError(f"repdl.nn.utils.get_total_norm: norm_type must be a number, got {norm_type!r}")
    p = float(norm_type)
    tensors = _tensors(tensors)
    if not tensors:
        return torch.tensor(0.0, dtype=torch.float32)
    for t in tensors:
        if t.dtype != torch.float32:
            raise TypeError(f"repdl.nn.utils.get_total_norm: a tensor has dtype {t.dtype}; torch.float32 only")
    device = tensors[0].device
    if p in (math.inf, -math.inf):
        parts = [ops.max(ops.abs(t)) if p > 0 else ops.min(ops.abs(t)) for t in tensors if t.numel()]
        if not parts:
            return torch.tensor(0.0, device=device)
        stacked = torch.stack([x.to(device) for x in parts])
        total = ops.max(stacked) if p > 0 else ops.min(stacked)
    elif p == 0:
        total = torch.tensor(fl32(sum(int((t != 0).sum()) for t in tensors)), device=device)
    elif p > 0:
        total = _root(ops.sum(torch.stack([_power_sum(t, p).to(device) for t in tensors])), p)
    else:
        raise NotImplementedError(f"repdl.nn.utils.get_total_norm: norm_type={norm_type!r} is not supported; "
                                  "supported: p > 0, 0, inf and -inf")
    if error_if_nonfinite and not bool(torch.isfinite(total)):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so "
                           "it cannot be clipped. To disable this error and scale the gradients by the non-finite "
                           "norm anyway, set `error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale every gradient by c = min(max_norm / (total_norm + 1e-6), 1)
    (float32, one rounding per operation), as torch does: always, so a
    factor of 1 leaves the bits as they are."""
    _check_foreach("clip_grads_with_norm_", foreach)
    grads = _grads(parameters)
    if not grads:
        return
    denom = ops.add(total_norm, fl32(1e-6))
    coef = ops.clamp(ops.div(fl32(float(max_norm)), denom), max=1.0)
    with torch.no_grad():
        for g in grads:
            g.copy_(ops.mul(g, coef.to(g.device)))


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """torch.nn.utils.clip_grad_norm_: returns the total norm of the
    gradients (get_total_norm) and scales them (clip_grads_with_norm_)."""
    parameters = _tensors(parameters)
    with torch.no_grad():
        total = get_total_norm(_grads(parameters), norm_type, error_if_nonfinite, foreach)
        clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_value_(parameters, clip_value, foreach=None):
    """torch.nn.utils.clip_grad_value_: clamp every gradient to
    [-clip_value, clip_value] (exact)."""
    _check_foreach("clip_grad_value_", foreach)
    v = fl32(float(clip_value))
    with torch.no_grad():
        for g in _grads(parameters):
            g.copy_(ops.clamp(g, -v, v))

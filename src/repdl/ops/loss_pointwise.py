"""Pointwise losses with torch.nn.functional's signatures (docs/CONTRACT.md,
"Losses"): mse_loss, l1_loss, smooth_l1_loss, huber_loss,
binary_cross_entropy, binary_cross_entropy_with_logits, kl_div,
cosine_embedding_loss and margin_ranking_loss.

Each is a fixed sequence of primitives per element (written in each
docstring, one rounding per operation, left to right), then the reduction:
"none", "sum" (the sequential sum over every element, row-major) or
"mean" (that sum / fl32(number of elements)); kl_div's "batchmean"
divides the sum by fl32(input.size(0)).  Gradients are the primitives'.
"""
import math
import numbers

import torch

from .. import _checks
from .._scalar import fl32
from . import _prims as P
from . import elementwise, piecewise, reductions

__all__ = ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "kl_div", "cosine_embedding_loss", "margin_ranking_loss"]

Tensor = torch.Tensor
_REDUCTIONS = ("none", "mean", "sum")


def _reduce(op, loss, reduction, extra=()):
    if reduction not in _REDUCTIONS + extra:
        raise ValueError(f"repdl.{op}: {reduction!r} is not a valid value for reduction (expected one of "
                         f"{', '.join(_REDUCTIONS + extra)})")
    if reduction == "none":
        return loss
    total = reductions._sum(loss, list(range(loss.dim())), False, "sequential")
    return total if reduction == "sum" else P.div(total, fl32(loss.numel()))


def _pair(op, input, target):
    _checks.check_float32(op, input=input, target=target)
    _checks.check_same_device(op, input=input, target=target)
    _checks.broadcast_shape(op, input.shape, target.shape)
    return input, target


def _real(op, name, v):
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"repdl.{op}: {name} must be a real number, got {type(v).__name__}")
    return fl32(v)


def mse_loss(input, target, reduction="mean") -> Tensor:
    """d = x - t; d * d."""
    x, t = _pair("mse_loss", input, target)
    d = P.sub(x, t)
    return _reduce("mse_loss", P.mul(d, d), reduction)


def l1_loss(input, target, reduction="mean") -> Tensor:
    """|x - t|."""
    x, t = _pair("l1_loss", input, target)
    return _reduce("l1_loss", piecewise._abs(P.sub(x, t)), reduction)


def smooth_l1_loss(input, target, reduction="mean", beta=1.0) -> Tensor:
    """z = |x - t|; ((0.5 * z) * z) / beta where z < beta, else z - 0.5 * beta
    (beta = 0 is l1_loss, as torch)."""
    x, t = _pair("smooth_l1_loss", input, target)
    b = _real("smooth_l1_loss", "beta", beta)
    if b < 0:
        raise RuntimeError(f"repdl.smooth_l1_loss: beta must be non-negative, got {beta}")
    z = piecewise._abs(P.sub(x, t))
    if b == 0:
        return _reduce("smooth_l1_loss", z, reduction)
    quadratic = P.div(P.mul(P.mul(0.5, z), z), b)
    return _reduce("smooth_l1_loss", torch.where(P.compare(z, "lt", b), quadratic, P.sub(z, fl32(0.5 * b))), reduction)


def huber_loss(input, target, reduction="mean", delta=1.0) -> Tensor:
    """z = |x - t|; (0.5 * z) * z where z < delta, else delta * (z - 0.5 * delta)."""
    x, t = _pair("huber_loss", input, target)
    dl = _real("huber_loss", "delta", delta)
    if dl <= 0:
        raise RuntimeError(f"repdl.huber_loss: delta must be positive, got {delta}")
    z = piecewise._abs(P.sub(x, t))
    linear = P.mul(dl, P.sub(z, fl32(0.5 * dl)))
    return _reduce("huber_loss", torch.where(P.compare(z, "lt", dl), P.mul(P.mul(0.5, z), z), linear), reduction)


def _weighted(op, loss, weight):
    if weight is None:
        return loss
    _checks.check_float32_tensor(op, "weight", weight)
    return P.mul(loss, weight)


def binary_cross_entropy(input, target, weight=None, reduction="mean") -> Tensor:
    """(t - 1) * max(log(1 - x), -100) - t * max(log(x), -100) (torch's
    formula and clamp; log correctly rounded), times weight."""
    op = "binary_cross_entropy"
    x, t = _pair(op, input, target)
    if x.shape != t.shape:
        raise ValueError(f"repdl.{op}: target size {tuple(t.shape)} must be the same as input size {tuple(x.shape)}")
    if x.numel() and not x.is_meta and not torch.compiler.is_compiling() and type(x) is torch.Tensor and \
            not bool(((x >= 0) & (x <= 1)).all()):
        raise RuntimeError(f"repdl.{op}: all elements of input should be between 0 and 1")
    log_x = piecewise._clamp(elementwise.log(x), -100.0, math.inf, True)
    log_1mx = piecewise._clamp(elementwise.log(P.sub(1.0, x)), -100.0, math.inf, True)
    loss = P.sub(P.mul(P.sub(t, 1.0), log_1mx), P.mul(t, log_x))
    return _reduce(op, _weighted(op, loss, weight), reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, reduction="mean", pos_weight=None) -> Tensor:
    """(1 - t) * x + lw * softplus(-x), lw = (pos_weight - 1) * t + 1 (1 without
    pos_weight); softplus correctly rounded, so softplus(-x) is ln(1 + e^-x)
    with one rounding; times weight."""
    op = "binary_cross_entropy_with_logits"
    x, t = _pair(op, input, target)
    if x.shape != t.shape:
        raise ValueError(f"repdl.{op}: target size {tuple(t.shape)} must be the same as input size {tuple(x.shape)}")
    sp = elementwise._softplus(P.neg(x))
    if pos_weight is not None:
        _checks.check_float32_tensor(op, "pos_weight", pos_weight)
        sp = P.mul(P.add(P.mul(P.sub(pos_weight, 1.0), t), 1.0), sp)
    loss = P.add(P.mul(P.sub(1.0, t), x), sp)
    return _reduce(op, _weighted(op, loss, weight), reduction)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False) -> Tensor:
    """log_target: exp(t) * (t - x); else t * log(t) - t * x, with t * log(t)
    = +0.0 where t == 0 (torch's xlogy)."""
    op = "kl_div"
    if size_average is not None or reduce is not None:
        raise NotImplementedError(f"repdl.{op}: the deprecated size_average and reduce arguments are not supported")
    x, t = _pair(op, input, target)
    if log_target:
        loss = P.mul(elementwise.exp(t), P.sub(t, x))
    else:
        zero = (t.view(torch.int32) & 0x7FFFFFFF) == 0
        xlogy = torch.where(zero, torch.zeros_like(t), P.mul(t, elementwise.log(t)))
        loss = P.sub(xlogy, P.mul(t, x))
    if reduction == "batchmean":
        total = reductions._sum(loss, list(range(loss.dim())), False, "sequential")
        return P.div(total, fl32(x.shape[0] if x.dim() else 1))
    return _reduce(op, loss, reduction, ("batchmean",))


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean") -> Tensor:
    """Per row (the last dim): dot = fmachain(x1, x2), m1 = fmachain(x1, x1) +
    fl32(1e-12), m2 likewise, cos = dot / sqrt(m1 * m2); 1 - cos where
    target == 1, max(cos - margin, 0) where target == -1, +0.0 elsewhere."""
    op = "cosine_embedding_loss"
    _checks.check_float32(op, input1=input1, input2=input2)
    _checks.check_tensor(op, "target", target)
    if input1.shape != input2.shape or input1.dim() not in (1, 2):
        raise RuntimeError(f"repdl.{op}: inputs of shapes {tuple(input1.shape)} and {tuple(input2.shape)} must be "
                           "equal 1-D or 2-D")
    m = _real(op, "margin", margin)
    dim = [input1.dim() - 1]
    eps = fl32(1e-12)
    dot = reductions._sumprod(input1, input2, dim, False)
    m1 = P.add(reductions._sumprod(input1, input1, dim, False), eps)
    m2 = P.add(reductions._sumprod(input2, input2, dim, False), eps)
    cos = P.div(dot, elementwise.sqrt(P.mul(m1, m2)))
    zero = torch.zeros((), dtype=torch.float32, device=cos.device)
    positive = torch.where(target == 1, P.sub(1.0, cos), zero)
    negative = torch.where(target == -1, piecewise._clamp(P.sub(cos, m), 0.0, math.inf, False), zero)
    return _reduce(op, P.add(positive, negative), reduction)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean") -> Tensor:
    """max(-t * (x1 - x2) + margin, 0): one subtraction, one product, one addition, the clamp."""
    op = "margin_ranking_loss"
    _checks.check_float32(op, input1=input1, input2=input2, target=target)
    m = _real(op, "margin", margin)
    value = P.add(P.mul(P.neg(target), P.sub(input1, input2)), m)
    return _reduce(op, piecewise._clamp(value, 0.0, math.inf, False), reduction)

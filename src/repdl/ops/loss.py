"""cross_entropy (docs/CONTRACT.md, "Losses"), composed from primitives:
log_softmax, sum, matmul, and single-rounding float32 arithmetic."""
import torch

from .. import _checks
from ..backends.reference._exact import canonical_nan
from .linalg import matmul
from .reductions import sum as _sum
from .softmax import log_softmax

__all__ = ["cross_entropy"]

Tensor = torch.Tensor
_REDUCTIONS = ("none", "mean", "sum")


def _f32(value, like):
    return torch.tensor(value, dtype=torch.float32, device=like.device)


def _check(input, target, weight, reduction, label_smoothing):
    _checks.check_float32("cross_entropy", input=input)
    _checks.check_tensor("cross_entropy", "target", target)
    _checks.check_same_device("cross_entropy", input=input, target=target, weight=weight)
    if reduction not in _REDUCTIONS:
        raise ValueError(f"repdl.cross_entropy: {reduction!r} is not a valid value for reduction "
                         f"(expected one of {', '.join(_REDUCTIONS)})")
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"repdl.cross_entropy: label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    if input.dim() == 0:
        raise ValueError("repdl.cross_entropy: input must have a class dimension (got a 0-d tensor)")
    C = input.shape[1] if input.dim() > 1 else input.shape[0]
    if weight is not None:
        _checks.check_float32("cross_entropy", weight=weight)
        if weight.shape != (C,):
            raise RuntimeError(f"repdl.cross_entropy: weight must have shape ({C},), got {tuple(weight.shape)}")
    return C


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor = None, ignore_index: int = -100,
                  reduction: str = "mean", label_smoothing: float = 0.0) -> Tensor:
    """torch.nn.functional.cross_entropy's arguments; class dim 1 (0 for a
    1-D input); target holds class indices (an integer tensor) or class
    probabilities (float32, the shape of input)."""
    C = _check(input, target, weight, reduction, label_smoothing)
    class_dim = 1 if input.dim() > 1 else 0
    lsm = log_softmax(input, class_dim).movedim(class_dim, -1)  # (..., C)
    if target.dtype.is_floating_point:
        return _probability_targets(lsm, target, weight, reduction, label_smoothing, class_dim, input)
    if target.dtype == torch.bool or target.is_complex():
        raise TypeError(f"repdl.cross_entropy: target must hold class indices (an integer tensor) or "
                        f"float32 probabilities, got {target.dtype}")
    if target.shape != lsm.shape[:-1]:
        raise ValueError(f"repdl.cross_entropy: expected target of shape {tuple(lsm.shape[:-1])} "
                         f"for input of shape {tuple(input.shape)}, got {tuple(target.shape)}")
    target = target.to(torch.int64)
    valid = target != ignore_index
    bad = valid & ((target < 0) | (target >= C))
    if bad.any():
        raise IndexError(f"repdl.cross_entropy: Target {target[bad][0].item()} is out of bounds.")
    safe = torch.where(valid, target, torch.zeros_like(target))
    zero = torch.zeros((), dtype=torch.float32, device=input.device)

    # Per sample: nll = -lsm[t] (times weight[t]); ignored samples give +0.0
    # and weigh 0 in the mean's denominator.
    nll = -lsm.gather(-1, safe.unsqueeze(-1)).squeeze(-1)
    if weight is not None:
        w = torch.where(valid, weight[safe], zero)
        nll = canonical_nan(torch.mul(w, nll))
    nll = torch.where(valid, nll, zero)

    smoothing = label_smoothing > 0.0
    if smoothing:
        # smooth = -sum_c lsm_c (unweighted) or -fmachain_c(lsm_c, weight_c)
        smooth = -(_sum(lsm, -1) if weight is None else matmul(lsm, weight))
        smooth = torch.where(valid, smooth, zero)

    if reduction == "none":
        loss, smooth_total = nll, (smooth if smoothing else None)
    else:
        loss = _sum(nll)
        smooth_total = _sum(smooth) if smoothing else None
        if reduction == "mean":
            denom = _f32(float(valid.sum().item()), input) if weight is None else _sum(w)
            loss = canonical_nan(torch.div(loss, denom))
            if smoothing:
                smooth_total = canonical_nan(torch.div(smooth_total, denom))
    if not smoothing:
        return loss
    a, b = _f32(1.0 - label_smoothing, input), _f32(label_smoothing / C, input)
    return canonical_nan(torch.add(torch.mul(a, loss), torch.mul(b, smooth_total)))


def _probability_targets(lsm, target, weight, reduction, label_smoothing, class_dim, input):
    """loss_n = -fmachain_c(lsm_c, q_c), q = p (blended with the uniform
    distribution when smoothing: fl32(1-eps)*p + fl32(eps/C)), times weight_c
    when given; mean divides by fl32(number of samples)."""
    if target.dtype != torch.float32:
        raise TypeError(f"repdl.cross_entropy: probability targets must be float32, got {target.dtype}")
    if target.shape != input.shape:
        raise ValueError(f"repdl.cross_entropy: probability target shape {tuple(target.shape)} must "
                         f"equal input shape {tuple(input.shape)}")
    C = lsm.shape[-1]
    q = target.movedim(class_dim, -1)
    if label_smoothing > 0.0:
        a, b = _f32(1.0 - label_smoothing, input), _f32(label_smoothing / C, input)
        q = torch.add(torch.mul(a, q), b)
    if weight is not None:
        q = torch.mul(q, weight)
    loss = -matmul(lsm.unsqueeze(-2), q.unsqueeze(-1)).reshape(lsm.shape[:-1])
    if reduction == "none":
        return loss
    total = _sum(loss)
    if reduction == "sum":
        return total
    return canonical_nan(torch.div(total, _f32(float(loss.numel()), input)))

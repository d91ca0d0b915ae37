"""cross_entropy (docs/CONTRACT.md, "Losses"), composed from primitives:
log_softmax, the class pick (``repdl::class_pick``), sum, matmul and the IEEE
operations of ``ops.arith``; everything else is exact selection (where,
gather, views) on values those primitives produced."""
import numbers
from typing import Tuple

import torch

from .. import _checks, backends
from .._checks import PLAIN_TYPES
from .._library import _functorch_active, mark_non_differentiable, primitive
from .._scalar import fl32
from .arith import add, div, mul, neg
from .linalg import matmul
from .reductions import sum as _sum
from .softmax import log_softmax, log_softmax_backward

__all__ = ["cross_entropy", "nll_loss"]

Tensor = torch.Tensor
_REDUCTIONS = ("none", "mean", "sum")


def _class_pick_impl(lsm: Tensor, target: Tensor, ignore_index: int) -> Tensor:
    """lsm[n, target[n]] for every sample n (lsm is (..., C)), +0.0 where
    target[n] == ignore_index; IndexError for another target outside [0, C).
    The check lives here, inside the primitive, so that tracing and
    torch.compile never see a data-dependent branch while eager calls still
    raise before any result is returned."""
    C = lsm.shape[-1]
    valid = target != ignore_index
    bad = valid & ((target < 0) | (target >= C))
    if bad.any():
        raise _checks.class_out_of_bounds(target[bad][0].item(), C)
    picked = lsm.gather(-1, torch.where(valid, target, torch.zeros_like(target)).unsqueeze(-1)).squeeze(-1)
    return torch.where(valid, picked, torch.zeros_like(picked))


def _class_pick_fake(lsm, target, ignore_index):
    return lsm.new_empty(lsm.shape[:-1])


def _class_pick_setup(ctx, inputs, output):
    lsm, target, ignore_index = inputs
    ctx.shape = lsm.shape
    ctx.save_for_backward(target)
    ctx.ignore_index = ignore_index


def _class_pick_backward(ctx, g):
    """d lsm = +0.0 everywhere, then g written at [n, target[n]] for every
    valid sample (a scatter of copies: one position per sample)."""
    (target,) = ctx.saved_tensors
    valid = target != ctx.ignore_index
    index = torch.where(valid, target, torch.zeros_like(target))
    return _written_at_targets(ctx.shape, index, torch.where(valid, g, torch.zeros_like(g))), None, None


def _written_at_targets(shape, index, value):
    """A +0.0 tensor of `shape` with value[n] at [n, index[n]].  The scatter
    writes into the fresh zeros in place (0.65 ms against 2.1 ms out of place
    at 4096 x 1000, 6% of cross_entropy's forward and backward), except
    under a functorch transform: scatter_ has no vmap batching rule, and
    per-sample gradients would fall back to a loop.  (A where() over the
    classes took 4.5 ms.)  Either way each position is written once: the
    same bits."""
    zeros = torch.zeros(shape, dtype=torch.float32, device=value.device)
    if _functorch_active():
        return zeros.scatter(-1, index.unsqueeze(-1), value.unsqueeze(-1))
    return zeros.scatter_(-1, index.unsqueeze(-1), value.unsqueeze(-1))


_class_pick = primitive("class_pick", _class_pick_impl, _class_pick_fake, setup_context=_class_pick_setup,
                        backward=_class_pick_backward)


def _masked_nll(picked, valid):
    """nll[n] = -picked[n] (the log-probability of sample n's class), +0.0
    where the sample is ignored."""
    return torch.where(valid, neg(picked), _zero(picked))


def _reduced_nll(picked, valid, reduction):
    """The masked nll kept ('none'), seqsum'd ('sum') or seqsum'd and
    divided by fl32(valid count) ('mean')."""
    nll = _masked_nll(picked, valid)
    if reduction == "none":
        return nll
    total = _sum(nll)
    return div(total, valid.sum().to(torch.float32)) if reduction == "mean" else total


def _class_nll_impl(lsm: Tensor, target: Tensor, ignore_index: int, reduction: str) -> Tensor:
    """The class-index loss without weight or smoothing (the common case) as
    one primitive: the backend's nll for (N, C) log-probabilities, else
    composed of the same primitives as the general rule (pick, neg, where,
    sum, count, div): one autograd node instead of six."""
    if lsm.dim() == 2:
        return backends.for_tensor(lsm).nll(lsm, target, ignore_index, reduction)
    return _reduced_nll(_class_pick(lsm, target, ignore_index), target != ignore_index, reduction)


def _class_nll_fake(lsm, target, ignore_index, reduction):
    return lsm.new_empty(lsm.shape[:-1] if reduction == "none" else ())


def _class_nll_setup(ctx, inputs, output):
    lsm, target, ignore_index, reduction = inputs
    ctx.shape, ctx.ignore_index, ctx.reduction = lsm.shape, ignore_index, reduction
    ctx.save_for_backward(target)


def _class_nll_backward(ctx, g):
    """The general rule's backward, node by node: 'mean' divides g by the
    count (div's backward), the sum copies it to every sample, where() keeps
    the valid ones, neg negates, and the pick writes each into a zero lsm
    gradient at its class (ignored samples write +0.0 at class 0)."""
    (target,) = ctx.saved_tensors
    if len(ctx.shape) == 2 and not torch.is_grad_enabled():
        return _nll_grad(g, target, *ctx.shape, ctx.ignore_index, ctx.reduction), None, None, None
    index, value = _pick_gradient(g, target, ctx.ignore_index, ctx.reduction)
    return _written_at_targets(ctx.shape, index, value), None, None, None


def _pick_gradient(g, target, ignore_index, reduction):
    """The one-hot gradient class_nll hands to lsm, as (class index, value)
    per sample: -g (divided by the valid count for 'mean'; g[n] for 'none')
    at target[n], and +0.0 at class 0 for an ignored sample."""
    valid = target != ignore_index
    if reduction == "mean":
        g = div(g, valid.sum().to(torch.float32))
    value = torch.where(valid, neg(g), _zero(g)).expand(target.shape)
    return torch.where(valid, target, torch.zeros_like(target)), value


_class_nll = primitive("class_nll", _class_nll_impl, _class_nll_fake, setup_context=_class_nll_setup,
                       backward=_class_nll_backward)


# The fused backward kernels of the class losses are primitives of their
# own, so that a compiled graph's backward (AOT autograd traces it with fake
# tensors) holds them as opaque ops rather than reaching their data pointers.

def _nll_grad_impl(g: Tensor, target: Tensor, rows: int, cols: int, ignore_index: int, reduction: str) -> Tensor:
    return backends.for_tensor(g).nll_backward((rows, cols), target, ignore_index, reduction, g)


def _nll_grad_fake(g, target, rows, cols, ignore_index, reduction):
    return g.new_empty(rows, cols)


_nll_grad = primitive("nll_grad", _nll_grad_impl, _nll_grad_fake)


def _lsm_class_nll_impl(input: Tensor, target: Tensor, ignore_index: int, reduction: str) -> Tuple[Tensor, Tensor]:
    """cross_entropy of a 2-D input with class-index targets, no weight and no
    smoothing, as one primitive: class_nll's rule on lsm = log_softmax(input,
    1), without forming lsm.  Each row's log_softmax is fl(fl(x - m) - log
    s) element by element, so the row's two values (m, log s: the backend's
    log_softmax_stats) give the picked log-probabilities (the backend's
    class_nll), and the backward forms the rest again from the saved input.
    Returns (loss, stats): an (N, C) input keeps N x 2 floats for its
    backward instead of lsm, and its forward writes no N x C output."""
    return backends.for_tensor(input).class_nll(input, target, ignore_index, reduction)


def _lsm_class_nll_fake(input, target, ignore_index, reduction):
    return input.new_empty(input.shape[:1] if reduction == "none" else ()), input.new_empty(input.shape[0], 2)


def _lsm_class_nll_setup(ctx, inputs, output):
    input, target, ctx.ignore_index, ctx.reduction = inputs
    mark_non_differentiable(ctx, output[1])
    ctx.save_for_backward(input, target, output[1])


def _lsm_class_nll_backward(ctx, g, g_stats):
    """class_nll's one-hot gradient, then log_softmax's rule, fused in the
    backend from the input and the stats (the same bits).  Recording a
    gradient graph (a double backward), log_softmax is formed again as a
    recorded op, so that the graph reaches the input through it."""
    if g is None:
        return None, None, None, None
    input, target, stats = ctx.saved_tensors
    if not torch.is_grad_enabled():
        return _lsm_class_nll_grad(input, stats, target, ctx.ignore_index, ctx.reduction, g), None, None, None
    index, value = _pick_gradient(g, target, ctx.ignore_index, ctx.reduction)
    lsm = log_softmax(input, 1)
    return log_softmax_backward(_written_at_targets(lsm.shape, index, value), lsm, 1), None, None, None


_lsm_class_nll = primitive("lsm_class_nll", _lsm_class_nll_impl, _lsm_class_nll_fake,
                           setup_context=_lsm_class_nll_setup, backward=_lsm_class_nll_backward)


# cross_entropy's fused backward: a primitive for the reason _nll_grad is.

def _lsm_class_nll_grad_impl(input: Tensor, stats: Tensor, target: Tensor, ignore_index: int, reduction: str,
                             g: Tensor) -> Tensor:
    return backends.for_tensor(input).class_nll_backward(input, stats, target, ignore_index, reduction, g)


def _lsm_class_nll_grad_fake(input, stats, target, ignore_index, reduction, g):
    return torch.empty_like(input)


_lsm_class_nll_grad = primitive("lsm_class_nll_grad", _lsm_class_nll_grad_impl, _lsm_class_nll_grad_fake)


def _zero(t):
    return torch.zeros((), dtype=torch.float32, device=t.device)


def _check(op, input, target, weight, ignore_index, reduction, label_smoothing):
    _checks.check_float32_tensor(op, "input", input)
    _checks.check_tensor(op, "target", target)
    if weight is not None:
        _checks.check_tensor(op, "weight", weight)
    # (both were checked as tensors above; two CPU tensors share a device)
    if weight is not None or not (input.is_cpu and target.is_cpu) and input.device != target.device:
        _checks.check_same_device(op, input=input, target=target, weight=weight)
    if reduction not in _REDUCTIONS:
        raise ValueError(f"repdl.{op}: {reduction!r} is not a valid value for reduction "
                         f"(expected one of {', '.join(_REDUCTIONS)})")
    # exact types first: the abstract-class checks cost 0.35 us each
    if type(label_smoothing) is not float and (isinstance(label_smoothing, bool)
                                               or not isinstance(label_smoothing, numbers.Real)):
        raise TypeError(f"repdl.{op}: label_smoothing must be a real number, got "
                        f"{type(label_smoothing).__name__}")
    if label_smoothing > 1.0:  # torch's check and class
        raise RuntimeError(f"repdl.{op}: label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    if not label_smoothing >= 0.0:  # torch accepts negative and NaN values; a smoothing weight cannot be either
        raise ValueError(f"repdl.{op}: label_smoothing must be in [0.0, 1.0], got {label_smoothing}")
    if type(ignore_index) is not int and (isinstance(ignore_index, bool)
                                          or not isinstance(ignore_index, numbers.Integral)):
        raise TypeError(f"repdl.{op}: ignore_index must be an int, got {type(ignore_index).__name__}")
    if input.dim() == 0:
        raise RuntimeError(f"repdl.{op}: input must have a class dimension (got a 0-d tensor)")
    C = input.shape[1] if input.dim() > 1 else input.shape[0]
    if weight is not None:
        _checks.check_float32_tensor(op, "weight", weight)
        if weight.shape != (C,):
            raise RuntimeError(f"repdl.{op}: weight must have shape ({C},), got {tuple(weight.shape)}")
        if weight.requires_grad and torch.is_grad_enabled():
            raise NotImplementedError(f"repdl.{op}: the gradient with respect to weight is not "
                                      "computed (as in torch); pass weight.detach()")
    return C


def _class_target(op, input, target):
    """target checked against input's shape with torch's rules and classes:
    a batch-size mismatch is a ValueError, any other a RuntimeError; a 1-D
    input takes a 0-d target or one of size 1 (treated as 0-d)."""
    if input.dim() == 1:
        if target.shape not in ((), (1,)):
            raise ValueError(f"repdl.{op}: for 1D input, 1D target must have size 1, but got target "
                             f"size: {tuple(target.shape)}")
        return target.reshape(())
    if target.dim() == 0 or target.shape[0] != input.shape[0]:
        raise ValueError(f"repdl.{op}: expected input batch_size ({input.shape[0]}) to match target "
                         f"batch_size ({target.shape[0] if target.dim() else 0})")
    expected = (input.shape[0], *input.shape[2:])
    if target.shape != expected:
        raise RuntimeError(f"repdl.{op}: expected target size {list(expected)}, got {list(target.shape)} "
                           f"for input of shape {tuple(input.shape)}")
    return target


def _smoothing_factors(label_smoothing, C) -> Tuple[float, float]:
    """a = fl32(1 - eps), b = fl32(eps / C), both evaluated in Python float first."""
    return fl32(1.0 - label_smoothing), fl32(label_smoothing / C)


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor = None, ignore_index: int = -100,
                  reduction: str = "mean", label_smoothing: float = 0.0) -> Tensor:
    """torch.nn.functional.cross_entropy's arguments; class dim 1 (0 for a
    1-D input); target holds class indices (an integer tensor) or class
    probabilities (float32, the shape of input)."""
    if (type(label_smoothing) is float and label_smoothing == 0.0
            and _classifier_call(input, target, weight, ignore_index, reduction)):
        return _lsm_class_nll(input, target, ignore_index, reduction)[0]
    C = _check("cross_entropy", input, target, weight, ignore_index, reduction, label_smoothing)
    probabilities = target.dtype.is_floating_point
    if not probabilities:
        target = _class_indices("cross_entropy", input, target)
        if input.dim() == 2 and weight is None and label_smoothing == 0.0:
            return _lsm_class_nll(input, target, int(ignore_index), reduction)[0]
    class_dim = 1 if input.dim() > 1 else 0
    lsm = log_softmax(input, class_dim).movedim(class_dim, -1)  # (..., C)
    if probabilities:
        return _probability_targets(lsm, target, weight, reduction, label_smoothing, class_dim, input)
    return _class_loss(lsm, input, target, weight, ignore_index, reduction, label_smoothing, C)


def nll_loss(input: Tensor, target: Tensor, weight: Tensor = None, ignore_index: int = -100,
             reduction: str = "mean") -> Tensor:
    """torch.nn.functional.nll_loss: cross_entropy's class-index rule on
    log-probabilities given directly (no log_softmax, no smoothing)."""
    if _classifier_call(input, target, weight, ignore_index, reduction):
        return _class_nll(input, target, ignore_index, reduction)
    C = _check("nll_loss", input, target, weight, ignore_index, reduction, 0.0)
    lsm = input.movedim(1 if input.dim() > 1 else 0, -1)
    if target.dtype.is_floating_point:
        raise RuntimeError(f"repdl.nll_loss: expected an integer target, got {target.dtype}")
    target = _class_indices("nll_loss", input, target)
    return _class_loss(lsm, input, target, weight, ignore_index, reduction, 0.0, C)


def _classifier_call(input, target, weight, ignore_index, reduction) -> bool:
    """Whether a class loss's call is a classifier's: (N, C) float32 scores
    and N int64 class indices on the CPU, no weight, an int ignore_index and
    a known reduction.  One test that implies every check of _check and
    _class_indices: 0.9 us where they take 2."""
    return (type(input) in PLAIN_TYPES and input.dtype is torch.float32 and input.is_cpu and input.dim() == 2
            and type(target) in PLAIN_TYPES and target.dtype is torch.int64 and target.is_cpu
            and target.dim() == 1 and target.shape[0] == input.shape[0] and weight is None
            and type(ignore_index) is int and reduction in _REDUCTIONS)


def _class_indices(op, input, target):
    """target as int64 class indices, checked against input's shape."""
    if target.dtype is torch.int64 and target.dim() == 1 and input.dim() == 2 and target.shape[0] == input.shape[0]:
        return target  # the common case, (N, C) scores and N indices, in 0.3 us of the checks' 1.2
    if target.dtype == torch.bool or target.is_complex():
        raise TypeError(f"repdl.{op}: target must hold class indices (an integer tensor) or "
                        f"float32 probabilities, got {target.dtype}")
    target = _class_target(op, input, target)
    return target if target.dtype == torch.int64 else target.to(torch.int64)  # .to costs 0.9 us even then


def _class_loss(lsm, input, target, weight, ignore_index, reduction, label_smoothing, C):
    if weight is None and label_smoothing == 0.0:
        return _class_nll(lsm, target, int(ignore_index), reduction)
    valid = target != ignore_index
    # Per sample: nll = -lsm[t] (times weight[t]); ignored samples give +0.0
    # and weigh 0 in the mean's denominator.
    zero = _zero(input)
    nll = _masked_nll(_class_pick(lsm, target, int(ignore_index)), valid)
    if weight is not None:
        w = torch.where(valid, weight[torch.where(valid, target, torch.zeros_like(target))], zero)
        nll = mul(w, nll)

    smoothing = label_smoothing > 0.0
    if smoothing:
        # smooth = -sum_c lsm_c (unweighted) or -fmachain_c(lsm_c, weight_c)
        smooth = neg(_sum(lsm, -1) if weight is None else matmul(lsm, weight))
        smooth = torch.where(valid, smooth, zero)

    if reduction == "none":
        loss, smooth_total = nll, (smooth if smoothing else None)
    else:
        loss = _sum(nll)
        smooth_total = _sum(smooth) if smoothing else None
        if reduction == "mean":
            # fl32(number of valid samples): an exact integer count, rounded once
            denom = valid.sum().to(torch.float32) if weight is None else _sum(w)
            loss = div(loss, denom)
            if smoothing:
                smooth_total = div(smooth_total, denom)
    if not smoothing:
        return loss
    a, b = _smoothing_factors(label_smoothing, C)
    return add(mul(loss, a), mul(smooth_total, b))


def _probability_targets(lsm, target, weight, reduction, label_smoothing, class_dim, input):
    """loss_n = -fmachain_c(lsm_c, q_c), q = p (blended with the uniform
    distribution when smoothing: fl32(1-eps)*p + fl32(eps/C)), times weight_c
    when given; mean divides by fl32(number of samples)."""
    if target.dtype != torch.float32:
        raise TypeError(f"repdl.cross_entropy: probability targets must be float32, got {target.dtype}")
    if target.shape != input.shape:
        raise RuntimeError(f"repdl.cross_entropy: probability target shape {tuple(target.shape)} must "
                           f"equal input shape {tuple(input.shape)}")
    q = target.movedim(class_dim, -1)
    if label_smoothing > 0.0:
        a, b = _smoothing_factors(label_smoothing, lsm.shape[-1])
        q = add(mul(q, a), b)
    if weight is not None:
        q = mul(q, weight)
    loss = neg(matmul(lsm.unsqueeze(-2), q.unsqueeze(-1)).reshape(lsm.shape[:-1]))
    if reduction == "none":
        return loss
    total = _sum(loss)
    if reduction == "sum":
        return total
    return div(total, loss.numel())

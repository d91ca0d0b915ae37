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
from typing import List, Optional, Tuple

import torch

from .. import _checks, backends
from .._checks import PLAIN_TYPES
from .._library import mark_non_differentiable, primitive
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


def _statistics(x, dims, eps, centered):
    """(xhat, rstd) by the forward's steps with differentiable primitives:
    the same bits as the kernels (fmachain(d, d) is sqdev's chain), and a
    graph through which the gradient formula below can be differentiated."""
    n = fl32(_count(x, dims))
    d = x
    if centered:
        d = P.sub(x, P.div(reductions._sum(x, dims, True, "sequential"), n))
    rstd = elementwise.rsqrt(P.add(P.div(reductions._sumprod(d, d, dims, True), n), eps))
    return P.mul(d, rstd), rstd


def _gradient(gy, y, rstd, dims, centered):
    """dx = ((gy - seqsum(gy) / n) - y * (fmachain(gy, y) / n)) * rstd (rms:
    without the seqsum term), y the normalised value."""
    n = fl32(_count(y, dims))
    m2 = P.div(reductions._sumprod(gy, y, dims, True), n)
    if centered:
        gy = P.sub(gy, P.div(reductions._sum(gy, dims, True, "sequential"), n))
    return P.mul(P.sub(gy, P.mul(y, m2)), rstd)


def _saved_or_recomputed(ctx):
    """The forward's (y, rstd): as saved, or recomputed from x with a graph
    when a graph of the gradient is being built (double backward), since the
    saved rstd does not carry its dependence on x."""
    x, y, rstd = ctx.saved_tensors[:3]
    if torch.is_grad_enabled():
        return _statistics(x, ctx.dims, ctx.eps, ctx.centered)
    return y, rstd


def _save_normalize(centered):
    def setup(ctx, inputs, output):
        ctx.dims, ctx.eps, ctx.centered = inputs[1], inputs[2], centered
        mark_non_differentiable(ctx, *output[1:])
        ctx.save_for_backward(inputs[0], output[0], output[-1])

    return setup


def _normalize_backward(ctx, g, *unused):
    y, rstd = _saved_or_recomputed(ctx)
    return _gradient(g, y, rstd, ctx.dims, ctx.centered), None, None


def _rms_normalize_impl(x: Tensor, dims: List[int], eps: float) -> Tuple[Tensor, Tensor]:
    be, n = backends.for_tensor(x), fl32(_count(x, dims))
    ms = be.binary_scalar("div", be.sumprod(x, x, tuple(dims), True), n, False)
    rstd = be.rsqrt(be.binary_scalar("add", ms, eps, False))
    return be.binary("mul", x, rstd), rstd


def _rms_normalize_fake(x, dims, eps):
    return torch.empty_like(x), x.new_empty(keepdim_shape(x.shape, dims))


_normalize = primitive("normalize", _normalize_impl, _normalize_fake, setup_context=_save_normalize(True),
                       backward=_normalize_backward)
_rms_normalize = primitive("rms_normalize", _rms_normalize_impl, _rms_normalize_fake,
                           setup_context=_save_normalize(False), backward=_normalize_backward)


# The layer and RMS norms of contiguous rows, with their affine step: one
# primitive whose forward and backward the CPU runs as fused kernels
# (csrc/norm) giving the bits of the composition above (normalize or
# rms_normalize, then * weight, + bias).

def _norm_rows_impl(x: Tensor, w: Optional[Tensor], b: Optional[Tensor], eps: float,
                    centered: bool) -> Tuple[Tensor, Tensor]:
    return backends.for_tensor(x).norm_rows(x, w, b, eps, centered)


def _norm_rows_fake(x, w, b, eps, centered):
    return torch.empty_like(x), x.new_empty(2 if centered else 1, x.shape[0])


def _norm_rows_setup(ctx, inputs, output):
    x, w, b, eps, centered = inputs
    ctx.dims, ctx.eps, ctx.centered, ctx.has_w, ctx.has_b = [1], eps, centered, w is not None, b is not None
    mark_non_differentiable(ctx, output[1])
    ctx.save_for_backward(x, w, output[1])


def _affine_norm_backward(ctx, g, composed, fused):
    """(dx, dw, db) of a fused normalisation with its affine step, which
    saved (x, w, *statistics): the fused kernels' op `fused(g, x,
    *statistics, w, need_w, need_b)`, or when a graph of the gradient is
    being built (double backward) the composition's formula `composed(g,
    x, w, need_x, need_w, need_b)` on one."""
    x, w, *statistics = ctx.saved_tensors
    need = ctx.needs_input_grad
    need_w, need_b = ctx.has_w and need[1], ctx.has_b and need[2]
    if torch.is_grad_enabled():
        return composed(g, x, w, need[0], need_w, need_b)
    dx, dw, db = fused(g, x, *statistics, w, need_w, need_b)
    return dx, dw if need_w else None, db if need_b else None


def _composed_gradients(g, x, w, shape, dims, affine_dims, eps, centered, need_x, need_w, need_b):
    """The composition's gradients on a graph: the statistics over `dims` of
    x seen as `shape` (a reshape), gy = g * w (w a view broadcasting to x,
    or None), the parameters' over x's `affine_dims`."""
    y, r = _statistics(x.reshape(shape), dims, eps, centered)
    gy = g if w is None else P.mul(g, w)
    dx = _gradient(gy.reshape(shape), y, r, dims, centered).reshape(x.shape) if need_x else None
    dw = reductions._sum(P.mul(g, y.reshape(x.shape)), affine_dims, False, "sequential") if need_w else None
    db = reductions._sum(g, affine_dims, False, "sequential") if need_b else None
    return dx, dw, db


def _norm_rows_backward(ctx, g, *unused):
    def composed(g, x, w, *need):
        return _composed_gradients(g, x, w, x.shape, [1], [0], ctx.eps, ctx.centered, *need)

    def fused(g, x, stats, w, need_w, need_b):
        return _norm_rows_grad(g, x, stats, w, ctx.centered, need_w, need_b)

    return (*_affine_norm_backward(ctx, g, composed, fused), None, None)


_norm_rows = primitive("norm_rows", _norm_rows_impl, _norm_rows_fake, setup_context=_norm_rows_setup,
                       backward=_norm_rows_backward)


# The fused backward kernels are primitives of their own, so that a compiled
# graph's backward (AOT autograd traces it with fake tensors) holds them as
# opaque ops rather than reaching their data pointers.  A custom op returns
# tensors only: a parameter gradient not asked for comes back empty (and is
# dropped by the caller).

def _parameter_grads(dw, db, like):
    return (like.new_empty(0) if dw is None else dw), (like.new_empty(0) if db is None else db)


def _norm_rows_grad_impl(g: Tensor, x: Tensor, stats: Tensor, w: Optional[Tensor], centered: bool,
                         need_w: bool, need_b: bool) -> Tuple[Tensor, Tensor, Tensor]:
    dx, dw, db = backends.for_tensor(g).norm_rows_backward(g, x, stats, w, centered, need_w, need_b)
    return (dx, *_parameter_grads(dw, db, stats))


def _norm_rows_grad_fake(g, x, stats, w, centered, need_w, need_b):
    n = x.shape[1]
    return torch.empty_like(x), x.new_empty(n if need_w else 0), x.new_empty(n if need_b else 0)


_norm_rows_grad = primitive("norm_rows_grad", _norm_rows_grad_impl, _norm_rows_grad_fake)


# Batch normalisation in training over x (N, C, *spatial): one primitive
# whose forward and backward the CPU runs as fused kernels
# (csrc/norm/channels.inc) giving the bits of normalize over (N, *spatial),
# then * weight, + bias, without laying x out channel by channel for each
# statistic.

def _batch_norm_impl(x: Tensor, w: Optional[Tensor], b: Optional[Tensor],
                     eps: float) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    return backends.for_tensor(x).batch_norm(x, w, b, eps)


def _batch_norm_fake(x, w, b, eps):
    c = x.shape[1]
    return torch.empty_like(x), x.new_empty(c), x.new_empty(c), x.new_empty(c)


def _batch_norm_setup(ctx, inputs, output):
    x, w, b, eps = inputs
    ctx.eps, ctx.has_w, ctx.has_b = eps, w is not None, b is not None
    mark_non_differentiable(ctx, *output[1:])
    ctx.save_for_backward(x, w, output[1], output[3])


def _channel_view(w, x):
    return None if w is None else w.reshape(_channel_shape(x))


def _batch_norm_backward(ctx, g, *unused):
    def composed(g, x, w, *need):
        dims = [0, *range(2, x.dim())]
        return _composed_gradients(g, x, _channel_view(w, x), x.shape, dims, dims, ctx.eps, True, *need)

    return (*_affine_norm_backward(ctx, g, composed, _batch_norm_grad), None)


_batch_norm = primitive("batch_norm", _batch_norm_impl, _batch_norm_fake, setup_context=_batch_norm_setup,
                        backward=_batch_norm_backward)


def _channel_norm_grad(name):
    """The fused backward op of a normalisation of x (N, C, *spatial) with a
    per-channel affine step: the backend's <name>_backward, (dx, dw, db)."""

    def impl(g: Tensor, x: Tensor, mean: Tensor, rstd: Tensor, w: Optional[Tensor], need_w: bool,
             need_b: bool) -> Tuple[Tensor, Tensor, Tensor]:
        dx, dw, db = getattr(backends.for_tensor(g), f"{name}_backward")(g, x, mean, rstd, w, need_w, need_b)
        return (dx, *_parameter_grads(dw, db, rstd))

    def fake(g, x, mean, rstd, w, need_w, need_b):
        c = x.shape[1]
        return torch.empty_like(x), x.new_empty(c if need_w else 0), x.new_empty(c if need_b else 0)

    return primitive(f"{name}_grad", impl, fake)


_batch_norm_grad = _channel_norm_grad("batch_norm")


# Group normalisation of x (N, C, *spatial): one primitive whose forward and
# backward the CPU runs as fused kernels (csrc/norm/groups.inc) giving the
# bits of normalize over each (sample, group)'s row of its channels'
# elements, then * weight, + bias per channel.

def _group_norm_impl(x: Tensor, w: Optional[Tensor], b: Optional[Tensor], groups: int,
                     eps: float) -> Tuple[Tensor, Tensor, Tensor]:
    return backends.for_tensor(x).group_norm(x, w, b, groups, eps)


def _group_norm_fake(x, w, b, groups, eps):
    return torch.empty_like(x), x.new_empty(x.shape[0], groups), x.new_empty(x.shape[0], groups)


def _group_norm_setup(ctx, inputs, output):
    x, w, b, groups, eps = inputs
    ctx.groups, ctx.eps, ctx.has_w, ctx.has_b = groups, eps, w is not None, b is not None
    mark_non_differentiable(ctx, *output[1:])
    ctx.save_for_backward(x, w, output[1], output[2])


def _group_norm_backward(ctx, g, *unused):
    def composed(g, x, w, *need):
        rows = (x.shape[0] * ctx.groups, math.prod(x.shape[1:]) // ctx.groups)
        return _composed_gradients(g, x, _channel_view(w, x), rows, [1], [0, *range(2, x.dim())], ctx.eps, True,
                                   *need)

    return (*_affine_norm_backward(ctx, g, composed, _group_norm_grad), None, None)


_group_norm = primitive("group_norm", _group_norm_impl, _group_norm_fake, setup_context=_group_norm_setup,
                        backward=_group_norm_backward)


_group_norm_grad = _channel_norm_grad("group_norm")


# The running statistics' new values, one call for both (a pure op: the
# caller copies them in, which compiled graphs trace as the buffers'
# mutation): running * keep + stat * take, the variance's stat ss / (n - 1).

def _running_impl(running_mean: Tensor, running_var: Tensor, mean: Tensor, ss: Tensor, keep: float, take: float,
                  n_less_one: float) -> Tuple[Tensor, Tensor]:
    return backends.for_tensor(mean).batch_norm_running(running_mean, running_var, mean, ss, keep, take, n_less_one)


def _running_fake(running_mean, running_var, mean, ss, keep, take, n_less_one):
    return torch.empty_like(mean), torch.empty_like(mean)


_running_statistics = primitive("batch_norm_running", _running_impl, _running_fake)


# Evaluation mode from the running statistics: one pass on the CPU
# (csrc/norm/channels.inc) with the bits of (x - mean) * rsqrt(var + eps),
# * weight, + bias; the statistics take no gradient (torch's are buffers).

def _batch_norm_eval_impl(x: Tensor, mean: Tensor, var: Tensor, w: Optional[Tensor], b: Optional[Tensor],
                          eps: float) -> Tensor:
    return backends.for_tensor(x).batch_norm_evaluate(x, mean, var, w, b, eps)


def _batch_norm_eval_fake(x, mean, var, w, b, eps):
    return torch.empty_like(x)


def _batch_norm_eval_setup(ctx, inputs, output):
    x, mean, var, w, b, eps = inputs
    ctx.eps, ctx.has_w, ctx.has_b = eps, w is not None, b is not None
    ctx.save_for_backward(x, mean, var, w)


def _batch_norm_eval_backward(ctx, g):
    """The composition's gradients, by its primitives (so a graph of them
    can be built): dx = (g * w) * rstd, dw = seqsum(g * xhat), db = seqsum(g)."""
    x, mean, var, w = ctx.saved_tensors
    need = ctx.needs_input_grad
    shape, dims = _channel_shape(x), [0, *range(2, x.dim())]
    rstd = elementwise.rsqrt(P.add(var, ctx.eps)).reshape(shape)
    dx = P.mul(g if w is None else P.mul(g, w.reshape(shape)), rstd) if need[0] else None
    dw = None
    if ctx.has_w and need[3]:
        dw = reductions._sum(P.mul(g, P.mul(P.sub(x, mean.reshape(shape)), rstd)), dims, False, "sequential")
    db = reductions._sum(g, dims, False, "sequential") if ctx.has_b and need[4] else None
    return dx, None, None, dw, db, None


_batch_norm_eval = primitive("batch_norm_eval", _batch_norm_eval_impl, _batch_norm_eval_fake,
                             setup_context=_batch_norm_eval_setup, backward=_batch_norm_eval_backward)


# ---- arguments -------------------------------------------------------------------------------

def _eps(op, eps):
    # a float is tested first: the abstract-class check costs ~0.3 us
    if type(eps) is not float and (isinstance(eps, bool) or not isinstance(eps, numbers.Real)):
        raise TypeError(f"repdl.{op}: eps must be a real number, got {type(eps).__name__}")
    return fl32(eps)


def _affine(y, weight, bias, shape):
    if weight is not None:
        y = P.mul(y, weight.reshape(shape))
    if bias is not None:
        y = P.add(y, bias.reshape(shape))
    return y


def _normalized_shape(op, input, normalized_shape) -> tuple:
    """normalized_shape as a tuple; RuntimeError unless input ends with it."""
    # sequences are tested first: the abstract-class check costs ~0.3 us
    if type(normalized_shape) not in (tuple, list, torch.Size) and isinstance(normalized_shape, numbers.Integral):
        shape = (normalized_shape,)
    else:
        shape = tuple(normalized_shape)
    if len(shape) > input.dim() or input.shape[input.dim() - len(shape):] != shape:
        raise RuntimeError(f"repdl.{op}: input of shape {tuple(input.shape)} does not end with normalized_shape "
                           f"{shape}")
    return shape


def _as_rows(x, numel):
    """x as (rows, numel), itself when it is that already (reshapes cost ~0.5 us)."""
    return x if x.dim() == 2 and x.shape[1] == numel else x.reshape(-1, numel)


def _flat(t, numel):
    """A parameter of numel elements as a vector (None stays None)."""
    return t if t is None or t.dim() == 1 else t.reshape(numel)


def _check_param(op, name, t, numel):
    if t is None:
        return
    _checks.check_float32_tensor(op, name, t)
    if t.numel() != numel:
        raise RuntimeError(f"repdl.{op}: {name} of shape {tuple(t.shape)} does not have {numel} elements")


# ---- layer, group, RMS, instance -------------------------------------------------------------

def _cpu_vector(t, n) -> bool:
    """Whether an optional parameter is None or a float32 CPU vector of n."""
    return t is None or (type(t) in PLAIN_TYPES and t.dtype is torch.float32 and t.is_cpu and t.dim() == 1
                         and t.shape[0] == n)


def layer_norm(input: Tensor, normalized_shape, weight: Tensor = None, bias: Tensor = None,
               eps: float = 1e-5) -> Tensor:
    """torch.nn.functional.layer_norm: statistics over the last
    len(normalized_shape) dims, then * weight, + bias (elementwise)."""
    if (type(input) in PLAIN_TYPES and input.dtype is torch.float32 and input.is_cpu and type(eps) is float
            and type(normalized_shape) in (tuple, list, torch.Size) and len(normalized_shape) == 1
            and type(normalized_shape[0]) is int and input.dim() and input.shape[-1] == normalized_shape[0]
            and _cpu_vector(weight, normalized_shape[0]) and _cpu_vector(bias, normalized_shape[0])):
        # A layer's call (nn.LayerNorm over the last dim, on the CPU), in one
        # test that implies every check below: 1 us where they take 4.
        if input.dim() == 2:
            return _norm_rows(input, weight, bias, fl32(eps), True)[0]
        return _norm_rows(input.reshape(-1, normalized_shape[0]), weight, bias, fl32(eps), True)[0].reshape(input.shape)
    _checks.check_float32_tensor("layer_norm", "input", input)
    shape = _normalized_shape("layer_norm", input, normalized_shape)
    numel = math.prod(shape)
    _check_param("layer_norm", "weight", weight, numel)
    _check_param("layer_norm", "bias", bias, numel)
    _checks.check_same_device("layer_norm", input=input, weight=weight, bias=bias)
    if not shape:
        return _affine(input, weight, bias, shape)
    rows = _as_rows(input, numel)
    y = _norm_rows(rows, _flat(weight, numel), _flat(bias, numel), _eps("layer_norm", eps), True)[0]
    return y if rows is input else y.reshape(input.shape)


def rms_norm(input: Tensor, normalized_shape, weight: Tensor = None, eps=None) -> Tensor:
    """torch.nn.functional.rms_norm: x * rsqrt(mean of squares + eps) over the
    last len(normalized_shape) dims, then * weight.  eps=None is float32's
    machine epsilon 2**-23, as torch."""
    _checks.check_float32_tensor("rms_norm", "input", input)
    shape = _normalized_shape("rms_norm", input, normalized_shape)
    _check_param("rms_norm", "weight", weight, math.prod(shape))
    _checks.check_same_device("rms_norm", input=input, weight=weight)
    e = 2.0 ** -23 if eps is None else _eps("rms_norm", eps)
    numel = math.prod(shape)
    rows = _as_rows(input, numel)
    y = _norm_rows(rows, _flat(weight, numel), None, e, False)[0]
    return y if rows is input else y.reshape(input.shape)


def _channel_shape(x):
    return (-1, *([1] * (x.dim() - 2)))


def group_norm(input: Tensor, num_groups: int, weight: Tensor = None, bias: Tensor = None,
               eps: float = 1e-5) -> Tensor:
    """torch.nn.functional.group_norm: statistics per (sample, group) over
    the group's channels and every spatial position, then per-channel affine."""
    _checks.check_float32_tensor("group_norm", "input", input)
    if input.dim() < 2:
        raise RuntimeError(f"repdl.group_norm: expected at least 2 dims, got shape {tuple(input.shape)}")
    c = input.shape[1]
    if not isinstance(num_groups, numbers.Integral) or num_groups <= 0 or c % num_groups:
        raise RuntimeError(f"repdl.group_norm: expected number of channels {c} to be divisible by num_groups "
                           f"{num_groups}")
    _check_param("group_norm", "weight", weight, c)
    _check_param("group_norm", "bias", bias, c)
    _checks.check_same_device("group_norm", input=input, weight=weight, bias=bias)
    return _group_norm(input, _flat(weight, c), _flat(bias, c), int(num_groups), _eps("group_norm", eps))[0]


def batch_norm(input: Tensor, running_mean, running_var, weight=None, bias=None, training: bool = False,
               momentum=0.1, eps: float = 1e-5) -> Tensor:
    """torch.nn.functional.batch_norm.  Training: statistics per channel over
    (N, *spatial); running_mean and running_var (when given) become
    running * fl32(1 - momentum) + stat * fl32(momentum), the variance
    unbiased (ss / fl32(n - 1)).  Evaluation: y = (x - running_mean) *
    rsqrt(running_var + fl32(eps)), then the affine step: every sample on
    its own, so eval-mode results are batch-invariant."""
    _checks.check_float32_tensor("batch_norm", "input", input)
    if input.dim() < 2:
        raise ValueError(f"repdl.batch_norm: expected 2D or more input, got shape {tuple(input.shape)}")
    c = input.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight), ("bias", bias)):
        _check_param("batch_norm", name, t, c)
    _checks.check_same_device("batch_norm", input=input, weight=weight, bias=bias, running_mean=running_mean,
                              running_var=running_var)
    e = _eps("batch_norm", eps)
    if not training:
        if running_mean is None or running_var is None:
            raise RuntimeError("repdl.batch_norm: running_mean and running_var must be given when training=False")
        return _batch_norm_eval(input, _flat(running_mean, c), _flat(running_var, c), _flat(weight, c),
                                _flat(bias, c), e)
    dims = [0, *range(2, input.dim())]
    n = _count(input, dims)
    if n <= 1:
        raise ValueError(f"repdl.batch_norm: expected more than 1 value per channel when training, got input "
                         f"size {tuple(input.shape)}")
    y, mean, ss, _ = _batch_norm(input, _flat(weight, c), _flat(bias, c), e)
    if (running_mean is not None or running_var is not None) and momentum is not None:
        # momentum a Python float; a missing running tensor's place is taken by
        # its statistic (its new value unused)
        new_mean, new_var = _running_statistics(mean if running_mean is None else _flat(running_mean, c),
                                                ss if running_var is None else _flat(running_var, c), mean, ss,
                                                fl32(1.0 - momentum), fl32(momentum), fl32(n - 1))
        for running, new in ((running_mean, new_mean), (running_var, new_var)):
            if running is not None:  # detached: a buffer's update records no graph (torch.no_grad costs 1.5 us)
                running.detach().copy_(new if running.dim() == 1 else new.reshape(running.shape))
    return y


def instance_norm(input: Tensor, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats: bool = True, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """torch.nn.functional.instance_norm: statistics per (sample, channel)
    over the spatial dims.  With running statistics, each becomes the mean
    over the batch (seqsum / fl32(N)) of the per-instance updates, as torch."""
    _checks.check_float32_tensor("instance_norm", "input", input)
    if input.dim() < 3:
        raise ValueError(f"repdl.instance_norm: expected 3D or more input, got shape {tuple(input.shape)}")
    n, c = input.shape[:2]
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight), ("bias", bias)):
        _check_param("instance_norm", name, t, c)
    e = _eps("instance_norm", eps)
    if not use_input_stats:
        return batch_norm(input, running_mean, running_var, weight, bias, False, momentum, eps)
    if running_mean is None and running_var is None:
        # one group per channel: the group norm's fused kernels, the same graph
        return _group_norm(input, _flat(weight, c), _flat(bias, c), c, e)[0]
    shape = _channel_shape(input)
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

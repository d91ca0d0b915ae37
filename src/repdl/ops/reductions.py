"""Reductions: sum, sum_pairwise, mean, var, std, max, min, argmax, argmin.

docs/CONTRACT.md, "Reductions", gives each one's chain and "Gradients" each
one's backward.  Registered primitives: ``repdl::sum`` (sequential or
pairwise), ``repdl::mean`` (the sum and its one division in one node),
``repdl::sqdev`` (var's second pass), ``repdl::sumprod`` (the
fmachain of two tensors, for gradients) and ``repdl::extremum``; the rest
are compositions.
"""
import builtins
from typing import List, Tuple

import torch

from .. import _checks, backends
from .._library import mark_non_differentiable, primitive
from .._scalar import fl32
from ..backends._views import keepdim_shape
from . import _batching, _grad, arith, elementwise
from . import _prims as P

__all__ = ["sum", "sum_pairwise", "mean", "var", "std", "max", "min", "argmax", "argmin"]

Tensor = torch.Tensor
_ORDERS = ("sequential", "pairwise")


def _kept_shape(x, dims, keepdim):
    if keepdim:
        return keepdim_shape(x.shape, dims)
    return tuple(s for d, s in enumerate(x.shape) if d not in dims)


def _sum_impl(x: Tensor, dims: List[int], keepdim: bool, order: str) -> Tensor:
    return backends.for_tensor(x).sum(x, tuple(dims), keepdim, order=order)


def _sum_fake(x, dims, keepdim, order):
    return x.new_empty(_kept_shape(x, dims, keepdim))


def _reduce_setup(ctx, inputs, output):
    x, dims = inputs[0], inputs[-3]
    ctx.in_shape, ctx.kept = x.shape, keepdim_shape(x.shape, dims)


def _sum_backward(ctx, g):
    """dx = g at every reduced position (a copy)."""
    return _grad.expand_to(g, ctx.kept, ctx.in_shape), None, None, None


def _mean_impl(x: Tensor, dims: List[int], keepdim: bool) -> Tensor:
    # One backend call for the sum and its division (the CPU's is one kernel
    # call: a second call and allocation cost about 1.5 us of a small mean).
    return backends.for_tensor(x).mean(x, tuple(dims), keepdim)


def _mean_fake(x, dims, keepdim):
    return x.new_empty(_kept_shape(x, dims, keepdim))


def _mean_setup(ctx, inputs, output):
    x, dims, keepdim = inputs
    ctx.in_shape, ctx.kept = x.shape, keepdim_shape(x.shape, dims)
    ctx.n = fl32(_count(x, dims))


def _mean_backward(ctx, g):
    """The composition's: division's gradient g / fl32(n), then the sum's
    copy to every reduced position."""
    return _grad.expand_to(arith.div(g, ctx.n), ctx.kept, ctx.in_shape), None, None


def _reduce_vmap(prim):
    """Rule for (x, dims, keepdim, ...): the dims move past the batch dim."""

    def rule(info, in_dims, x, dims, keepdim, *rest):
        rank = x.dim() - 1
        return prim(x.movedim(in_dims[0], 0), _batching.shifted_dims(dims, rank), keepdim, *rest), 0

    return rule


def _sqdev_impl(x: Tensor, mean: Tensor, dims: List[int], keepdim: bool) -> Tensor:
    return backends.for_tensor(x).sqdev(x, mean, tuple(dims), keepdim)


def _sqdev_fake(x, mean, dims, keepdim):
    return x.new_empty(_kept_shape(x, dims, keepdim))


def _sqdev_setup(ctx, inputs, output):
    x, mean, dims, keepdim = inputs
    ctx.in_shape, ctx.kept = x.shape, keepdim_shape(x.shape, dims)
    ctx.save_for_backward(x, mean)


def _sqdev_backward(ctx, g):
    """dx = g * (d + d), d = x - mean recomputed; the mean is a constant (its
    exact contribution, -2 * sum(d) * g, is zero when it is x's mean, which
    is the only mean var passes)."""
    x, mean = ctx.saved_tensors
    d = P.sub(x, mean.reshape(ctx.kept))
    return P.mul(g.reshape(ctx.kept), P.add(d, d)), None, None, None


def _sqdev_vmap(info, in_dims, x, mean, dims, keepdim):
    rank = x.dim() - 1
    x, mean = _batching.batch_first((x, mean), in_dims)
    if in_dims[1] is None:
        mean = mean.expand(x.shape[0], *mean.shape)
    return _sqdev(x, mean, _batching.shifted_dims(dims, rank), keepdim), 0


def _sumprod_impl(a: Tensor, b: Tensor, dims: List[int], keepdim: bool) -> Tensor:
    return backends.for_tensor(a).sumprod(a, b, tuple(dims), keepdim)


def _sumprod_fake(a, b, dims, keepdim):
    return a.new_empty(_kept_shape(a, dims, keepdim))


def _sumprod_setup(ctx, inputs, output):
    a, b, dims, keepdim = inputs
    ctx.in_shape, ctx.kept = a.shape, keepdim_shape(a.shape, dims)
    ctx.save_for_backward(a, b)


def _sumprod_backward(ctx, g):
    """da = g * b, db = g * a."""
    a, b = ctx.saved_tensors
    g = g.reshape(ctx.kept)
    return (P.mul(g, b) if ctx.needs_input_grad[0] else None,
            P.mul(g, a) if ctx.needs_input_grad[1] else None, None, None)


def _sumprod_vmap(info, in_dims, a, b, dims, keepdim):
    rank = a.dim() - (in_dims[0] is not None)
    a, b = _batching.batch_first((a, b), in_dims)
    n = a.shape[0] if in_dims[0] is not None else b.shape[0]
    a, b = (t if d is not None else t.expand(n, *t.shape) for t, d in zip((a, b), in_dims))
    return _sumprod(a, b, _batching.shifted_dims(dims, rank), keepdim), 0


def _extremum_impl(x: Tensor, dim: int, keepdim: bool, largest: bool) -> Tuple[Tensor, Tensor]:
    return backends.for_tensor(x).extremum(x, dim, keepdim, largest=largest)


def _extremum_fake(x, dim, keepdim, largest):
    shape = _kept_shape(x, (dim,), keepdim)
    return x.new_empty(shape), x.new_empty(shape, dtype=torch.int64)


def _extremum_setup(ctx, inputs, output):
    x, dim, keepdim, _ = inputs
    mark_non_differentiable(ctx, output[1])
    ctx.in_shape, ctx.dim, ctx.kept = x.shape, dim, keepdim_shape(x.shape, (dim,))
    ctx.save_for_backward(output[1])


def _extremum_backward(ctx, g_values, g_indices):
    """The whole gradient goes to the returned index: dx = +0.0 everywhere,
    then g written at indices (a scatter of copies: one index per line)."""
    (index,) = ctx.saved_tensors
    gx = torch.zeros(ctx.in_shape, dtype=torch.float32, device=g_values.device)
    return gx.scatter(ctx.dim, index.reshape(ctx.kept), g_values.reshape(ctx.kept)), None, None, None


def _extremum_vmap(info, in_dims, x, dim, keepdim, largest):
    rank = x.dim() - 1
    out = _extremum(x.movedim(in_dims[0], 0), _batching.shifted_dims([dim], rank)[0], keepdim, largest)
    return out, (0, 0)


_sum = primitive("sum", _sum_impl, _sum_fake, setup_context=_reduce_setup, backward=_sum_backward,
                 vmap=_reduce_vmap(lambda *a: _sum(*a)))
_mean = primitive("mean", _mean_impl, _mean_fake, setup_context=_mean_setup, backward=_mean_backward,
                  vmap=_reduce_vmap(lambda *a: _mean(*a)))
_sqdev = primitive("sqdev", _sqdev_impl, _sqdev_fake, setup_context=_sqdev_setup, backward=_sqdev_backward,
                   vmap=_sqdev_vmap)
_sumprod = primitive("sumprod", _sumprod_impl, _sumprod_fake, setup_context=_sumprod_setup, backward=_sumprod_backward,
                     vmap=_sumprod_vmap)
_extremum = primitive("extremum", _extremum_impl, _extremum_fake, setup_context=_extremum_setup,
                      backward=_extremum_backward, vmap=_extremum_vmap)


def _check_dtype_arg(op, dtype):
    if dtype is not None and dtype != torch.float32:
        raise TypeError(f"repdl.{op}: dtype={dtype} is not supported; RepDL reductions compute float32 only")


def _reduce_sum(op, input, dim, keepdim, order):
    _checks.check_float32_tensor(op, "input", input)
    dims = _checks.reduction_dims(op, dim, input.dim())
    return _sum(input, dims, keepdim, order)  # a tuple: the schema's int[] takes one, with no list built


def sum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Sequential sum over `dim` (None or () = all dims): acc = +0.0, then
    acc = acc + x[r] in the reduced dims' row-major order."""
    _check_dtype_arg("sum", dtype)
    return _reduce_sum("sum", input, dim, keepdim, "sequential")


def sum_pairwise(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Pairwise sum over `dim`: split [0, n) at the largest power of two below
    n, sum both halves the same way, add left + right."""
    _check_dtype_arg("sum_pairwise", dtype)
    return _reduce_sum("sum_pairwise", input, dim, keepdim, "pairwise")


def _count(input, dims) -> int:
    """The number of reduced elements."""
    n = 1
    for d in dims:
        n *= input.shape[d]
    return n


def mean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """sum(input, dim) / fl32(n), one correctly rounded division."""
    _check_dtype_arg("mean", dtype)
    _checks.check_float32_tensor("mean", "input", input)
    return _mean(input, _checks.reduction_dims("mean", dim, input.dim()), keepdim)


def _correction(op, correction, unbiased):
    if unbiased is not None:
        if correction is not None:
            raise TypeError(f"repdl.{op}: pass either correction or unbiased, not both")
        return 1 if unbiased else 0
    if correction is None:
        return 1
    if isinstance(correction, bool) or not isinstance(correction, (int, float)):
        raise TypeError(f"repdl.{op}: correction must be a number, got {type(correction).__name__}")
    return correction


def var(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None) -> Tensor:
    """Two passes: m = mean(input, dim); then fmachain(d, d) with d = x - m,
    divided by fl32(max(0, n - correction))."""
    _checks.check_float32_tensor("var", "input", input)
    if isinstance(dim, bool):  # torch.var(x, True) means unbiased=True
        dim, unbiased = None, dim
    corr = _correction("var", correction, unbiased)
    dims = _checks.reduction_dims("var", dim, input.dim())
    m = mean(input.detach(), dims, keepdim=False)  # a constant of the gradient (see _sqdev_backward)
    ss = _sqdev(input, m, dims, keepdim)
    return arith.div(ss, builtins.max(0, _count(input, dims) - corr))


def _std_sqrt_impl(v: Tensor) -> Tensor:
    return backends.for_tensor(v).sqrt(v)


def _std_sqrt_grad(g, v, y):
    """sqrt's gradient g / (y * 2), except +0.0 where y is zero (a constant
    line), as torch's std backward: there the formula would give inf * 0."""
    zero = (y.view(torch.int32) & 0x7FFFFFFF) == 0
    return torch.where(zero, torch.zeros_like(g), P.div(g, P.mul(y, 2.0)))


_std_sqrt = elementwise._unary_op("std_sqrt", _std_sqrt_grad, _std_sqrt_impl, reads_output=True)


def std(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None) -> Tensor:
    """sqrt(var(...)), the square root correctly rounded."""
    return _std_sqrt(var(input, dim, unbiased, keepdim, correction=correction))


def _extreme(op, input, dim, keepdim, largest):
    _checks.check_float32_tensor(op, "input", input)
    if dim is None:
        if input.numel() == 0:
            raise RuntimeError(
                f"repdl.{op}: expected reduction dim to be specified for input.numel() == 0")
        return _extremum(input.reshape(-1), 0, False, largest)[0]
    if isinstance(dim, torch.Tensor):
        raise TypeError(f"repdl.{op}: elementwise {op}(input, other) is not provided; pass an int dim")
    d = _checks.wrap_dim(op, dim, input.dim())
    if input.dim() == 0:  # a 0-d tensor is its own one-element line
        value, index = _extremum(input.reshape(1), 0, False, largest)
        return value.reshape(()), index.reshape(())
    if input.shape[d] == 0:
        raise IndexError(f"repdl.{op}: expected reduction dim {d} to have non-zero size")
    return _extremum(input, d, keepdim, largest)


def max(input: Tensor, dim=None, keepdim: bool = False):
    """max(input): the largest element; max(input, dim): (values, indices)
    with ties to the first index and NaN beating every number."""
    out = _extreme("max", input, dim, keepdim, True)
    return out if dim is None else torch.return_types.max(out)


def min(input: Tensor, dim=None, keepdim: bool = False):
    """As max, for the smallest element."""
    out = _extreme("min", input, dim, keepdim, False)
    return out if dim is None else torch.return_types.min(out)


def _arg(op, input, dim, keepdim, largest):
    _checks.check_float32_tensor(op, "input", input)
    if dim is None:
        if input.numel() == 0:
            raise RuntimeError(f"repdl.{op}: expected reduction dim to be specified for input.numel() == 0")
        index = _extremum(input.reshape(-1), 0, False, largest)[1]
        return index.reshape([1] * input.dim()) if keepdim else index
    return _extreme(op, input, dim, keepdim, largest)[1]


def argmax(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """Index of the first maximum (of the flattened input when dim is None)."""
    return _arg("argmax", input, dim, keepdim, True)


def argmin(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """Index of the first minimum (of the flattened input when dim is None)."""
    return _arg("argmin", input, dim, keepdim, False)

"""softmax, log_softmax, logsumexp (docs/CONTRACT.md, "Softmax family")."""
from typing import List

import torch

from .. import _checks, backends
from .._library import primitive
from ..backends._views import keepdim_shape
from . import _batching, elementwise, reductions
from . import _prims as P

__all__ = ["softmax", "log_softmax", "logsumexp"]

Tensor = torch.Tensor


def _softmax_impl(x: Tensor, dim: int, log: bool) -> Tensor:
    return backends.for_tensor(x).softmax(x, dim, log=log)


def _softmax_fake(x, dim, log):
    return torch.empty_like(x)


def _softmax_setup(ctx, inputs, output):
    ctx.dim, ctx.log = inputs[1], inputs[2]
    ctx.save_for_backward(output)


def _softmax_backward(ctx, g):
    (y,) = ctx.saved_tensors
    return (log_softmax_backward if ctx.log else softmax_backward)(g, y, ctx.dim), None, None


def softmax_backward(g, y, dim):
    """softmax's gradient from its output y: s = fmachain over the line of
    (g, y), dx = y * (g - s).  A fused kernel of the backend unless a graph
    of the gradient is wanted (double backward), then these primitives: the
    same bits."""
    if not torch.is_grad_enabled():
        return _softmax_grad(g, y, dim, False)
    s = reductions._sumprod(g, y, [dim], True)
    return P.mul(y, P.sub(g, s))


def log_softmax_backward(g, y, dim):
    """log_softmax's gradient from its output y: s = seqsum over the line of
    g, dx = g - exp(y) * s (fused unless a graph of it is recorded)."""
    if not torch.is_grad_enabled():
        return _softmax_grad(g, y, dim, True)
    s = reductions._sum(g, [dim], True, "sequential")
    return P.sub(g, P.mul(elementwise.exp(y), s))


# The fused backward kernel is a primitive of its own, so that a compiled
# graph's backward (AOT autograd traces it with fake tensors) holds it as an
# opaque op rather than reaching its data pointers.

def _softmax_grad_impl(g: Tensor, y: Tensor, dim: int, log: bool) -> Tensor:
    return backends.for_tensor(g).softmax_backward(g, y, dim, log=log)


def _softmax_grad_fake(g, y, dim, log):
    return torch.empty_like(y)


_softmax_grad = primitive("softmax_grad", _softmax_grad_impl, _softmax_grad_fake)


def _softmax_vmap(info, in_dims, x, dim, log):
    return _softmax(x.movedim(in_dims[0], 0), _batching.shifted_dims([dim], x.dim() - 1)[0], log), 0


def _logsumexp_impl(x: Tensor, dims: List[int], keepdim: bool) -> Tensor:
    return backends.for_tensor(x).logsumexp(x, tuple(dims), keepdim)


def _logsumexp_fake(x, dims, keepdim):
    if keepdim:
        return x.new_empty(keepdim_shape(x.shape, dims))
    return x.new_empty([s for d, s in enumerate(x.shape) if d not in dims])


def _logsumexp_setup(ctx, inputs, output):
    x, dims, _ = inputs
    ctx.kept = keepdim_shape(x.shape, dims)
    ctx.save_for_backward(x, output)


def _logsumexp_backward(ctx, g):
    """dx = g * exp(x - y), y the result (both broadcast over the reduced dims)."""
    x, y = ctx.saved_tensors
    return P.mul(g.reshape(ctx.kept), elementwise.exp(P.sub(x, y.reshape(ctx.kept)))), None, None


def _logsumexp_vmap(info, in_dims, x, dims, keepdim):
    return _logsumexp(x.movedim(in_dims[0], 0), _batching.shifted_dims(dims, x.dim() - 1), keepdim), 0


_softmax = primitive("softmax", _softmax_impl, _softmax_fake, setup_context=_softmax_setup, backward=_softmax_backward,
                     vmap=_softmax_vmap)
_logsumexp = primitive("logsumexp", _logsumexp_impl, _logsumexp_fake, setup_context=_logsumexp_setup,
                       backward=_logsumexp_backward, vmap=_logsumexp_vmap)


def _softmax_args(op, input, dim, dtype):
    _checks.check_float32_tensor(op, "input", input)
    if dtype is not None and dtype != torch.float32:
        raise TypeError(f"repdl.{op}: dtype={dtype} is not supported; RepDL computes float32 only")
    if dim is None:
        raise TypeError(f"repdl.{op}: dim must be given (an int); the implicit-dim form is not supported")
    return _checks.wrap_dim(op, dim, input.dim())


def softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """m = max along dim, e = exp(x - m), s = seqsum(e), e / s."""
    d = _softmax_args("softmax", input, dim, dtype)
    if input.dim() == 0:
        return _softmax(input.reshape(1), 0, False).reshape(())
    return _softmax(input, d, False)


def log_softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """(x - m) - log(seqsum(exp(x - m))), m = max along dim."""
    d = _softmax_args("log_softmax", input, dim, dtype)
    if input.dim() == 0:
        return _softmax(input.reshape(1), 0, True).reshape(())
    return _softmax(input, d, True)


def logsumexp(input: Tensor, dim, keepdim: bool = False) -> Tensor:
    """log(seqsum(exp(x - m'))) + m' over dim (an int or a tuple), where m'
    is the max over dim when finite and 0 otherwise."""
    _checks.check_float32_tensor("logsumexp", "input", input)
    dims = _checks.reduction_dims("logsumexp", dim, input.dim())
    return _logsumexp(input, dims, keepdim)

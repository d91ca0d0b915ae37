"""Linear algebra: dot, mm, bmm, matmul, addmm, linear.

Every product reduces to one primitive, ``repdl::matmul`` (batched,
broadcasting), whose elements are sequential fma chains over k; see
docs/CONTRACT.md, "Linear algebra".
"""
import math
import numbers
from typing import Optional

import torch

from .. import _checks, backends
from .._checks import PLAIN_TYPES
from .._library import primitive, vmap_by_loop
from . import _batching, arith, reductions

__all__ = ["dot", "mm", "bmm", "matmul", "addmm", "linear"]

Tensor = torch.Tensor


def _matmul_impl(a: Tensor, b: Tensor) -> Tensor:
    return backends.for_tensor(a).matmul(a, b)


def _matmul_fake(a, b):
    batch = torch.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return a.new_empty(*batch, a.shape[-2], b.shape[-1])


def _save_inputs(ctx, inputs, output):
    ctx.save_for_backward(*(t for t in inputs if t is not None))
    ctx.has_bias = len(inputs) == 3 and inputs[2] is not None


def _operand_grad(left, right, operand_shape, batch):
    """The gradient of a matmul operand of `operand_shape` (its batch dims
    broadcast to `batch`): each element one fmachain over every product
    that uses it, the operand's broadcast batch dims outermost (row-major),
    the contracted index innermost.  left (*batch, P, C) and right
    (*batch, C, Q) are the two factors whose product over C, extended over
    the broadcast dims, is that gradient."""
    nb = len(batch)
    own = (1,) * (nb - (len(operand_shape) - 2)) + tuple(operand_shape[:-2])
    red = [d for d in range(nb) if own[d] == 1 and batch[d] != 1]
    if not red:
        return _matmul(left, right).reshape(operand_shape)
    keep = [d for d in range(nb) if d not in red]
    left = left.expand(*batch, *left.shape[-2:])
    right = right.expand(*batch, *right.shape[-2:])
    ks = [batch[d] for d in keep]
    # left (*keep, P, *red, C) -> (*keep, P, red*C); right (*keep, *red, C, Q) -> (*keep, red*C, Q)
    # (the length written out: -1 is ambiguous where a factor has no elements)
    chain = math.prod(batch[d] for d in red) * left.shape[-1]
    lp = left.permute(*keep, nb, *red, nb + 1).reshape(*ks, left.shape[-2], chain)
    rp = right.permute(*keep, *red, nb, nb + 1).reshape(*ks, chain, right.shape[-1])
    return _matmul(lp, rp).reshape(operand_shape)


def _matmul_backward(ctx, g):
    """da = g @ b^T (chains over N), db = a^T @ g (chains over M), each
    extended over the batch dims along which the operand was broadcast."""
    a, b = ctx.saved_tensors
    batch = g.shape[:-2]
    ga = _grad_like(a, g, b.transpose(-1, -2), batch) if ctx.needs_input_grad[0] else None
    gb = _grad_like(b, a.transpose(-1, -2), g, batch) if ctx.needs_input_grad[1] else None
    return ga, gb


def _grad_like(operand, left, right, batch):
    """_operand_grad(left, right, operand.shape, batch), laid out as the
    operand is.  A transposed operand (column-major in its last two dims,
    as attention's k^T) gets the transpose of right^T @ left^T: the same
    chains, since a product's two factors commute, and a gradient that
    the views above it carry back to a row-major tensor, where left @
    right came back with an inner stride that the next reshape copies
    element by element (a fifth of the attention's backward copies)."""
    if operand.dim() >= 2 and operand.stride(-2) == 1 and operand.stride(-1) != 1:
        shape = (*operand.shape[:-2], operand.shape[-1], operand.shape[-2])
        return _operand_grad(right.transpose(-1, -2), left.transpose(-1, -2), shape, batch).transpose(-1, -2)
    return _operand_grad(left, right, operand.shape, batch)


def _matmul_vmap(info, in_dims, a, b):
    ra, rb = a.dim() - (in_dims[0] is not None), b.dim() - (in_dims[1] is not None)
    rank = max(ra, rb)
    a, b = _batching.batch_first((a, b), in_dims, rank)
    if in_dims[0] is None:  # broadcast a over the batch (its dims line up from the right)
        a = a.reshape(*([1] * (rank + 1 - ra)), *a.shape)
    if in_dims[1] is None:
        b = b.reshape(*([1] * (rank + 1 - rb)), *b.shape)
    return _matmul(a, b), 0


def _linear_impl(x: Tensor, weight: Tensor, bias: Optional[Tensor]) -> Tensor:
    return backends.for_tensor(x).linear(x, weight, bias)


def _linear_fake(x, weight, bias):
    return x.new_empty(*x.shape[:-1], weight.shape[0])


def _linear_backward(ctx, g):
    """dx = g @ W (chains over out); dW[o, k] = fmachain over every leading
    position (row-major) of g[..., o] * x[..., k]; db = seqsum of g over
    every leading position."""
    x, w = ctx.saved_tensors[:2]
    need = ctx.needs_input_grad
    gx = _matmul(g, w) if need[0] else None
    rows = g.reshape(-1, g.shape[-1])
    gw = _matmul(rows.t(), x.reshape(-1, x.shape[-1])) if need[1] else None
    gb = reductions._sum(rows, [0], False, "sequential") if ctx.has_bias and need[2] else None
    return gx, gw, gb


def _linear_vmap(info, in_dims, x, weight, bias):
    if in_dims[1] is None and in_dims[2] is None:
        return _linear(x.movedim(in_dims[0], 0), weight, bias), 0  # a batch of rows is more rows
    return vmap_by_loop(_linear)(info, in_dims, x, weight, bias)


_matmul = primitive("matmul", _matmul_impl, _matmul_fake, setup_context=_save_inputs, backward=_matmul_backward,
                    vmap=_matmul_vmap)
_linear = primitive("linear", _linear_impl, _linear_fake, setup_context=_save_inputs, backward=_linear_backward,
                    vmap=_linear_vmap)


def _check_pair(op, a, b, a_name, b_name):
    if (type(a) in PLAIN_TYPES and type(b) in PLAIN_TYPES and a.dtype is torch.float32 and b.dtype is torch.float32
            and (a.is_cpu and b.is_cpu or a.device == b.device)):  # no device objects made on the CPU
        return  # the common case, checked cheaply: this runs on every product
    _checks.check_float32(op, **{a_name: a, b_name: b})
    _checks.check_same_device(op, **{a_name: a, b_name: b})


def _shape(t):
    return "x".join(str(s) for s in t.shape) or "scalar"


def dot(input: Tensor, tensor: Tensor) -> Tensor:
    """Sequential fma chain over k of input[k]*tensor[k], from +0.0 (0-d result)."""
    _check_pair("dot", input, tensor, "input", "tensor")
    if input.dim() != 1 or tensor.dim() != 1:
        raise RuntimeError(f"repdl.dot: 1D tensors expected, but got {input.dim()}D and {tensor.dim()}D tensors")
    if input.shape[0] != tensor.shape[0]:
        raise RuntimeError(
            f"repdl.dot: inconsistent tensor size, expected tensor [{input.shape[0]}] and src "
            f"[{tensor.shape[0]}] to have the same number of elements")
    return _matmul(input.unsqueeze(0), tensor.unsqueeze(1)).reshape(())


def mm(input: Tensor, mat2: Tensor) -> Tensor:
    """(M, K) @ (K, N); each element a sequential fma chain over k from +0.0."""
    _check_pair("mm", input, mat2, "input", "mat2")
    a, b = input.shape, mat2.shape  # each read once: 0.4 us of a 2x2 product's 4.3
    if len(a) != 2 or len(b) != 2:
        raise RuntimeError(f"repdl.mm: expected 2D tensors, got {len(a)}D and {len(b)}D")
    if a[1] != b[0]:
        raise RuntimeError(
            f"repdl.mm: mat1 and mat2 shapes cannot be multiplied ({_shape(input)} and {_shape(mat2)})")
    return _matmul(input, mat2)


def bmm(input: Tensor, mat2: Tensor) -> Tensor:
    """(B, M, K) @ (B, K, N), no broadcasting (as torch.bmm)."""
    _check_pair("bmm", input, mat2, "input", "mat2")
    if input.dim() != 3 or mat2.dim() != 3:
        raise RuntimeError(f"repdl.bmm: expected 3D tensors, got {input.dim()}D and {mat2.dim()}D")
    if input.shape[0] != mat2.shape[0] or input.shape[2] != mat2.shape[1]:
        raise RuntimeError(
            f"repdl.bmm: batch1 and batch2 shapes cannot be multiplied ({_shape(input)} and {_shape(mat2)})")
    return _matmul(input, mat2)


def matmul(input: Tensor, other: Tensor) -> Tensor:
    """torch.matmul's shape rules (1D promotion, broadcast batch dims) over
    the sequential-fma-chain product."""
    _check_pair("matmul", input, other, "input", "other")
    da, db = input.dim(), other.dim()
    if da == 0 or db == 0:
        raise RuntimeError(f"repdl.matmul: both arguments need at least 1 dimension, got {da}D and {db}D")
    a = input.unsqueeze(0) if da == 1 else input
    b = other.unsqueeze(-1) if db == 1 else other
    if a.shape[-1] != b.shape[-2]:
        raise RuntimeError(
            f"repdl.matmul: shapes {_shape(input)} and {_shape(other)} cannot be multiplied "
            f"({a.shape[-1]} != {b.shape[-2]})")
    try:
        _checks.broadcast_shape("matmul", a.shape[:-2], b.shape[:-2])
    except RuntimeError:
        raise RuntimeError(
            f"repdl.matmul: batch dimensions of {_shape(input)} and {_shape(other)} cannot be broadcast") from None
    out = _matmul(a, b)
    # drop the row / column that a 1-D operand was promoted to
    shape = out.shape[:-2] + out.shape[-2:-1] * (da > 1) + out.shape[-1:] * (db > 1)
    return out.reshape(shape)


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """beta*input + alpha*(mat1 @ mat2): the product's chains first, then
    product * fl32(alpha) (skipped for alpha == 1), input * fl32(beta) (skipped
    for beta == 1; input ignored entirely for beta == 0, as in torch), then
    one addition.  input broadcasts to the product's (M, N), as in torch."""
    _checks.check_float32_tensor("addmm", "input", input)
    _checks.check_same_device("addmm", input=input, mat1=mat1, mat2=mat2)
    for name, v in (("beta", beta), ("alpha", alpha)):
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise TypeError(f"repdl.addmm: {name} must be a real number, got {type(v).__name__}")
    if beta == 1 and alpha == 1 and input.dim() == 1 and mat1.dim() == 2 and mat2.dim() == 2 \
            and input.shape[0] == mat2.shape[1] and mat1.shape[1] == mat2.shape[0]:
        # The same graph as linear(mat1, mat2^T, input): each chain, then one
        # addition of input (backward too), as one primitive instead of two.
        return _linear(mat1, mat2.t(), input)
    prod = mm(mat1, mat2)
    _check_expands("addmm", "input", input.shape, prod.shape)
    if alpha != 1:
        prod = arith.mul(prod, alpha)
    if beta == 0:
        return prod
    return arith.add(arith.mul(input, beta) if beta != 1 else input, prod)


def _check_expands(op, name, shape, target):
    """RuntimeError unless `shape` broadcasts to `target` without changing it
    (torch's expand rule for addmm's input and linear's bias)."""
    lead = len(target) - len(shape)
    if lead < 0 or any(s != 1 and s != t for s, t in zip(shape, target[lead:])):
        raise RuntimeError(f"repdl.{op}: {name} of shape {_shape_of(shape)} cannot be broadcast to the "
                           f"result's shape {_shape_of(target)}")


def _shape_of(shape):
    return "x".join(str(s) for s in shape) or "scalar"


def _as_matrix(x):
    """x (*, K) as one (M, K) matrix when that is a view, so the GEMM sees one
    large M; otherwise x itself, batched (same bits either way)."""
    if x.dim() == 2:
        return x
    try:
        return x.view(-1, x.shape[-1])
    except RuntimeError:
        return x


def linear(input: Tensor, weight: Tensor, bias: Tensor = None) -> Tensor:
    """input (*, in) @ weight(out, in)^T, then + bias with one rounding.  A
    1-D weight (in,) gives input @ weight (the last dim removed), as in torch."""
    if (type(input) in PLAIN_TYPES and type(weight) in PLAIN_TYPES and type(bias) in PLAIN_TYPES
            and input.dtype is weight.dtype is bias.dtype is torch.float32
            and input.dim() == weight.dim() == 2 and bias.dim() == 1
            and input.shape[1] == weight.shape[1] and weight.shape[0] == bias.shape[0]
            and (input.is_cpu and weight.is_cpu and bias.is_cpu or input.device == weight.device == bias.device)):
        return _linear(input, weight, bias)  # a layer's call, checked cheaply: what the checks below accept
    _checks.check_float32("linear", input=input, weight=weight)
    if bias is not None:
        _checks.check_float32_tensor("linear", "bias", bias)
        _checks.check_same_device("linear", input=input, weight=weight, bias=bias)
    else:
        _checks.check_same_device("linear", input=input, weight=weight)
    if input.dim() == 0 or weight.dim() == 0:
        raise RuntimeError(f"repdl.linear: both arguments to linear need to be at least 1D, but they are "
                           f"{input.dim()}D and {weight.dim()}D")
    if weight.dim() > 2:
        raise RuntimeError(f"repdl.linear: weight must be 1D or 2D, got {weight.dim()}D")
    if input.shape[-1] != weight.shape[-1]:
        raise RuntimeError(
            f"repdl.linear: input and weight shapes cannot be multiplied ({_shape(input)} and "
            f"{_shape(weight)}.T)")
    if weight.dim() == 1:
        if bias is not None:
            raise RuntimeError("repdl.linear: a 1-D weight takes no bias (torch: mat2 must be a matrix)")
        return matmul(input, weight)
    out_shape = (*input.shape[:-1], weight.shape[0])
    if bias is not None:
        _check_expands("linear", "bias", bias.shape, out_shape)
        if bias.dim() > 1:  # broadcast over leading dims too: the product, then one addition
            return arith.add(linear(input, weight), bias)
    x = input if input.dim() == 2 else _as_matrix(input.unsqueeze(0) if input.dim() == 1 else input)
    out = _linear(x, weight, bias)
    return out if input.dim() == 2 else out.reshape(out_shape)

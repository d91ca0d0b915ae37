"""Linear algebra: fma32, dot, mm, bmm, matmul, addmm, linear.

Every product reduces to one primitive, ``repdl::matmul`` (batched,
broadcasting), whose elements are sequential fma chains over k; see
docs/CONTRACT.md, "Linear algebra".
"""
from typing import Optional

import torch

from .. import _checks, backends
from .._library import Op
from ._arith import add32, scale32

__all__ = ["fma32", "dot", "mm", "bmm", "matmul", "addmm", "linear"]

Tensor = torch.Tensor


def _fma32_impl(a: Tensor, b: Tensor, c: Tensor) -> Tensor:
    return backends.for_tensor(a).fma32(a, b, c)


def _fma32_fake(a, b, c):
    return torch.empty(torch.broadcast_shapes(a.shape, b.shape, c.shape), dtype=a.dtype, device=a.device)


def _matmul_impl(a: Tensor, b: Tensor) -> Tensor:
    return backends.for_tensor(a).matmul(a, b)


def _matmul_fake(a, b):
    batch = torch.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return a.new_empty(*batch, a.shape[-2], b.shape[-1])


def _linear_impl(x: Tensor, weight: Tensor, bias: Optional[Tensor]) -> Tensor:
    return backends.for_tensor(x).linear(x, weight, bias)


def _linear_fake(x, weight, bias):
    return x.new_empty(*x.shape[:-1], weight.shape[0])


_fma32 = Op("fma32", _fma32_impl, _fma32_fake)
_matmul = Op("matmul", _matmul_impl, _matmul_fake)
_linear = Op("linear", _linear_impl, _linear_fake)


def fma32(a: Tensor, b: Tensor, c: Tensor) -> Tensor:
    """round(a*b + c) with a single rounding, elementwise with broadcasting."""
    _checks.check_float32("fma32", a=a, b=b, c=c)
    _checks.check_same_device("fma32", a=a, b=b, c=c)
    try:
        torch.broadcast_shapes(a.shape, b.shape, c.shape)
    except RuntimeError:
        raise RuntimeError(
            f"repdl.fma32: shapes {tuple(a.shape)}, {tuple(b.shape)} and {tuple(c.shape)} "
            "cannot be broadcast together") from None
    return _fma32(a, b, c)


def _check_pair(op, a, b, a_name, b_name):
    if (type(a) is Tensor and type(b) is Tensor and a.dtype is torch.float32 and b.dtype is torch.float32
            and a.device == b.device):
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
    if input.dim() != 2 or mat2.dim() != 2:
        raise RuntimeError(f"repdl.mm: expected 2D tensors, got {input.dim()}D and {mat2.dim()}D")
    if input.shape[1] != mat2.shape[0]:
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
        torch.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except RuntimeError:
        raise RuntimeError(
            f"repdl.matmul: batch dimensions of {_shape(input)} and {_shape(other)} cannot be broadcast") from None
    out = _matmul(a, b)
    # drop the row / column that a 1-D operand was promoted to
    shape = out.shape[:-2] + out.shape[-2:-1] * (da > 1) + out.shape[-1:] * (db > 1)
    return out.reshape(shape)


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """beta*input + alpha*(mat1 @ mat2): the product's chains first, then
    fl32(alpha)*product (skipped for alpha == 1), fl32(beta)*input (skipped
    for beta == 1; input ignored entirely for beta == 0, as in torch), then
    one addition."""
    _checks.check_float32("addmm", input=input)
    _checks.check_same_device("addmm", input=input, mat1=mat1, mat2=mat2)
    prod = mm(mat1, mat2)
    try:
        torch.broadcast_shapes(input.shape, prod.shape)
    except RuntimeError:
        raise RuntimeError(
            f"repdl.addmm: input of shape {_shape(input)} cannot be broadcast to the product's "
            f"shape {_shape(prod)}") from None
    if alpha != 1:
        prod = scale32(prod, alpha)
    if beta == 0:
        return prod
    return add32(scale32(input, beta) if beta != 1 else input, prod)


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
    """input (*, in) @ weight(out, in)^T, then + bias with one rounding."""
    _checks.check_float32("linear", input=input, weight=weight)
    if bias is not None:
        _checks.check_float32("linear", bias=bias)
        _checks.check_same_device("linear", input=input, weight=weight, bias=bias)
        if bias.dim() > 1 or (bias.dim() == 1 and bias.shape[0] not in (1, weight.shape[0])):
            raise RuntimeError(
                f"repdl.linear: bias of shape {_shape(bias)} does not match {weight.shape[0]} output features")
    else:
        _checks.check_same_device("linear", input=input, weight=weight)
    if weight.dim() != 2 or input.dim() == 0:
        raise RuntimeError(
            f"repdl.linear: expected weight 2D and input at least 1D, got {weight.dim()}D and {input.dim()}D")
    if input.shape[-1] != weight.shape[1]:
        raise RuntimeError(
            f"repdl.linear: input and weight shapes cannot be multiplied ({_shape(input)} and "
            f"{_shape(weight)}.T)")
    x = input if input.dim() == 2 else _as_matrix(input.unsqueeze(0) if input.dim() == 1 else input)
    out = _linear(x, weight, bias)
    return out if input.dim() == 2 else out.reshape(*input.shape[:-1], weight.shape[0])

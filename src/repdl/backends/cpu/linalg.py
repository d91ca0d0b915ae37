"""CPU backend: matrix products (C++ BLIS-style GEMM)."""
import torch

from ... import _C
from .arith import binary_


def matmul(a, b):
    """a (*A, M, K) @ b (*B, K, N) with broadcast batch dims, any strides."""
    (m, k), n = a.shape[-2:], b.shape[-1]
    if a.dim() == 2 and b.dim() == 2:  # the common case, without broadcasting machinery
        out = torch.empty((m, n), dtype=torch.float32)
        _C.gemm(m, n, k, a.data_ptr(), *a.stride(), b.data_ptr(), *b.stride(), out.data_ptr(), n, 0)
        return out
    batch = torch.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    out = torch.empty(*batch, m, n, dtype=torch.float32)
    # expand() gives broadcast batch dims stride 0: no copies, any layout.
    a = a.expand(*batch, m, k)
    b = b.expand(*batch, k, n)
    _C.gemm(m, n, k, a.data_ptr(), a.stride(-2), a.stride(-1), b.data_ptr(), b.stride(-2), b.stride(-1),
            out.data_ptr(), n, len(batch), *batch, *a.stride()[:-2], *b.stride()[:-2])
    return out


def linear(x, weight, bias):
    """x (M, K) @ weight (N, K)^T, then + bias (one rounding, in place)."""
    out = matmul(x, weight.t())
    return out if bias is None else binary_("add", out, bias)

"""CPU backend: fused multiply-add and matrix products (C++ BLIS-style GEMM)."""
import torch

from ... import _C


def fma32(a, b, c):
    a, b, c = (t.contiguous() for t in torch.broadcast_tensors(a, b, c))
    out = torch.empty_like(a)
    _C.fma(a.data_ptr(), b.data_ptr(), c.data_ptr(), out.data_ptr(), out.numel())
    return out


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
    """x (M, K) @ weight (N, K)^T, then + bias (one rounding, fused in C++)."""
    out = matmul(x, weight.t())
    if bias is not None:
        n = out.shape[-1]
        bias = bias.expand(n)
        _C.add_bias(out.data_ptr(), out.numel() // n if n else 0, n, bias.data_ptr(), bias.stride(0))
    return out

"""Reference: matrix products (CONTRACT.md, "Linear algebra")."""
import torch

from ... import _checks
from . import _exact


def matmul(a, b):
    """a (*A, M, K) @ b (*B, K, N), batch dims broadcast.

    out[..., i, j]: acc = +0.0; for k = 0..K-1: acc = fma32(a[..., i, k], b[..., k, j], acc).
    """
    batch = _checks.broadcast_shape("matmul", a.shape[:-2], b.shape[:-2])
    a64, b64 = _exact.f64(a), _exact.f64(b)
    acc = torch.zeros(*batch, a.shape[-2], b.shape[-1], dtype=torch.float32, device=a.device)
    for k in range(a.shape[-1]):
        acc = _exact.fma32_raw(a64[..., :, k : k + 1], b64[..., k : k + 1, :], _exact.f64(acc))
    return _exact.canonical_nan(acc)


def linear(x, weight, bias):
    """matmul(x, weight^T), then + bias with one rounding."""
    out = matmul(x, weight.t())
    return out if bias is None else _exact.add32(out, bias)

"""Reference: reductions (CONTRACT.md, "Reductions").

Each reduced tensor is first laid out as (*kept, R), the reduced dims last in
row-major order, so index r of the last dim is the contract's chain position.
"""
import torch

from . import _exact


def _reduced_last(x, dims):
    kept = [d for d in range(x.dim()) if d not in dims]
    R = 1
    for d in dims:
        R *= x.shape[d]
    return x.permute(tuple(kept) + tuple(dims)).reshape(*(x.shape[d] for d in kept), R)


def _shaped(out, x, dims, keepdim):
    if keepdim:
        return out.reshape(tuple(1 if d in dims else s for d, s in enumerate(x.shape)))
    return out


def _seqsum_last(v):
    """seqsum along the last dim: acc = +0.0; acc = acc + v[..., r], r ascending."""
    acc = torch.zeros(v.shape[:-1], dtype=torch.float32, device=v.device)
    for r in range(v.shape[-1]):
        acc = (_exact.f64(acc) + _exact.f64(v[..., r])).to(torch.float32)
    return acc


def _pairsum_last(v):
    """pairsum along the last dim, computed level by level: the tree that
    splits at the largest power of two below n has every block of the binary
    representation of n as an aligned perfect subtree, so summing adjacent
    pairs level by level builds those blocks, and the element left over at an
    odd-length level is the next block from the right, combined as
    left + right."""
    if v.shape[-1] == 0:
        return torch.zeros(v.shape[:-1], dtype=torch.float32, device=v.device)
    add = lambda a, b: (_exact.f64(a) + _exact.f64(b)).to(torch.float32)  # noqa: E731
    right = None
    while v.shape[-1] > 1:
        if v.shape[-1] % 2:
            last = v[..., -1]
            right = last if right is None else add(last, right)
            v = v[..., :-1]
        v = add(v[..., 0::2], v[..., 1::2])
    return v[..., 0] if right is None else add(v[..., 0], right)


def sum(x, dims, keepdim, *, order):
    """seqsum (order="sequential") or pairsum (order="pairwise") over `dims`."""
    v = _reduced_last(x, dims)
    out = _seqsum_last(v) if order == "sequential" else _pairsum_last(v)
    return _shaped(_exact.canonical_nan(out), x, dims, keepdim)


def mean(x, dims, keepdim):
    """seqsum over `dims`, then one division by fl32(n), n their element
    count (no elements: 0 / 0 = NaN)."""
    v = _reduced_last(x, dims)
    n = torch.tensor(float(v.shape[-1]), dtype=torch.float32, device=v.device)  # fl32(n)
    return _shaped(_exact.div32(_seqsum_last(v), n), x, dims, keepdim)


def _fmachain_last(u, v):
    """fmachain(u, v) along the last dim of two float32 tensors of one shape."""
    u64, v64 = _exact.f64(u), _exact.f64(v)
    acc = torch.zeros(u.shape[:-1], dtype=torch.float32, device=u.device)
    for r in range(u.shape[-1]):
        acc = _exact.fma32_raw(u64[..., r], v64[..., r], _exact.f64(acc))
    return _exact.canonical_nan(acc)


def sqdev(x, mean, dims, keepdim):
    """fmachain(d, d) over `dims` with d = x - mean (one rounding)."""
    v = _reduced_last(x, dims)
    d = _exact.sub32(v, mean.reshape(v.shape[:-1]).unsqueeze(-1))
    return _shaped(_fmachain_last(d, d), x, dims, keepdim)


def sumprod(a, b, dims, keepdim):
    """fmachain(a, b) over `dims`."""
    return _shaped(_fmachain_last(_reduced_last(a, dims), _reduced_last(b, dims)), a, dims, keepdim)


def extremum(x, dim, keepdim, *, largest):
    """index = the first r with x[r] NaN if the line has a NaN, else the first
    r with x[r] == max (min) under IEEE equality (-0.0 == +0.0); value =
    x[index].  (A left-to-right scan that replaces the best only when beaten
    strictly, NaN beating numbers, gives exactly this.)"""
    v = x.movedim(dim, -1)
    nan = torch.isnan(v)
    best = v.amax(-1, keepdim=True) if largest else v.amin(-1, keepdim=True)
    hit = torch.where(nan.any(-1, keepdim=True), nan, v == best)
    index = hit.to(torch.uint8).argmax(-1)  # argmax returns the first maximal position
    value = _exact.canonical_nan(v.gather(-1, index.unsqueeze(-1)).squeeze(-1))
    return _shaped(value, x, (dim,), keepdim), _shaped(index, x, (dim,), keepdim)

"""Reference: softmax, log_softmax, logsumexp (CONTRACT.md, "Softmax family")."""
import torch

from . import _exact, elementwise
from .reductions import _fmachain_last, _reduced_last, _seqsum_last, extremum


def softmax(x, dim, *, log):
    """m = max(x, dim) (the value max() returns), d = x - m, e = exp(d),
    s = seqsum(e); softmax = e / s, log_softmax = d - log(s)."""
    if x.numel() == 0:
        return torch.empty_like(x)
    m = extremum(x, dim, True, largest=True)[0]
    d = _exact.sub32(x, m)
    e = elementwise.exp(d)
    s = _seqsum_last(e.movedim(dim, -1)).unsqueeze(dim)
    return _exact.sub32(d, elementwise.log(s)) if log else _exact.div32(e, s)


def softmax_backward(g, y, dim, *, log):
    """softmax: s = fmachain(g, y) over the line, dx = y * (g - s);
    log_softmax: s = seqsum(g), dx = g - exp(y) * s."""
    if y.numel() == 0:
        return torch.empty_like(y)
    gl, yl = g.movedim(dim, -1), y.movedim(dim, -1)
    if log:
        s = _seqsum_last(gl).unsqueeze(-1)
        dx = _exact.sub32(gl, _exact.mul32(elementwise.exp(yl), s))
    else:
        s = _fmachain_last(gl, yl).unsqueeze(-1)
        dx = _exact.mul32(yl, _exact.sub32(gl, s))
    return dx.movedim(-1, dim)


def log_softmax_onehot_backward(y, index, value):
    """softmax_backward(g, y, 1, log=True) with g = +0.0 but value[p] at
    [p, index[p]] (y is (P, R)): the definition itself."""
    g = torch.zeros_like(y).scatter_(1, index.unsqueeze(1), value.unsqueeze(1))
    return softmax_backward(g, y, 1, log=True)


def logsumexp(x, dims, keepdim):
    """m' = max over dims if finite, else 0; log(seqsum(exp(x - m'))) + m'.
    (No elements: -inf.)"""
    v = _reduced_last(x, dims)
    if v.shape[-1] == 0:
        out = torch.full(v.shape[:-1], float("-inf"), dtype=torch.float32, device=x.device)
    else:
        m = extremum(v, v.dim() - 1, True, largest=True)[0]
        m = torch.where(torch.isinf(m), torch.zeros_like(m), m)
        s = _seqsum_last(elementwise.exp(_exact.sub32(v, m)))
        out = _exact.add32(elementwise.log(s), m.squeeze(-1))
    if keepdim:
        out = out.reshape(tuple(1 if d in dims else s for d, s in enumerate(x.shape)))
    return out

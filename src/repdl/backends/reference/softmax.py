"""Reference: softmax, log_softmax, logsumexp (CONTRACT.md, "Softmax family")."""
import math

import torch

from ... import _checks
from . import _exact, elementwise
from .arith import binary, binary_scalar
from .reductions import _fmachain_last, _reduced_last, _seqsum_last, extremum


def _line_terms(x, dim):
    """The terms every line's softmax and log_softmax start from: m =
    max(x, dim) (the value max() returns), d = x - m, e = exp(d), s =
    seqsum(e), with m and s kept as size-1 dims."""
    m = extremum(x, dim, True, largest=True)[0]
    d = _exact.sub32(x, m)
    e = elementwise.exp(d)
    return m, d, e, _seqsum_last(e.movedim(dim, -1)).unsqueeze(dim)


def softmax(x, dim, *, log):
    """softmax = e / s, log_softmax = d - log(s) (_line_terms)."""
    if x.numel() == 0:
        return torch.empty_like(x)
    _, d, e, s = _line_terms(x, dim)
    return _exact.sub32(d, elementwise.log(s)) if log else _exact.div32(e, s)


def attention_softmax(s, scale, mask):
    """Attention's steps from its scores s (docs/CONTRACT.md, "Attention"):
    z = fl32(s * scale); z = fl32(z + mask) for a float mask, where(mask,
    z, -inf) for a bool one (True keeps); then softmax along the last dim."""
    z = binary_scalar("mul", s, scale, False)
    if mask is not None:
        z = torch.where(mask, z, -math.inf) if mask.dtype == torch.bool else binary("add", z, mask)
    return softmax(z, z.dim() - 1, log=False)


def attention_softmax_backward(g, p, scale, keep):
    """The scores' gradient from that of p = attention_softmax(s, scale,
    mask): softmax's, then where's for a bool mask `keep` (the gradient
    where it holds, +0.0 elsewhere; an added mask passes it unchanged, and
    keep is None), then mul's: fl32(. * scale)."""
    dz = softmax_backward(g, p, p.dim() - 1, log=False)
    if keep is not None:
        dz = torch.where(keep, dz, 0.0)
    return binary_scalar("mul", dz, scale, False)


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


def log_softmax_stats(x):
    """(P, 2) for x (P, R): per row m = max(x) (the value max() returns) and
    log(s), s = seqsum(exp(x - m)), so that log_softmax(x, 1) = (x - m) -
    log(s); NaN for rows of no elements."""
    if x.shape[1] == 0:
        return torch.full((x.shape[0], 2), float("nan"), dtype=torch.float32, device=x.device)
    m, _, _, s = _line_terms(x, 1)
    return torch.cat([m, elementwise.log(s)], 1)


def log_softmax_onehot_backward(x, stats, index, value):
    """softmax_backward(g, y, 1, log=True) with y = log_softmax(x, 1) formed
    again from stats and g = +0.0 but value[p] at [p, index[p]] (x is (P,
    R)): the definition itself."""
    y = _exact.sub32(_exact.sub32(x, stats[:, :1]), stats[:, 1:])
    g = torch.zeros_like(y).scatter_(1, index.unsqueeze(1), value.unsqueeze(1))
    return softmax_backward(g, y, 1, log=True)


def _class_picks(x, target, ignore_index):
    """(x[p, target[p]] per sample, +0.0 where ignored; the valid mask), x
    (P, R); IndexError for a target other than ignore_index outside [0, R)."""
    valid = target != ignore_index
    bad = valid & ((target < 0) | (target >= x.shape[1]))
    if bad.any():
        raise _checks.class_out_of_bounds(target[bad][0].item(), x.shape[1])
    if x.shape[1] == 0:  # every sample ignored: nothing to pick
        return x.new_zeros(x.shape[0]), valid
    t = torch.where(valid, target, torch.zeros_like(target)).unsqueeze(1)
    return x.gather(1, t).squeeze(1), valid


def _class_loss(picked, valid, reduction):
    """nll = -picked, +0.0 where ignored; kept ('none'), seqsum'd ('sum'),
    or seqsum'd and divided by fl32(the valid count) ('mean')."""
    nll = torch.where(valid, _exact.canonical_nan(-picked), torch.zeros_like(picked))
    if reduction == "none":
        return nll
    total = _exact.canonical_nan(_seqsum_last(nll))
    return _exact.div32(total, valid.sum().to(torch.float32)) if reduction == "mean" else total


def class_nll(x, target, ignore_index, reduction):
    """(loss, stats): cross_entropy's class-index loss (no weight, no
    smoothing) for x (P, R) and x's log_softmax_stats (m, log s): the picked
    log-probability of sample p, class t = target[p], is fl(fl(x[p, t] -
    m) - log s) (what log_softmax would hold at [p, t]), then _class_loss."""
    picked, valid = _class_picks(x, target, ignore_index)
    stats = log_softmax_stats(x)
    return _class_loss(_exact.sub32(_exact.sub32(picked, stats[:, 0]), stats[:, 1]), valid, reduction), stats


def nll(x, target, ignore_index, reduction):
    """nll_loss's class-index loss (no weight) for log-probabilities x (P,
    R): _class_loss of x[p, target[p]]."""
    picked, valid = _class_picks(x, target, ignore_index)
    return _class_loss(picked, valid, reduction)


def _one_hot_values(target, ignore_index, reduction, g):
    """(class, value) per sample of the class losses' gradient: -g (g /
    fl32(the valid count) for 'mean'; g[p] for 'none') at each valid
    sample's class, +0.0 at class 0 for an ignored one."""
    valid = target != ignore_index
    if reduction == "mean":
        g = _exact.div32(g, valid.sum().to(torch.float32))
    value = torch.where(valid, _exact.canonical_nan(-g), torch.zeros_like(g)).expand(target.shape)
    return torch.where(valid, target, torch.zeros_like(target)), value


def class_nll_backward(x, stats, target, ignore_index, reduction, g):
    """class_nll's gradient: the one-hot values through log_softmax's
    backward (log_softmax_onehot_backward)."""
    return log_softmax_onehot_backward(x, stats, *_one_hot_values(target, ignore_index, reduction, g))


def nll_backward(shape, target, ignore_index, reduction, g):
    """nll's gradient: +0.0 but for the one-hot values."""
    index, value = _one_hot_values(target, ignore_index, reduction, g)
    return torch.zeros(shape, dtype=torch.float32, device=g.device).scatter_(1, index.unsqueeze(1), value.unsqueeze(1))


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

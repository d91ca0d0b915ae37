"""Reference: layer and RMS normalisation of rows, batch normalisation over
channels, group normalisation (CONTRACT.md section 11): the composition of
the reference's primitives that the CPU's fused kernels (csrc/norm)
reproduce."""
import math

import torch

from . import _exact, arith, elementwise, reductions


def _fl32(x, count):
    return _exact.round32(_exact.f64(x.new_tensor(float(count))))


def _n(x):
    return _fl32(x, x.shape[1])


def _xhat(x, mean, rstd, centered):
    centred = arith.binary("sub", x, mean.unsqueeze(1)) if centered else x
    return arith.binary("mul", centred, rstd.unsqueeze(1))


def norm_rows(x, w, b, eps: float, centered: bool):
    """mean = seqsum(x) / n, ss = fmachain(d, d), rstd = rsqrt(ss / n + eps)
    (rms: rstd = rsqrt(fmachain(x, x) / n + eps)); y = xhat * w + b.
    Returns (y, stats): stats (2, rows) holds mean and rstd, (1, rows) rstd
    when not centered."""
    n = _n(x)
    if centered:
        mean = arith.binary("div", reductions.sum(x, (1,), False, order="sequential"), n)
        ss = reductions.sqdev(x, mean, (1,), False)
    else:
        mean = None
        ss = reductions.sumprod(x, x, (1,), False)
    rstd = elementwise.rsqrt(arith.binary_scalar("add", arith.binary("div", ss, n), eps, False))
    y = _xhat(x, mean, rstd, centered)
    if w is not None:
        y = arith.binary("mul", y, w)
    if b is not None:
        y = arith.binary("add", y, b)
    return y, torch.stack((mean, rstd)) if centered else rstd.unsqueeze(0).clone()


def norm_rows_backward(g, x, stats, w, centered: bool, need_w: bool, need_b: bool):
    """gy = g * w; dx = ((gy - seqsum(gy) / n) - xhat * (fmachain(gy, xhat) / n)) * rstd
    (rms: without the first term); dw = seqsum over rows of g * xhat; db = seqsum of g."""
    n = _n(x)
    mean, rstd = stats[0] if centered else None, stats[-1]
    h = _xhat(x, mean, rstd, centered)
    gy = g if w is None else arith.binary("mul", g, w)
    m2 = arith.binary("div", reductions.sumprod(gy, h, (1,), True), n)
    if centered:
        m1 = arith.binary("div", reductions.sum(gy, (1,), True, order="sequential"), n)
        gy = arith.binary("sub", gy, m1)
    dx = arith.binary("mul", arith.binary("sub", gy, arith.binary("mul", h, m2)), rstd.unsqueeze(1))
    dw = reductions.sum(arith.binary("mul", g, h), (0,), False, order="sequential") if need_w else None
    db = reductions.sum(g, (0,), False, order="sequential") if need_b else None
    return dx, dw, db


# Batch normalisation: x (N, C, *spatial), statistics of each channel over
# (n, *spatial) in row-major order; per-channel values broadcast over the
# spatial dims (outputs are new tensors, never views: autograd forbids
# modifying a custom op's view output in place).

def _samples_and_spatial(x):
    return (0, *range(2, x.dim()))


def _per_channel(t, x):
    return t.reshape(-1, *[1] * (x.dim() - 2))


def _channel_count(x):
    return _fl32(x, math.prod(x.shape[:1] + x.shape[2:]))


def _channel_xhat(x, mean, rstd):
    return arith.binary("mul", arith.binary("sub", x, _per_channel(mean, x)), _per_channel(rstd, x))


def _channel_affine(y, w, b):
    """y * w + b, w and b per channel."""
    if w is not None:
        y = arith.binary("mul", y, _per_channel(w, y))
    if b is not None:
        y = arith.binary("add", y, _per_channel(b, y))
    return y


def batch_norm(x, w, b, eps: float):
    """(y, mean, ss, rstd): mean = seqsum(x) / n, ss = fmachain(d, d) with
    d = x - mean, rstd = rsqrt(ss / n + eps), y = ((x - mean) * rstd) * w + b,
    n = N * prod(spatial)."""
    dims, n = _samples_and_spatial(x), _channel_count(x)
    mean = arith.binary("div", reductions.sum(x, dims, False, order="sequential"), n)
    ss = reductions.sqdev(x, mean, dims, False)
    rstd = elementwise.rsqrt(arith.binary_scalar("add", arith.binary("div", ss, n), eps, False))
    return _channel_affine(_channel_xhat(x, mean, rstd), w, b), mean, ss, rstd


def batch_norm_evaluate(x, mean, var, w, b, eps: float):
    """Evaluation from the running statistics: y = ((x - mean) * rsqrt(var +
    eps)) * w + b, every sample on its own."""
    return _channel_affine(_channel_xhat(x, mean, elementwise.rsqrt(arith.binary_scalar("add", var, eps, False))), w, b)


def batch_norm_backward(g, x, mean, rstd, w, need_w: bool, need_b: bool):
    """gy = g * w, h = (x - mean) * rstd; dx = ((gy - seqsum(gy) / n) - h *
    (fmachain(gy, h) / n)) * rstd; dw = seqsum(g * h); db = seqsum(g)."""
    dims, n = _samples_and_spatial(x), _channel_count(x)
    h = _channel_xhat(x, mean, rstd)
    gy = g if w is None else arith.binary("mul", g, _per_channel(w, x))
    m1 = arith.binary("div", reductions.sum(gy, dims, False, order="sequential"), n)
    m2 = arith.binary("div", reductions.sumprod(gy, h, dims, False), n)
    dx = arith.binary("mul", arith.binary("sub", arith.binary("sub", gy, _per_channel(m1, x)),
                                          arith.binary("mul", h, _per_channel(m2, x))), _per_channel(rstd, x))
    dw = reductions.sum(arith.binary("mul", g, h), dims, False, order="sequential") if need_w else None
    db = reductions.sum(g, dims, False, order="sequential") if need_b else None
    return dx, dw, db


# Group normalisation: x (N, C, *spatial), each (sample, group) a row of its
# channels' elements in memory order with norm_rows' formulas; the
# statistics (N, groups), the affine step per channel.  Computed on x's own
# shape (the rows as a reduced view of x, per-group values repeated per
# channel): every output a tensor of its own, as above.

def _group_rows(t, groups):
    """t (N, C, *spatial) as (N, groups, its row)."""
    return t.reshape(t.shape[0], groups, math.prod(t.shape[1:]) // groups)


def _per_group(t, x):
    """t (N, groups) per channel of x (N, C, *spatial), broadcasting over the spatial dims."""
    return t.repeat_interleave(x.shape[1] // t.shape[1], dim=1).reshape(*x.shape[:2], *[1] * (x.dim() - 2))


def _group_xhat(x, mean, rstd):
    return arith.binary("mul", arith.binary("sub", x, _per_group(mean, x)), _per_group(rstd, x))


def group_norm(x, w, b, groups: int, eps: float):
    """(y, mean, rstd): mean = seqsum(row) / n, ss = fmachain(d, d), rstd =
    rsqrt(ss / n + eps) over each (sample, group)'s row of n elements, y =
    ((x - mean) * rstd) * w + b, w and b per channel."""
    rows = _group_rows(x, groups)
    n = _fl32(x, rows.shape[2])
    mean = arith.binary("div", reductions.sum(rows, (2,), False, order="sequential"), n)
    ss = reductions.sqdev(rows, mean, (2,), False)
    rstd = elementwise.rsqrt(arith.binary_scalar("add", arith.binary("div", ss, n), eps, False))
    return _channel_affine(_group_xhat(x, mean, rstd), w, b), mean, rstd


def group_norm_backward(g, x, mean, rstd, w, need_w: bool, need_b: bool):
    """gy = g * w per channel, h = (x - mean) * rstd per row; dx = ((gy -
    seqsum(gy) / n) - h * (fmachain(gy, h) / n)) * rstd over each row; dw =
    seqsum over (n, *spatial) of g * h; db = seqsum of g."""
    groups, dims = mean.shape[1], _samples_and_spatial(x)
    n = _fl32(x, _group_rows(x, groups).shape[2])
    h = _group_xhat(x, mean, rstd)
    gy = g if w is None else arith.binary("mul", g, _per_channel(w, x))
    gy_rows = _group_rows(gy, groups)
    m1 = arith.binary("div", reductions.sum(gy_rows, (2,), False, order="sequential"), n)
    m2 = arith.binary("div", reductions.sumprod(gy_rows, _group_rows(h, groups), (2,), False), n)
    dx = arith.binary("mul", arith.binary("sub", arith.binary("sub", gy, _per_group(m1, x)),
                                          arith.binary("mul", h, _per_group(m2, x))), _per_group(rstd, x))
    dw = reductions.sum(arith.binary("mul", g, h), dims, False, order="sequential") if need_w else None
    db = reductions.sum(g, dims, False, order="sequential") if need_b else None
    return dx, dw, db


def batch_norm_running(running_mean, running_var, mean, ss, keep: float, take: float, n_less_one: float):
    """(running_mean * keep + mean * take, running_var * keep + (ss /
    n_less_one) * take): keep = fl32(1 - momentum), take = fl32(momentum),
    the variance's statistic unbiased."""
    variance = arith.binary_scalar("div", ss, n_less_one, False)
    return tuple(arith.binary("add", arith.binary_scalar("mul", running, keep, False),
                              arith.binary_scalar("mul", stat, take, False))
                 for running, stat in ((running_mean, mean), (running_var, variance)))

"""CPU backend: layer and RMS normalisation of dense rows, batch
normalisation over channels, group normalisation (csrc/norm)."""
import math

import torch

from ... import _C
from ..._scalar import bits32
from .outputs import new_float32, row_major


# The native entry (csrc/common/route.cpp) of the primitive repdl::norm_rows:
# norm_rows below for contiguous tensors, computed in C from the tensors
# themselves.
NATIVE = {"norm_rows": _C.make_native_norm_rows(new_float32)}


def _ptr(t):
    return 0 if t is None else t.data_ptr()


def _dense(t):
    """An optional parameter, row-major (None stays None)."""
    return None if t is None else t.contiguous()


def _mean_and_rstd(stats, rows, centered):
    """The data pointers of the rows' means (0 when not centered) and rstds
    in stats, (2, rows) or (1, rows): the rstds a row of 4-byte floats
    after the means."""
    at = stats.data_ptr()
    return (at, at + 4 * rows) if centered else (0, at)


def norm_rows(x, w, b, eps: float, centered: bool):
    """(y, stats) for x (rows, n): stats (2, rows) holds the rows' means and
    rstds, (1, rows) their rstds when not centered (one allocation, not two:
    about 0.8 us of a small layer_norm)."""
    x = x.contiguous()
    w, b = _dense(w), _dense(b)
    rows, n = x.shape
    y = torch.empty_like(x)
    stats = new_float32(2 if centered else 1, rows)
    _C.norm_forward(rows, n, centered, bits32(eps), _ptr(w), _ptr(b), x.data_ptr(), y.data_ptr(),
                    *_mean_and_rstd(stats, rows, centered))
    return y, stats


def norm_rows_backward(g, x, stats, w, centered: bool, need_w: bool, need_b: bool):
    """(dx, dw or None, db or None), from norm_rows' stats."""
    g, x = g.contiguous(), x.contiguous()
    w = _dense(w)
    rows, n = x.shape
    dx = torch.empty_like(x)
    dw = row_major((n,)) if need_w else None
    db = row_major((n,)) if need_b else None
    _C.norm_backward(rows, n, centered, 0, _ptr(w), 0, g.data_ptr(), x.data_ptr(),
                     *_mean_and_rstd(stats, rows, centered), dx.data_ptr(), _ptr(dw), _ptr(db))
    return dx, dw, db


def _channels(x):
    """(N, C, L) of x (N, C, *spatial), L the spatial positions' count."""
    N, C = x.shape[:2]
    return N, C, math.prod(x.shape[2:])


def batch_norm(x, w, b, eps: float):
    """(y, mean, ss, rstd) for x (N, C, *spatial); the statistics one per channel."""
    x = x.contiguous()
    w, b = _dense(w), _dense(b)
    N, C, L = _channels(x)
    y = torch.empty_like(x)
    mean, ss, rstd = row_major((C,)), row_major((C,)), row_major((C,))
    _C.batch_norm_forward(N, C, L, bits32(eps), _ptr(w), _ptr(b), x.data_ptr(), y.data_ptr(), mean.data_ptr(),
                          ss.data_ptr(), rstd.data_ptr())
    return y, mean, ss, rstd


def batch_norm_evaluate(x, mean, var, w, b, eps: float):
    """y = ((x - mean) * rsqrt(var + eps)) * w + b for x (N, C, *spatial)."""
    x, mean, var = x.contiguous(), mean.contiguous(), var.contiguous()
    w, b = _dense(w), _dense(b)
    N, C, L = _channels(x)
    y = torch.empty_like(x)
    _C.batch_norm_evaluate(N, C, L, bits32(eps), _ptr(w), _ptr(b), x.data_ptr(), mean.data_ptr(), var.data_ptr(),
                           y.data_ptr())
    return y


def batch_norm_backward(g, x, mean, rstd, w, need_w: bool, need_b: bool):
    """(dx, dw or None, db or None)."""
    g, x = g.contiguous(), x.contiguous()
    w = _dense(w)
    N, C, L = _channels(x)
    dx = torch.empty_like(x)
    dw = row_major((C,)) if need_w else None
    db = row_major((C,)) if need_b else None
    _C.batch_norm_backward(N, C, L, 0, _ptr(w), 0, g.data_ptr(), x.data_ptr(), mean.data_ptr(), rstd.data_ptr(),
                           dx.data_ptr(), _ptr(dw), _ptr(db))
    return dx, dw, db


def _groups(x, groups):
    """(N, G, Cg, L) of x (N, C, *spatial) in `groups` groups of channels."""
    N, C, L = _channels(x)
    return N, groups, C // groups, L


def group_norm(x, w, b, groups: int, eps: float):
    """(y, mean, rstd) for x (N, C, *spatial); the statistics (N, groups)."""
    x = x.contiguous()
    w, b = _dense(w), _dense(b)
    y = torch.empty_like(x)
    mean, rstd = row_major((x.shape[0], groups)), row_major((x.shape[0], groups))
    _C.group_norm_forward(*_groups(x, groups), bits32(eps), _ptr(w), _ptr(b), x.data_ptr(), y.data_ptr(),
                          mean.data_ptr(), rstd.data_ptr())
    return y, mean, rstd


def group_norm_backward(g, x, mean, rstd, w, need_w: bool, need_b: bool):
    """(dx, dw or None, db or None); the groups are mean's second dim."""
    g, x = g.contiguous(), x.contiguous()
    w = _dense(w)
    C = x.shape[1]
    dx = torch.empty_like(x)
    dw = row_major((C,)) if need_w else None
    db = row_major((C,)) if need_b else None
    _C.group_norm_backward(*_groups(x, mean.shape[1]), 0, _ptr(w), 0, g.data_ptr(), x.data_ptr(), mean.data_ptr(),
                           rstd.data_ptr(), dx.data_ptr(), _ptr(dw), _ptr(db))
    return dx, dw, db


def batch_norm_running(running_mean, running_var, mean, ss, keep: float, take: float, n_less_one: float):
    """(running_mean * keep + mean * take, running_var * keep + ss /
    n_less_one * take), C floats each."""
    running_mean, running_var = running_mean.contiguous(), running_var.contiguous()
    new_mean, new_var = row_major(mean.shape), row_major(mean.shape)
    _C.batch_norm_running(mean.numel(), bits32(keep), bits32(take), bits32(n_less_one), running_mean.data_ptr(),
                          running_var.data_ptr(), mean.data_ptr(), ss.data_ptr(), new_mean.data_ptr(),
                          new_var.data_ptr())
    return new_mean, new_var

"""CPU backend: softmax, log_softmax, logsumexp (C++ line kernels)."""
import torch

from ... import _C, _checks
from ..._scalar import bits32
from .._views import dense_like, mask_line_strides, reduction_view, row_lines
from .outputs import SCALAR32, filled, new_float32, row_major

_KIND = {"softmax": 0, "log_softmax": 1, "logsumexp": 2, "log_softmax_stats": 3}
_REDUCTION = {"none": 0, "mean": 1, "sum": 2}
# The native entries (csrc/common/route.cpp): softmax's rows case below, and
# the class losses' class_nll, nll and their backward functions (ops/loss.py's
# lsm_class_nll, class_nll and their gradients' primitives), computed in C
# from the tensors themselves.
NATIVE = {"softmax": _C.native_softmax,
          **dict(zip(("lsm_class_nll", "lsm_class_nll_grad", "class_nll", "nll_grad"),
                     _C.make_native_class_losses(SCALAR32, new_float32)))}


def softmax(x, dim, *, log):
    numel = x.numel()
    if numel == 0:
        return torch.empty_like(x)
    kind = _KIND["log_softmax" if log else "softmax"]
    if dim == x.dim() - 1 and x.is_contiguous():
        # Rows of the last dim, row-major: reduction_view's arguments
        # without the view around them (0.6 us of a small call).
        y = torch.empty_like(x)
        _C.softmax(*row_lines(x, numel, x.shape[-1]), y.data_ptr(), kind)
        return y
    v = reduction_view(dense_like(x), (dim,))
    y = torch.empty_like(v.x)  # v.x is dense: its own strides
    _C.softmax(*v.args, y.data_ptr(), kind)
    if v.perm is not None:  # computed on a permuted copy
        y = y.permute(*sorted(range(x.dim()), key=v.perm.__getitem__))
    return y


def _in_layout_of(g, y):
    """An output gradient g with y's (dense) strides, as the backward
    kernels read both: a copy moves values only."""
    return g if g.stride() == y.stride() else torch.empty_like(y).copy_(g)


def _score_lines(s):
    """The view arguments of dense scores (..., L, S): lines (b, l) of S,
    b over the leading dims, so that a mask finds line (b, l) at b m1 + l m0."""
    L, S = s.shape[-2:]
    return s.data_ptr(), s.numel() // (L * S), L * S, L, S, S, 1


def _mask_args(mask, shape):
    """(kind, address, m1, m0) of a mask that mask_line_strides places
    (softmax.h's Scores: 0 none, 1 added, 2 keep)."""
    if mask is None:
        return 0, 0, 0, 0
    return (2 if mask.dtype == torch.bool else 1, mask.data_ptr(), *mask_line_strides(mask, shape))


def attention_softmax(s, scale, mask):
    """reference.softmax.attention_softmax: the scale and the mask (which
    mask_line_strides can place) taken as the line kernels first read each
    line of s: no pass and no tensor of their own."""
    if s.numel() == 0:
        return torch.empty_like(s)
    s = s.contiguous()
    p = torch.empty_like(s)
    _C.attention_softmax(*_score_lines(s), p.data_ptr(), bits32(scale), *_mask_args(mask, s.shape))
    return p


def attention_softmax_backward(g, p, scale, keep):
    """reference.softmax.attention_softmax_backward, the where and the scale
    applied to each line of the softmax's gradient as it is written."""
    if p.numel() == 0:
        return torch.empty_like(p)
    g = _in_layout_of(g, p)
    ds = torch.empty_like(p)
    _C.attention_softmax_backward(*_score_lines(p), g.data_ptr(), ds.data_ptr(), bits32(scale),
                                  *_mask_args(keep, p.shape))
    return ds


def softmax_backward(g, y, dim, *, log):
    """dx from softmax's (log_softmax's) output y and the output gradient g."""
    if y.numel() == 0:
        return torch.empty_like(y)
    y = dense_like(y)
    g = _in_layout_of(g, y)
    v = reduction_view(y, (dim,))
    if v.perm is not None:  # the view permuted a copy of y: lay g out the same way
        g = g.permute(*v.perm).contiguous()
    dx = torch.empty_like(v.x)
    _C.softmax_backward(*v.args, g.data_ptr(), dx.data_ptr(), log)
    if v.perm is not None:
        dx = dx.permute(*sorted(range(y.dim()), key=v.perm.__getitem__))
    return dx


def log_softmax_stats(x):
    """(P, 2) for x (P, R): per row m and log(s), log_softmax's two
    per-row values (row p's log_softmax is fl(fl(x[p] - m) - log(s)));
    NaN for rows of no elements."""
    P, R = x.shape
    if R == 0:
        return filled((P, 2), float("nan"))
    stats = row_major((P, 2))
    if P:
        v = reduction_view(x, (1,))
        _C.softmax(*v.args, stats.data_ptr(), _KIND["log_softmax_stats"])
    return stats


def log_softmax_onehot_backward(x, stats, index, value):
    """log_softmax_backward(g, log_softmax(x, 1), 1) for x (P, R), its
    log_softmax_stats and the g that is +0.0 but value[p] at [p,
    index[p]], without forming g or log_softmax(x)."""
    dx = row_major(x.shape)
    if x.numel() == 0:
        return dx
    x, index, value = x.contiguous(), index.contiguous(), value.contiguous()
    _C.log_softmax_onehot_backward(x.data_ptr(), stats.data_ptr(), x.shape[0], x.shape[1], index.data_ptr(),
                                   value.data_ptr(), dx.data_ptr())
    return dx


def _class_loss(x, target, ignore_index, reduction, stats):
    """The C class loss on x (P, R) (its log_softmax_stats into `stats`, or
    x log-probabilities when stats is None): a dozen tensor ops cost about
    85 us a call; IndexError for a target outside [0, R) other than
    ignore_index, before any work."""
    P, R = x.shape
    target = target.contiguous()
    loss = row_major((P,) if reduction == "none" else ())
    bad = _C.class_nll(x.data_ptr(), *x.stride(), P, R, target.data_ptr(), ignore_index, _REDUCTION[reduction],
                       0 if stats is None else stats.data_ptr(), loss.data_ptr())
    if bad >= 0:
        raise _checks.class_out_of_bounds(target[bad].item(), R)
    return loss


def class_nll(x, target, ignore_index, reduction):
    """(loss, stats): cross_entropy's class-index loss for x (P, R) and x's
    log_softmax_stats, in one C call."""
    stats = row_major((x.shape[0], 2))
    return _class_loss(x, target, ignore_index, reduction, stats), stats


def nll(x, target, ignore_index, reduction):
    """nll_loss's class-index loss (no weight) for log-probabilities x (P, R)."""
    return _class_loss(x, target, ignore_index, reduction, None)


def _class_loss_backward(shape, x, stats, target, ignore_index, reduction, g):
    dx = row_major(shape)
    if dx.numel() == 0:
        return dx
    target, g = target.contiguous(), g.contiguous()
    _C.class_nll_backward(0 if x is None else x.data_ptr(), 0 if stats is None else stats.data_ptr(), *shape,
                          target.data_ptr(), ignore_index, _REDUCTION[reduction], g.data_ptr(), dx.data_ptr())
    return dx


def class_nll_backward(x, stats, target, ignore_index, reduction, g):
    """class_nll's gradient with respect to x from the loss's gradient g."""
    return _class_loss_backward(x.shape, x.contiguous(), stats, target, ignore_index, reduction, g)


def nll_backward(shape, target, ignore_index, reduction, g):
    """nll's gradient with respect to its (P, R) input from the loss's gradient g."""
    return _class_loss_backward(shape, None, None, target, ignore_index, reduction, g)


def logsumexp(x, dims, keepdim):
    kept = [s for d, s in enumerate(x.shape) if d not in dims]
    if x.numel() == 0:
        out = filled(kept, float("-inf"))
    else:
        v = reduction_view(x, dims)
        out = row_major(v.out_shape)
        _C.softmax(*v.args, out.data_ptr(), _KIND["logsumexp"])
    if keepdim:
        out = out.reshape(tuple(1 if d in dims else s for d, s in enumerate(x.shape)))
    return out

"""CPU backend: layer and RMS normalisation of dense rows (csrc/norm)."""
import torch

from ... import _C
from ..._scalar import bits32
from .outputs import row_major


def _ptr(t):
    return 0 if t is None else t.data_ptr()


def norm_rows(x, w, b, eps: float, centered: bool):
    """(y, mean, rstd) for x (rows, n); mean is empty when not centered."""
    x = x.contiguous()
    w = None if w is None else w.contiguous()
    b = None if b is None else b.contiguous()
    rows, n = x.shape
    y = torch.empty_like(x)
    mean = row_major((rows if centered else 0,))
    rstd = row_major((rows,))
    _C.norm_forward(rows, n, centered, bits32(eps), _ptr(w), _ptr(b), x.data_ptr(), y.data_ptr(), _ptr(mean),
                    rstd.data_ptr())
    return y, mean, rstd


def norm_rows_backward(g, x, mean, rstd, w, centered: bool, need_w: bool, need_b: bool):
    """(dx, dw or None, db or None)."""
    g, x = g.contiguous(), x.contiguous()
    w = None if w is None else w.contiguous()
    rows, n = x.shape
    dx = torch.empty_like(x)
    dw = row_major((n,)) if need_w else None
    db = row_major((n,)) if need_b else None
    _C.norm_backward(rows, n, centered, 0, _ptr(w), 0, g.data_ptr(), x.data_ptr(), _ptr(mean), rstd.data_ptr(),
                     dx.data_ptr(), _ptr(dw), _ptr(db))
    return dx, dw, db

"""Reference: max and average pooling over planes and their gradients
(CONTRACT.md section 12), by gathering every window and reducing it with
the reference's extremum and sequential sum; the gradients accumulate
contributions in ascending output order (index_accumulate).

Windows come as per-axis tables (rows: (OH, KH), cols: (OW, KW), -1
outside the input), the window walked in row-major order over them."""
import torch

from . import _exact
from .reductions import _seqsum_last, extremum
from .scatter import index_accumulate


def _flat(rows, cols, h, w):
    """(OH*OW, KH*KW) flat input positions of the window elements, h*w outside."""
    oh, kh = rows.shape
    ow, kw = cols.shape
    r, c = rows.view(oh, 1, kh, 1), cols.view(1, ow, 1, kw)
    inside = (r >= 0) & (c >= 0)
    flat = torch.where(inside, r * w + c, torch.full_like(r * c, h * w))
    return flat.reshape(oh * ow, kh * kw)


def _gather(x, flat, fill):
    """(planes, OH*OW, K) window values, `fill` at h*w."""
    planes = x.reshape(x.shape[0], -1)
    padded = torch.cat([planes, torch.full((planes.shape[0], 1), fill, dtype=torch.float32, device=x.device)], 1)
    return padded[:, flat]


def max_pool(x, rows, cols):
    """(values, index) of the window's first maximum; x (planes, h, w)."""
    planes, h, w = x.shape
    flat = _flat(rows, cols, h, w)
    # in-range elements first (in row-major order), the -inf fill after them,
    # so that a window of -inf inputs still answers with its first input
    order = torch.sort((flat == h * w).to(torch.int8), dim=1, stable=True).indices
    flat = flat.gather(1, order)
    value, which = extremum(_gather(x, flat, float("-inf")), 2, False, largest=True)
    index = flat.unsqueeze(0).expand(planes, -1, -1).gather(2, which.unsqueeze(2)).squeeze(2)
    return value.reshape(planes, rows.shape[0], cols.shape[0]), index.reshape(planes, rows.shape[0], cols.shape[0])


def max_pool_backward(g, index, h, w):
    """dx[p] = seqsum, from +0.0 in ascending output order, of g at the outputs whose index is p."""
    planes = g.shape[0]
    dest = (index.reshape(planes, -1) + torch.arange(planes, device=g.device).view(-1, 1) * (h * w + 1)).reshape(-1)
    dx = index_accumulate(g.reshape(-1, 1), dest, planes * (h * w + 1))
    return dx.reshape(planes, h * w + 1)[:, :h * w].reshape(planes, h, w)


def avg_pool(x, rows, cols, divisor):
    """seqsum of each window (padding as +0.0) / divisor; divisor (OH*OW,)."""
    planes, h, w = x.shape
    total = _seqsum_last(_gather(x, _flat(rows, cols, h, w), 0.0))
    return _exact.div32(total, divisor).reshape(planes, rows.shape[0], cols.shape[0])


def avg_pool_backward(g, rows, cols, divisor, h, w):
    """t = g / divisor; dx[p] = seqsum over the windows holding p, in ascending output order, of t."""
    planes = g.shape[0]
    flat = _flat(rows, cols, h, w)                                      # (P, K)
    t = _exact.div32(g.reshape(planes, -1), divisor)                    # (planes, P)
    src = t.t().unsqueeze(1).expand(-1, flat.shape[1], -1).reshape(-1, planes)  # sources (o, k) ascending
    dx = index_accumulate(src.contiguous(), flat.reshape(-1), h * w + 1)       # (h*w + 1, planes)
    return dx[:h * w].t().reshape(planes, h, w)

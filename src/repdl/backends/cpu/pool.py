"""CPU backend: max and average pooling over planes (csrc/pool)."""
import torch

from ... import _C
from .outputs import row_major


def _windows(x_shape, rows, cols):
    planes, h, w = x_shape
    return (planes, h, w, rows.shape[0], cols.shape[0], rows.shape[1], cols.shape[1], rows.data_ptr(),
            cols.data_ptr())


def _tables(rows, cols):
    return rows.contiguous(), cols.contiguous()


def max_pool(x, rows, cols):
    x = x.contiguous()
    rows, cols = _tables(rows, cols)
    y = row_major((x.shape[0], rows.shape[0], cols.shape[0]))
    index = row_major(y.shape, torch.int64)
    _C.pool_max_forward(*_windows(x.shape, rows, cols), x.data_ptr(), y.data_ptr(), index.data_ptr())
    return y, index


def max_pool_backward(g, index, h, w):
    g, index = g.contiguous(), index.contiguous()
    dx = row_major((g.shape[0], h, w))
    # only the plane and output counts matter here: the index says where each output goes
    oh, ow = g.shape[1], g.shape[2]
    _C.pool_max_backward(g.shape[0], h, w, oh, ow, 1, 1, 0, 0, g.data_ptr(), index.data_ptr(), dx.data_ptr())
    return dx


def avg_pool(x, rows, cols, divisor):
    x, divisor = x.contiguous(), divisor.contiguous()
    rows, cols = _tables(rows, cols)
    y = row_major((x.shape[0], rows.shape[0], cols.shape[0]))
    _C.pool_avg_forward(*_windows(x.shape, rows, cols), x.data_ptr(), divisor.data_ptr(), y.data_ptr())
    return y


def avg_pool_backward(g, rows, cols, divisor, h, w):
    g, divisor = g.contiguous(), divisor.contiguous()
    rows, cols = _tables(rows, cols)
    dx = row_major((g.shape[0], h, w))
    _C.pool_avg_backward(*_windows((g.shape[0], h, w), rows, cols), g.data_ptr(), divisor.data_ptr(), dx.data_ptr())
    return dx

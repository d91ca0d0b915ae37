"""Row gathers and their scatter-style gradients (docs/CONTRACT.md,
"Scatter-style ops").

``repdl::take_rows(x, index)`` copies rows (embedding lookups, padding,
pooling windows, gather); its gradient is ``repdl::index_accumulate``,
which adds the gradient rows that came from one source row in ascending
order of their position, starting from +0.0.  Every op whose backward
would otherwise be torch's scatter-add goes through this pair.
"""
import torch

from .. import backends
from .._library import primitive
from ..backends.reference._exact import canonical_nan

Tensor = torch.Tensor


def _take_rows_impl(x: Tensor, index: Tensor) -> Tensor:
    return canonical_nan(x.index_select(0, index))  # copies; a NaN from the user's tensor leaves canonical


def _take_rows_fake(x, index):
    return x.new_empty(index.shape[0], *x.shape[1:])


def _take_rows_setup(ctx, inputs, output):
    x, index = inputs
    ctx.rows, ctx.row_shape = x.shape[0], x.shape[1:]
    ctx.save_for_backward(index)


def _take_rows_backward(ctx, g):
    """dx = index_accumulate(g, index): each source row the sum of the
    gradient rows copied from it, in ascending order of their position."""
    (index,) = ctx.saved_tensors
    flat = g.reshape(g.shape[0], -1)
    return index_accumulate(flat, index, ctx.rows).reshape(ctx.rows, *ctx.row_shape), None


def _index_accumulate_impl(src: Tensor, index: Tensor, rows: int) -> Tensor:
    return backends.for_tensor(src).index_accumulate(src, index, rows)


def _index_accumulate_fake(src, index, rows):
    return src.new_empty(rows, src.shape[1])


def _index_accumulate_setup(ctx, inputs, output):
    ctx.save_for_backward(inputs[1])


def _index_accumulate_backward(ctx, g):
    """d src = g[index] (a gather of copies)."""
    (index,) = ctx.saved_tensors
    return take_rows(g, index), None, None


take_rows = primitive("take_rows", _take_rows_impl, _take_rows_fake, setup_context=_take_rows_setup,
                      backward=_take_rows_backward)
index_accumulate = primitive("index_accumulate", _index_accumulate_impl, _index_accumulate_fake,
                             setup_context=_index_accumulate_setup, backward=_index_accumulate_backward)

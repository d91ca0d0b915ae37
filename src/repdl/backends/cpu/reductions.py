"""CPU backend: reductions (C++ kernels over canonical views)."""
import math

import torch

from ... import _C
from ..._scalar import bits32, fl32
from .._views import NO_OUTER, keepdim_shape, reduction_view, row_lines
from .outputs import SCALAR32, filled, new_float32, row_major

_ORDER_CODE = {"sequential": 0, "pairwise": 1}
# The native entries (csrc/common/route.cpp) of the primitives repdl::sum
# and repdl::mean: their whole-tensor and trailing-dims cases below (a
# contiguous x, no keepdim), computed in C from the tensor itself, with
# the results allocated as row_major allocates them.
NATIVE = dict(zip(("sum", "mean"), _C.make_native_reductions(SCALAR32, new_float32)))


def _shaped(out, x, dims, keepdim):
    return out.reshape(keepdim_shape(x.shape, dims)) if keepdim else out


def _empty_result(x, dims, keepdim):
    kept = [s for d, s in enumerate(x.shape) if d not in dims]
    return _shaped(filled(kept, 0.0), x, dims, keepdim)


def _lines_and_output(x, dims, numel, outer):
    """(the tensor the kernel reads, its view arguments and outer reduced
    index, a new output).  The tensor may be a copy of x (reduction_view),
    which the caller holds while the kernel runs.  A whole row-major tensor
    (loss.sum(), loss.mean()) is one line of numel, passed without building
    its reduction view (0.3 us of an 8-element sum's 3.4)."""
    if len(dims) == x.dim() and x.is_contiguous():
        return x, row_lines(x, numel, numel), NO_OUTER, row_major(())
    v = reduction_view(x, dims, outer)
    return v.x, v.args, v.outer, row_major(v.out_shape)


def sum(x, dims, keepdim, *, order):
    numel = x.numel()
    if numel == 0:
        return _empty_result(x, dims, keepdim)
    code = _ORDER_CODE[order]  # sequential chains may take an outer reduced index
    src, args, outer, out = _lines_and_output(x, dims, numel, code == 0)  # noqa: F841 (src: alive through the call)
    _C.sum(*args, *outer, out.data_ptr(), code)
    return _shaped(out, x, dims, keepdim)


def mean(x, dims, keepdim):
    """fl(seqsum / fl32(n)) over `dims`, n their element count: the sum and
    its division in one kernel call."""
    numel = x.numel()
    if numel == 0:  # 0 / fl32(n): NaN for an empty reduction, else no elements
        return _empty_result(x, dims, keepdim).fill_(math.nan)
    src, args, outer, out = _lines_and_output(x, dims, numel, True)  # noqa: F841 (src: alive through the call)
    _C.mean(*args, *outer, out.data_ptr(), bits32(fl32(count(x, dims))))
    return _shaped(out, x, dims, keepdim)


def sqdev(x, mean, dims, keepdim):
    """fmachain(d, d) with d = x - mean over `dims`; mean has the kept shape."""
    if x.numel() == 0:
        return _empty_result(x, dims, keepdim)
    v = reduction_view(x, dims, True)
    mean = mean.reshape(v.out_shape).contiguous()
    out = row_major(v.out_shape)
    _C.sqdev(*v.args, *v.outer, mean.data_ptr(), out.data_ptr())
    return _shaped(out, x, dims, keepdim)


def sumprod(a, b, dims, keepdim):
    """fmachain(a, b) over `dims` (a and b of one shape)."""
    if a.numel() == 0:
        return _empty_result(a, dims, keepdim)
    if a.stride() != b.stride() or not a.is_contiguous():
        a, b = a.contiguous(), b.contiguous()  # one layout for both: copies move values only
    v = reduction_view(a, dims, True)
    if v.perm is not None:  # the view permuted a copy of a: lay b out the same way
        b = b.permute(*v.perm).contiguous()
    out = row_major(v.out_shape)
    _C.sumprod(*v.args, *v.outer, b.data_ptr(), out.data_ptr())
    return _shaped(out, a, dims, keepdim)


def extremum(x, dim, keepdim, *, largest):
    """(values, int64 indices) along `dim`; x is non-empty along it."""
    dims = (dim,)
    v = reduction_view(x, dims) if x.numel() else None
    kept = [s for d, s in enumerate(x.shape) if d != dim]
    values = row_major(kept)
    indices = row_major(kept, torch.int64)
    if v is not None:
        _C.extremum(*v.args, *NO_OUTER, values.data_ptr(), indices.data_ptr(), 0 if largest else 1)
    return _shaped(values, x, dims, keepdim), _shaped(indices, x, dims, keepdim)


def count(x, dims) -> int:
    return math.prod(x.shape[d] for d in dims)

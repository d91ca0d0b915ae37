"""Canonical views for reductions.

A reduction over dims D of x is brought to at most two kept index groups
(i1, i0) and one reduced index r, each an arithmetic progression in memory:
element (i1, i0, r) sits at offset i1*s1 + i0*s0 + r*sr.  Row-major order
over D is the order of r, so the chain order of the contract is untouched.
When the dims do not coalesce (for example reducing dims 0 and 2 of a
transposed view), x is first copied into (kept..., reduced...) order: a copy
moves values, so it cannot change bits.  Sequential chains may instead take
reduced dims on both sides of the kept ones as two reduced indices, the
outer one (R1, sr1) continuing the chains call by call in the kernels (a
sum over (0, 2, 3) of an (N, C, H, W) tensor: no copy).
"""
import math
from typing import NamedTuple

import torch


class ReductionView(NamedTuple):
    x: torch.Tensor      # the tensor the offsets refer to (x itself or a copy)
    args: tuple          # the kernels' view arguments: (x's data pointer, P1, s1, P0, s0, R, sr)
    out_shape: tuple     # kept sizes (keepdim=False order; a torch.Size or a tuple)
    perm: tuple          # None: x is the original; else x is a copy whose dims are the original's dims perm
    outer: tuple         # (R1, sr1): the outer reduced index, or NO_OUTER


NO_OUTER = (1, 0)


# Built with tuple.__new__: the NamedTuple's own constructor is a Python
# function, about 0.3 us of a small reduction's call.
_new_view = tuple.__new__


def row_lines(x, numel, R):
    """The view arguments of a row-major x (numel elements) read as numel //
    R lines of R, stride 1: a reduction over its last dims, or the whole of
    it as one line."""
    return (x.data_ptr(), 1, 0, numel // R, R, R, 1)


def mask_line_strides(mask, shape):
    """(m1, m0): where `mask`, broadcast to `shape` (..., L, S), holds line
    (b, l) of the lines along the last dim (b over the leading dims,
    row-major): at b * m1 + l * m0 elements from its start, unit stride
    along the line.  None when it has no such pair (it does not broadcast
    to `shape`, a leading dim broadcast beside one that is not, a strided
    last dim)."""
    try:
        e = mask.expand(shape)
    except RuntimeError:
        return None
    if shape[-1] > 1 and e.stride(-1) != 1:
        return None
    batch = coalesced(e, range(e.dim() - 2))
    if len(batch) > 1:
        return None
    return (batch[0][1] if batch else 0), e.stride(-2)


def coalesced(x, dims):
    """(size, stride) groups of dims, in order, after dropping size-1 dims
    and merging neighbours that are contiguous with each other."""
    out = []
    for d in dims:
        size, stride = x.shape[d], x.stride(d)
        if size == 1:
            continue
        if out and out[-1][1] == stride * size:
            out[-1] = (out[-1][0] * size, stride)
        else:
            out.append((size, stride))
    return out


def reduction_view(x: torch.Tensor, dims, outer: bool = False) -> ReductionView:
    """The view of reducing `dims` (sorted, distinct) of a non-empty x; with
    `outer` (sequential chains), reduced dims in two groups take an outer
    reduced index rather than a copy."""
    numel = x.numel()
    assert numel > 0, "empty reductions are answered without a kernel"
    n, k = x.dim(), len(dims)
    if (not k or dims[0] == n - k) and x.is_contiguous():
        # The common case (a whole tensor, or its last dims, row-major): the
        # reduced dims are one run of stride 1 and the kept ones one group.
        # A whole tensor is one line of numel (no shape to slice: 0.2 us of
        # a small sum); the kept sizes stay a torch.Size, a tuple already.
        if k == n:
            return _new_view(ReductionView, (x, row_lines(x, numel, numel), (), None, NO_OUTER))
        shape = x.shape
        R = shape[-1] if k == 1 else math.prod(shape[n - k:])
        return _new_view(ReductionView, (x, row_lines(x, numel, R), shape[:n - k], None, NO_OUTER))
    if k and not 0 <= dims[0] <= dims[-1] < n:
        # (a negative dim would make a view whose lines run past x's memory)
        raise ValueError(f"reduction_view: dims must be sorted and in [0, {n}), got {tuple(dims)}")
    kept = tuple(d for d in range(x.dim()) if d not in dims)
    out_shape = tuple(x.shape[d] for d in kept)
    R = math.prod(x.shape[d] for d in dims)
    red, keep = coalesced(x, dims), coalesced(x, kept)
    perm = None
    if len(red) > (2 if outer else 1) or len(keep) > 2:
        perm = kept + tuple(dims)
        x = x.permute(*perm).contiguous()
        n = len(kept)
        red, keep = coalesced(x, range(n, x.dim())), coalesced(x, range(n))
    outer_index = NO_OUTER
    if len(red) == 2:
        outer_index, red = red[0], red[1:]
        R //= outer_index[0]
    ((_, sr),) = red or [(1, 0)]
    keep = [(1, 0)] * (2 - len(keep)) + keep
    (P1, s1), (P0, s0) = keep
    return _new_view(ReductionView, (x, (x.data_ptr(), P1, s1, P0, s0, R, sr), out_shape, perm, outer_index))


def keepdim_shape(shape, dims) -> tuple:
    """`shape` with every reduced dim kept as size 1."""
    return tuple(1 if d in dims else s for d, s in enumerate(shape))


def dense_like(x: torch.Tensor) -> torch.Tensor:
    """x itself if its elements tile a dense block of memory (any dim order),
    else a contiguous copy; so that an output with x's strides exists."""
    if x.is_contiguous():
        return x
    dims = sorted((st, sz) for sz, st in zip(x.shape, x.stride()) if sz != 1)
    expected = 1
    for st, sz in dims:
        if st != expected:
            return x.contiguous()
        expected *= sz
    return x

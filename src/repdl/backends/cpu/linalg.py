"""CPU backend: matrix products (C++ BLIS-style GEMM)."""
import math

from ... import _C, _checks
from .._views import coalesced
from .arith import CODE, binary_
from .outputs import new_float32, row_major

_ADD = CODE["add"]
# The native entries (csrc/common/route.cpp) of the primitives repdl::matmul
# and repdl::linear: their rank-2 cases below, computed in C from the
# tensors themselves.
NATIVE = dict(zip(("matmul", "linear"), _C.make_native_products(new_float32)))


def _product(m, n, k, a, a_rs, a_cs, b, b_rs, b_cs):
    """A new row-major (m, n) = a (m, k) @ b (k, n), the operands given by
    data pointer, row stride and column stride (unpacked by the callers:
    small products pay for every tuple and call, about 0.4 us of mm 2x2)."""
    out = new_float32(m, n)
    _C.gemm(m, n, k, a, a_rs, a_cs, b, b_rs, b_cs, out.data_ptr(), n, 0)
    return out


def matmul(a, b):
    """a (*A, M, K) @ b (*B, K, N) with broadcast batch dims, any strides."""
    if a.dim() == 2 and b.dim() == 2:  # the common case, without broadcasting machinery
        m, k = a.shape
        return _product(m, b.shape[1], k, a.data_ptr(), *a.stride(), b.data_ptr(), *b.stride())
    (m, k), n = a.shape[-2:], b.shape[-1]
    batch = _checks.broadcast_shape("matmul", a.shape[:-2], b.shape[:-2])
    out = row_major((*batch, m, n))
    if b.dim() == 2 and tuple(a.shape[:-2]) == tuple(batch):
        # One matrix for every batch: the batch's rows are rows of one GEMM
        # (each output's k chain is the same either way).  Rows that no
        # single stride reaches are copied when the matrices are short
        # (MultiheadAttention's (L, N, E) projections: m = N = 16 rows per
        # GEMM run at half speed); long ones keep the batched call.
        rows = _as_rows(a)
        if rows is None and m < 128:
            rows = a.reshape(math.prod(a.shape[:-1]), k)
        if rows is not None:
            _C.gemm(rows.shape[0], n, k, rows.data_ptr(), *rows.stride(), b.data_ptr(), *b.stride(),
                    out.data_ptr(), n, 0)
            return out
    # expand() gives broadcast batch dims stride 0: no copies, any layout.
    a = a.expand(*batch, m, k)
    b = b.expand(*batch, k, n)
    _C.gemm(m, n, k, a.data_ptr(), a.stride(-2), a.stride(-1), b.data_ptr(), b.stride(-2), b.stride(-1),
            out.data_ptr(), n, len(batch), *batch, *a.stride()[:-2], *b.stride()[:-2])
    return out


def _as_rows(a):
    """a (*A, M, K) as one (prod(A)*M, K) view, or None when its rows are
    not evenly spaced in memory (the row dims do not coalesce)."""
    groups = coalesced(a, range(a.dim() - 1))
    if len(groups) > 1:
        return None
    row = groups[0][1] if groups else a.shape[-1]  # no row dim above size 1: any stride will do
    return a.as_strided((math.prod(a.shape[:-1]), a.shape[-1]), (row, a.stride(-1)))


def linear(x, weight, bias):
    """x (M, K) @ weight (N, K)^T, then + bias (one rounding, in place)."""
    if x.dim() != 2:
        out = matmul(x, weight.t())
        return out if bias is None else binary_("add", out, bias)
    # weight^T's strides are weight's swapped, and a bias of shape (N,) or
    # () walks the output's rows with stride 0: no views and no stride lists
    # to make (binary_ with strides_over costs 0.4 us more per call).
    (m, k), n = x.shape, weight.shape[0]
    w_rows, w_cols = weight.stride()
    out = _product(m, n, k, x.data_ptr(), *x.stride(), weight.data_ptr(), w_cols, w_rows)
    if bias is not None:
        y = out.data_ptr()
        column = bias.stride(0) if bias.dim() and bias.shape[0] != 1 else 0
        _C.binary(_ADD, y, y, bias.data_ptr(), 2, m, n, n, 1, 0, column)
    return out

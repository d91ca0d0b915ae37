"""CPU backend: IEEE + - * / and fma32 over broadcast operands (csrc/arith).

Operands cross to C++ as data pointers plus their element strides over the
broadcast shape (0 along broadcast dims), so broadcasting, transposed and
sliced views need no copies; the output is a new dense tensor (or, for the
in-place form, the first operand itself).
"""
import torch

from ... import _C
from ..._checks import broadcast_shape, broadcast_sizes
from ..._scalar import bits32
from .outputs import row_major, row_major_like

CODE = {"add": 0, "sub": 1, "mul": 2, "div": 3}
# The native entries (csrc/common/route.cpp) of the primitives repdl::<op>
# and repdl::<op>_scalar: binary's and binary_scalar's contiguous cases
# below, computed in C from the tensors themselves.
NATIVE = {**{op: _C.make_native_binary(code) for op, code in CODE.items()},
          **{f"{op}_scalar": _C.make_native_binary_scalar(code) for op, code in CODE.items()}}


def strides_over(t, shape):
    """t's element strides over the broadcast shape: 0 for the dims t lacks
    or has as size 1, its own stride otherwise."""
    st = t.stride()
    if 1 in t.shape:
        st = [0 if n == 1 else s for n, s in zip(t.shape, st)]
    return (0,) * (len(shape) - len(st)) + tuple(st)


def binary(op, a, b):
    """fl32(a op b) elementwise, broadcast."""
    code = CODE[op]
    sa, sb = a.shape, b.shape
    if a.is_contiguous() and b.is_contiguous():
        if sa == sb:
            out = torch.empty_like(a)  # a's own strides are row-major (and cheaper to pass than a format)
            _C.binary(code, out.data_ptr(), a.data_ptr(), b.data_ptr(), 1, out.numel(), 1, 1)
            return out
        if len(sb) == 1 and len(sa) > 1 and sa[-1] == sb[0] != 0:
            # The common broadcast, x + bias over x's last dim, as rows of
            # a matrix: no stride lists to build (0.8 us of the 3.3 above
            # torch's call; the shapes read once, as tuples, 0.25 us less
            # than dim() and shape[] calls).
            out = torch.empty_like(a)
            cols = sb[0]
            _C.binary(code, out.data_ptr(), a.data_ptr(), b.data_ptr(), 2, a.numel() // cols, cols, cols, 1, 0, 1)
            return out
    shape = broadcast_sizes(op, sa, sb)  # checked here, not by the op layer: equal shapes need no test
    out = row_major(shape)
    _C.binary(code, out.data_ptr(), a.data_ptr(), b.data_ptr(), len(shape), *shape,
              *strides_over(a, shape), *strides_over(b, shape))
    return out


def binary_(op, a, b):
    """a = fl32(a op b) in place; a is contiguous and has the broadcast shape
    (so its own strides walk it: the kernel skips size-1 dims)."""
    shape = a.shape
    y = a.data_ptr()
    _C.binary(CODE[op], y, y, b.data_ptr(), len(shape), *shape, *a.stride(), *strides_over(b, shape))
    return a


def binary_scalar(op, a, s: float, scalar_left: bool):
    """fl32(a op s), or fl32(s op a) when scalar_left; s a float32 value."""
    if a.is_contiguous():
        out = torch.empty_like(a)  # a's own strides are row-major
        _C.binary_scalar(CODE[op], out.data_ptr(), a.data_ptr(), bits32(s), scalar_left, 1, out.numel(), 1)
    else:
        out = row_major_like(a)
        _C.binary_scalar(CODE[op], out.data_ptr(), a.data_ptr(), bits32(s), scalar_left, a.dim(), *a.shape,
                         *a.stride())
    return out


_COMPARE = {"gt": 0, "ge": 1, "lt": 2, "le": 3}


def compare(x, op: str, h: float):
    """x op h as a bool tensor (IEEE: NaN compares false)."""
    x = x.contiguous()
    mask = row_major(x.shape, torch.bool)
    _C.compare(x.data_ptr(), x.numel(), _COMPARE[op], bits32(h), mask.data_ptr())
    return mask


def clamp(x, lo: float, hi: float):
    """lo where x < lo, then hi where that exceeds hi, else x (NaN kept)."""
    out = row_major_like(x)
    _C.clamp(out.data_ptr(), x.data_ptr(), bits32(lo), bits32(hi), x.dim(), *x.shape, *x.stride())
    return out


def clamp_backward(x, g, lo: float, hi: float, inclusive: bool):
    """g where lo < x < hi (inclusive: lo <= x <= hi), else +0.0."""
    x, g = x.contiguous(), g.contiguous()
    dx = row_major_like(x)
    _C.clamp_backward(x.data_ptr(), g.data_ptr(), x.numel(), bits32(lo), bits32(hi), inclusive, dx.data_ptr())
    return dx


def fma32(a, b, c):
    """fma32(a, b, c) elementwise (one rounding), broadcast."""
    shape = broadcast_shape("fma32", broadcast_shape("fma32", a.shape, b.shape), c.shape)
    out = row_major(shape)
    _C.fma(out.data_ptr(), a.data_ptr(), b.data_ptr(), c.data_ptr(), len(shape), *shape,
           *strides_over(a, shape), *strides_over(b, shape), *strides_over(c, shape))
    return out

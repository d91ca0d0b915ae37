"""CPU backend: correctly rounded elementwise functions (csrc/elementwise)."""
import struct

import torch

from ... import _C

__all__ = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal",
           "sin", "cos", "div", "div_scalar", "pow_int",
           "tanh", "sigmoid", "logsigmoid",
           "erf", "erfc", "gelu", "gelu_tanh",
           "softplus", "silu", "mish", "elu", "selu", "softplus_param", "elu_param", "celu_param"]

_INDEX = {name: i for i, name in enumerate(_C.cr_unary_names())}


def _like(t, out):
    """t's values in out's (dense) layout."""
    return t if t.stride() == out.stride() else torch.empty_like(out).copy_(t)


def _dense(x):
    """(source, out): out = empty_like(x) (x's strides when x is dense, else
    dense strides in x's dim order, as torch does) and x's values in out's
    layout, so that the kernel runs over the raw memory of both."""
    out = torch.empty_like(x)
    return _like(x, out), out


def _unary(name):
    index = _INDEX[name]
    run = _C.cr_unary

    def fn(x):
        x, out = _dense(x)
        run(index, x.data_ptr(), out.data_ptr(), out.numel())
        return out

    fn.__name__ = fn.__qualname__ = name
    return fn


exp = _unary("exp")
exp2 = _unary("exp2")
expm1 = _unary("expm1")
log = _unary("log")
log2 = _unary("log2")
log10 = _unary("log10")
log1p = _unary("log1p")
sqrt = _unary("sqrt")
rsqrt = _unary("rsqrt")
reciprocal = _unary("reciprocal")
sin = _unary("sin")
cos = _unary("cos")
softplus = _unary("softplus")
silu = _unary("silu")
mish = _unary("mish")
elu = _unary("elu")
selu = _unary("selu")
tanh = _unary("tanh")
sigmoid = _unary("sigmoid")
logsigmoid = _unary("logsigmoid")
erf = _unary("erf")
erfc = _unary("erfc")
gelu = _unary("gelu")
gelu_tanh = _unary("gelu_tanh")


def _bits(t):
    return struct.unpack("<I", struct.pack("<f", t.item()))[0]


def div(a, b):
    from ...ops.elementwise import broadcast_shape
    shape = broadcast_shape(a.shape, b.shape)
    if b.numel() == 1 and a.shape == shape:
        a, out = _dense(a)
        _C.cr_div_scalar_rhs(a.data_ptr(), _bits(b), out.data_ptr(), out.numel())
        return out
    if a.numel() == 1 and b.shape == shape:
        b, out = _dense(b)
        _C.cr_div_scalar_lhs(_bits(a), b.data_ptr(), out.data_ptr(), out.numel())
        return out
    if a.shape == b.shape and a.stride() == b.stride():
        a, out = _dense(a)
        b = _like(b, out)
        _C.cr_div(a.data_ptr(), b.data_ptr(), out.data_ptr(), out.numel())
        return out
    a, b = (t.contiguous() for t in torch.broadcast_tensors(a, b))
    out = torch.empty(shape, dtype=torch.float32)
    _C.cr_div(a.data_ptr(), b.data_ptr(), out.data_ptr(), out.numel())
    return out


def div_scalar(a, b: float):
    a, out = _dense(a)
    _C.cr_div_scalar_rhs(a.data_ptr(), struct.unpack("<I", struct.pack("<f", b))[0], out.data_ptr(), out.numel())
    return out


def pow_int(x, p: int):
    x, out = _dense(x)
    _C.cr_pow_int(x.data_ptr(), p, out.data_ptr(), out.numel())
    return out


def _f32bits(v: float) -> int:
    """Bit pattern of a float32 value held in a Python float."""
    return struct.unpack("<I", struct.pack("<f", v))[0]


def softplus_param(x, beta: float, threshold: float):
    x, out = _dense(x)
    _C.cr_softplus_param(x.data_ptr(), _f32bits(beta), _f32bits(threshold), out.data_ptr(), out.numel())
    return out


def elu_param(x, alpha: float):
    x, out = _dense(x)
    _C.cr_elu_param(x.data_ptr(), _f32bits(alpha), out.data_ptr(), out.numel())
    return out


def celu_param(x, alpha: float):
    x, out = _dense(x)
    _C.cr_celu_param(x.data_ptr(), _f32bits(alpha), out.data_ptr(), out.numel())
    return out

"""CPU backend: correctly rounded elementwise functions (csrc/elementwise)."""
import torch

from ... import _C
from ..._scalar import bits32

__all__ = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal",
           "sin", "cos", "pow_int",
           "tanh", "sigmoid", "logsigmoid",
           "erf", "erfc", "gelu", "gelu_tanh",
           "softplus", "silu", "silu_and_sigmoid", "mish", "elu", "selu", "softplus_param", "elu_param", "celu_param",
           "unary_grad"]

_INDEX = {name: i for i, name in enumerate(_C.cr_unary_names())}
# The native entries (csrc/common/route.cpp) of the primitives repdl::<name>
# and repdl::<name>_backward: _unary's function and unary_grad for
# contiguous tensors, computed in C from the tensors themselves.
NATIVE = {key: entry for name, i in _INDEX.items()
          for key, entry in zip((name, f"{name}_backward"), _C.make_native_unary(i))}


def _like(t, out):
    """t's values in out's (dense) layout."""
    return t if t.stride() == out.stride() else torch.empty_like(out).copy_(t)


def _dense(x):
    """(source, out): out = empty_like(x) (x's strides when x is dense, else
    dense strides in x's dim order, as torch does) and x's values in out's
    layout, so that the kernel runs over the raw memory of both.  A
    contiguous x needs no comparison of strides (two stride() calls, 0.3 us
    of a small call): out is contiguous too."""
    out = torch.empty_like(x)
    return (x if x.is_contiguous() else _like(x, out)), out


def _unary(name):
    index = _INDEX[name]
    run = _C.cr_unary

    def fn(x):
        x, out = _dense(x)
        run(index, x.data_ptr(), out.data_ptr(), out.numel())
        return out

    fn.__name__ = fn.__qualname__ = name
    return fn


def unary_grad(name, g, x, y):
    """The contract's backward formula of the unary function `name` at input
    x, output y and output gradient g (ops.elementwise's _<name>_grad), in
    one fused pass (csrc/elementwise/grad_blocks.inc, the active ISA's row): the same bits.
    For silu, y is sigmoid(x) (its formula reads that, never silu(x))."""
    out = torch.empty_like(x)
    # Contiguous tensors of one shape hold their elements in one order
    # (the strides of size-1 dims aside, which no walk reads), so the common
    # case skips _like's six stride() calls (about 1 us).
    if not (x.is_contiguous() and g.is_contiguous() and y.is_contiguous()):
        g, x, y = _like(g, out), _like(x, out), _like(y, out)
    _C.cr_unary_grad(_INDEX[name], g.data_ptr(), x.data_ptr(), y.data_ptr(), out.data_ptr(), out.numel())
    return out


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


def silu_and_sigmoid(x):
    """(silu(x), sigmoid(x)) from one evaluation of 1 / (1 + e**-x) per
    element: silu's forward when its backward will read sigmoid(x)."""
    x, y = _dense(x)
    s = torch.empty_like(y)
    _C.cr_silu_sigmoid(x.data_ptr(), y.data_ptr(), s.data_ptr(), y.numel())
    return y, s


def pow_int(x, p: int):
    x, out = _dense(x)
    _C.cr_pow_int(x.data_ptr(), p, out.data_ptr(), out.numel())
    return out


def softplus_param(x, beta: float, threshold: float):
    x, out = _dense(x)
    _C.cr_softplus_param(x.data_ptr(), bits32(beta), bits32(threshold), out.data_ptr(), out.numel())
    return out


def elu_param(x, alpha: float):
    x, out = _dense(x)
    _C.cr_elu_param(x.data_ptr(), bits32(alpha), out.data_ptr(), out.numel())
    return out


def celu_param(x, alpha: float):
    x, out = _dense(x)
    _C.cr_celu_param(x.data_ptr(), bits32(alpha), out.data_ptr(), out.numel())
    return out

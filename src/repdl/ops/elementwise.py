"""Correctly rounded elementwise functions: exp, exp2, expm1, log, log2,
log10, log1p, sqrt, rsqrt, reciprocal, sin, cos and integer pow.

The activations tanh, sigmoid, logsigmoid, softplus, silu, mish, elu, selu
and celu take torch.nn.functional's signatures.

Each unary function returns fl32 of the exact real result (one rounding) for
every float32 input; docs/CONTRACT.md section 6 gives the real functions,
special values, type promotion and the backward formulas.  Each is one
primitive ``repdl::<name>`` (and ``repdl::pow_int``), computed by the
backend that ``repdl.backends.for_tensor`` picks; ``div`` and the other
IEEE operations are in ``ops.arith``.

Type promotion follows torch: float32 tensors are used as they are; integer
and bool tensors are converted to torch's default dtype, which must be
float32; float16, bfloat16, float64 and complex tensors raise TypeError.
"""
import numbers
from typing import Tuple

import torch

from .. import _checks, backends
from .._library import mark_non_differentiable, primitive
from .._scalar import fl32, float_of_bits
from ._in_place import inplace_source, write_inplace
from . import _prims as P

__all__ = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal",
           "sin", "cos", "pow",
           "tanh", "sigmoid", "logsigmoid",
           "erf", "erfc", "gelu",
           "softplus", "silu", "mish", "elu", "selu", "celu"]

Tensor = torch.Tensor


def _fake_unary(x):
    return torch.empty_like(x)


def _unary_vmap(prim):
    def rule(info, in_dims, x, *params):
        return prim(x, *params), in_dims[0]

    return rule


def _unary_op(name: str, gradient, impl=None, fake=_fake_unary, reads_output: bool = False):
    """The primitive repdl::<name> over a backend function, differentiable
    by `gradient(g, x, y, *params)` (x the input, y the output, params the
    op's Python-number parameters).  The unary functions proper (no impl
    given) also get their gradient as one primitive, which a backend may
    fuse (_fused_gradient); a double backward records `gradient` itself.
    The primitive keeps for its backward the one tensor `gradient` reads:
    y with reads_output, else x (the other is passed as None)."""
    fused = reads = None
    if impl is None:
        def impl(x: Tensor) -> Tensor:
            return getattr(backends.for_tensor(x), name)(x)

        impl.__name__ = f"{name}_impl"
        fused = _FUSED[name] = _fused_gradient(name, gradient)
        reads = FUSED_GRADIENT_READS.get(name)

    def setup_context(ctx, inputs, output):
        ctx.params = inputs[1:]
        ctx.save_for_backward(output if reads_output else inputs[0])

    def backward(ctx, g):
        (kept,) = ctx.saved_tensors
        if fused is not None and not torch.is_grad_enabled():
            # The fused kernel reads only what the formula reads: the kept
            # tensor stands in for the other, unread.
            return (fused(g, kept, kept if reads is None else _OPS[reads](kept)),)
        x, y = (None, kept) if reads_output else (kept, None)
        return (gradient(g, x, y, *ctx.params), *(None for _ in ctx.params))

    prim = _OPS[name] = primitive(name, impl, fake, setup_context=setup_context, backward=backward,
                                  vmap=_unary_vmap(lambda *a: prim(*a)))
    return prim


def _fused_gradient(name: str, gradient):
    """repdl::<name>_backward(g, x, y): `gradient`, the contract's formula, as
    one (not differentiable) primitive: the backend's fused kernel where it
    has one (CPU: backends.cpu.unary_grad), else the formula's primitives."""
    def impl(g: Tensor, x: Tensor, y: Tensor) -> Tensor:
        backend = backends.for_tensor(x)
        if hasattr(backend, "unary_grad"):
            return backend.unary_grad(name, g, x, y)
        return gradient(g, x, y)

    impl.__name__ = f"{name}_backward_impl"
    return primitive(f"{name}_backward", impl, lambda g, x, y: torch.empty_like(x))


# The correctly rounded functions whose gradient formula reads the output
# y; every other one reads the input x alone.  Each keeps for its backward
# the one tensor its formula reads, as torch's exp keeps its result and its
# log its input: the other may be freed, or changed in place, before the
# backward.
GRADIENT_READS_OUTPUT = frozenset({"exp", "exp2", "expm1", "sqrt", "rsqrt", "reciprocal", "tanh", "sigmoid"})
_OPS = {}  # name -> the primitive, for gradients that call one
_FUSED = {}  # name -> its fused gradient's primitive
# The fused gradient of `name` reads this function of x in y's place: its
# formula needs that value, never y (grad_blocks.inc's silu_grad).
FUSED_GRADIENT_READS = {"silu": "sigmoid"}


def _unary(name: str, doc: str):
    op = _unary_op(name, _GRADIENTS[name], reads_output=name in GRADIENT_READS_OUTPUT)

    def public(input: Tensor) -> Tensor:
        return op(_checks.float32_input(name, input))

    public.__name__ = public.__qualname__ = name
    public.__doc__ = doc
    return public


# ---- gradients (docs/CONTRACT.md section 6, "Backward") ----------------------------------------
# g is the output's gradient, x the input, y the output.  Every operation is
# one float32 rounding in the order written; the constants are fl32 of the
# real numbers (their bit patterns in the contract).
_LN2 = float_of_bits(0x3F317218)
_LN10 = float_of_bits(0x40135D8E)
_TWO_SQRTPI = float_of_bits(0x3F906EBB)
_SQRT1_2 = float_of_bits(0x3F3504F3)
_INV_SQRT_2PI = float_of_bits(0x3ECC422A)
_BETA = float_of_bits(0x3F4C422A)
_KAPPA = float_of_bits(0x3D372713)
_KAPPA3 = float_of_bits(0x3E095D4E)
_SELU_S = float_of_bits(0x3F867D5F)
_SELU_SA = float_of_bits(0x3FE10966)
_SOFTPLUS_THRESHOLD = 20.0  # torch's default, used by the default softplus primitive's gradient


def _cr(name):
    """The correctly rounded primitive itself (for gradients that call it)."""
    return lambda x: _OPS[name](x)


def _exp_grad(g, x, y):
    return P.mul(g, y)


def _exp2_grad(g, x, y):
    return P.mul(P.mul(g, y), _LN2)


def _expm1_grad(g, x, y):
    return P.mul(g, P.add(y, 1.0))


def _log_grad(g, x, y):
    return P.div(g, x)


def _log2_grad(g, x, y):
    return P.div(g, P.mul(x, _LN2))


def _log10_grad(g, x, y):
    return P.div(g, P.mul(x, _LN10))


def _log1p_grad(g, x, y):
    return P.div(g, P.add(x, 1.0))


def _sqrt_grad(g, x, y):
    return P.div(g, P.mul(y, 2.0))


def _rsqrt_grad(g, x, y):
    return P.mul(P.mul(g, -0.5), P.mul(y, P.mul(y, y)))


def _reciprocal_grad(g, x, y):
    return P.mul(P.neg(g), P.mul(y, y))


def _sin_grad(g, x, y):
    return P.mul(g, _cr("cos")(x))


def _cos_grad(g, x, y):
    return P.mul(g, P.neg(_cr("sin")(x)))


def _gauss(x):
    """TWO_SQRTPI * exp(-(x * x))."""
    return P.mul(_TWO_SQRTPI, _cr("exp")(P.neg(P.mul(x, x))))


def _erf_grad(g, x, y):
    return P.mul(g, _gauss(x))


def _erfc_grad(g, x, y):
    return P.mul(g, P.neg(_gauss(x)))


def _gelu_grad(g, x, y):
    cdf = P.mul(0.5, _cr("erfc")(P.neg(P.mul(x, _SQRT1_2))))
    pdf = P.mul(_INV_SQRT_2PI, _cr("exp")(P.mul(P.mul(x, x), -0.5)))
    return P.mul(g, P.add(cdf, P.mul(x, pdf)))


def _gelu_tanh_grad(g, x, y):
    x_sq = P.mul(x, x)
    inner = P.mul(_BETA, P.add(x, P.mul(_KAPPA, P.mul(x_sq, x))))
    th = _cr("tanh")(inner)
    left = P.mul(0.5, P.add(1.0, th))
    right = P.mul(P.mul(P.mul(0.5, x), P.sub(1.0, P.mul(th, th))), P.mul(_BETA, P.add(1.0, P.mul(_KAPPA3, x_sq))))
    return P.mul(g, P.add(left, right))


def _tanh_grad(g, x, y):
    return P.mul(g, P.sub(1.0, P.mul(y, y)))


def _sigmoid_grad(g, x, y):
    return P.mul(P.mul(g, P.sub(1.0, y)), y)


def _logsigmoid_grad(g, x, y):
    return P.mul(g, _cr("sigmoid")(P.neg(x)))


def _softplus_param_grad(g, x, y, beta, threshold):
    t = P.mul(x, beta)
    return torch.where(P.greater(t, threshold), g, P.mul(g, _cr("sigmoid")(t)))


def _softplus_grad(g, x, y):
    return _softplus_param_grad(g, x, y, 1.0, _SOFTPLUS_THRESHOLD)


def _silu_grad(g, x, y):
    s = _cr("sigmoid")(x)
    return P.mul(g, P.mul(s, P.add(1.0, P.mul(x, P.sub(1.0, s)))))


def _mish_grad(g, x, y):
    s = _cr("sigmoid")(x)
    th = _cr("tanh")(_cr("softplus")(x))
    return P.mul(g, P.add(th, P.mul(P.mul(x, s), P.sub(1.0, P.mul(th, th)))))


def _elu_param_grad(g, x, y, alpha):
    return torch.where(P.positive(x), g, P.mul(g, P.mul(alpha, _cr("exp")(x))))


def _elu_grad(g, x, y):
    return _elu_param_grad(g, x, y, 1.0)


def _celu_param_grad(g, x, y, alpha):
    return torch.where(P.positive(x), g, P.mul(g, _cr("exp")(P.div(x, alpha))))


def _selu_grad(g, x, y):
    return torch.where(P.positive(x), P.mul(g, _SELU_S), P.mul(g, P.mul(_SELU_SA, _cr("exp")(x))))


_GRADIENTS = {
    "exp": _exp_grad, "exp2": _exp2_grad, "expm1": _expm1_grad, "log": _log_grad, "log2": _log2_grad,
    "log10": _log10_grad, "log1p": _log1p_grad, "sqrt": _sqrt_grad, "rsqrt": _rsqrt_grad,
    "reciprocal": _reciprocal_grad, "sin": _sin_grad, "cos": _cos_grad, "tanh": _tanh_grad,
    "sigmoid": _sigmoid_grad, "logsigmoid": _logsigmoid_grad, "erf": _erf_grad, "erfc": _erfc_grad,
    "softplus": _softplus_grad, "silu": _silu_grad, "mish": _mish_grad, "elu": _elu_grad, "selu": _selu_grad,
}


# ---- unary: fl32 of the real function (docs/CONTRACT.md 6.2) ---------------------------------
exp = _unary("exp", "fl32(e**x), correctly rounded for every float32 x.")
exp2 = _unary("exp2", "fl32(2**x), correctly rounded for every float32 x.")
expm1 = _unary("expm1", "fl32(e**x - 1), correctly rounded for every float32 x.")
log = _unary("log", "fl32(ln x), correctly rounded for every float32 x.")
log2 = _unary("log2", "fl32(log2 x), correctly rounded for every float32 x.")
log10 = _unary("log10", "fl32(log10 x), correctly rounded for every float32 x.")
log1p = _unary("log1p", "fl32(ln(1 + x)), correctly rounded for every float32 x.")
sqrt = _unary("sqrt", "fl32(sqrt x), correctly rounded (IEEE-754 square root).")
rsqrt = _unary("rsqrt", "fl32(1 / sqrt x), correctly rounded (one rounding, not two).")
reciprocal = _unary("reciprocal", "fl32(1 / x), correctly rounded (IEEE-754 division).")
sin = _unary("sin", "fl32(sin x), x in radians, correctly rounded for every float32 x.")
cos = _unary("cos", "fl32(cos x), x in radians, correctly rounded for every float32 x.")


# ---- activations (docs/CONTRACT.md section 6) -------------------------------------------------
# One rounding of the real function for every float32 x.  softplus, elu and
# celu take torch's parameters: at the defaults they are these correctly
# rounded functions; other values follow the contract's fixed sequence of
# correctly rounded steps (the *_param primitives).
tanh = _unary("tanh", "fl32(tanh x), correctly rounded for every float32 x.")
sigmoid = _unary("sigmoid", "fl32(1 / (1 + e**-x)), correctly rounded for every float32 x.")
logsigmoid = _unary("logsigmoid", "fl32(-ln(1 + e**-x)) (torch.nn.functional.logsigmoid), correctly rounded for "
                    "every float32 x; logsigmoid(+inf) = -0.")
_softplus = _unary_op("softplus", _softplus_grad)
_silu = _unary_op("silu", _silu_grad)
_mish = _unary_op("mish", _mish_grad)
_elu = _unary_op("elu", _elu_grad)
_selu = _unary_op("selu", _selu_grad)


def _param(op: str, name: str, v) -> float:
    """fl32 of a Python real number parameter, held in a Python float."""
    if isinstance(v, Tensor) or not isinstance(v, numbers.Real):
        raise TypeError(f"repdl.{op}: {name} must be a Python real number, got {type(v).__name__}")
    return fl32(v)


def _activation_input(op: str, input: Tensor, inplace: bool) -> Tensor:
    """The float32 tensor the activation `op` computes from (ops._in_place)."""
    x = _checks.float32_input(op, input)
    if inplace and input.dtype != torch.float32:  # an integer input cannot hold the result
        raise RuntimeError(f"repdl.{op}: inplace=True needs a float32 input tensor ({_checks.UNSUPPORTED})")
    return inplace_source(x, inplace)


def _softplus_param_impl(x: Tensor, beta: float, threshold: float) -> Tensor:
    return backends.for_tensor(x).softplus_param(x, beta, threshold)


def _elu_param_impl(x: Tensor, alpha: float) -> Tensor:
    return backends.for_tensor(x).elu_param(x, alpha)


def _celu_param_impl(x: Tensor, alpha: float) -> Tensor:
    return backends.for_tensor(x).celu_param(x, alpha)


def _fake_param(x, *params):
    return torch.empty_like(x)


_softplus_param = _unary_op("softplus_param", _softplus_param_grad, _softplus_param_impl, _fake_param)
_elu_param = _unary_op("elu_param", _elu_param_grad, _elu_param_impl, _fake_param)
_celu_param = _unary_op("celu_param", _celu_param_grad, _celu_param_impl, _fake_param)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """torch.nn.functional.softplus.  With b = fl32(beta), h = fl32(threshold):
    t = fl32(b x); x where t > h, else fl32(softplus(t) / b), softplus(t) =
    fl32(ln(1 + e**t)) correctly rounded.  For b = 1 and h >= 14.556090354919434
    (the defaults among them) that is fl32(ln(1 + e**x)) itself for every x.
    Gradient: g where t > h, else g * sigmoid(t)."""
    b, h = _param("softplus", "beta", beta), _param("softplus", "threshold", threshold)
    x = _checks.float32_input("softplus", input)
    # The defaults take the correctly rounded primitive (whose gradient uses
    # threshold 20); any other beta or threshold the contract's sequence,
    # which for beta = 1 and threshold >= 14.556090354919434 gives the same
    # forward bits.
    return _softplus(x) if b == 1.0 and h == _SOFTPLUS_THRESHOLD else _softplus_param(x, b, h)


# silu's gradient reads sigmoid(x), which costs as much again as silu
# itself; both come from one quotient 1 / (1 + e**-x), so a forward that
# records autograd computes the pair in one pass (backends' silu_and_sigmoid)
# and saves sigmoid(x) for the backward, at the price of one more saved
# tensor of x's size.  The bits are those of the two functions either way.
def _silu_and_sigmoid_impl(x: Tensor) -> Tuple[Tensor, Tensor]:
    return backends.for_tensor(x).silu_and_sigmoid(x)


def _silu_and_sigmoid_setup(ctx, inputs, output):
    mark_non_differentiable(ctx, output[1])
    ctx.save_for_backward(inputs[0], output[1])


def _silu_and_sigmoid_backward(ctx, g, _):
    x, s = ctx.saved_tensors
    if torch.is_grad_enabled():  # a double backward records the formula
        return _silu_grad(g, x, None)
    return _FUSED["silu"](g, x, s)


def _silu_and_sigmoid_vmap(info, in_dims, x):
    return _silu_and_sigmoid(x), (in_dims[0], in_dims[0])


_silu_and_sigmoid = primitive("silu_and_sigmoid", _silu_and_sigmoid_impl,
                              lambda x: (torch.empty_like(x), torch.empty_like(x)),
                              setup_context=_silu_and_sigmoid_setup, backward=_silu_and_sigmoid_backward,
                              vmap=_silu_and_sigmoid_vmap)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """torch.nn.functional.silu: fl32(x / (1 + e**-x)), one rounding (silu(-inf) = -0).
    Recording autograd, it computes sigmoid(x) in the same pass and saves it
    beside x for the backward (one more tensor of x's size)."""
    x = _activation_input("silu", input, inplace)
    y = _silu_and_sigmoid(x)[0] if x.requires_grad and torch.is_grad_enabled() else _silu(x)
    return write_inplace(input, y, inplace)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """torch.nn.functional.mish: fl32(x tanh(ln(1 + e**x))), one rounding (mish(-inf) = -0)."""
    x = _activation_input("mish", input, inplace)
    return write_inplace(input, _mish(x), inplace)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """torch.nn.functional.elu.  x for x > 0, else fl32(a expm1(x)) with a =
    fl32(alpha) and expm1 correctly rounded; for alpha = 1 that is the
    correctly rounded elu."""
    a = _param("elu", "alpha", alpha)
    x = _activation_input("elu", input, inplace)
    y = _elu(x) if a == 1.0 else _elu_param(x, a)
    return write_inplace(input, y, inplace)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """torch.nn.functional.selu: fl32(S x) for x > 0, else fl32(S A (e**x - 1)),
    with the float32 constants S = fl32(1.0507009873554804934193349852946) and
    A = fl32(1.6732632423543772848170429916717); correctly rounded."""
    x = _activation_input("selu", input, inplace)
    return write_inplace(input, _selu(x), inplace)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """torch.nn.functional.celu.  x for x > 0, else fl32(a expm1(fl32(x / a)))
    with a = fl32(alpha) (one IEEE division, not a multiplication by 1/a);
    for alpha = 1 it is elu, correctly rounded.  alpha = 0 raises, as in torch."""
    a = _param("celu", "alpha", alpha)
    if a == 0.0:
        raise RuntimeError("repdl.celu: ZeroDivisionError: alpha cannot be 0 for CELU")
    x = _activation_input("celu", input, inplace)
    y = _elu(x) if a == 1.0 else _celu_param(x, a)
    return write_inplace(input, y, inplace)


# ---- the erf family and gelu (docs/CONTRACT.md section 6) --------------------------------------
erf = _unary("erf", "fl32(erf x), correctly rounded for every float32 x.")
erfc = _unary("erfc", "fl32(1 - erf x), correctly rounded for every float32 x (erfc(x) itself, not 1 - "
              "erf(x) in float32).")


_gelu = _unary_op("gelu", _gelu_grad)
_gelu_tanh = _unary_op("gelu_tanh", _gelu_tanh_grad)


def gelu(input: Tensor, *, approximate: str = "none") -> Tensor:
    """torch.nn.functional.gelu, correctly rounded for every float32 x:
    approximate='none' gives fl32(x Phi(x)) = fl32((x/2) erfc(-x/sqrt 2));
    approximate='tanh' gives fl32((x/2)(1 + tanh(sqrt(2/pi)(x + 0.044715 x**3))))
    with the real constants.  Each is one rounding of the whole formula;
    gelu(+inf) = +inf and gelu(-inf) = -0 for both (docs/CONTRACT.md 6)."""
    if not isinstance(approximate, str):
        raise TypeError(f"repdl.gelu(): argument 'approximate' must be str, not {type(approximate).__name__}")
    if approximate == "none":
        return _gelu(_checks.float32_input("gelu", input))
    if approximate == "tanh":
        return _gelu_tanh(_checks.float32_input("gelu", input))
    raise RuntimeError("approximate argument must be either none or tanh.")


# ---- pow with an integer exponent -------------------------------------------------------------
def _pow_impl(x: Tensor, p: int) -> Tensor:
    return backends.for_tensor(x).pow_int(x, p)


def _pow_grad(g, x, y, p):
    """n == 0: +0; otherwise g * (fl32(n) * pow(x, n - 1))."""
    if p == 0:
        return torch.zeros_like(g)
    if p - 1 < _INT64[0]:
        raise OverflowError("repdl.pow: the gradient of pow(x, -2**63) needs pow(x, -2**63 - 1), outside int64")
    return P.mul(g, P.mul(fl32(p), _pow(x, p - 1)))


_pow = _unary_op("pow_int", _pow_grad, _pow_impl, _fake_param)

_INT64 = (-(1 << 63), (1 << 63) - 1)


def pow(input: Tensor, exponent) -> Tensor:
    """input ** exponent for a Python int exponent, as the contract's fixed
    sequence of float32 multiplications (square-and-multiply from the lowest
    bit of |exponent|; a negative exponent ends with one division 1 / x**|n|).

    Float exponents (even integral ones such as 2.0) and tensor exponents
    raise TypeError: RepDL has no correctly rounded real pow.  Use
    ``repdl.sqrt`` / ``repdl.rsqrt`` for 0.5 / -0.5 and ``int(e)`` for an
    integral float.  Integer tensors keep torch's exact integer pow."""
    _checks.check_tensor("pow", "input", input)
    if isinstance(exponent, Tensor) or not isinstance(exponent, numbers.Integral):
        raise TypeError(
            f"repdl.pow: exponent must be a Python int, got {type(exponent).__name__}"
            f"{' ' + repr(exponent) if isinstance(exponent, numbers.Number) else ''}; RepDL has no correctly "
            "rounded pow with a real exponent (use repdl.sqrt or repdl.rsqrt for 0.5 or -0.5, int(e) for an "
            "integral float)")
    exponent = int(exponent)
    if not _INT64[0] <= exponent <= _INT64[1]:
        raise OverflowError(f"repdl.pow: exponent {exponent} does not fit in int64")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        # Integer and bool tensors: torch's pow is exact integer arithmetic
        # (reproducible as it is) and its result stays integer.
        return torch.pow(input, exponent)
    if input.dtype != torch.float32:
        raise TypeError(f"repdl.pow: input has dtype {input.dtype}; {_checks.UNSUPPORTED}")
    return _pow(input, exponent)

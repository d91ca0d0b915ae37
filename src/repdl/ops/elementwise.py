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

import torch

from .. import _checks, backends
from .._library import Op
from .._scalar import fl32

__all__ = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal",
           "sin", "cos", "pow",
           "tanh", "sigmoid", "logsigmoid",
           "erf", "erfc", "gelu",
           "softplus", "silu", "mish", "elu", "selu", "celu"]

Tensor = torch.Tensor


def _fake_unary(x):
    return torch.empty_like(x)


def _unary(name: str, doc: str):
    def impl(x: Tensor) -> Tensor:
        return getattr(backends.for_tensor(x), name)(x)

    impl.__name__ = f"{name}_impl"
    op = Op(name, impl, _fake_unary)

    def public(input: Tensor) -> Tensor:
        return op(_checks.float32_input(name, input))

    public.__name__ = public.__qualname__ = name
    public.__doc__ = doc
    return public


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
_softplus = _unary("softplus", "fl32(ln(1 + e**x)), correctly rounded for every float32 x.")
_silu = _unary("silu", "fl32(x / (1 + e**-x)), one rounding.")
_mish = _unary("mish", "fl32(x tanh(ln(1 + e**x))), one rounding.")
_elu = _unary("elu", "x for x > 0, else fl32(e**x - 1).")
_selu = _unary("selu", "fl32(S x) for x > 0, else fl32(S A (e**x - 1)).")


def _param(op: str, name: str, v) -> float:
    """fl32 of a Python real number parameter, held in a Python float."""
    if isinstance(v, Tensor) or not isinstance(v, numbers.Real):
        raise TypeError(f"repdl.{op}: {name} must be a Python real number, got {type(v).__name__}")
    return fl32(v)


def _inplace(op: str, input: Tensor, inplace: bool) -> None:
    if inplace and input.dtype != torch.float32:  # an integer input cannot hold the result
        raise RuntimeError(f"repdl.{op}: inplace=True needs a float32 input tensor ({_checks.UNSUPPORTED})")


def _result(input, y, inplace: bool):
    return input.copy_(y) if inplace else y


def _softplus_param_impl(x: Tensor, beta: float, threshold: float) -> Tensor:
    return backends.for_tensor(x).softplus_param(x, beta, threshold)


def _elu_param_impl(x: Tensor, alpha: float) -> Tensor:
    return backends.for_tensor(x).elu_param(x, alpha)


def _celu_param_impl(x: Tensor, alpha: float) -> Tensor:
    return backends.for_tensor(x).celu_param(x, alpha)


def _fake_param(x, *params):
    return torch.empty_like(x)


_softplus_param = Op("softplus_param", _softplus_param_impl, _fake_param)
_elu_param = Op("elu_param", _elu_param_impl, _fake_param)
_celu_param = Op("celu_param", _celu_param_impl, _fake_param)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """torch.nn.functional.softplus.  With b = fl32(beta), h = fl32(threshold):
    t = fl32(b x); x where t > h, else fl32(softplus(t) / b), softplus(t) =
    fl32(ln(1 + e**t)) correctly rounded.  For b = 1 and h >= 15 (the
    defaults; any h >= 14.556090354919434 would do) that is fl32(ln(1 + e**x))
    itself for every x."""
    b, h = _param("softplus", "beta", beta), _param("softplus", "threshold", threshold)
    x = _checks.float32_input("softplus", input)
    return _softplus(x) if b == 1.0 and h >= 15.0 else _softplus_param(x, b, h)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """torch.nn.functional.silu: fl32(x / (1 + e**-x)), one rounding (silu(-inf) = -0)."""
    x = _checks.float32_input("silu", input)
    _inplace("silu", input, inplace)
    return _result(input, _silu(x), inplace)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """torch.nn.functional.mish: fl32(x tanh(ln(1 + e**x))), one rounding (mish(-inf) = -0)."""
    x = _checks.float32_input("mish", input)
    _inplace("mish", input, inplace)
    return _result(input, _mish(x), inplace)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """torch.nn.functional.elu.  x for x > 0, else fl32(a expm1(x)) with a =
    fl32(alpha) and expm1 correctly rounded; for alpha = 1 that is the
    correctly rounded elu."""
    a = _param("elu", "alpha", alpha)
    x = _checks.float32_input("elu", input)
    _inplace("elu", input, inplace)
    y = _elu(x) if a == 1.0 else _elu_param(x, a)
    return _result(input, y, inplace)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """torch.nn.functional.selu: fl32(S x) for x > 0, else fl32(S A (e**x - 1)),
    with the float32 constants S = fl32(1.0507009873554804934193349852946) and
    A = fl32(1.6732632423543772848170429916717); correctly rounded."""
    x = _checks.float32_input("selu", input)
    _inplace("selu", input, inplace)
    return _result(input, _selu(x), inplace)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """torch.nn.functional.celu.  x for x > 0, else fl32(a expm1(fl32(x / a)))
    with a = fl32(alpha) (one IEEE division, not a multiplication by 1/a);
    for alpha = 1 it is elu, correctly rounded.  alpha = 0 raises, as in torch."""
    a = _param("celu", "alpha", alpha)
    if a == 0.0:
        raise RuntimeError("repdl.celu: ZeroDivisionError: alpha cannot be 0 for CELU")
    x = _checks.float32_input("celu", input)
    _inplace("celu", input, inplace)
    y = _elu(x) if a == 1.0 else _celu_param(x, a)
    return _result(input, y, inplace)


# ---- the erf family and gelu (docs/CONTRACT.md section 6) --------------------------------------
erf = _unary("erf", "fl32(erf x), correctly rounded for every float32 x.")
erfc = _unary("erfc", "fl32(1 - erf x), correctly rounded for every float32 x (erfc(x) itself, not 1 - "
              "erf(x) in float32).")


def _gelu_impl(x: Tensor) -> Tensor:
    return backends.for_tensor(x).gelu(x)


def _gelu_tanh_impl(x: Tensor) -> Tensor:
    return backends.for_tensor(x).gelu_tanh(x)


_gelu = Op("gelu", _gelu_impl, _fake_unary)
_gelu_tanh = Op("gelu_tanh", _gelu_tanh_impl, _fake_unary)


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


def _pow_fake(x, p):
    return torch.empty_like(x)


_pow = Op("pow_int", _pow_impl, _pow_fake)

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

"""The correctly rounded functions' generator parameters: one entry each.

For a function f with an entry here:
  * the reference backend's float64 formula is
    ``repdl.backends.reference.elementwise.FLOAT64[name]``;
  * ``mpfr`` is the gmpy2 function that settles hard cases;
  * ``window`` (W, float64 ulps) is the runtime window: an evaluation whose
    error is at most W ulps and lands further than W ulps from every float32
    rounding midpoint is rounded directly; otherwise x is looked up;
  * ``gen_window`` (W_gen) is the generator's window: the table lists every
    x whose generator value (the float64 formula, on CPU) is within W_gen
    ulps of a midpoint.  W_gen >= W + ``gen_error`` (the generator's proven
    or measured error bound, ulps) makes every evaluation with error <= W
    safe: for x not in the table, |f(x) - midpoint| > W_gen - gen_error >= W.
"""
from dataclasses import dataclass
from typing import Callable

import gmpy2


@dataclass(frozen=True)
class Spec:
    name: str
    mpfr: Callable            # gmpy2 function of one mpfr argument
    real: str                 # the real function, for humans and table headers
    window: int = 64          # runtime window W (float64 ulps)
    gen_window: int = 128     # generator window W_gen (float64 ulps)
    gen_error: int = 4        # bound on the generator's float64 error (ulps)

    def __post_init__(self):
        assert self.gen_window >= self.window + self.gen_error, self.name


def _wide(formula):
    """An MPFR evaluation of a formula that is not one MPFR function: it runs
    300 bits beyond the caller's precision, with an unbounded exponent range,
    and is rounded once into the caller's context (so oracle.settle's
    cross-check still compares two independent precisions)."""
    def fn(v):
        outer = gmpy2.get_context()
        with gmpy2.context(precision=outer.precision + 300, emin=-(1 << 40), emax=1 << 40):
            r = formula(gmpy2.mpfr(v))
        return +r

    fn.__name__ = formula.__name__
    return fn


def _mp_sigmoid(v):
    if v >= 0:
        return 1 / (1 + gmpy2.exp(-v))
    u = gmpy2.exp(v)
    return u / (1 + u)


def _mp_softplus(v):
    return (v if v > 0 else gmpy2.mpfr(0)) + gmpy2.log1p(gmpy2.exp(-abs(v)))


def _mp_logsigmoid(v):
    return -(gmpy2.log1p(gmpy2.exp(-abs(v))) - (v if v < 0 else gmpy2.mpfr(0)))


# selu's constants: the float32 values S = fl32(1.0507009873554804934193349852946) and
# A = fl32(1.6732632423543772848170429916717), as exact reals (CONTRACT.md section 6).
SELU_SCALE = float.fromhex("0x1.0cfabep+0")
SELU_ALPHA = float.fromhex("0x1.ac5afap+0")


def _mp_selu(v):
    s = gmpy2.mpfr(SELU_SCALE)
    return s * v if v > 0 else s * gmpy2.mpfr(SELU_ALPHA) * gmpy2.expm1(v)


def _mp_gelu(v):
    return v * gmpy2.erfc(-v / gmpy2.sqrt(gmpy2.mpfr(2))) / 2


def _mp_gelu_tanh(v):
    """(x/2)(1 + tanh(y)) = x / (1 + e^-2y), y = sqrt(2/pi) (x + 0.044715 x^3),
    with the real constants (0.044715 as the exact rational 44715/10^6)."""
    c = gmpy2.sqrt(2 / gmpy2.const_pi())
    k = gmpy2.mpfr(44715) / 1000000
    return v / (1 + gmpy2.exp(-2 * c * (v + k * v ** 3)))


_SPECS = [
    Spec("exp", gmpy2.exp, "e^x"),
    Spec("exp2", gmpy2.exp2, "2^x"),
    Spec("expm1", gmpy2.expm1, "e^x - 1"),
    Spec("log", gmpy2.log, "ln(x)"),
    Spec("log2", gmpy2.log2, "log2(x)"),
    Spec("log10", gmpy2.log10, "log10(x)"),
    Spec("log1p", gmpy2.log1p, "ln(1 + x)"),
    Spec("rsqrt", gmpy2.rec_sqrt, "1 / sqrt(x)"),
    Spec("sin", gmpy2.sin, "sin(x)"),
    Spec("cos", gmpy2.cos, "cos(x)"),
    Spec("tanh", gmpy2.tanh, "tanh(x)"),
    Spec("sigmoid", _wide(_mp_sigmoid), "1 / (1 + e^-x)", gen_error=6),
    Spec("logsigmoid", _wide(_mp_logsigmoid), "-ln(1 + e^-x)", gen_error=6),
    Spec("softplus", _wide(_mp_softplus), "ln(1 + e^x)", gen_error=6),
    Spec("silu", _wide(lambda v: v * _mp_sigmoid(v)), "x / (1 + e^-x)", gen_error=8),
    Spec("mish", _wide(lambda v: v * gmpy2.tanh(_mp_softplus(v))), "x tanh(ln(1 + e^x))", gen_error=10),
    Spec("elu", _wide(lambda v: v if v > 0 else gmpy2.expm1(v)), "x > 0 ? x : e^x - 1"),
    Spec("selu", _wide(_mp_selu), "x > 0 ? S x : S A (e^x - 1)"),
    Spec("erf", gmpy2.erf, "erf(x)"),
    Spec("erfc", gmpy2.erfc, "1 - erf(x)", gen_error=6),
    Spec("gelu", _wide(_mp_gelu), "x Phi(x) = (x/2) erfc(-x/sqrt(2))", gen_error=8),
    Spec("gelu_tanh", _wide(_mp_gelu_tanh), "(x/2)(1 + tanh(sqrt(2/pi)(x + 0.044715 x^3)))", gen_error=8),
]

FUNCTIONS = {s.name: s for s in _SPECS}

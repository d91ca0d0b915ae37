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
]

FUNCTIONS = {s.name: s for s in _SPECS}

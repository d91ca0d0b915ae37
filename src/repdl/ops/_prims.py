"""The arithmetic primitives under short names, for backward formulas and
composite ops: each call is one operation of the contract on operands
already known to be valid (float32 tensors of broadcast-compatible shapes,
or Python floats that are float32 values, on either side), so no argument
checks run."""
import torch

from .. import backends
from .._library import primitive
from . import arith

def _op(name):
    # (looked up per call: ops.arith imports this module's users while it loads)
    def call(a, b):
        if isinstance(b, float):
            return arith._SCALAR_OPS[name](a, b, False)
        if isinstance(a, float):
            return arith._SCALAR_OPS[name](b, a, True)
        return arith._TENSOR_OPS[name](a, b)

    call.__name__ = name
    return call


add = _op("add")
sub = _op("sub")
mul = _op("mul")
div = _op("div")


def neg(a):
    """-a, exactly."""
    return arith._SCALAR_OPS["mul"](a, -1.0, False)


# ---- comparisons --------------------------------------------------------------------------
# torch's float comparisons treat subnormals as zero under DAZ
# (torch.set_flush_denormal(True)), so the branch masks of backward
# formulas come from the backend, which compares in the IEEE environment.

def _compare_impl(x: torch.Tensor, op: str, h: float) -> torch.Tensor:
    return backends.for_tensor(x).compare(x, op, h)


_compare = primitive("compare", _compare_impl, lambda x, op, h: torch.empty(x.shape, dtype=torch.bool, device=x.device),
                     vmap=lambda info, in_dims, x, op, h: (_compare(x, op, h), in_dims[0]))


def compare(x, op: str, h: float):
    """x op h ("gt", "ge", "lt" or "le") for a float32 value h, as IEEE
    compares: false where x (or h) is NaN."""
    return _compare(x, op, h)


def positive(x):
    """x > 0 (false for zeros and NaN)."""
    return compare(x, "gt", 0.0)


def greater(x, h: float):
    """x > h for a float32 value h."""
    return compare(x, "gt", h)

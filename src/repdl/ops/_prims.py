"""The arithmetic primitives under short names, for backward formulas and
composite ops: each call is one operation of the contract on operands
already known to be valid (float32 tensors of broadcast-compatible shapes,
or Python floats that are float32 values, on either side), so no argument
checks run."""
import torch

from .._scalar import bits32
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


# ---- comparisons on bit patterns ------------------------------------------------------------
# torch's float comparisons treat subnormals as zero under DAZ
# (torch.set_flush_denormal(True)), so the branch masks of backward
# formulas are computed from the bits with integer ops, which no FP mode
# touches.

def _order_key(bits):
    """An int32 key ordered as the float32 values are (-0 and +0 equal), for non-NaN bits."""
    return bits.where(bits >= 0, -(bits & 0x7FFFFFFF))


def positive(x):
    """x > 0 (false for zeros and NaN)."""
    b = x.view(torch.int32)
    return (b > 0) & (b <= 0x7F800000)


_COMPARE = {"gt": torch.gt, "ge": torch.ge, "lt": torch.lt, "le": torch.le}


def compare(x, op: str, h: float):
    """x op h ("gt", "ge", "lt" or "le") for a float32 value h, as IEEE
    compares: false where x is NaN, and everywhere if h is NaN."""
    if h != h:
        return torch.zeros(x.shape, dtype=torch.bool, device=x.device)
    b = x.view(torch.int32)
    hb = bits32(h)
    hb = hb - (1 << 32) if hb >= 1 << 31 else hb
    hkey = hb if hb >= 0 else -(hb & 0x7FFFFFFF)
    return _COMPARE[op](_order_key(b), hkey) & ((b & 0x7FFFFFFF) <= 0x7F800000)


def greater(x, h: float):
    """x > h for a float32 value h."""
    return compare(x, "gt", h)

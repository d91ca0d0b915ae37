"""Reference: IEEE + - * / and fma32, elementwise with broadcasting
(CONTRACT.md sections 1 and 6).  Each is computed exactly in float64 and
rounded once (see ``_exact``)."""
import torch

from ..._checks import broadcast_shape
from . import _exact

_OPS64 = {"add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div}


def binary(op, a, b):
    """fl32(a op b), broadcast."""
    broadcast_shape(op, a.shape, b.shape)  # repdl's message, not torch's
    return _exact.round32(_OPS64[op](_exact.f64(a), _exact.f64(b)))


def binary_(op, a, b):
    """a = fl32(a op b) in place."""
    return a.copy_(binary(op, a, b))


def binary_scalar(op, a, s: float, scalar_left: bool):
    """fl32(a op s), or fl32(s op a) when scalar_left; s a float32 value held
    in a Python float (exact in float64)."""
    a64 = _exact.f64(a)
    s64 = torch.tensor(s, dtype=torch.float64, device=a.device)
    return _exact.round32(_OPS64[op](s64, a64) if scalar_left else _OPS64[op](a64, s64))


_COMPARE = {"gt": torch.gt, "ge": torch.ge, "lt": torch.lt, "le": torch.le}


def compare(x, op: str, h: float):
    """x op h as a bool tensor (IEEE: NaN compares false; no DAZ inside the
    reference's floating-point environment)."""
    return _COMPARE[op](x, torch.tensor(h, dtype=torch.float32, device=x.device))


def clamp(x, lo: float, hi: float):
    """a = lo where x < lo else x; hi where a > hi else a (NaN kept)."""
    lo_t = torch.tensor(lo, dtype=torch.float32, device=x.device)
    hi_t = torch.tensor(hi, dtype=torch.float32, device=x.device)
    a = torch.where(x < lo_t, lo_t, x)
    return _exact.canonical_nan(torch.where(a > hi_t, hi_t, a))


def clamp_backward(x, g, lo: float, hi: float, inclusive: bool):
    """g where lo < x < hi (inclusive: lo <= x <= hi), else +0.0."""
    low, high = ("ge", "le") if inclusive else ("gt", "lt")
    inside = compare(x, low, lo) & compare(x, high, hi)
    return _exact.canonical_nan(torch.where(inside, g, torch.zeros_like(g)))


def fma32(a, b, c):
    """fl32(a*b + c) with one rounding, broadcast."""
    return _exact.fma32(a, b, c)

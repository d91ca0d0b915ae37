"""Argument checks for repdl.random: every check runs before any draw.

They follow torch's conventions (size as varargs or one sequence, ``dtype=``,
``device=``, ``generator=``) and raise the exception class torch raises for
the same mistake, with a message that says what is supported.
"""
import math
import numbers
import operator

import torch

from .. import backends
from .._scalar import fl32  # noqa: F401  (the draws round their parameters with it)
from . import _cpu, _meta, _reference
from ._generator import Generator, default_generator

_FLOAT_DTYPES = (torch.float32,)
_INT_DTYPES = (torch.int64, torch.int32)
_INT_LIMITS = {torch.int64: (-(1 << 63), 1 << 63), torch.int32: (-(1 << 31), 1 << 31)}


def integer(op: str, name: str, v) -> int:
    """v as a Python int; TypeError for bool, float and non-integers."""
    if isinstance(v, (bool, float)):
        raise TypeError(f"repdl.random.{op}: {name} must be an integer, got {type(v).__name__} {v!r}")
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError(f"repdl.random.{op}: {name} must be an integer, got {type(v).__name__}") from None


def real(op: str, name: str, v):
    """v (a real number, not bool; or a 0-d real tensor) as a Python int (an
    integer, kept exact for fl32) or float."""
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        if isinstance(v, torch.Tensor) and v.dim() == 0 and not v.dtype.is_complex and v.dtype != torch.bool:
            return v.item()
        raise TypeError(f"repdl.random.{op}: {name} must be a real number, got {type(v).__name__}")
    return operator.index(v) if isinstance(v, numbers.Integral) else float(v)


def finite(op: str, name: str, v):
    x = real(op, name, v)
    if isinstance(x, float) and not math.isfinite(x):
        raise ValueError(f"repdl.random.{op}: {name} must be finite, got {x}")
    return x


def size(op: str, args: tuple, size_kw=None) -> tuple:
    """torch's size conventions: f(2, 3), f((2, 3)), f([2, 3]), f(torch.Size),
    f(size=(2, 3)); an empty tuple is a 0-d tensor."""
    if size_kw is not None:
        if args:
            raise TypeError(f"repdl.random.{op}: size given both positionally and as size=")
        args = (size_kw,)
    if not args:
        raise TypeError(f"repdl.random.{op}: missing the size (as {op}(2, 3) or {op}((2, 3)))")
    if len(args) == 1 and isinstance(args[0], (tuple, list, torch.Size)):
        args = tuple(args[0])
    dims = tuple(integer(op, "size", d) for d in args)
    for d in dims:
        if d < 0:
            raise RuntimeError(f"repdl.random.{op}: Trying to create tensor with negative dimension {d}: {list(dims)}")
    return dims


def numel(shape) -> int:
    return math.prod(shape)


def float_dtype(op: str, dtype):
    if dtype is None:
        return torch.float32
    if dtype not in _FLOAT_DTYPES:
        raise TypeError(f"repdl.random.{op}: dtype {dtype} is not supported; RepDL random floats are torch.float32")
    return dtype


def int_dtype(op: str, dtype):
    if dtype is None:
        return torch.int64
    if dtype not in _INT_DTYPES:
        raise TypeError(
            f"repdl.random.{op}: dtype {dtype} is not supported; RepDL random integers are torch.int64 or torch.int32")
    return dtype


def int_limits(dtype):
    return _INT_LIMITS[dtype]


def float32_tensor(op: str, name: str, t) -> torch.Tensor:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"repdl.random.{op}: {name} must be a torch.Tensor, got {type(t).__name__}")
    if t.dtype != torch.float32:
        raise TypeError(f"repdl.random.{op}: {name} has dtype {t.dtype}; RepDL random ops support torch.float32 only")
    return t


def device(dev) -> torch.device:
    return torch.get_default_device() if dev is None else torch.device(dev)


def generator(op: str, g) -> Generator:
    if g is None:
        return default_generator
    if not isinstance(g, Generator):
        extra = (" (torch.Generator streams differ between devices and releases; use repdl.random.Generator)"
                 if isinstance(g, torch.Generator) else "")
        raise TypeError(f"repdl.random.{op}: generator must be a repdl.random.Generator, got {type(g).__name__}{extra}")
    return g


def blocks(n: int, per_block: int) -> int:
    """Blocks a draw of n elements consumes at per_block elements a block."""
    return -(-n // per_block)


def backend(dev: torch.device):
    """The stream's implementation for a device: the C++ kernels on the CPU,
    the integer-op reference elsewhere (and wherever repdl.backends.use
    forces the reference), shapes only on the meta device."""
    if dev.type == "meta":
        return _meta
    if dev.type == "cpu" and backends.for_tensor(_CPU_PROBE) is backends.cpu:
        return _cpu
    return _reference


_CPU_PROBE = torch.empty(0, device="cpu")

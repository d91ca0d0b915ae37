"""Argument checks shared by every public op.

They run before any work and raise the exception class torch raises for the
same mistake, with a message that says what is supported.
"""
import torch

SUPPORTED_DTYPE = torch.float32
UNSUPPORTED = "RepDL ops support torch.float32 only"
_infer_size = torch._C._infer_size
# The tensor types of the common case: `type(t) in PLAIN_TYPES` is one cheap
# test before the isinstance checks that subclasses (FakeTensor, ...) need.
PLAIN_TYPES = (torch.Tensor, torch.nn.Parameter)


def check_tensor(op: str, name: str, t) -> None:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"repdl.{op}: {name} must be a torch.Tensor, got {type(t).__name__}")


def check_float32_tensor(op: str, name: str, t) -> None:
    """TypeError unless t is a float32 tensor (the one-tensor form of
    check_float32, without the keyword dict: 0.25 us of a small call)."""
    if type(t) not in PLAIN_TYPES or t.dtype is not SUPPORTED_DTYPE:
        check_tensor(op, name, t)
        if t.dtype != SUPPORTED_DTYPE:
            raise TypeError(f"repdl.{op}: {name} has dtype {t.dtype}; RepDL ops support torch.float32 only")


def check_float32(op: str, **tensors) -> None:
    """TypeError unless every named tensor is float32."""
    for name, t in tensors.items():
        check_float32_tensor(op, name, t)


def check_same_device(op: str, **tensors) -> None:
    """RuntimeError unless the given tensors (None skipped) share one device;
    TypeError for a non-tensor among them."""
    for t in tensors.values():
        if t is not None and (type(t) not in PLAIN_TYPES or not t.is_cpu):
            break
    else:
        return  # the common case, tensors on the CPU: no device objects made and compared (0.2 us)
    device = None
    for name, t in tensors.items():
        if t is None:
            continue
        if type(t) not in PLAIN_TYPES:
            check_tensor(op, name, t)
        if device is None:
            device = t.device
        elif t.device != device:
            listing = ", ".join(f"{n} on {t.device}" for n, t in tensors.items() if t is not None)
            raise RuntimeError(f"repdl.{op}: expected all tensors on one device, got {listing}")


def wrap_dim(op: str, dim: int, ndim: int) -> int:
    """torch's dim wrapping: a 0-d tensor accepts dims -1 and 0."""
    if type(dim) is int and -ndim <= dim < ndim:  # the common case, in one test
        return dim % ndim
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise TypeError(f"repdl.{op}: dim must be an int, got {type(dim).__name__}")
    lo, hi = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    if not lo <= dim <= hi:
        raise IndexError(
            f"repdl.{op}: dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})"
        )
    return dim % max(ndim, 1)


def reduction_dims(op: str, dim, ndim: int) -> tuple:
    """Sorted dims reduced by `dim` (None, an int, or a sequence of ints).

    None and the empty sequence both mean every dim, as in torch.sum.
    """
    if type(dim) is int and -ndim <= dim < ndim:  # the common case, in one test
        return (dim % ndim,)
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, int) and not isinstance(dim, bool):
        d = wrap_dim(op, dim, ndim)  # a 0-d tensor accepts dims -1 and 0, and reduces nothing
        return (d,) if ndim else ()
    if isinstance(dim, (bool, float, str)) or not hasattr(dim, "__iter__"):
        raise TypeError(f"repdl.{op}: dim must be None, an int or a sequence of ints, got {type(dim).__name__}")
    dims = [wrap_dim(op, d, ndim) for d in dim]
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"repdl.{op}: a dim appears multiple times in the list of dims {tuple(dim)}")
    if not dims:
        return tuple(range(ndim))
    return tuple(sorted(d for d in dims if ndim))


def broadcast_shape(op: str, s1, s2) -> torch.Size:
    """torch's broadcast of two shapes; RuntimeError naming both when they do
    not broadcast.  ATen's infer_size, the rule torch's own binary ops use,
    through the binding torch.nn.functional calls (torch.broadcast_shapes
    costs ~30 us, a Python loop ~0.8 us, this ~0.2 us)."""
    if s1 == s2:
        return s1
    if torch.compiler.is_compiling():  # traced shapes are tuples, which the binding refuses
        try:
            return torch.broadcast_shapes(s1, s2)
        except RuntimeError:
            raise _not_broadcastable(op, s1, s2) from None
    return broadcast_sizes(op, s1, s2)


def broadcast_sizes(op: str, s1, s2) -> torch.Size:
    """broadcast_shape of two real (never traced) shapes that differ: the
    backends' form, without the test for tracing."""
    try:
        return _infer_size(s1, s2)
    except RuntimeError:
        raise _not_broadcastable(op, s1, s2) from None


def class_out_of_bounds(target: int, classes: int) -> IndexError:
    """The error for a class-index target outside [0, classes), as every
    path of cross_entropy and nll_loss raises it (before any result)."""
    return IndexError(f"repdl: Target {target} is out of bounds (class indices lie in [0, {classes}))")


def _not_broadcastable(op, s1, s2) -> RuntimeError:
    return RuntimeError(f"repdl.{op}: shapes {tuple(s1)} and {tuple(s2)} cannot be broadcast together")


def promoted_float(op: str, dtype: torch.dtype) -> torch.dtype:
    """The float dtype torch computes `op` in for operands promoting to
    `dtype`; TypeError unless that is float32."""
    if not (dtype.is_floating_point or dtype.is_complex):
        dtype = torch.get_default_dtype()  # integer/bool -> default float dtype, as torch does
    if dtype != torch.float32:
        raise TypeError(f"repdl.{op}: the operation would compute in {dtype}; {UNSUPPORTED}")
    return dtype


def float32_input(op: str, input) -> torch.Tensor:
    """input as float32: float32 as is, integer and bool tensors converted
    (torch's promotion to the default dtype, which must be float32); other
    float and complex dtypes raise TypeError."""
    if type(input) in PLAIN_TYPES and input.dtype is SUPPORTED_DTYPE:
        return input  # the common case in one test (0.15 us less than the steps below)
    check_tensor(op, "input", input)
    if input.dtype == torch.float32:
        return input
    if input.dtype.is_floating_point or input.dtype.is_complex:
        raise TypeError(f"repdl.{op}: input has dtype {input.dtype}; {UNSUPPORTED}")
    promoted_float(op, input.dtype)
    return input.to(torch.float32)

"""Argument checks shared by every public op.

They run before any work and raise the exception class torch raises for the
same mistake, with a message that says what is supported.
"""
import torch

SUPPORTED_DTYPE = torch.float32


def check_tensor(op: str, name: str, t) -> None:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"repdl.{op}: {name} must be a torch.Tensor, got {type(t).__name__}")


def check_float32(op: str, **tensors) -> None:
    """TypeError unless every named tensor is float32."""
    for name, t in tensors.items():
        if type(t) is not torch.Tensor or t.dtype is not SUPPORTED_DTYPE:
            check_tensor(op, name, t)
            if t.dtype != SUPPORTED_DTYPE:
                raise TypeError(
                    f"repdl.{op}: {name} has dtype {t.dtype}; RepDL ops support torch.float32 only"
                )


def check_same_device(op: str, **tensors) -> None:
    devices = [t.device for t in tensors.values() if t is not None]
    if any(d != devices[0] for d in devices):
        listing = ", ".join(f"{n} on {t.device}" for n, t in tensors.items() if t is not None)
        raise RuntimeError(f"repdl.{op}: expected all tensors on one device, got {listing}")


def wrap_dim(op: str, dim: int, ndim: int) -> int:
    """torch's dim wrapping: a 0-d tensor accepts dims -1 and 0."""
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
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, int):
        return (wrap_dim(op, dim, ndim),) if ndim else ()
    dims = [wrap_dim(op, d, ndim) for d in dim]
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"repdl.{op}: a dim appears multiple times in the list of dims {tuple(dim)}")
    if not dims:
        return tuple(range(ndim))
    return tuple(sorted(d for d in dims if ndim))

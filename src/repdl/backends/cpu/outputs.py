"""New tensors for the kernels to write: row-major, or a dense input's own
layout.

A kernel's per-call cost is felt by small ops, and allocation is most of
it.  torch.empty with a tuple or torch.Size matches its argument against
several overloads (names, memory formats): 1.2-2.0 us for 8 elements (torch
2.13, this machine); the varargs form torch.empty(*sizes, dtype=, device=)
takes about 1.0 us at any rank, and a float32 CPU template's bound
new_empty(*sizes) 0.8-0.85, because it parses no keyword: the template
gives the dtype and the device.  torch.empty_like of a dense tensor takes
0.8-0.9.  Allocation moves no values: no bit depends on which of these
made a tensor.

Every new tensor is on the CPU: torch's factories otherwise allocate on the
default device (``torch.set_default_device``, or ``with torch.device(...)``
around model set-up) and in the default dtype, and a kernel handed a CUDA or
meta tensor's pointer would write through it.  new_empty and empty_like take
both from the tensor they are called on, never from the defaults.
"""
import torch

_FLOAT32 = torch.float32
_CPU = torch.device("cpu")
# new_float32(*sizes): a new row-major float32 CPU tensor of one size or
# more, the template's way, for the hot paths that know their sizes.
new_float32 = torch.empty(0, dtype=_FLOAT32, device=_CPU).new_empty
# A 0-d result (a full reduction, a loss) as empty_like of a 0-d template:
# 0.8 us, where the varargs forms need one size at least and the others
# parse a shape (empty_strided((), ()) 1.1 us).
SCALAR32 = torch.empty((), dtype=_FLOAT32, device=_CPU)


def row_major(shape, dtype=_FLOAT32) -> torch.Tensor:
    """A new row-major CPU tensor of `shape` (a tuple or torch.Size)."""
    if not shape:
        if dtype is _FLOAT32:
            return torch.empty_like(SCALAR32)
        return torch.empty_strided((), (), dtype=dtype, device=_CPU)
    if dtype is _FLOAT32:  # the common case
        return new_float32(*shape)
    return torch.empty(*shape, dtype=dtype, device=_CPU)


def filled(shape, value, dtype=_FLOAT32) -> torch.Tensor:
    """A new row-major CPU tensor of `shape` holding `value` everywhere."""
    return torch.full(shape, value, dtype=dtype, device=_CPU)


def row_major_like(t: torch.Tensor) -> torch.Tensor:
    """A new row-major tensor of t's shape and dtype."""
    return torch.empty_like(t, memory_format=torch.contiguous_format)


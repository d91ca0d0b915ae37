"""New tensors for the kernels to write: row-major, or a dense input's own
layout.

A kernel's per-call cost is felt by small ops, and allocation is most of
it.  torch.empty(shape, dtype=...) matches its arguments against several
overloads (names, memory formats): about 1.6 us for 8 elements (torch
2.13, this machine), where torch.empty_strided with the strides written
out takes 1.0-1.3 and torch.empty_like of a dense tensor 0.9.  Working the
strides out in Python costs more than that saving beyond two dims, so
those shapes keep torch.empty.  Allocation moves no values: no bit depends
on which of these made a tensor.
"""
import torch

_FLOAT32 = torch.float32


def row_major(shape, dtype=_FLOAT32) -> torch.Tensor:
    """A new row-major tensor of `shape` (a tuple or torch.Size)."""
    n = len(shape)
    if n == 0:
        return torch.empty_strided((), (), dtype=dtype)
    if n == 1:
        return torch.empty_strided(shape, (1,), dtype=dtype)
    if n == 2:  # torch's row-major strides treat a size-0 dim as size 1
        return torch.empty_strided(shape, (max(shape[1], 1), 1), dtype=dtype)
    return torch.empty(tuple(shape), dtype=dtype)


def row_major_like(t: torch.Tensor) -> torch.Tensor:
    """A new row-major tensor of t's shape and dtype."""
    return torch.empty_like(t, memory_format=torch.contiguous_format)


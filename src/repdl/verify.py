"""Hashes of tensors and state, for checking that two runs agree bit for bit."""
import ctypes
import hashlib

import torch


def tensor_hash(t: torch.Tensor) -> str:
    """SHA-256 of a tensor's dtype, shape and bit patterns (row-major)."""
    t = t.detach().to("cpu").contiguous()
    h = hashlib.sha256(f"{t.dtype}|{tuple(t.shape)}|".encode())
    nbytes = t.numel() * t.element_size()
    if nbytes:
        h.update(ctypes.string_at(t.data_ptr(), nbytes))
    return h.hexdigest()


def state_hash(tensors) -> str:
    """SHA-256 over an ordered collection of tensors (e.g. a state_dict's values)."""
    h = hashlib.sha256()
    for t in tensors:
        h.update(tensor_hash(t).encode())
    return h.hexdigest()


def pattern(*shape, salt: int = 0) -> torch.Tensor:
    """A float32 tensor of values in [-0.5, 0.5) that is the same on every
    machine: an integer hash of the element's position, scaled by 2^-24
    (exactly).  For inputs of reproducibility checks, where torch.randn will
    not do (its values depend on the CPU's instruction set)."""
    n = 1
    for s in shape:
        n *= s
    i = torch.arange(n, dtype=torch.int64) + salt * 1_000_003
    h = (i * 2654435761 + 12345) % (1 << 24)
    return (h.to(torch.float32) * (2.0 ** -24) - 0.5).reshape(shape)

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

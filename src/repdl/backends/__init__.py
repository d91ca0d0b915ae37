"""Backends: where a primitive's numbers are computed.

* ``reference`` -- plain PyTorch ops whose rounding is exact by construction;
  runs on any device and *is* the contract (docs/CONTRACT.md) as code.
* ``cpu`` -- the C++ kernels, bit-identical to the reference, fast.

Tensors on the CPU use ``cpu``; tensors on any other device use
``reference`` and get the same bits as the CPU would.  ``use("reference")``
forces the reference everywhere, to cross-check a whole program against the
executable spec.
"""
import contextlib

import torch

from . import cpu, reference

__all__ = ["cpu", "reference", "for_tensor", "use"]

_BACKENDS = {"cpu": cpu, "reference": reference}
_forced = None


def for_tensor(t: torch.Tensor):
    """The backend module that computes ops on `t`."""
    if _forced is not None:
        return _forced
    return cpu if t.is_cpu else reference


@contextlib.contextmanager
def use(name: str):
    """Within the block, compute every op with the named backend."""
    global _forced
    if name not in _BACKENDS:
        raise ValueError(f"unknown backend {name!r}; known: {', '.join(_BACKENDS)}")
    saved, _forced = _forced, _BACKENDS[name]
    try:
        yield
    finally:
        _forced = saved

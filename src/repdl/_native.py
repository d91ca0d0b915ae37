"""Loads the C++ kernels (repdl._C) and applies REPDL_ISA.

REPDL_ISA chooses the kernel instruction set: ``auto`` (default: the best
this CPU runs), ``avx512``, ``avx2`` or ``generic``.  Every choice computes the same
bits; ``generic`` exists so that anyone can prove it.  An unknown or
unsupported value is an error, never a silent fallback.
"""
import os

import torch  # noqa: F401  (first: torch's libgomp then serves _C as well)

from . import _C

_KNOWN_ISAS = ("auto", "generic", "avx2", "avx512")


def _apply_env():
    want = os.environ.get("REPDL_ISA", "auto") or "auto"
    if want not in _KNOWN_ISAS:
        raise ImportError(f"REPDL_ISA={want!r} is not one of {', '.join(_KNOWN_ISAS)}")
    if want != "auto" and not _C.isa_supported(want):
        raise ImportError(f"REPDL_ISA={want!r}: this CPU cannot run the {want} kernels")
    _C.set_isa(want)


_apply_env()


def isa() -> str:
    """Instruction set the CPU kernels use now ('avx512', 'avx2' or 'generic')."""
    return _C.isa()


def set_isa(name: str) -> None:
    """Select the kernel instruction set ('auto', 'avx512', 'avx2', 'generic').

    Bits do not depend on it; tests switch it to prove that.
    """
    if name not in _KNOWN_ISAS:
        raise ValueError(f"unknown instruction set {name!r}; known: {', '.join(_KNOWN_ISAS)}")
    _C.set_isa(name)

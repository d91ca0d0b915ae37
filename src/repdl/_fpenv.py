"""The IEEE default floating-point environment for work that torch's own
CPU kernels do on RepDL's behalf (the reference backend).

The C++ kernels switch every thread they use to round-to-nearest without
flush-to-zero or denormals-are-zero (csrc/common/fpenv.h).  The reference
backend computes with torch ops instead, which run in whatever state the
calling thread (and the OpenMP pool it shares with torch) is in; under
``torch.set_flush_denormal(True)`` they would flush every subnormal.  So
each reference entry point runs inside ``ieee_env``: the calling thread and
the pool switch to IEEE defaults for the call and return to their previous
state after it.  Nested entries cost nothing.

The reference backend is the contract as code, so work inside it is also
invisible to the drop-in mode (repdl.dropin): torch function modes are
disabled for the call, and ``inside()`` tells the mode's aten guard, which
also runs the IEEE arithmetic it lets through (the autograd engine's
gradient additions among them) with ``ieee_call``.
"""
import functools
import threading

import torch

from . import _C, _trusted

__all__ = ["ieee_call", "ieee_call_inline", "ieee_env", "inside"]

_state = threading.local()


def ieee_call(fn, *args, **kwargs):
    """fn(*args, **kwargs) in the IEEE default environment (see above),
    below the drop-in mode's layers (repdl._trusted)."""
    if getattr(_state, "active", False):
        return fn(*args, **kwargs)
    _C.ieee_enter()
    _state.active = True
    try:
        with torch._C.DisableTorchFunction():
            return _trusted.call(fn, *args, **kwargs)
    finally:
        _state.active = False
        _C.ieee_exit()


def ieee_call_inline(fn, *args, **kwargs):
    """As ieee_call, for one torch op small enough to run on the calling
    thread (under ATen's parallel grain): only that thread switches, which
    saves waking the OpenMP pool."""
    if getattr(_state, "active", False):
        return fn(*args, **kwargs)
    _C.ieee_enter_thread()
    try:
        return fn(*args, **kwargs)
    finally:
        _C.ieee_exit_thread()


def ieee_env(fn):
    """Decorator: run ``fn`` in the IEEE default environment (see above)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return ieee_call(fn, *args, **kwargs)

    return wrapper


def inside() -> bool:
    """Whether the calling thread is inside an ``ieee_env`` entry point."""
    return getattr(_state, "active", False)

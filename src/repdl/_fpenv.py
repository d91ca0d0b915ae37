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
"""
import functools
import threading

from . import _C

__all__ = ["ieee_env"]

_state = threading.local()


def ieee_env(fn):
    """Decorator: run ``fn`` in the IEEE default environment (see above)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if getattr(_state, "active", False):
            return fn(*args, **kwargs)
        _C.ieee_enter()
        _state.active = True
        try:
            return fn(*args, **kwargs)
        finally:
            _state.active = False
            _C.ieee_exit()

    return wrapper

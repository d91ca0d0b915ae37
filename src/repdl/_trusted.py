"""RepDL's own work, run below the drop-in mode's layers (repdl.dropin).

Inside a drop-in mode every torch call meets a TorchFunctionMode and every
aten op a TorchDispatchMode, several microseconds each.  RepDL's own code
(a rerouted op, a RepDL op's backward, an optimizer step RepDL runs) needs
neither: the contract is its proof, and the allow-list test checks its aten
ops op by op, outside any mode.  So while a mode is active on a thread,
``call`` runs such work with both kinds of mode disabled; with no mode
active it is a plain call, and tools such as the allow-list test's own
dispatch mode see everything.
"""
import threading

import torch

__all__ = ["call", "set_dropin_active", "dropin_active"]

_state = threading.local()
_no_dispatch = torch._C._DisableTorchDispatch
_no_function = torch._C.DisableTorchFunction


def set_dropin_active(active: bool) -> None:
    _state.dropin = active


def dropin_active() -> bool:
    return getattr(_state, "dropin", False)


def call(fn, *args, **kwargs):
    """fn(*args, **kwargs), below the drop-in mode's layers when one is active."""
    if not getattr(_state, "dropin", False):
        return fn(*args, **kwargs)
    with _no_dispatch(), _no_function():
        return fn(*args, **kwargs)

"""from_torch_module: make an existing torch.nn model compute with RepDL.

Every repdl.nn layer is a subclass of its torch.nn namesake that adds no
state (only forward and initialisation differ), so converting a layer is
changing its class: parameters, buffers, hooks, training mode, attribute
values and state_dict keys all stay as they are, and no weight is
re-drawn.  Only modules whose type is exactly a torch.nn class are
converted: a user's subclass of nn.Linear has its own forward, which
RepDL does not rewrite.
"""
import copy as _copy

import torch
from torch import nn as tnn

from . import nn as rnn

__all__ = ["from_torch_module"]

# torch.nn classes that compute nothing themselves (containers, reshapes):
# fine as they are.
_NO_ARITHMETIC = (tnn.Sequential, tnn.ModuleList, tnn.ModuleDict, tnn.ParameterList, tnn.ParameterDict,
                  tnn.Identity, tnn.Flatten, tnn.Unflatten)


def _counterparts():
    """torch.nn class -> repdl.nn class, for every layer repdl.nn offers
    (and torch's marker subclass of Linear that MultiheadAttention holds)."""
    table = {tnn.modules.linear.NonDynamicallyQuantizableLinear: rnn.Linear}
    for name in rnn.__all__:
        cls = getattr(rnn, name)
        if isinstance(cls, type) and issubclass(cls, tnn.Module):
            base = getattr(tnn, name, None)
            if base is not None and base is not cls and issubclass(cls, base):
                table[base] = cls
    return table


_COUNTERPARTS = _counterparts()


def _is_torch_layer(module) -> bool:
    return (type(module).__module__.startswith("torch.nn.") and type(module) is not tnn.Module
            and not isinstance(module, _NO_ARITHMETIC))


def _problems(module, name):
    """Why `module` (at `name`) cannot be converted, or None."""
    for what, t in list(module.named_parameters(recurse=False)) + list(module.named_buffers(recurse=False)):
        if t is not None and t.is_floating_point() and t.dtype != torch.float32:
            return f"{name} ({type(module).__name__}): {what} has dtype {t.dtype}; RepDL computes torch.float32"
    target = _COUNTERPARTS.get(type(module))
    if target is None:
        return f"{name} ({type(module).__name__}): no RepDL counterpart" if _is_torch_layer(module) else None
    check = getattr(target, "_unsupported", None)
    reason = check(module) if check else None
    return f"{name} ({type(module).__name__}): {reason}" if reason else None


def from_torch_module(module: tnn.Module, *, copy: bool = False, strict: bool = False) -> tnn.Module:
    """Convert every torch.nn layer of `module` (itself included) that has a
    repdl.nn counterpart, in place (or in a deep copy with ``copy=True``),
    and return the converted module.

    With ``strict=True``, raise NotImplementedError naming, all at once,
    every torch.nn layer that cannot be converted (no counterpart, such as
    nn.LSTM, or an unsupported setting, such as Embedding(max_norm=1.0) or
    a float64 parameter), before converting anything.  Without it those
    layers are left as torch's, computing with torch's own kernels.
    Modules of other classes (your own) keep their forward; their
    children are converted."""
    if not isinstance(module, tnn.Module):
        raise TypeError(f"repdl.from_torch_module: expected a torch.nn.Module, got {type(module).__name__}")
    named = list(module.named_modules(remove_duplicate=True))
    problems = [p for p in (_problems(m, name or "<root>") for name, m in named) if p]
    if strict and problems:
        raise NotImplementedError("repdl.from_torch_module: cannot convert, with strict=True:\n  " +
                                  "\n  ".join(problems))
    if copy:
        module = _copy.deepcopy(module)
        named = list(module.named_modules(remove_duplicate=True))
    for name, m in named:
        target = _COUNTERPARTS.get(type(m))
        if target is not None and not _problems(m, name):
            m.__class__ = target
    return module

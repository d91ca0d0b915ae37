"""What every RepDL optimizer shares: the torch.optim class it extends (so
constructor arguments, ``param_groups``, hooks, ``zero_grad`` and the
``state_dict`` format are torch's own), checks before any work, and the
layout rule that lets one kernel call update a whole parameter.

Each optimizer class only writes ``step``: per parameter, the float32
scalars of the contract (CONTRACT.md, "Optimizers"), computed in Python
float64 with ``+ - * /`` and ``sqrt`` only, and one call of the backend's
step, which updates the parameter and its state in place.
"""
import torch

from .. import backends
from .._scalar import fl32

__all__ = ["ReproducibleOptimizer", "run_closure", "params_with_grad", "state", "step_count", "apply_kernel"]

# Options whose only purpose is to choose one of torch's implementations:
# each of those rounds as torch's kernels do (fused multiply-adds, lerp,
# addcdiv), which is what RepDL replaces.
_TORCH_IMPLEMENTATIONS = ("foreach", "fused", "capturable", "differentiable")


def _is_dense(t: torch.Tensor) -> bool:
    """Whether t's elements fill one block of memory with no gaps or
    overlaps (any dim order), so that it can be walked as a flat array."""
    expected = 1
    for stride, size in sorted((st, sz) for st, sz in zip(t.stride(), t.shape) if sz != 1):
        if stride != expected:
            return False
        expected *= size
    return True


def _contiguous_strides(shape):
    strides, acc = [], 1
    for size in reversed(shape):
        strides.append(acc)
        acc *= max(size, 1)
    return tuple(reversed(strides))


def _state_strides(p):
    """The layout of p's state tensors: p's own when p is dense,
    contiguous otherwise (torch.preserve_format's rule)."""
    return p.stride() if _is_dense(p) else _contiguous_strides(p.shape)


def _same_layout(strides_a, strides_b, shape) -> bool:
    """Equal strides wherever a dim has more than one element."""
    return all(a == b for a, b, n in zip(strides_a, strides_b, shape) if n > 1)


def scalar(v) -> float:
    """A hyperparameter (number or one-element tensor) as a Python float."""
    return float(v.item()) if isinstance(v, torch.Tensor) else float(v)


class ReproducibleOptimizer:
    """Mixin placed before a torch.optim class: ``class Adam(
    ReproducibleOptimizer, torch.optim.Adam)``."""

    def __init__(self, params, *args, **kwargs):
        name = type(self).__name__
        for option in _TORCH_IMPLEMENTATIONS:
            if kwargs.get(option):
                raise NotImplementedError(
                    f"repdl.optim.{name}: {option}={kwargs[option]!r} selects one of torch's implementations, whose "
                    f"rounding is torch's; RepDL's step is its own (leave {option} unset)")
        super().__init__(params, *args, **kwargs)

    def add_param_group(self, param_group):
        params = param_group["params"]
        params = [params] if isinstance(params, torch.Tensor) else list(params)
        for p in params:
            p = p[1] if isinstance(p, tuple) else p  # named parameters
            if isinstance(p, torch.Tensor) and p.dtype != torch.float32:
                raise TypeError(f"repdl.optim.{type(self).__name__}: a parameter has dtype {p.dtype}; RepDL "
                                "optimizers update torch.float32 parameters only")
        super().add_param_group(param_group)

    # ---- loading state ----------------------------------------------------

    def load_state_dict(self, state_dict):
        """torch's load_state_dict, after checking that the saved groups and
        state tensors match this optimizer's parameters (ValueError naming
        the first mismatch); nothing is loaded when a check fails."""
        name = type(self).__name__
        groups, saved_groups = self.param_groups, state_dict.get("param_groups", ())
        if len(groups) != len(saved_groups):
            raise ValueError(f"repdl.optim.{name}.load_state_dict: the state has {len(saved_groups)} parameter "
                             f"group(s), this optimizer {len(groups)}")
        params = []
        for i, (group, saved) in enumerate(zip(groups, saved_groups)):
            if len(group["params"]) != len(saved["params"]):
                raise ValueError(f"repdl.optim.{name}.load_state_dict: group {i} has {len(saved['params'])} "
                                 f"parameter(s) in the state, {len(group['params'])} here")
            params.extend(zip(saved["params"], group["params"]))
        state = state_dict.get("state", {})
        for index, p in params:
            for key, value in state.get(index, {}).items():
                if isinstance(value, torch.Tensor) and value.dim() > 0 and value.shape != p.shape:
                    raise ValueError(f"repdl.optim.{name}.load_state_dict: state '{key}' of parameter {index} has "
                                     f"shape {tuple(value.shape)}, the parameter {tuple(p.shape)}")
        super().load_state_dict(state_dict)


# ---- helpers for step(): functions of the optimizer, so that the drop-in mode
# can run RepDL's steps on torch.optim's own instances (repdl.dropin.patches).


def run_closure(closure):
    if closure is None:
        return None
    with torch.enable_grad():
        return closure()


def params_with_grad(opt, group):
    for p in group["params"]:
        if p.grad is None:
            continue
        if p.grad.is_sparse:
            raise NotImplementedError(f"repdl.optim.{type(opt).__name__}: sparse gradients are not supported")
        if p.grad.dtype != torch.float32:
            raise TypeError(f"repdl.optim.{type(opt).__name__}: a gradient has dtype {p.grad.dtype}; "
                            "torch.float32 only")
        yield p


def state(opt, p, key, fill=0.0):
    """The state tensor `key` of p, created filled with `fill` (a float32
    value) and kept in p's layout (a loaded state may come in another)."""
    entries = opt.state[p]
    t = entries.get(key)
    if t is None:
        t = entries[key] = torch.full_like(p, fl32(fill), memory_format=torch.preserve_format)
    elif not _same_layout(t.stride(), _state_strides(p), p.shape):
        t = entries[key] = torch.empty_like(p, memory_format=torch.preserve_format).copy_(t)
    return t


def step_count(opt, p) -> int:
    """Increments p's step count (torch's float32 tensor 'step') and returns it."""
    entries = opt.state[p]
    if "step" not in entries:
        entries["step"] = torch.tensor(0.0, dtype=torch.float32, device="cpu")  # as torch's (not capturable)
    entries["step"] += 1
    return int(entries["step"].item())


def apply_kernel(kernel, p, grad, states, **scalars):
    """kernel(p, grad, *states, **scalars) on p's dense layout: a
    gradient in another layout is copied into p's; a parameter that is
    not dense (a view with gaps) is updated through a contiguous copy."""
    backend = backends.for_tensor(p)
    kernel = getattr(backend, kernel)
    if _is_dense(p):
        if not _same_layout(grad.stride(), p.stride(), p.shape):
            grad = torch.empty_like(p, memory_format=torch.preserve_format).copy_(grad)
        kernel(p, grad, *states, **scalars)
    else:
        work = p.contiguous()
        kernel(work, grad.contiguous(), *states, **scalars)
        p.copy_(work)

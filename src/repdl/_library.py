"""Registration of RepDL primitives as PyTorch custom ops, with their
gradients.

Each primitive is registered as ``torch.ops.repdl.<name>`` with a fake
(meta) implementation, so FX, FakeTensor tracing and ``torch.compile`` see
one opaque op whose numerics no compiler pass can rewrite.  A differentiable
primitive also has a backward formula (docs/CONTRACT.md, "Gradients"),
written with RepDL primitives only, and that one formula is registered
twice: on the custom op (``register_autograd``, which compiled graphs use)
and as a ``torch.autograd.Function`` with ``setup_context`` and a ``vmap``
rule (which eager autograd and ``torch.func`` use).

The dispatcher costs about 14 us per call (torch 2.13, measured here) and a
custom op's autograd wrapper more; an ``autograd.Function`` costs about 9
us, a plain call under 2.  So a call takes the cheapest route that is
correct, and every route runs the same implementation and the same
backward, so they cannot differ in bits:

* tracing or compiling (dynamo, torch.export), a tensor subclass
  (FakeTensor, FunctionalTensor) or a meta tensor: the custom op (its fake
  implementation for fakes);
* torch.func transforms, or autograd recording: the autograd.Function;
* otherwise: the implementation itself, or, when every tensor is on the
  CPU, no backend is forced and the CPU backend has a native entry for the
  primitive (``backends.cpu.NATIVE``), that entry: the implementation's
  common case taken in C with the same kernel call, which skips the
  backend's Python layers (it hands back the other cases).  The
  autograd.Function that records a call computes its forward the same way.

The choice is made in C (csrc/common/route.cpp) but for dynamo's test:
an mm 2x2's entry costs 0.48 us above the implementation's call, where
the same tests in Python bytecode cost 0.72.
"""
import inspect
import typing
from typing import Callable, Optional

import torch

from . import _C, _trusted, backends
from ._checks import PLAIN_TYPES

__all__ = ["Primitive", "mark_non_differentiable", "primitive", "vmap_by_loop"]

_is_dynamo_compiling = torch.compiler.is_dynamo_compiling
_grad_enabled = torch.is_grad_enabled
_functorch_active = torch._C._are_functorch_transforms_active
_unwrap_if_dead = torch._C._functorch.unwrap_if_dead


class Primitive:
    """A primitive: ``impl`` (annotated, so torch can infer the schema) runs
    the backend; ``fake`` computes output metadata for tracing.  With
    ``backward`` (and ``setup_context``, torch's split-context signatures),
    the primitive is differentiable; without, its outputs are not (masks,
    indices); ``vmap`` is its batching rule (``vmap_by_loop`` when not
    given).  Callers call ``call``, its entry point (what ``primitive``
    returns)."""

    def __init__(self, name: str, impl: Callable, fake: Callable, *, setup_context: Optional[Callable] = None,
                 backward: Optional[Callable] = None, vmap: Optional[Callable] = None):
        self.name = name
        self.impl = impl
        self._tensor_args = _tensor_positions(impl)
        self.custom = torch.library.custom_op(f"repdl::{name}", impl, mutates_args=())
        self.custom.register_fake(fake)
        if backward is None:  # not differentiable (a mask, an index): no gradient flows back
            setup_context, backward = _no_gradient_setup, _no_gradient
        else:
            backward = _below_dropin(backward)
        self.custom.register_autograd(backward, setup_context=setup_context)
        # Two autograd.Functions with one forward and one backward: the
        # split-context form torch.func needs, and the classic form for plain
        # eager autograd, whose apply() skips the signature binding that costs
        # the other about 15 us per call.
        self.transformable = type(f"{name}_function", (torch.autograd.Function,), {
            "forward": staticmethod(impl),
            "setup_context": staticmethod(setup_context),
            "backward": staticmethod(backward),
            "vmap": staticmethod(vmap or vmap_by_loop(self)),
        })

        # The route's C forward (csrc/common/route.cpp) computes the output
        # and runs setup_context; the route calls this Function's apply
        # (its C base, below), which exists only once the forward does.
        record = [None]
        self.call, forward = _entry_point(self, record, setup_context)
        self.function = type(f"{name}_eager_function", (torch.autograd.Function,), {
            "forward": staticmethod(forward),
            "backward": staticmethod(backward),
        })
        # Function.apply's C base, called directly: the entry point has
        # already ruled out functorch transforms and subclasses, so what
        # Function.apply adds (a setup_context probe and a generator over
        # the arguments, about 2 us) reduces to unwrapping dead functorch
        # wrappers, which the route does itself.
        record[0] = super(torch.autograd.Function, self.function).apply

    def __call__(self, *args):
        """The entry point (for vmap_by_loop's rule, made before it exists)."""
        return self.call(*args)


def primitive(name: str, impl: Callable, fake: Callable, **options) -> Callable:
    """A new Primitive's entry point (Primitive's arguments), which callers
    call: a function, because calling a closure costs about 0.13 us less
    than an instance's ``__call__`` (Python 3.11), on every op and on each
    of the primitives a composite op runs.  Its ``primitive`` attribute is
    the Primitive."""
    return Primitive(name, impl, fake, **options).call


def _entry_point(p: Primitive, record: list, setup_context: Callable) -> tuple:
    """The call of p: the cheapest route that is correct (module docstring).
    Only the positions annotated Tensor or Optional[Tensor] are looked at
    (impl's annotations are its schema); the choice among the eager routes
    runs in C (csrc/common/route.cpp), and this function keeps the test
    that dynamo folds while it traces, since it cannot trace into C.  With
    it, the forward of p's recording autograd.Function, whose apply
    record[0] will hold: impl or the native entry by the route's rule, then
    setup_context."""
    custom = p.custom
    route, forward = _C.make_route(p.impl, custom, p.transformable.apply, record, p._tensor_args, PLAIN_TYPES,
                                   _functorch_active, _grad_enabled, _unwrap_if_dead, torch.compiler,
                                   backends.cpu.NATIVE.get(p.name), backends, setup_context)

    def call(*args):
        if _is_dynamo_compiling():
            return custom(*args)
        return route(args)

    call.__name__ = call.__qualname__ = p.name
    call.primitive = p
    return call, forward


def _tensor_positions(impl: Callable) -> tuple:
    """The positions of impl's Tensor and Optional[Tensor] parameters."""
    hints = typing.get_type_hints(impl)
    tensors = (torch.Tensor, Optional[torch.Tensor])
    return tuple(i for i, name in enumerate(inspect.signature(impl).parameters) if hints.get(name) in tensors)


def _below_dropin(backward: Callable) -> Callable:
    """The backward formula, run below a drop-in mode's layers when one is
    active (repdl._trusted): it is RepDL's own code."""

    def run(ctx, *grads):
        return _trusted.call(backward, ctx, *grads)

    run.__name__ = getattr(backward, "__name__", "backward")
    return run


def mark_non_differentiable(ctx, *outputs):
    """ctx.mark_non_differentiable(*outputs), and no zeros made for their
    gradients: by default autograd hands the backward a zeros_like of every
    output that got no gradient, non-differentiable ones included (for a
    64K silu's saved sigmoid an allocation and a fill, about 15 us, a fifth
    of its backward).  For primitives whose other output is one
    differentiable tensor: when the backward runs, its gradient is given."""
    ctx.mark_non_differentiable(*outputs)
    ctx.set_materialize_grads(False)


def _no_gradient_setup(ctx, inputs, output):
    outputs = output if isinstance(output, tuple) else (output,)
    mark_non_differentiable(ctx, *(t for t in outputs if isinstance(t, torch.Tensor)))
    ctx.inputs = len(inputs)


def _no_gradient(ctx, *grads):
    return (None,) * ctx.inputs


def vmap_by_loop(op: Callable) -> Callable:
    """The batching rule that is always right: the op on each batch entry,
    results stacked along dim 0.  Every RepDL op computes each output
    element from its own inputs only, so entry-by-entry gives the batched
    bits."""

    def rule(info, in_dims, *args):
        entries = []
        for i in range(info.batch_size):
            sliced = [a.select(d, i) if d is not None else a for a, d in zip(args, in_dims)]
            entries.append(op(*sliced))
        if isinstance(entries[0], tuple):
            outs = tuple(torch.stack(parts) for parts in zip(*entries))
            return outs, tuple(0 for _ in outs)
        return torch.stack(entries), 0

    return rule

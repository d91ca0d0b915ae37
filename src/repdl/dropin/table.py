"""The drop-in mode's classification of every op it can meet, at both levels.

Three classes, given for the forward and for the backward of each op:

* ``exact``       reproducible as torch computes it (moves, copies,
                  comparisons, indexing, one IEEE operation per element);
* ``rerouted``    computed by RepDL's op, whose forward and backward are the
                  contract's (docs/CONTRACT.md);
* ``unsupported`` neither: strict mode raises NonReproducibleError, non-strict
                  mode warns once and runs torch's op.

Function level (what ``torch.*``, ``Tensor.*``, operators and
``torch.nn.functional.*`` calls meet first): ``FUNCTIONS`` maps each torch
callable the mode treats specially to its ``Entry``.  A callable not in the
table passes down unchanged, and the aten ops it runs are classified below
(that is the guard's job: nothing escapes it).

Aten level (every op that actually runs, in forward, in the autograd
engine's backward, inside C++ and in optimizers): ``aten_class``.  The
exact set is ``repdl._aten``'s allow-list; an op computing on a floating
or complex dtype other than float32 is unsupported (float16, bfloat16,
float64 and complex have no contract yet) unless it only moves values;
everything else is unsupported.  ``repdl::`` ops are rerouted by definition.
"""
import inspect
from typing import Callable, NamedTuple, Optional

import torch

from .. import _aten
from .. import ops
from . import _reroutes as r

__all__ = ["EXACT", "REROUTED", "UNSUPPORTED", "Entry", "FUNCTIONS", "aten_class", "aten_reason", "always_exact",
           "function_name", "odd_float_dtype"]

EXACT, REROUTED, UNSUPPORTED = "exact", "rerouted", "unsupported"

F = torch.nn.functional
T = torch.Tensor


class Entry(NamedTuple):
    """One function-level op.  ``handler`` computes a rerouted op;
    ``floats_only``: reroute only when a floating tensor is an argument
    (integer arithmetic is exact as torch does it).  For an exact forward
    whose backward is unsupported, ``applies(args, kwargs)`` says when (for
    instance, indexing with a tensor, whose gradient is a scatter-add)."""
    forward: str
    backward: str
    handler: Optional[Callable] = None
    floats_only: bool = True
    applies: Optional[Callable] = None


def _rerouted(handler, floats_only=True):
    return Entry(REROUTED, REROUTED, handler, floats_only)


def _tensor_index(args, kwargs):
    """An index with a tensor or a list in it: advanced indexing, whose
    gradient accumulates with index_put(accumulate=True)."""
    index = args[1] if len(args) > 1 else None
    items = index if isinstance(index, tuple) else (index,)
    return any(isinstance(i, (torch.Tensor, list)) for i in items)


def _always(args, kwargs):
    return True


# Exact going forward; the gradient is a scatter-add (gather, index_select,
# advanced indexing, take_along_dim) or a sum over copies (repeat,
# repeat_interleave, tile), which torch rounds in its own order.
_BACKWARD_SUMS = {
    T.__getitem__: _tensor_index, torch.gather: _always, T.gather: _always, torch.index_select: _always,
    T.index_select: _always, torch.take_along_dim: _always, T.take_along_dim: _always, T.repeat: _always,
    torch.repeat_interleave: _always, T.repeat_interleave: _always, torch.tile: _always, T.tile: _always,
}

# name -> RepDL handler, for every spelling: torch.<name> and Tensor.<name>
# (in-place ``<name>_`` methods get ``in_place(handler)``).
_BY_NAME = {
    "add": ops.add, "sub": ops.sub, "subtract": ops.sub, "mul": ops.mul, "multiply": ops.mul, "div": ops.div,
    "divide": ops.div, "true_divide": ops.div, "neg": ops.neg, "negative": ops.neg, "abs": ops.abs,
    "reciprocal": ops.reciprocal, "sqrt": ops.sqrt, "rsqrt": ops.rsqrt, "exp": ops.exp, "exp2": ops.exp2,
    "expm1": ops.expm1, "log": ops.log, "log2": ops.log2, "log10": ops.log10, "log1p": ops.log1p, "sin": ops.sin,
    "cos": ops.cos, "tanh": ops.tanh, "sigmoid": ops.sigmoid, "erf": ops.erf, "erfc": ops.erfc,
    "square": r.square, "pow": r.power, "clamp": r.clamp, "clip": r.clamp, "relu": ops.relu,
    "matmul": ops.matmul, "mm": ops.mm, "bmm": ops.bmm, "addmm": ops.addmm, "dot": ops.dot,
    "sum": ops.sum, "mean": ops.mean, "var": ops.var, "std": ops.std, "logsumexp": ops.logsumexp,
    "max": r.extremum(ops.max), "min": r.extremum(ops.min),
    "softmax": r.softmax_of(ops.softmax), "log_softmax": r.softmax_of(ops.log_softmax),
}
_IN_PLACE = ("add", "sub", "mul", "div", "neg", "abs", "reciprocal", "sqrt", "rsqrt", "exp", "expm1", "log",
             "log2", "log10", "log1p", "sin", "cos", "tanh", "sigmoid", "erf", "erfc", "pow", "clamp", "relu",
             "square", "true_divide", "clip")
# Python operators: name -> handler.
_OPERATORS = {
    "__add__": ops.add, "__radd__": ops.add, "__iadd__": r.in_place(ops.add),
    "__sub__": ops.sub, "__rsub__": r.reflected(ops.sub), "__isub__": r.in_place(ops.sub),
    "__mul__": ops.mul, "__rmul__": ops.mul, "__imul__": r.in_place(ops.mul),
    "__truediv__": ops.div, "__rtruediv__": r.reflected(ops.div), "__itruediv__": r.in_place(ops.div),
    "__div__": ops.div, "__rdiv__": r.reflected(ops.div), "__idiv__": r.in_place(ops.div),
    "__neg__": ops.neg, "__abs__": ops.abs, "__pow__": r.power, "__rpow__": r.reflected_power,
    "__ipow__": r.in_place(r.power), "__matmul__": ops.matmul, "__rmatmul__": r.reflected(ops.matmul),
}


def _functional():
    """torch.nn.functional's names that repdl.nn.functional offers, bound by
    torch's signature where the two differ (deprecated arguments)."""
    table = {}
    for name, ours in r.FUNCTIONAL.items():
        theirs = getattr(F, name)
        if name in ("softmax", "log_softmax"):
            handler = _BY_NAME[name]
        elif name.startswith("dropout"):
            handler = r.dropout_of(ours)
        else:
            try:
                params = inspect.signature(theirs).parameters
            except (TypeError, ValueError):  # a builtin: positional order is torch's, which RepDL's follows
                params = None
            # (*args, **kwargs): torch's boolean dispatch (max_pool2d), whose
            # forms RepDL's one signature takes.
            same = params is None or params.keys() == inspect.signature(ours).parameters.keys() or all(
                p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params.values())
            handler = ours if same else r.bound(theirs, ours)
        table[theirs] = _rerouted(handler)
    return table


def _build():
    table = {}
    for name, handler in _BY_NAME.items():
        for owner in (torch, T, torch.special):
            fn = getattr(owner, name, None)
            if fn is not None:
                table[fn] = _rerouted(handler)
    for name in _IN_PLACE:
        fn = getattr(T, f"{name}_", None)
        if fn is not None:
            table[fn] = _rerouted(r.in_place(_BY_NAME[name]))
    for name, handler in _OPERATORS.items():
        fn = getattr(T, name, None)
        if fn is not None:
            table[fn] = _rerouted(handler)
    table.update(_functional())
    table[torch.dropout] = _rerouted(r.torch_dropout)
    table[T.expand] = _rerouted(r.expand, floats_only=False)
    table[T.expand_as] = _rerouted(r.expand_as, floats_only=False)
    table[torch.broadcast_to] = table[T.broadcast_to] = _rerouted(r.expand, floats_only=False)
    # Random draws and initialisers: RepDL's stream (repdl.random).
    for fn, handler in ((torch.rand, r.rand), (torch.randn, r.randn), (torch.randint, r.randint),
                        (torch.randperm, r.randperm), (torch.rand_like, r.rand_like),
                        (torch.randn_like, r.randn_like), (torch.bernoulli, r.bernoulli),
                        (T.bernoulli, r.bernoulli), (T.bernoulli_, r.bernoulli_), (T.uniform_, r.uniform_),
                        (T.normal_, r.normal_), (T.random_, r.random_)):
        table[fn] = _rerouted(handler, floats_only=False)
    for name, handler in r.INIT.items():
        table[getattr(torch.nn.init, name)] = _rerouted(handler, floats_only=False)
    for fn, applies in _BACKWARD_SUMS.items():
        table[fn] = Entry(EXACT, UNSUPPORTED, applies=applies)
    return table


FUNCTIONS = _build()

_NAMES = {}


def function_name(func) -> str:
    """'torch.Tensor.mul', 'torch.nn.functional.layer_norm', ... (cached)."""
    name = _NAMES.get(func)
    if name is None:
        try:
            name = torch.overrides.resolve_name(func)
        except Exception:  # noqa: BLE001  (resolve_name raises on some descriptors)
            name = None
        name = _NAMES[func] = name or getattr(func, "__qualname__", None) or repr(func)
    return name


def odd_float_dtype(args, kwargs):
    """The first floating or complex dtype other than float32 among the
    tensors, or None."""
    for a in (*args, *kwargs.values()):
        for t in (a if isinstance(a, (list, tuple)) else (a,)):
            if isinstance(t, torch.Tensor) and t.dtype != torch.float32 and (
                    t.dtype.is_floating_point or t.dtype.is_complex):
                return t.dtype
    return None


# Namespaces whose ops touch no tensor values (the profiler's markers).
_NO_NUMBERS = {"profiler"}


_ALWAYS_EXACT = {}


def always_exact(func) -> bool:
    """Whether an aten op is exact whatever its arguments (it only moves,
    copies or allocates values), cached per op: the guard's fast path."""
    found = _ALWAYS_EXACT.get(func)
    if found is None:
        found = _ALWAYS_EXACT[func] = func.namespace in _NO_NUMBERS or (
            func.namespace in ("aten", "prim") and _aten.name(func) in _aten.MOVES)
    return found


def aten_class(func, args, kwargs) -> str:
    """The class of one aten call (an OpOverload with its arguments)."""
    if func.namespace == "repdl":
        return REROUTED
    if func.namespace in _NO_NUMBERS:
        return EXACT
    if not _aten.is_exact(func, args, kwargs):
        return UNSUPPORTED
    if _aten.name(func) not in _aten.MOVES and odd_float_dtype(args, kwargs) is not None:
        return UNSUPPORTED
    return EXACT


def aten_reason(func, args, kwargs) -> str:
    dtype = odd_float_dtype(args, kwargs)
    if dtype is not None and _aten.name(func) not in _aten.MOVES:
        return f"computes in {dtype} (RepDL's contract covers torch.float32)"
    return "rounds in torch's own way (not on the exact list, no RepDL counterpart at this level)"


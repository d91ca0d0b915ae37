"""repdl.reproducible: the drop-in mode's two layers and its settings.

* ``_Reroute`` (a TorchFunctionMode) meets torch functions, Tensor methods,
  operators and torch.nn.functional calls first, and reroutes those in the
  table (``table.FUNCTIONS``) to RepDL, backward included.
* ``_Guard`` (a TorchDispatchMode) sits below autograd and sees every aten
  op that runs outside RepDL's own code: in forward, in the autograd
  engine's backward, inside C++ and in optimizers.  It classifies each one
  (``table.aten_class``); nothing unclassified runs unnoticed.

Work inside RepDL (a rerouted call, a RepDL op's backward, the reference
backend, an optimizer step RepDL runs) runs below both layers
(repdl._trusted): the contract is its proof, and the test suite's
allow-list test checks it op by op.

Both torch modes are thread-local, so a mode covers the thread that entered
it; see ``reproducible``.
"""
import contextlib
import os
import sys
import threading
import warnings

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

from .. import _aten, _fpenv, _trusted
from .. import random as _random
from . import patches
from .table import (EXACT, FUNCTIONS, REROUTED, UNSUPPORTED, always_exact, aten_class, aten_reason,
                    function_name, odd_float_dtype)

__all__ = ["reproducible", "enable", "disable", "NonReproducibleError", "NonReproducibleWarning", "active"]


class NonReproducibleError(RuntimeError):
    """An op that RepDL cannot make reproducible ran under strict mode."""


class NonReproducibleWarning(UserWarning):
    """Non-strict mode ran torch's own op for one RepDL cannot make reproducible."""


_tls = threading.local()
_current_node = torch._C._current_autograd_node

# Files whose frames are not "the user's" in a call site: torch's and RepDL's.
_LIBRARY_DIRS = tuple(os.path.dirname(m.__file__) + os.sep for m in (torch, sys.modules["repdl"]))
_LIBRARY_FILES = (contextlib.__file__,)


def call_site() -> str:
    """'file:line' of the innermost frame outside torch and RepDL."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith(_LIBRARY_DIRS) and filename not in _LIBRARY_FILES:
            return f"{filename}:{frame.f_lineno}"
        frame = frame.f_back
    return "<unknown>"


class _Session:
    """One thread's mode: the stack of entered ``reproducible`` objects
    (innermost last, whose settings apply), the audit being recorded, if
    any, and which unsupported ops have been warned about."""

    def __init__(self):
        self.stack = []
        self.audit = None
        self.warned = set()
        self.modes = (_Guard(self), _Reroute(self))

    @property
    def strict(self) -> bool:
        return self.stack[-1].strict

    def unsupported(self, op: str, level: str, direction: str, reason: str) -> None:
        """Strict: raise.  Otherwise warn once per op and level (the caller
        then runs torch's op), and tell the audit."""
        site = call_site()
        if self.audit is not None:
            self.audit.unsupported(op, level, direction, site)
        message = (f"{op} ({level} level, {direction}) at {site}: {reason}; RepDL cannot make it reproducible")
        if self.strict:
            raise NonReproducibleError(message)
        key = (op, level, direction)
        if key not in self.warned and self.audit is None:
            self.warned.add(key)
            warnings.warn(message + " (torch's op ran; warned once per op)", NonReproducibleWarning, stacklevel=3)

    def run_rerouted(self, op: str, handler, fallback, args, kwargs):
        """handler(*args, **kwargs), RepDL's own work, below both layers
        (repdl._trusted).  RepDL's refusal of an argument
        (NotImplementedError, or its own TypeError, for a dtype or an option
        it has no graph for) makes the call unsupported: strict mode raises,
        non-strict mode runs ``fallback`` (torch's op)."""
        try:
            return _trusted.call(handler, *args, **kwargs)
        except (NotImplementedError, TypeError) as e:
            if isinstance(e, TypeError) and not str(e).startswith("repdl"):
                raise
            reason = str(e)
        self.unsupported(op, "function", "forward", reason)
        return fallback(*args, **kwargs)


def _records_grad(args, kwargs) -> bool:
    if not torch.is_grad_enabled():
        return False
    return any(isinstance(a, torch.Tensor) and a.requires_grad for a in (*args, *kwargs.values()))


class _Reroute(TorchFunctionMode):

    def __init__(self, session):
        super().__init__()
        self.session = session

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        session = self.session
        entry = FUNCTIONS.get(func)
        audit = session.audit
        if entry is None:
            if audit is not None:
                audit.seen("function", func, "passed to aten")
            return func(*args, **kwargs)
        if _in_repdl_backward():  # (on a thread other than the mode's: an engine's device thread)
            return func(*args, **kwargs)
        if entry.forward == REROUTED:
            if entry.floats_only and not _aten.float_args(args, kwargs):
                if audit is not None:
                    audit.seen("function", func, EXACT)
                return func(*args, **kwargs)
            dtype = odd_float_dtype(args, kwargs)
            if dtype is not None:
                session.unsupported(function_name(func), "function", "forward",
                                    f"a {dtype} tensor (RepDL's contract covers torch.float32)")
                return func(*args, **kwargs)
            if audit is not None:
                audit.seen("function", func, REROUTED)
            return session.run_rerouted(function_name(func), entry.handler, func, args, kwargs)
        # Exact forward; the backward may round (a scatter-add, a sum of copies).
        if entry.backward == UNSUPPORTED and entry.applies(args, kwargs) and _records_grad(args, kwargs):
            session.unsupported(function_name(func), "function", "backward",
                                "its gradient accumulates with torch's scatter-add or sum")
        elif audit is not None:
            audit.seen("function", func, EXACT)
        return func(*args, **kwargs)


_REPDL_NODES = {}


def _is_repdl_node(node_type) -> bool:
    """Whether an autograd node is the backward of a RepDL autograd.Function."""
    found = _REPDL_NODES.get(node_type)
    if found is None:
        cls = getattr(node_type, "_forward_cls", None)
        found = _REPDL_NODES[node_type] = cls is not None and cls.__module__.split(".")[0] == "repdl"
    return found


# ATen runs an elementwise op on the calling thread below this many elements
# (at::internal::GRAIN_SIZE).
_GRAIN = 32768


def _run(func, args, kwargs):
    """An allowed aten op.  IEEE arithmetic (one rounding per element) runs in
    the IEEE environment, so a caller's flush-to-zero cannot reach it: the
    autograd engine's gradient sums are such ops."""
    if _aten.name(func) not in _aten.IEEE:
        return func(*args, **kwargs)
    if all(a.numel() < _GRAIN for a in args if isinstance(a, torch.Tensor)):
        return _fpenv.ieee_call_inline(func, *args, **kwargs)
    return _fpenv.ieee_call(func, *args, **kwargs)


def _in_repdl_backward() -> bool:
    node = _current_node()
    return node is not None and _is_repdl_node(type(node))


class _Guard(TorchDispatchMode):

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        # torch wraps a dispatch mode's handler in torch._dynamo.disable
        # (about 5 us per aten op) so that torch.compile does not trace into
        # it; inside a drop-in mode compiled code runs eagerly, so nothing
        # would trace it anyway.
        return False

    def __init__(self, session):
        super().__init__()
        self.session = session

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        session = self.session
        if always_exact(func):  # views, copies, fills: exact in any context
            if session.audit is not None:
                session.audit.seen("aten", func, EXACT)
            return func(*args, **kwargs)
        if _fpenv.inside():
            return _run(func, args, kwargs)
        node = _current_node()
        if node is not None and _is_repdl_node(type(node)):
            # (the engine's gradient sums run here too: the node is the
            # producer whose output is being accumulated)
            return _run(func, args, kwargs)
        cls = aten_class(func, args, kwargs)
        if cls == UNSUPPORTED:
            direction = "forward" if node is None else f"backward of {node.name()}"
            session.unsupported(str(func), "aten", direction, aten_reason(func, args, kwargs))
        elif session.audit is not None:
            session.audit.seen("aten", func, cls)
        return _run(func, args, kwargs)


# torch.compile inside the mode runs eagerly (compiled kernels are not the
# contract): one process-wide stance held while any thread is in a mode.
_stance_lock = threading.Lock()
_stance_users = 0
_stance = None


def _hold_eager_stance(delta: int) -> None:
    global _stance_users, _stance
    with _stance_lock:
        _stance_users += delta
        if delta > 0 and _stance_users == 1:
            _stance = torch.compiler.set_stance("force_eager")
        elif delta < 0 and _stance_users == 0:
            _stance.__exit__(None, None, None)
            _stance = None


def active() -> bool:
    """Whether the calling thread is inside a drop-in mode."""
    return getattr(_tls, "session", None) is not None


class reproducible(contextlib.ContextDecorator):
    """Run unmodified PyTorch code reproducibly: ``with
    repdl.reproducible():``, ``@repdl.reproducible()``, or
    ``repdl.enable()`` ... ``repdl.disable()``.

    Inside, torch calls that RepDL computes are rerouted to RepDL (forward
    and backward), every aten op that runs is checked against the
    classification (repdl.dropin.table), random draws and initialisers use
    RepDL's stream, torch.optim's SGD/Adam/AdamW/RMSprop/Adagrad steps and
    torch's LR schedulers run RepDL's arithmetic, and torch.compile'd
    callables run eagerly.  ``strict=True``: an op RepDL cannot make
    reproducible raises NonReproducibleError naming it, its level and the
    call site; ``strict=False``: it warns once per op and runs torch's.
    ``seed``: ``repdl.manual_seed(seed)`` on entry.

    Nesting: the innermost mode's ``strict`` applies inside it; leaving it
    restores the outer one's.  Threads: torch's modes are thread-local, so
    the mode covers the thread that entered it, and a thread started inside
    it runs plain torch unless it enters a mode itself (the same object may
    be entered on several threads).  Leaving a mode that is not the calling
    thread's innermost raises RuntimeError."""

    def __init__(self, strict: bool = True, seed=None):
        if not isinstance(strict, bool):
            raise TypeError(f"repdl.reproducible: strict must be a bool, got {type(strict).__name__}")
        if seed is not None:
            _random.Generator(seed)  # validates the seed before anything runs
        self.strict = strict
        self.seed = seed

    def __enter__(self):
        session = getattr(_tls, "session", None)
        if session is None:
            patches.install()
            session = _Session()
            _hold_eager_stance(+1)
            for mode in session.modes:
                mode.__enter__()
            _tls.session = session
            _trusted.set_dropin_active(True)
        session.stack.append(self)
        if self.seed is not None:
            _random.manual_seed(self.seed)
        return self

    def __exit__(self, *exc):
        session = getattr(_tls, "session", None)
        if session is None or session.stack[-1] is not self:
            raise RuntimeError("repdl.reproducible: leaving a mode that is not this thread's innermost one")
        session.stack.pop()
        if not session.stack:
            _tls.session = None
            _trusted.set_dropin_active(False)
            for mode in reversed(session.modes):
                mode.__exit__(None, None, None)
            _hold_eager_stance(-1)
        return False


def current_session():
    """The calling thread's session, or None (for patches and the audit)."""
    return getattr(_tls, "session", None)


def enable(strict: bool = True, seed=None) -> reproducible:
    """Enter a drop-in mode on the calling thread until ``disable()``."""
    if getattr(_tls, "enabled", None) is not None:
        raise RuntimeError("repdl.enable: already enabled on this thread (call repdl.disable() first)")
    mode = reproducible(strict, seed)
    mode.__enter__()
    _tls.enabled = mode
    return mode


def disable() -> None:
    """Leave the mode ``enable()`` entered on this thread."""
    mode = getattr(_tls, "enabled", None)
    if mode is None:
        raise RuntimeError("repdl.disable: repdl.enable() was not called on this thread")
    mode.__exit__(None, None, None)
    _tls.enabled = None

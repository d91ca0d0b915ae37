"""What the drop-in mode changes in torch's Python classes: optimizer steps,
LR schedules, torch.nn.init and RandomSampler.

These are Python-level algorithms whose ops alone do not say what they
compute (an Adam step is a dozen fused foreach calls; a schedule is float
arithmetic outside any tensor), so the mode replaces the algorithm itself
with RepDL's.  Each patch is a switch installed once, on the first entry
into a mode: on a thread inside a mode it runs RepDL's version, anywhere
else torch's original, so code outside the mode is unaffected.
"""
import functools
import sys

import torch
import torch.nn.init as _torch_init
import torch.optim.lr_scheduler as _torch_schedulers
from torch.utils.data import RandomSampler

from .. import optim as _optim
from .. import random as _random
from ..optim import lr_scheduler as _schedulers
from ..random.data import _seed_from
from . import _reroutes

__all__ = ["install"]

_installed = set()


def _in_mode() -> bool:
    from .mode import active
    return active()


def _switch(theirs, ours):
    """Calls ``ours`` inside a mode (as a rerouted call: an argument RepDL
    refuses makes it unsupported), ``theirs`` outside."""
    from .mode import current_session
    name = f"{theirs.__module__}.{theirs.__qualname__}"

    @functools.wraps(theirs)
    def switch(*args, **kwargs):
        session = current_session()
        if session is None:
            return theirs(*args, **kwargs)
        return session.run_rerouted(name, ours, theirs, args, kwargs)

    switch.repdl_original = theirs
    return switch


def _optimizers():
    """torch.optim.<X>.step -> repdl.optim.<X>.step, whatever foreach=,
    fused= or the for-loop path the user chose: RepDL's step reads the same
    param_groups and keeps torch's state format."""
    for name in _optim.__all__:
        ours = getattr(_optim, name)
        if not isinstance(ours, type):
            continue
        cls = getattr(torch.optim, name)
        step = cls.step
        hooked = getattr(step, "hooked", False)
        theirs = step.__wrapped__ if hooked else step
        switch = _switch(theirs, ours.step)
        if hooked:  # keep torch's optimizer hooks, which wrap step once
            switch = torch.optim.Optimizer.profile_hook_step(switch)
            switch.hooked = True
        cls.step = switch


def _lr_schedulers():
    """Every method a repdl.optim.lr_scheduler class overrides (get_lr, the
    closed forms, its annealing helpers) switches on torch's class."""
    for name in _schedulers.__all__:
        ours = getattr(_schedulers, name)
        theirs_cls = getattr(_torch_schedulers, name)
        if ours is theirs_cls:
            continue
        for attr, value in vars(ours).items():
            if attr in ("__module__", "__doc__", "__qualname__") or attr not in vars(theirs_cls):
                continue
            theirs = vars(theirs_cls)[attr]
            if isinstance(value, staticmethod):
                setattr(theirs_cls, attr, staticmethod(_switch(theirs.__func__, value.__func__)))
            elif callable(value):
                setattr(theirs_cls, attr, _switch(theirs, value))


def _init_functions():
    """torch.nn.init's initialisers, as torch.nn's reset_parameters calls
    them (``init.kaiming_uniform_``)."""
    for name, ours in _reroutes.INIT.items():
        setattr(_torch_init, name, _switch(getattr(_torch_init, name), ours))


def _transformers_init():
    """HuggingFace's transformers.initialization keeps torch.nn.init's
    functions in a dict taken at its import (TORCH_INIT_FUNCTIONS): those
    entries switch too, once transformers is imported."""
    module = sys.modules.get("transformers.initialization")
    table = getattr(module, "TORCH_INIT_FUNCTIONS", None)
    if table is None:
        return False
    for name, ours in _reroutes.INIT.items():
        theirs = table.get(name)
        if theirs is not None:
            table[name] = _switch(getattr(theirs, "repdl_original", theirs), ours)
    return True


def _sampler():
    """A RandomSampler created inside a mode shuffles from RepDL's stream,
    wherever it is iterated: a generator of its own, seeded from the given
    torch.Generator's seed or from RepDL's default stream, and each epoch
    the next randperm (or randint, with replacement) of it."""
    init, iterate = RandomSampler.__init__, RandomSampler.__iter__

    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        init(self, *args, **kwargs)
        if _in_mode():
            self._repdl_generator = (_reroutes.repdl_generator(self.generator) if self.generator is not None
                                     else _random.Generator(_seed_from(_random.default_generator)))

    @functools.wraps(iterate)
    def __iter__(self):
        g = getattr(self, "_repdl_generator", None)
        if g is None:
            yield from iterate(self)
            return
        n = len(self.data_source)
        if self.replacement:
            yield from _random.randint(0, n, (self.num_samples,), generator=g).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from _random.randperm(n, generator=g).tolist()
        yield from _random.randperm(n, generator=g).tolist()[:self.num_samples % n]

    RandomSampler.__init__, RandomSampler.__iter__ = __init__, __iter__


def install() -> None:
    """Install every patch not yet installed (idempotent; cheap to repeat)."""
    for patch in (_optimizers, _lr_schedulers, _init_functions, _sampler):
        if patch not in _installed:
            patch()
            _installed.add(patch)
    if _transformers_init not in _installed and _transformers_init():
        _installed.add(_transformers_init)

"""Checkpoints that resume a training run bit for bit, load without
running code, and never half-load.

    repdl.checkpoint.save(path, model=model, optimizer=opt, scheduler=sched,
                          rng=repdl.random.default_generator, sampler=sampler,
                          progress={"epoch": 3, "step": 120})
    ...
    progress = repdl.checkpoint.load(path, model=model, optimizer=opt, scheduler=sched,
                                     rng=repdl.random.default_generator, sampler=sampler)["progress"]

Every keyword names one entry: an object with ``state_dict`` /
``load_state_dict`` (modules, optimizers, schedulers, RandomSampler), a
repdl.random.Generator (its two integers), or plain data (tensors,
numbers, strings, lists, dicts), which ``load`` returns.

- The file is written to a temporary file beside `path`, flushed to disk,
  then renamed over `path` (atomic on POSIX and Windows): an interrupted
  save leaves the previous checkpoint as it was.
- It holds only what ``torch.load(weights_only=True)`` accepts, and is read
  that way, so loading can never execute code.
- A SHA-256 of the content (repdl.utils.get_hash) is stored with it; a
  truncated or altered file raises CheckpointError.
- ``load`` checks every entry against its object (names, shapes, dtypes,
  parameter counts, generator states) before it changes any of them.
"""
import os
import tempfile

import torch

from .random import Generator
from .verify import get_hash

__all__ = ["save", "load", "CheckpointError"]

_FORMAT = "repdl-checkpoint"
_VERSION = 1


class CheckpointError(RuntimeError):
    """A checkpoint that cannot be read, is damaged, or does not fit the objects given."""


def _capture(name, obj):
    if isinstance(obj, Generator):
        return {"kind": "generator", "state": obj.get_state()}
    if hasattr(obj, "state_dict"):
        return {"kind": "state_dict", "state": obj.state_dict()}
    return {"kind": "data", "state": obj}


def save(path, **entries) -> None:
    """Write `entries` (see the module docstring) to `path` atomically."""
    payload = {name: _capture(name, obj) for name, obj in entries.items()}
    record = {"format": _FORMAT, "version": _VERSION, "sha256": get_hash(payload), "payload": payload}
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            torch.save(record, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    if hasattr(os, "O_DIRECTORY"):  # make the rename itself durable
        dfd = os.open(directory, os.O_DIRECTORY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def _read(path):
    try:
        record = torch.load(path, map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise
    except Exception as e:  # truncated zip, bad pickle, a forbidden global
        raise CheckpointError(f"repdl.checkpoint.load: {path} is not a readable checkpoint ({type(e).__name__}: "
                              f"{e})") from e
    if not isinstance(record, dict) or record.get("format") != _FORMAT:
        raise CheckpointError(f"repdl.checkpoint.load: {path} is not a RepDL checkpoint")
    if record.get("version") != _VERSION:
        raise CheckpointError(f"repdl.checkpoint.load: {path} has format version {record.get('version')}; this "
                              f"RepDL reads version {_VERSION}")
    payload = record.get("payload")
    if not isinstance(payload, dict) or get_hash(payload) != record.get("sha256"):
        raise CheckpointError(f"repdl.checkpoint.load: {path} is damaged (its content does not match its SHA-256)")
    return payload


def _check_module(name, module, state):
    own = module.state_dict()
    missing, unexpected = own.keys() - state.keys(), state.keys() - own.keys()
    if missing or unexpected:
        raise CheckpointError(f"repdl.checkpoint.load: '{name}' does not match: missing {sorted(missing)}, "
                              f"unexpected {sorted(unexpected)}")
    for key, value in own.items():
        saved = state[key]
        if saved.shape != value.shape or saved.dtype != value.dtype:
            raise CheckpointError(f"repdl.checkpoint.load: '{name}.{key}' is {saved.dtype} {tuple(saved.shape)} in "
                                  f"the checkpoint, {value.dtype} {tuple(value.shape)} here")


def _check_optimizer(name, optimizer, state):
    groups, saved = optimizer.param_groups, state.get("param_groups", [])
    counts, saved_counts = [len(g["params"]) for g in groups], [len(g["params"]) for g in saved]
    if counts != saved_counts:
        raise CheckpointError(f"repdl.checkpoint.load: '{name}' has parameter groups of sizes {counts}, the "
                              f"checkpoint {saved_counts}")
    params = [p for g in groups for p in g["params"]]
    indices = [i for g in saved for i in g["params"]]
    for index, p in zip(indices, params):
        for key, value in state.get("state", {}).get(index, {}).items():
            if isinstance(value, torch.Tensor) and value.dim() > 0 and value.shape != p.shape:
                raise CheckpointError(f"repdl.checkpoint.load: '{name}' state '{key}' of parameter {index} is "
                                      f"{tuple(value.shape)}, the parameter {tuple(p.shape)}")


def _check(name, obj, entry):
    kind, state = entry["kind"], entry["state"]
    expected = _capture(name, obj)["kind"]
    if kind != expected:
        raise CheckpointError(f"repdl.checkpoint.load: '{name}' was saved as {kind}, but a {type(obj).__name__} "
                              f"({expected}) was given")
    if isinstance(obj, torch.nn.Module):
        _check_module(name, obj, state)
    elif isinstance(obj, torch.optim.Optimizer):
        _check_optimizer(name, obj, state)
    elif isinstance(obj, Generator):
        try:
            Generator().set_state(state)
        except (TypeError, ValueError) as e:
            raise CheckpointError(f"repdl.checkpoint.load: '{name}': {e}") from e


def load(path, **objects) -> dict:
    """Read `path` and restore each named object from its entry (in the
    order given: put the model before its optimizer).  Returns every entry's
    state by name (plain data as saved).  Raises CheckpointError, before
    changing anything, when the file is damaged or an entry is missing or
    does not fit its object."""
    payload = _read(os.fspath(path))
    for name, obj in objects.items():
        if name not in payload:
            raise CheckpointError(f"repdl.checkpoint.load: {path} has no entry '{name}' (it has "
                                  f"{sorted(payload)})")
        _check(name, obj, payload[name])
    for name, obj in objects.items():
        state = payload[name]["state"]
        if isinstance(obj, Generator):
            obj.set_state(state)
        elif obj is not None and hasattr(obj, "load_state_dict"):
            obj.load_state_dict(state)
    return {name: entry["state"] for name, entry in payload.items()}

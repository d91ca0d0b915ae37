"""Hashes of tensors and state, for checking that two runs agree bit for bit,
and the API through which a script reports them to ``repdl verify``."""
import ctypes
import json
import os
import struct
import hashlib
import numbers

import torch


def tensor_hash(t: torch.Tensor) -> str:
    """SHA-256 of a tensor's dtype, shape and bit patterns (row-major)."""
    t = t.detach().to("cpu").contiguous()
    h = hashlib.sha256(f"{t.dtype}|{tuple(t.shape)}|".encode())
    nbytes = t.numel() * t.element_size()
    if nbytes:
        h.update(ctypes.string_at(t.data_ptr(), nbytes))
    return h.hexdigest()


def state_hash(tensors) -> str:
    """SHA-256 over an ordered collection of tensors (e.g. a state_dict's values)."""
    h = hashlib.sha256()
    for t in tensors:
        h.update(tensor_hash(t).encode())
    return h.hexdigest()


def pattern(*shape, salt: int = 0) -> torch.Tensor:
    """A float32 tensor of values in [-0.5, 0.5) that is the same on every
    machine: an integer hash of the element's position, scaled by 2^-24
    (exactly).  For inputs of reproducibility checks, where torch.randn will
    not do (its values depend on the CPU's instruction set)."""
    n = 1
    for s in shape:
        n *= s
    i = torch.arange(n, dtype=torch.int64) + salt * 1_000_003
    h = (i * 2654435761 + 12345) % (1 << 24)
    return (h.to(torch.float32) * (2.0 ** -24) - 0.5).reshape(shape)


_HASH_TAG = b"repdl-hash-1\0"


def _entries(obj, path):
    """(path, leaf) pairs of obj in the order get_hash documents."""
    if isinstance(obj, torch.Tensor):
        yield path, obj
    elif obj is None or isinstance(obj, (bool, str)):
        yield path, obj
    elif isinstance(obj, numbers.Integral):
        yield path, int(obj)
    elif isinstance(obj, numbers.Real):
        yield path, float(obj)
    elif isinstance(obj, dict):
        for key, value in obj.items():
            yield from _entries(value, f"{path}.{key}" if path else str(key))
    elif isinstance(obj, (list, tuple)):
        for i, value in enumerate(obj):
            yield from _entries(value, f"{path}.{i}" if path else str(i))
    elif hasattr(obj, "state_dict"):  # modules, optimizers, schedulers
        yield from _entries(obj.state_dict(), path)
    elif hasattr(obj, "get_state"):  # repdl.random.Generator
        yield from _entries(obj.get_state(), path)
    else:
        raise TypeError(f"repdl.utils.get_hash: cannot hash a {type(obj).__name__} (at {path or 'the top'}); "
                        "tensors, modules, optimizers, schedulers, generators, dicts, lists, numbers and strings can")


def _field(h, data: bytes):
    h.update(struct.pack("<Q", len(data)))
    h.update(data)


def get_hash(obj) -> str:
    """SHA-256 (hex) of obj's state, in this order and encoding:

    - obj is flattened into (path, leaf) pairs, depth first: a module,
      optimizer or scheduler as its ``state_dict()`` (a module's holds its
      parameters *and* buffers, such as BatchNorm's running statistics), a
      repdl Generator as its state, dicts in their order, lists and tuples
      by index; paths join keys with ``.``; a lone tensor has path "".
    - Each pair adds, each field prefixed by its byte length as a
      little-endian uint64: the path (UTF-8); then for a tensor the tag
      ``T``, ``str(dtype)``, the shape as little-endian int64s and the raw
      bytes of its elements in row-major order (as stored on a
      little-endian machine); for a float ``F`` and its IEEE double; for
      an int, bool, str or None a one-letter tag and its text.
    - The digest starts from the tag ``repdl-hash-1`` and a NUL.

    Names, shapes and dtypes take part, so a renamed parameter or a
    transposed weight changes the hash as much as a changed bit."""
    h = hashlib.sha256(_HASH_TAG)
    for path, leaf in _entries(obj, ""):
        _field(h, path.encode())
        if isinstance(leaf, torch.Tensor):
            if leaf.layout != torch.strided:
                raise TypeError(f"repdl.utils.get_hash: {path or 'the tensor'} has layout {leaf.layout}; "
                                "dense tensors only")
            t = leaf.detach().to("cpu").contiguous()
            _field(h, b"T")
            _field(h, str(t.dtype).encode())
            _field(h, struct.pack(f"<{t.dim()}q", *t.shape))
            _field(h, ctypes.string_at(t.data_ptr(), t.numel() * t.element_size()) if t.numel() else b"")
        elif isinstance(leaf, float):
            _field(h, b"F")
            _field(h, struct.pack("<d", leaf))
        else:
            _field(h, b"B" if isinstance(leaf, bool) else b"I" if isinstance(leaf, int) else
                   b"S" if isinstance(leaf, str) else b"N")
            _field(h, str(leaf).encode())
    return h.hexdigest()


# ---- reporting to `repdl verify` ---------------------------------------------------------
# Under `repdl verify` each cell's process gets REPDL_VERIFY_REPORT, a file to
# which every report appends one JSON line; run by hand, a report is printed.

def report(name: str, obj) -> str:
    """Report get_hash(obj) under `name` (a tensor, module, optimizer,
    state_dict, list of these...): ``repdl verify`` compares these across
    its environments and against golden files.  Returns the hash."""
    digest = get_hash(obj)
    report_hash(name, digest)
    return digest


def report_hash(name: str, digest: str) -> None:
    """Report an already computed hash under `name`."""
    _emit("hash", name, digest)


def report_metric(name: str, value: float) -> None:
    """Report a number that is shown, not compared (an accuracy, a loss)."""
    _emit("metric", name, float(value))


def device() -> str:
    """The device this verification cell asks the job to run on ("cpu"
    unless ``repdl verify`` runs a device cell)."""
    return os.environ.get("REPDL_VERIFY_DEVICE", "cpu")


def _emit(kind, name, value):
    if not isinstance(name, str) or not name:
        raise ValueError(f"repdl.verify.report: name must be a non-empty string, got {name!r}")
    path = os.environ.get("REPDL_VERIFY_REPORT")
    if path is None:
        print(f"[repdl.verify] {name}: {value}")
        return
    with open(path, "a") as f:
        f.write(json.dumps({"kind": kind, "name": name, "value": value}) + "\n")

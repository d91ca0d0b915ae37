"""repdl.random.Generator: a seed and a position in RepDL's Philox stream.

A generator is two integers: ``seed`` (the Philox key) and ``offset`` (the
next unused 128-bit block).  A draw reserves the blocks it needs, advancing
``offset``, and computes its values from (seed, first block) alone, so the
values never depend on the device, the thread count or what ran before in
the process.  See docs/CONTRACT.md section 7.
"""
import operator
import threading

import torch

__all__ = ["Generator", "default_generator", "manual_seed", "initial_seed", "get_rng_state", "set_rng_state"]

_U64 = 1 << 64
# get_state()'s first element: "RPDL" plus a layout version, so a state from
# somewhere else (torch's ByteTensor, a future layout) is refused clearly.
STATE_TAG = 0x5250444C_00000001


def _as_u64(value, what: str) -> int:
    """value as a Python int in [0, 2**64): TypeError for non-integers (bool
    and float included), ValueError outside the range."""
    if isinstance(value, bool) or isinstance(value, float):
        raise TypeError(f"repdl.random: {what} must be an integer, got {type(value).__name__} {value!r}")
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"repdl.random: {what} must be an integer, got {type(value).__name__}") from None
    if not 0 <= v < _U64:
        raise ValueError(f"repdl.random: {what} must be in [0, 2**64), got {v}")
    return v


def _signed(v: int) -> int:
    return v - _U64 if v >= 1 << 63 else v


class Generator:
    """A reproducible random stream: Philox4x32-10 keyed by ``seed``.

    ``Generator(seed)`` starts at offset 0.  Every function in
    ``repdl.random`` takes ``generator=``; without one it uses the default
    generator (``repdl.manual_seed``).  The state is two integers
    (``get_state``/``set_state``, pickling, ``torch.save``), so a run stopped
    anywhere resumes the identical stream in a new process.
    """

    __slots__ = ("_seed", "_offset", "_lock")

    def __init__(self, seed: int = 0):
        self._seed = _as_u64(seed, "seed")
        self._offset = 0
        self._lock = threading.Lock()

    # ---- torch.Generator-style API ----------------------------------------

    def manual_seed(self, seed: int) -> "Generator":
        """Restart at (seed, offset 0).  Returns self."""
        self._seed = _as_u64(seed, "seed")
        self._offset = 0
        return self

    def initial_seed(self) -> int:
        """The seed (the Philox key as one integer in [0, 2**64))."""
        return self._seed

    def seed(self):
        """torch.Generator.seed() reseeds from the clock or the OS; a
        reproducible generator does not offer that.  Use manual_seed(s)."""
        raise NotImplementedError(
            "repdl.random.Generator.seed(): non-deterministic seeding is not offered; use manual_seed(seed), "
            "and initial_seed() to read the seed")

    @property
    def offset(self) -> int:
        """The next unused block (each block is four 32-bit words)."""
        return self._offset

    def get_offset(self) -> int:
        return self._offset

    def set_offset(self, offset: int) -> "Generator":
        """Jump to block `offset` of this seed's stream.  Returns self."""
        self._offset = _as_u64(offset, "offset")
        return self

    def get_state(self) -> torch.Tensor:
        """The state as a CPU int64 tensor [tag, seed, offset] (seed and
        offset as two's-complement 64-bit values); ``set_state`` restores it."""
        return torch.tensor([_signed(STATE_TAG), _signed(self._seed), _signed(self._offset)], dtype=torch.int64,
                            device="cpu")

    def set_state(self, state: torch.Tensor) -> "Generator":
        """Restore a state from ``get_state``.  Returns self."""
        if not isinstance(state, torch.Tensor):
            raise TypeError(f"repdl.random: set_state expects the tensor from get_state(), got {type(state).__name__}")
        if state.dtype != torch.int64 or state.shape != (3,):
            raise ValueError(
                f"repdl.random: set_state expects an int64 tensor of shape (3,) from get_state(), got "
                f"{state.dtype} of shape {tuple(state.shape)} (torch.Generator states are not RepDL states)")
        tag, seed, offset = (v % _U64 for v in state.tolist())
        if tag != STATE_TAG:
            raise ValueError(f"repdl.random: not a RepDL generator state (tag {tag:#x}, expected {STATE_TAG:#x})")
        self._seed, self._offset = seed, offset
        return self

    def clone(self) -> "Generator":
        """An independent generator at the same seed and offset."""
        g = Generator(self._seed)
        g._offset = self._offset
        return g

    # ---- pickling, printing, comparing -----------------------------------

    def __getstate__(self):
        return {"seed": self._seed, "offset": self._offset}

    def __setstate__(self, state):
        self._seed = _as_u64(state["seed"], "seed")
        self._offset = _as_u64(state["offset"], "offset")
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"repdl.random.Generator(seed={self._seed}, offset={self._offset})"

    def __eq__(self, other) -> bool:
        if not isinstance(other, Generator):
            return NotImplemented
        return self._seed == other._seed and self._offset == other._offset

    __hash__ = None  # mutable

    # ---- for the draw functions ------------------------------------------

    def _reserve(self, nblocks: int):
        """(seed, first block) of a draw of `nblocks` blocks; advances offset.
        Atomic: draws from several Python threads never share blocks (their
        order is then up to the threads, as with any shared generator)."""
        with self._lock:
            start = self._offset
            end = start + nblocks
            if end >= _U64:  # the offset must stay a 64-bit number
                raise OverflowError(
                    f"repdl.random: this draw needs {nblocks} blocks but only {_U64 - 1 - start} remain before the "
                    f"stream's end (offset {start}); reseed or set_offset")
            self._offset = end
            return self._seed, start


default_generator = Generator(0)


def manual_seed(seed: int) -> Generator:
    """Seed the default generator: it restarts at (seed, offset 0).  Returns it.

    Only RepDL's stream is seeded; torch's generators are left alone."""
    return default_generator.manual_seed(seed)


def initial_seed() -> int:
    """The default generator's seed."""
    return default_generator.initial_seed()


def get_rng_state() -> torch.Tensor:
    """The default generator's state (see Generator.get_state)."""
    return default_generator.get_state()


def set_rng_state(state: torch.Tensor) -> None:
    """Restore the default generator's state."""
    default_generator.set_state(state)

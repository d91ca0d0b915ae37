"""Data order and per-sample randomness from RepDL's stream.

``RandomSampler``: epoch e's order is the (e + 1)-th successive
``randperm(n)`` of ``Generator(seed)``: randperm consumes exactly
ceil(n / 2) blocks, so it is ``randperm(n)`` drawn at offset
e * ceil(n / 2).  It depends on (seed, n, e) only: not on the process, the
device, the number of DataLoader workers, or what else was drawn.  With
several replicas (distributed data parallel) the order is split as torch's
DistributedSampler splits it.

``sample_generator(seed, epoch, index)``: a generator of its own for each
sample of each epoch, so that a Dataset's ``__getitem__`` can draw its
augmentation inside any DataLoader worker, in any order, and get the same
values for every ``num_workers``.  (CONTRACT.md section 7, "Data".)
"""
import math

import torch
from torch.utils.data import Sampler

from . import _args, _reference
from ._draws import randperm
from ._generator import Generator, _as_u64

__all__ = ["RandomSampler", "sample_generator"]

# Key tweak of the per-sample derivation ("SAMP"): its blocks are computed
# under another key than the seed's own stream, so no derived seed is a
# block of that stream.
_SAMPLE_KEY_TWEAK = 0x53414D50


def _block(seed: int, c0: int, c1: int, c2: int, c3: int, tweak: int = 0):
    k0, k1 = _reference.key_of_seed(seed)
    counter = (torch.tensor([c], dtype=torch.int64, device="cpu") for c in (c0, c1, c2, c3))
    words = _reference.philox4x32_10(*counter, k0 ^ tweak, k1)
    return [int(w) for w in words]


def sample_generator(seed: int, epoch: int, index: int) -> Generator:
    """``Generator(s)`` where s = W0 + 2^32 W1 of the Philox block with
    counter (index mod 2^32, index // 2^32, epoch mod 2^32, epoch // 2^32)
    under the key of `seed` with k0 xor 0x53414D50.

    Call it in ``Dataset.__getitem__`` with the epoch the dataset was told
    (set an ``epoch`` attribute on the dataset before each epoch, as with
    DistributedSampler.set_epoch) and the sample's index:

        g = repdl.random.sample_generator(self.seed, self.epoch, index)
        x = repdl.random.random_crop(x, 28, padding=2, generator=g)
    """
    seed = _as_u64(seed, "seed")
    epoch, index = _as_u64(epoch, "epoch"), _as_u64(index, "index")
    w = _block(seed, index & 0xFFFFFFFF, index >> 32, epoch & 0xFFFFFFFF, epoch >> 32, _SAMPLE_KEY_TWEAK)
    return Generator(w[0] | (w[1] << 32))


def _seed_from(generator: Generator) -> int:
    """A seed drawn from `generator`: W0 + 2^32 W1 of its next block (one
    block consumed), as torch's samplers draw theirs from generator=."""
    seed, offset = generator._reserve(1)
    w = _block(seed, offset & 0xFFFFFFFF, offset >> 32, 0, 0)
    return w[0] | (w[1] << 32)


class RandomSampler(Sampler):
    """Reproducible shuffling for torch.utils.data.DataLoader.

    RandomSampler(data_source, seed=None, *, generator=None, shuffle=True,
    num_replicas=1, rank=0, drop_last=False).  ``data_source`` is a sized
    dataset or the number of items.  The orders come from ``seed`` (0 when
    neither is given) or from a seed drawn once from ``generator`` (a
    repdl.random.Generator, advanced by one block), not both.  Call
    ``set_epoch(e)`` before each epoch, as with DistributedSampler;
    ``set_epoch(e, start=k)`` resumes epoch e after its first k indices (of
    this replica), for a job restarted mid-epoch.  ``state_dict()`` holds
    seed, epoch and start, for checkpoints.

    With num_replicas = R: the epoch's order is padded by repeating its start
    (or cut, with drop_last) to a multiple of R, and replica ``rank`` takes
    every R-th index starting at ``rank``, exactly as DistributedSampler.
    """

    def __init__(self, data_source, seed=None, *, generator=None, shuffle=True, num_replicas=1, rank=0,
                 drop_last=False):
        if isinstance(data_source, int) and not isinstance(data_source, bool):
            n = data_source
        else:
            try:
                n = len(data_source)
            except TypeError:
                raise TypeError("repdl.random.RandomSampler: data_source must be sized (a dataset) or an int") from None
        if n < 0:
            raise ValueError(f"repdl.random.RandomSampler: the number of items must be >= 0, got {n}")
        if generator is not None:
            if seed is not None:
                raise TypeError("repdl.random.RandomSampler: give seed= or generator=, not both")
            self._seed = _seed_from(_args.generator("RandomSampler", generator))
        else:
            self._seed = Generator(0 if seed is None else seed).initial_seed()  # validates the seed
        num_replicas = _args.integer("RandomSampler", "num_replicas", num_replicas)
        rank = _args.integer("RandomSampler", "rank", rank)
        if num_replicas < 1 or not 0 <= rank < num_replicas:
            raise ValueError(f"repdl.random.RandomSampler: need num_replicas >= 1 and 0 <= rank < num_replicas, "
                             f"got num_replicas={num_replicas}, rank={rank}")
        self.n = n
        self.shuffle = bool(shuffle)
        self.num_replicas = num_replicas
        self.rank = rank
        self.drop_last = bool(drop_last)
        if self.drop_last and n % num_replicas:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.epoch = 0
        self.start = 0

    @property
    def seed(self) -> int:
        return self._seed

    def set_epoch(self, epoch: int, start: int = 0) -> None:
        """Select epoch `epoch` (>= 0); skip the first `start` indices of it."""
        epoch = _args.integer("RandomSampler.set_epoch", "epoch", epoch)
        start = _args.integer("RandomSampler.set_epoch", "start", start)
        if epoch < 0:
            raise ValueError(f"repdl.random.RandomSampler.set_epoch: epoch must be >= 0, got {epoch}")
        if not 0 <= start <= self.num_samples:
            raise ValueError(
                f"repdl.random.RandomSampler.set_epoch: start must be in [0, {self.num_samples}], got {start}")
        self.epoch, self.start = epoch, start

    def state_dict(self) -> dict:
        """seed, epoch and start (and n, checked on loading)."""
        return {"seed": self._seed, "n": self.n, "epoch": self.epoch, "start": self.start}

    def load_state_dict(self, state: dict) -> None:
        if state["n"] != self.n:
            raise ValueError(f"repdl.random.RandomSampler.load_state_dict: the state is for {state['n']} items, "
                             f"this sampler has {self.n}")
        self._seed = _as_u64(state["seed"], "seed")
        self.set_epoch(state["epoch"], state["start"])

    def order(self, epoch: int) -> torch.Tensor:
        """Epoch `epoch`'s full order of all n items (before the replica split)."""
        if not self.shuffle:
            return torch.arange(self.n, device="cpu")
        g = Generator(self._seed).set_offset(epoch * _args.blocks(self.n, 2))
        return randperm(self.n, generator=g, device="cpu")

    def indices(self, epoch: int) -> list:
        """This replica's indices for epoch `epoch`, as a list."""
        idx = self.order(epoch).tolist()
        if not self.drop_last:
            pad = self.total_size - len(idx)
            if pad > 0 and idx:
                idx += (idx * math.ceil(pad / len(idx)))[:pad]
        else:
            idx = idx[:self.total_size]
        return idx[self.rank:self.total_size:self.num_replicas]

    def __iter__(self):
        return iter(self.indices(self.epoch)[self.start:])

    def __len__(self) -> int:
        return self.num_samples - self.start

    def __repr__(self) -> str:
        return (f"repdl.random.RandomSampler(n={self.n}, seed={self._seed}, epoch={self.epoch}, "
                f"shuffle={self.shuffle}, "
                f"num_replicas={self.num_replicas}, rank={self.rank}, drop_last={self.drop_last})")

"""A DataLoader sampler whose epoch shuffles come from RepDL's stream.

Epoch e's order is the (e + 1)-th successive ``randperm(n)`` of
``Generator(seed)``: randperm consumes exactly ceil(n / 2) blocks, so it is
``randperm(n)`` drawn at offset e * ceil(n / 2).  It depends on (seed, n, e)
only: not on the process, the device, the number of DataLoader workers, or
what else was drawn.  With several replicas (distributed data parallel) the
order is split as torch's DistributedSampler splits it.
"""
import math

import torch
from torch.utils.data import Sampler

from . import _args
from ._draws import randperm
from ._generator import Generator

__all__ = ["RandomSampler"]


class RandomSampler(Sampler):
    """Reproducible shuffling for torch.utils.data.DataLoader.

    RandomSampler(data_source, seed=0, *, shuffle=True, num_replicas=1,
    rank=0, drop_last=False).  ``data_source`` is a sized dataset or the
    number of items.  Call ``set_epoch(e)`` before each epoch, as with
    DistributedSampler; ``set_epoch(e, start=k)`` resumes epoch e after its
    first k indices (of this replica), for a job restarted mid-epoch.

    With num_replicas = R: the epoch's order is padded by repeating its start
    (or cut, with drop_last) to a multiple of R, and replica ``rank`` takes
    every R-th index starting at ``rank``, exactly as DistributedSampler.
    """

    def __init__(self, data_source, seed=0, *, shuffle=True, num_replicas=1, rank=0, drop_last=False):
        if isinstance(data_source, int) and not isinstance(data_source, bool):
            n = data_source
        else:
            try:
                n = len(data_source)
            except TypeError:
                raise TypeError("repdl.random.RandomSampler: data_source must be sized (a dataset) or an int") from None
        if n < 0:
            raise ValueError(f"repdl.random.RandomSampler: the number of items must be >= 0, got {n}")
        self._seed = Generator(seed).initial_seed()  # validates the seed
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

    def order(self, epoch: int) -> torch.Tensor:
        """Epoch `epoch`'s full order of all n items (before the replica split)."""
        if not self.shuffle:
            return torch.arange(self.n)
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

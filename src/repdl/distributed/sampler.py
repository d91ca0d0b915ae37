"""MicrobatchSampler: each rank's contiguous microbatches of the globally
shuffled order (docs/CONTRACT.md section 19)."""
import torch

from ..random import RandomSampler
from ..random._args import integer
from .collectives import rank_range

__all__ = ["MicrobatchSampler"]


class MicrobatchSampler:
    """Epoch e's order is repdl.random.RandomSampler(n, seed).order(e); step s
    takes its global batch from positions [s B, (s + 1) B) (a last partial
    batch is dropped), cuts it into G microbatches of B / G samples in order,
    and rank r of W takes microbatches [r G / W, (r + 1) G / W).  Iterating
    yields, per step, this rank's list of G / W index lists (one step's
    microbatches); ``batches()`` yields them flat, for
    ``DataLoader(batch_sampler=...)``.  ``set_epoch(e, start_step=k)``
    resumes epoch e at step k."""

    def __init__(self, data_source, global_batch: int, microbatches: int, seed: int = 0, *, num_replicas: int = 1,
                 rank: int = 0):
        op = "MicrobatchSampler"
        self.n = data_source if isinstance(data_source, int) else len(data_source)
        self.global_batch = integer(op, "global_batch", global_batch)
        self.microbatches = integer(op, "microbatches", microbatches)
        self.num_replicas = integer(op, "num_replicas", num_replicas)
        self.rank = integer(op, "rank", rank)
        if self.global_batch < 1 or self.microbatches < 1 or self.num_replicas < 1:
            raise ValueError(f"repdl.distributed.{op}: global_batch, microbatches and num_replicas must be >= 1")
        if self.global_batch % self.microbatches:
            raise ValueError(f"repdl.distributed.{op}: a global batch of {self.global_batch} samples does not "
                             f"divide into {self.microbatches} microbatches of equal size (nothing is padded)")
        if self.microbatches % self.num_replicas:
            raise ValueError(f"repdl.distributed.{op}: {self.microbatches} microbatches do not divide among "
                             f"{self.num_replicas} ranks (nothing is padded)")
        if self.global_batch % self.num_replicas:  # implied by the two above; named for the user
            raise ValueError(f"repdl.distributed.{op}: a global batch of {self.global_batch} does not divide by "
                             f"the world size {self.num_replicas}")
        if not 0 <= self.rank < self.num_replicas:
            raise ValueError(f"repdl.distributed.{op}: rank {self.rank} is not in [0, {self.num_replicas})")
        self._order = RandomSampler(self.n, seed)
        self.epoch, self.start_step = 0, 0

    @property
    def steps(self) -> int:
        """Steps per epoch."""
        return self.n // self.global_batch

    def set_epoch(self, epoch: int, start_step: int = 0) -> None:
        epoch = integer("MicrobatchSampler.set_epoch", "epoch", epoch)
        start_step = integer("MicrobatchSampler.set_epoch", "start_step", start_step)
        if epoch < 0 or not 0 <= start_step <= self.steps:
            raise ValueError(f"repdl.distributed.MicrobatchSampler.set_epoch: need epoch >= 0 and start_step in "
                             f"[0, {self.steps}], got epoch={epoch}, start_step={start_step}")
        self.epoch, self.start_step = epoch, start_step

    def step_microbatches(self, order: torch.Tensor, step: int):
        size = self.global_batch // self.microbatches
        lo, hi = rank_range(self.rank, self.num_replicas, self.microbatches)
        first = step * self.global_batch
        return [order[first + i * size:first + (i + 1) * size].tolist() for i in range(lo, hi)]

    def __iter__(self):
        order = self._order.order(self.epoch)
        for step in range(self.start_step, self.steps):
            yield self.step_microbatches(order, step)

    def batches(self):
        for step in self:
            yield from step

    def __len__(self) -> int:
        return self.steps - self.start_step

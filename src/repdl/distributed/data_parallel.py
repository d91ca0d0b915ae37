"""DistributedDataParallel: world-size-invariant data-parallel training
(docs/CONTRACT.md section 19).

    ddp = repdl.distributed.DistributedDataParallel(model, microbatches=8)
    for step_batches in sampler:              # this rank's 8 / W microbatches
        for x, y in step_batches:
            loss_fn(ddp(x), y).backward()     # hooks take each gradient into the tree
        ddp.finish()                          # the step's gradient, identical for every W
        optimizer.step()

Gradients are bucketed (about ``bucket_mb`` MiB of parameters, in reverse
registration order, the order backward produces them).  In the rank's last
microbatch, a bucket whose gradients are all in finishes its local nodes
and starts its all_gather at once, so communication overlaps the rest of
backward; ``finish()`` waits, combines each bucket's tree and writes the
gradients.  The additions are the contract's whatever the bucket layout:
every element's tree is the same.
"""
from typing import List

import torch
import torch.distributed as dist

from . import collectives
from .accumulate import NodeSums, check_microbatches, check_reduction, divide, set_grads, take_grads

__all__ = ["DistributedDataParallel"]


class _Bucket:
    def __init__(self, params: List[torch.Tensor], lo: int, hi: int, microbatches: int):
        self.params = params
        self.lo, self.hi, self.microbatches = lo, hi, microbatches
        self.sizes = [p.numel() for p in params]
        self.reset()

    def reset(self):
        self.sums = NodeSums(self.lo, self.hi, self.microbatches)
        self.ready = set()
        self.work = None

    def flat(self, grads):
        return torch.cat([p.new_zeros(p.numel()) if g is None else g.reshape(-1) for g, p in zip(grads, self.params)])

    def unflat(self, flat):
        return [part.view_as(p) for part, p in zip(torch.split(flat, self.sizes), self.params)]


def _check_backend(group):
    backend = dist.get_backend(group)
    if backend not in collectives.SUPPORTED_BACKENDS:
        raise ValueError(f"repdl.distributed.DistributedDataParallel: the process group's backend {backend!r} "
                         f"cannot run the deterministic all-reduce (supported: "
                         f"{', '.join(collectives.SUPPORTED_BACKENDS)})")
    return backend


def _check_same_parameters(named, group):
    """Every rank's parameter names, shapes and dtypes, compared before the
    first step (a mismatch would hang or mix tensors in a collective)."""
    mine = [(name, tuple(p.shape), str(p.dtype)) for name, p in named]
    world = dist.get_world_size(group)
    everyone = [None] * world
    dist.all_gather_object(everyone, mine, group=group)
    for r, theirs in enumerate(everyone):
        if theirs != mine:
            diff = next(((a, b) for a, b in zip(mine, theirs) if a != b), None)
            detail = (f"{diff[0]} here, {diff[1]} on rank {r}" if diff is not None
                      else f"{len(mine)} parameters here, {len(theirs)} on rank {r}")
            raise ValueError(f"repdl.distributed.DistributedDataParallel: parameters differ between ranks "
                             f"({detail})")


class DistributedDataParallel(torch.nn.Module):
    """Wrap `module` for data-parallel training over `group` (default: the
    world) with `microbatches` G per step in all, G / W per rank: the step's
    gradient is the contract's pairwise sum over the G microbatch gradients
    (divided by G with ``reduction='mean'``), bit-identical for every world
    size W that divides G, and to GradientAccumulator in one process.
    Parameters and buffers start as rank 0's.  Backends: gloo, nccl.
    ``schedule``: 'gather' (one async all_gather per bucket, overlapping
    backward), 'tree' (halving and doubling along the tree over send/recv,
    run synchronously as each bucket completes) or 'auto' (gather for two
    ranks, tree beyond); the same bits."""

    def __init__(self, module: torch.nn.Module, microbatches: int, group=None, reduction: str = "mean",
                 bucket_mb: float = 25.0, schedule: str = "auto"):
        super().__init__()
        op = "DistributedDataParallel"
        if not dist.is_available() or not dist.is_initialized():
            raise RuntimeError(f"repdl.distributed.{op}: torch.distributed is not initialised "
                               "(call torch.distributed.init_process_group first)")
        self.backend = _check_backend(group)
        self.group = group
        self.microbatches = check_microbatches(op, "microbatches", microbatches)
        self.reduction = check_reduction(op, reduction)
        if schedule not in ("auto",) + collectives.SCHEDULES:
            raise ValueError(f"repdl.distributed.{op}: schedule must be one of auto, "
                             f"{', '.join(collectives.SCHEDULES)}, got {schedule!r}")
        world, rank = dist.get_world_size(group), dist.get_rank(group)
        # 'gather' overlaps backward and, at two ranks, moves what a ring
        # moves; beyond two it moves W times the data, and the tree is faster.
        self.schedule = ("gather" if world <= 2 else "tree") if schedule == "auto" else schedule
        if microbatches % world:
            raise ValueError(f"repdl.distributed.{op}: {microbatches} microbatches per step do not divide among "
                             f"{world} ranks (the world size must divide the number of microbatches)")
        self.module = module
        named = list(module.named_parameters())
        _check_same_parameters(named, group)
        with torch.no_grad():
            for t in list(module.parameters()) + list(module.buffers()):
                dist.broadcast(t.data, dist.get_global_rank(group, 0) if group is not None else 0, group=group)
        self.lo, self.hi = collectives.rank_range(rank, world, microbatches)
        self.local = self.hi - self.lo
        params = [p for _, p in named if p.requires_grad]
        self._buckets = self._bucketed(params, int(bucket_mb * 2 ** 20))
        self._bucket_of = {id(p): b for b in self._buckets for p in b.params}
        self._count = {}
        for p in params:
            p.register_post_accumulate_grad_hook(self._on_grad)

    def _bucketed(self, params, limit):
        buckets, current, size = [], [], 0
        for p in reversed(params):
            current.append(p)
            size += p.numel() * p.element_size()
            if size >= limit:
                buckets.append(_Bucket(current, self.lo, self.hi, self.microbatches))
                current, size = [], 0
        if current:
            buckets.append(_Bucket(current, self.lo, self.hi, self.microbatches))
        return buckets

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def _on_grad(self, p):
        bucket = self._bucket_of[id(p)]
        bucket.ready.add(id(p))
        if len(bucket.ready) == len(bucket.params):
            self._take(bucket)

    def _take(self, bucket):
        bucket.ready = set()
        bucket.sums.push(take_grads(bucket.params))
        if bucket.sums.done:  # this rank's last microbatch: send now, while backward goes on
            nodes = {node: bucket.flat(value) for node, value in bucket.sums.sums.items()}
            bucket.work = collectives.start(self.schedule, nodes, self.microbatches, self.group)

    def finish(self) -> None:
        """After this rank's G / W backward passes: wait for the all-reduce
        and write the step's gradient to every parameter's .grad."""
        for bucket in self._buckets:
            if bucket.work is None:
                missing = [p for p in bucket.params if id(p) not in bucket.ready]
                raise RuntimeError(
                    f"repdl.distributed.DistributedDataParallel.finish: {bucket.sums.next - self.lo} of "
                    f"{self.local} microbatches reached this rank's bucket; {len(missing)} parameter(s) got no "
                    "gradient in the last one (every parameter must take part in every microbatch)")
        for bucket in self._buckets:
            root = bucket.work.wait()
            set_grads(bucket.params, divide(bucket.unflat(root), self.microbatches, self.reduction))
            bucket.reset()

"""The deterministic all-reduce: rank partial sums (tree nodes) combined in
the pairwise tree's order (docs/CONTRACT.md section 19), on
torch.distributed's collectives.  Every rank ends with the same bits, the
bits one process computes with repdl.distributed.GradientAccumulator.

Two schedules with one result:

* ``gather`` (the default): one all_gather of every rank's node sums, then
  each rank combines the tree locally.  One collective, W x the data per
  rank; async, so DistributedDataParallel overlaps it with backward.
* ``tree``: the reduction along the tree itself with fixed partners over
  send/recv: for a power-of-two world whose ranks hold one aligned subtree
  each (G / W a power of two), recursive halving and doubling, which moves
  what a ring all-reduce moves; otherwise rank 0 receives every node,
  combines and broadcasts.  Synchronous: it returns the root.
"""
from typing import Dict, List

import torch
import torch.distributed as dist

from .. import ops
from . import tree

__all__ = ["rank_range", "layout", "all_reduce_gather", "all_reduce_tree", "start", "SCHEDULES",
           "SUPPORTED_BACKENDS"]

SUPPORTED_BACKENDS = ("gloo", "nccl")
SCHEDULES = ("gather", "tree")


def rank_range(rank: int, world: int, microbatches: int):
    """Rank `rank`'s microbatches [lo, hi): the contiguous rank-th share."""
    per = microbatches // world
    return rank * per, (rank + 1) * per


def layout(world: int, microbatches: int) -> List[List[tree.Node]]:
    """Each rank's tree nodes, rank by rank."""
    return [tree.cover(*rank_range(r, world, microbatches), microbatches) for r in range(world)]


def _add(a, b):
    return ops.add(a, b)


class GatherWork:
    """An all_gather in flight; ``wait()`` returns the combined root."""

    def __init__(self, nodes: Dict[tree.Node, torch.Tensor], microbatches: int, group):
        world = dist.get_world_size(group)
        self.microbatches = microbatches
        self.layout = layout(world, microbatches)
        width = max(len(n) for n in self.layout)
        mine = self.layout[dist.get_rank(group)]
        size = next(iter(nodes.values())).numel()
        # Every rank sends `width` slots (a rank with fewer nodes pads with
        # zeros, never read), so one all_gather carries every node.
        send = torch.zeros(width, size, dtype=torch.float32, device=next(iter(nodes.values())).device)
        for i, node in enumerate(mine):
            send[i].copy_(nodes[node])
        self.received = [torch.empty_like(send) for _ in range(world)]
        self.work = dist.all_gather(self.received, send, group=group, async_op=True)

    def wait(self) -> torch.Tensor:
        self.work.wait()
        sums = {node: self.received[r][i] for r, nodes in enumerate(self.layout) for i, node in enumerate(nodes)}
        return tree.combine(sums, self.microbatches, _add)


def all_reduce_gather(nodes: Dict[tree.Node, torch.Tensor], microbatches: int, group=None, async_op=False):
    """This rank's node sums (flat float32 tensors of one length) in, the
    tree's root out on every rank (or a GatherWork with ``async_op``)."""
    work = GatherWork(nodes, microbatches, group)
    return work if async_op else work.wait()


def _is_power_of_two(n: int) -> bool:
    return n & (n - 1) == 0


def all_reduce_tree(nodes: Dict[tree.Node, torch.Tensor], microbatches: int, group=None) -> torch.Tensor:
    """As all_reduce_gather, by reduction along the tree over send/recv and
    a broadcast from rank 0."""
    world, rank = dist.get_world_size(group), dist.get_rank(group)
    ranks = layout(world, microbatches)
    value = next(iter(nodes.values()))
    if _is_power_of_two(world) and all(len(n) == 1 for n in ranks):
        return _halving_doubling(nodes[ranks[rank][0]].clone(), rank, world, group)
    # Ranks hold several nodes, or the ranks' tree is not a perfect one:
    # rank 0 receives every node, combines, and broadcasts.
    if rank == 0:
        sums = dict(nodes)
        for r in range(1, world):
            for node in ranks[r]:
                buf = torch.empty_like(value)
                dist.recv(buf, r, group=group)
                sums[node] = buf
        root = tree.combine(sums, microbatches, _add)
    else:
        for node in ranks[rank]:
            dist.send(nodes[node].contiguous(), 0, group=group)
        root = torch.empty_like(value)
    dist.broadcast(root, 0, group=group)
    return root


def _exchange(send: torch.Tensor, recv: torch.Tensor, partner: int, group) -> None:
    peer = dist.get_global_rank(group, partner) if group is not None else partner
    for work in (dist.isend(send.contiguous(), peer, group=group), dist.irecv(recv, peer, group=group)):
        work.wait()


def _halving_doubling(acc: torch.Tensor, rank: int, world: int, group) -> torch.Tensor:
    """The all-reduce of one aligned subtree per rank, W a power of two, by
    recursive halving (a reduce-scatter) then recursive doubling (an
    all-gather), Rabenseifner's schedule.  At distance d the ranks pair as
    the tree pairs their blocks: the lower rank's block holds the left
    subtree, so each element gets left + right at every level, exactly
    pairsum's order, and each rank moves 2 (W - 1) / W of the data, as a
    ring all-reduce does."""
    lo, hi, ranges = 0, acc.numel(), []
    d = 1
    while d < world:
        partner, mid = rank ^ d, lo + (hi - lo) // 2
        ranges.append((lo, hi))
        if rank & d == 0:  # left: keep [lo, mid)
            recv = torch.empty(mid - lo, dtype=acc.dtype, device=acc.device)
            _exchange(acc[mid:hi], recv, partner, group)
            acc[lo:mid] = ops.add(acc[lo:mid], recv)
            hi = mid
        else:  # right: keep [mid, hi)
            recv = torch.empty(hi - mid, dtype=acc.dtype, device=acc.device)
            _exchange(acc[lo:mid], recv, partner, group)
            acc[mid:hi] = ops.add(recv, acc[mid:hi])
            lo = mid
        d *= 2
    while ranges:
        d //= 2
        partner = rank ^ d
        parent_lo, parent_hi = ranges.pop()
        other = (hi, parent_hi) if lo == parent_lo else (parent_lo, lo)
        _exchange(acc[lo:hi], acc[other[0]:other[1]], partner, group)
        lo, hi = parent_lo, parent_hi
    return acc


class _Done:
    """A finished reduction behind GatherWork's interface."""

    def __init__(self, root):
        self.root = root

    def wait(self):
        return self.root


def start(schedule: str, nodes, microbatches: int, group=None):
    """Begin the all-reduce by `schedule`; ``.wait()`` gives the root.
    'gather' runs asynchronously; 'tree' completes here."""
    if schedule == "gather":
        return all_reduce_gather(nodes, microbatches, group, async_op=True)
    return _Done(all_reduce_tree(nodes, microbatches, group))

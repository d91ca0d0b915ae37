"""Gradient accumulation over microbatches in the pairwise order
(docs/CONTRACT.md section 19), in one process or as one rank's share.

    acc = repdl.distributed.GradientAccumulator(model.parameters(), microbatches=8)
    for x, y in microbatches:                 # 8 of equal size, in sample order
        loss_fn(model(x), y).backward()       # the loss's reduction: the microbatch's own
        acc.accumulate()                      # takes each p.grad into the tree, clears it
    acc.finish()                              # p.grad = pairsum(g_0..g_7) / 8
    optimizer.step()
"""
from typing import Dict, Iterable, List, Optional

import torch

from .. import ops
from .._scalar import fl32
from . import tree

__all__ = ["GradientAccumulator"]

REDUCTIONS = ("mean", "sum")


class _Streaming:
    """Pairwise sums of the consecutive leaves of one tree node, one leaf at
    a time in O(log n) memory: a stack of complete power-of-two blocks
    (merged left + right as they fill), folded right to left at the end,
    which is pairsum's split at the largest power of two below n."""

    def __init__(self):
        self.blocks = []  # [(size, value)], sizes strictly decreasing

    def push(self, value, add):
        size = 1
        while self.blocks and self.blocks[-1][0] == size:
            left = self.blocks.pop()[1]
            value, size = add(left, value), 2 * size
        self.blocks.append((size, value))

    def total(self, add):
        value = self.blocks[-1][1]
        for _, left in reversed(self.blocks[:-1]):
            value = add(left, value)
        return value


def add_grads(a: List[Optional[torch.Tensor]], b: List[Optional[torch.Tensor]]):
    """Elementwise fl32(a + b) per parameter (None: no gradient yet)."""
    return [y if x is None else x if y is None else ops.add(x, y) for x, y in zip(a, b)]


class NodeSums:
    """The sums of the tree nodes covering microbatches [lo, hi) of
    `total`, fed one microbatch gradient (a list of tensors) at a time in
    order; ``sums`` maps each finished node to its value."""

    def __init__(self, lo: int, hi: int, total: int):
        self.nodes = tree.cover(lo, hi, total)
        self.sums: Dict[tree.Node, list] = {}
        self.next = lo
        self._node = 0
        self._stream = _Streaming()

    @property
    def done(self) -> bool:
        return self._node == len(self.nodes)

    def push(self, grads: list) -> None:
        if self.done:
            raise RuntimeError(f"all {self.nodes[-1][1] - self.nodes[0][0]} microbatches were already accumulated")
        self._stream.push(grads, add_grads)
        self.next += 1
        if self.next == self.nodes[self._node][1]:
            self.sums[self.nodes[self._node]] = self._stream.total(add_grads)
            self._node += 1
            self._stream = _Streaming()


def divide(grads: list, microbatches: int, reduction: str) -> list:
    """The step's gradient from the root sum: / fl32(G) for 'mean' (one
    correctly rounded division), as it is for 'sum'."""
    if reduction == "sum" or microbatches == 1:
        return grads
    return [None if g is None else ops.div(g, fl32(microbatches)) for g in grads]


def check_reduction(op: str, reduction: str) -> str:
    if reduction not in REDUCTIONS:
        raise ValueError(f"repdl.distributed.{op}: reduction must be 'mean' or 'sum', got {reduction!r}")
    return reduction


def check_microbatches(op: str, name: str, n) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"repdl.distributed.{op}: {name} must be a positive int, got {n!r}")
    return n


def take_grads(params: List[torch.Tensor]) -> list:
    """Each parameter's gradient (None where it has none), detached from
    the parameters, which are left without one for the next microbatch."""
    grads = [p.grad for p in params]
    for p in params:
        p.grad = None
    return grads


def set_grads(params: List[torch.Tensor], grads: list) -> None:
    for p, g in zip(params, grads):
        p.grad = g


class GradientAccumulator:
    """The single-process side of the data-parallel contract: G microbatch
    gradients combined by the pairwise tree and divided as `reduction`
    says ('mean': the step's gradient is pairsum / G, the gradient of the
    mean loss over the global batch when each microbatch's loss is its own
    mean; 'sum': pairsum).  A data-parallel run with W ranks of G/W
    microbatches each (repdl.distributed.DistributedDataParallel) gives the
    same bits."""

    def __init__(self, params: Iterable[torch.Tensor], microbatches: int, reduction: str = "mean"):
        self.params = list(params)
        self.microbatches = check_microbatches("GradientAccumulator", "microbatches", microbatches)
        self.reduction = check_reduction("GradientAccumulator", reduction)
        self._sums = NodeSums(0, microbatches, microbatches)

    def accumulate(self) -> None:
        """Take the current microbatch's gradients (each p.grad) into the tree."""
        self._sums.push(take_grads(self.params))

    def finish(self) -> None:
        """Write the step's gradient to each p.grad and start over."""
        if not self._sums.done:
            raise RuntimeError(f"repdl.distributed.GradientAccumulator.finish: {self._sums.next} of "
                               f"{self.microbatches} microbatches were accumulated")
        root = self._sums.sums[(0, self.microbatches)]
        set_grads(self.params, divide(root, self.microbatches, self.reduction))
        self._sums = NodeSums(0, self.microbatches, self.microbatches)

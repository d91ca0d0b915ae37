"""repdl.distributed: data-parallel training whose bits do not depend on the
world size (docs/CONTRACT.md section 19, docs/distributed.md).

One step over a global batch of B samples is G microbatches of B / G in
sample order; the step's gradient is the pairwise sum of the G microbatch
gradients, divided by G for a mean.  One process accumulating G
microbatches (GradientAccumulator) and W ranks of G / W each
(DistributedDataParallel) give the same bits for every W dividing G.
"""
from .accumulate import GradientAccumulator
from .collectives import all_reduce_gather, all_reduce_tree
from .data_parallel import DistributedDataParallel
from .sampler import MicrobatchSampler
from .tree import combine, cover, split

__all__ = ["GradientAccumulator", "DistributedDataParallel", "MicrobatchSampler", "all_reduce_gather",
           "all_reduce_tree", "cover", "combine", "split"]

"""Helpers the backward formulas share (docs/CONTRACT.md, "Gradients")."""
import torch

from . import reductions


def sum_to(g: torch.Tensor, shape) -> torch.Tensor:
    """The gradient of an operand of `shape` that was broadcast to g's shape:
    g summed over the broadcast dims (the leading dims the operand lacks and
    the dims where it has size 1) by one sequential sum in the row-major
    order of those dims, then viewed as `shape`."""
    shape = tuple(shape)
    if tuple(g.shape) == shape:
        return g
    lead = g.dim() - len(shape)
    dims = list(range(lead)) + [lead + i for i, s in enumerate(shape) if s == 1 and g.shape[lead + i] != 1]
    if not dims:
        return g.reshape(shape)
    return reductions._sum(g, dims, True, "sequential").reshape(shape)


def expand_to(g: torch.Tensor, kept_shape, shape) -> torch.Tensor:
    """A reduction's gradient: g (with the reduced dims kept as size 1) copied
    to every position of the input's shape, as a new dense tensor."""
    return g.reshape(kept_shape).expand(shape).contiguous()

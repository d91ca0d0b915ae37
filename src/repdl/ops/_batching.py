"""vmap rules shared by the primitives (torch.func.vmap over RepDL ops).

A rule receives the physical tensors and the batch dim of each (None when
unbatched) and returns the op applied with the batch as a leading dim."""
import torch


def batch_first(args, in_dims, rank=None):
    """Tensors with their batch dim moved to 0 and, when `rank` is given,
    size-1 dims inserted after it so that each batched operand has `rank`
    logical dims (then broadcasting lines up the logical dims from the
    right, as without vmap).  Unbatched tensors are returned as they are."""
    out = []
    for a, d in zip(args, in_dims):
        if d is None or not isinstance(a, torch.Tensor):
            out.append(a)
            continue
        a = a.movedim(d, 0)
        if rank is not None and a.dim() - 1 < rank:
            a = a.reshape(a.shape[0], *([1] * (rank - a.dim() + 1)), *a.shape[1:])
        out.append(a)
    return out


def logical_rank(args, in_dims):
    return max(a.dim() - (d is not None) for a, d in zip(args, in_dims) if isinstance(a, torch.Tensor))


def elementwise(op):
    """Rule for an op that broadcasts its tensor operands elementwise."""

    def rule(info, in_dims, *args):
        return op(*batch_first(args, in_dims, logical_rank(args, in_dims))), 0

    return rule


def shifted_dims(dims, rank):
    """Non-negative dims of a rank-`rank` logical tensor, moved past a leading batch dim."""
    return [d % rank + 1 if rank else 0 for d in dims]

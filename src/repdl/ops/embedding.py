"""embedding (torch.nn.functional.embedding): row lookups with
``repdl::take_rows``, so the weight's gradient row for an index is the
sequential sum of the gradients of every position holding it, in
ascending position order (docs/CONTRACT.md, "Scatter-style ops")."""
import numbers

import torch

from .. import _checks
from . import scatter

__all__ = ["embedding"]


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """weight[input]; positions holding padding_idx contribute no gradient."""
    _checks.check_tensor("embedding", "input", input)
    _checks.check_float32_tensor("embedding", "weight", weight)
    _checks.check_same_device("embedding", input=input, weight=weight)
    if max_norm is not None:
        raise NotImplementedError(f"repdl.embedding: max_norm={max_norm} is not supported (it renormalises the "
                                  "weight in place with torch's kernels); only max_norm=None is")
    if scale_grad_by_freq or sparse:
        raise NotImplementedError("repdl.embedding: scale_grad_by_freq and sparse gradients are not supported")
    if input.dtype not in (torch.int64, torch.int32):
        raise RuntimeError(f"repdl.embedding: expected indices of dtype torch.int64 or torch.int32, got {input.dtype}")
    if weight.dim() != 2:
        raise RuntimeError(f"repdl.embedding: weight must be 2-D, got shape {tuple(weight.shape)}")
    rows = weight.shape[0]
    if padding_idx is not None:
        if not isinstance(padding_idx, numbers.Integral) or not -rows <= padding_idx < rows:
            raise RuntimeError(f"repdl.embedding: padding_idx must be within the {rows} rows, got {padding_idx}")
        padding_idx = padding_idx % rows
    flat = input.reshape(-1).to(torch.int64)
    if flat.numel() and not input.is_meta and not torch.compiler.is_compiling() and \
            type(input) in (torch.Tensor,) and bool(((flat < 0) | (flat >= rows)).any()):
        raise IndexError(f"repdl.embedding: index out of range for an embedding of {rows} rows")
    out = scatter.take_rows(weight, flat).reshape(*input.shape, weight.shape[1])
    if padding_idx is not None:
        out = torch.where((input == padding_idx).unsqueeze(-1), out.detach(), out)
    return out

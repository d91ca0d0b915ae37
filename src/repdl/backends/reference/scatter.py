"""Reference: scatter-style accumulation (CONTRACT.md, "Scatter-style ops")."""
import torch

from . import _exact
from .reductions import _seqsum_last


def index_accumulate(src, index, rows):
    """(rows, D): row r is the sequential sum, from +0.0, of the source rows
    i with index[i] == r in ascending i.  Each destination's sources are
    laid out in that order along a new dim, padded at the end with +0.0
    (a sequential sum that starts at +0.0 never holds -0.0, so trailing
    +0.0 terms change nothing), and summed along it."""
    n, d = src.shape
    counts = torch.bincount(index, minlength=rows)
    width = int(counts.max()) if n else 0
    order = torch.argsort(index, stable=True)
    dest = index[order]
    slot = torch.arange(n, device=src.device) - (torch.cumsum(counts, 0) - counts)[dest]
    lanes = torch.zeros(rows, width, d, dtype=torch.float32, device=src.device)
    lanes[dest, slot] = src[order]
    return _exact.canonical_nan(_seqsum_last(lanes.movedim(1, -1)))

"""CPU backend: scatter-style accumulation (csrc/scatter)."""
from ... import _C
from .outputs import row_major


def index_accumulate(src, index, rows):
    """(rows, D): dst[index[i]] += src[i] for i ascending, from +0.0."""
    src, index = src.contiguous(), index.contiguous()
    out = row_major((rows, src.shape[1]))
    _C.index_accumulate(src.data_ptr(), index.data_ptr(), src.shape[0], src.shape[1], out.data_ptr(), rows)
    return out

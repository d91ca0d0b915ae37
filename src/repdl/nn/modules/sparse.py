"""Embedding."""
from torch import nn

from ...random import init
from .. import functional as F


class Embedding(nn.Embedding):
    """torch.nn.Embedding with RepDL's embedding (padding_idx supported;
    max_norm, scale_grad_by_freq and sparse raise NotImplementedError at
    construction)."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, device=None, dtype=None):
        if max_norm is not None:
            raise NotImplementedError(f"repdl.nn.Embedding: max_norm={max_norm} is not supported; only None is")
        if scale_grad_by_freq or sparse:
            raise NotImplementedError("repdl.nn.Embedding: scale_grad_by_freq and sparse are not supported")
        super().__init__(num_embeddings, embedding_dim, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse,
                         _weight, _freeze, device, dtype)

    def reset_parameters(self):
        init.init_module_(self)

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx)

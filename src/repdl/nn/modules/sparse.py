"""Embedding."""
import types

from torch import nn

from ...random import init
from .. import functional as F


class Embedding(nn.Embedding):
    """torch.nn.Embedding with RepDL's embedding (padding_idx supported;
    max_norm, scale_grad_by_freq and sparse raise NotImplementedError at
    construction)."""

    @classmethod
    def _unsupported(cls, config):
        """Why an embedding configured as `config` (a module or its
        constructor arguments) cannot run here, or None."""
        if config.max_norm is not None:
            return f"max_norm={config.max_norm} is not supported; only None is"
        if config.scale_grad_by_freq or config.sparse:
            return "scale_grad_by_freq and sparse are not supported"
        return None

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, device=None, dtype=None):
        reason = self._unsupported(types.SimpleNamespace(max_norm=max_norm, scale_grad_by_freq=scale_grad_by_freq,
                                                         sparse=sparse))
        if reason:
            raise NotImplementedError(f"repdl.nn.Embedding: {reason}")
        super().__init__(num_embeddings, embedding_dim, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse,
                         _weight, _freeze, device, dtype)

    def reset_parameters(self):
        init.init_module_(self)

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx)

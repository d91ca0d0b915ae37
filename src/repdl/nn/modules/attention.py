"""MultiheadAttention: torch.nn.MultiheadAttention's parameters, arguments
and results, computed with RepDL's ops (docs/CONTRACT.md, "Attention").

The projections are linear layers (slices of in_proj_weight), the heads
one attention each with scale fl32(1 / sqrt(head_dim)), masks follow
torch's conventions (a bool attn_mask or key_padding_mask is True where
attention is *not* allowed and becomes -inf; float masks are added, and
both masks merge by one float addition), and the returned weights are the
attention probabilities after dropout, averaged over heads (seqsum / H)
when average_attn_weights."""
import math

import torch
from torch import nn

from ...ops import _prims as P
from ...ops import attention as _attention
from ...ops import reductions
from ...random import init
from ...ops.padding import pad
from .. import functional as F


def _float_mask(mask, name):
    """torch's canonical mask: bool True -> -inf, False -> +0.0; float as is."""
    if mask is None:
        return None
    if mask.dtype == torch.bool:
        zeros = torch.zeros(mask.shape, dtype=torch.float32, device=mask.device)
        return zeros.masked_fill(mask, -math.inf)
    if mask.dtype != torch.float32:
        raise TypeError(f"repdl.nn.MultiheadAttention: {name} must be bool or float32, got {mask.dtype}")
    return mask


def _time_major(*inputs):
    """Batch-first (N, L, E) inputs as (L, N, E) row-major copies, one per
    distinct tensor.  Transposed views would have rows that no single
    stride reaches, which each projection copies for its GEMM (and its
    weight gradient again): self-attention's one input was copied six
    times a step.  A copy moves values, so every bit stays as it was."""
    copies = {}
    for t in inputs:
        if id(t) not in copies:
            copies[id(t)] = t.transpose(0, 1).contiguous()
    return tuple(copies[id(t)] for t in inputs)


class MultiheadAttention(nn.MultiheadAttention):
    """torch.nn.MultiheadAttention (batch_first, key_padding_mask,
    need_weights, average_attn_weights, kdim/vdim, add_bias_kv,
    add_zero_attn, dropout from RepDL's stream)."""

    def _reset_parameters(self):
        init.init_module_(self)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        if is_causal and attn_mask is None:
            raise RuntimeError("repdl.nn.MultiheadAttention: need attn_mask if specifying the is_causal hint")
        batched = query.dim() == 3
        if self.batch_first and batched:
            query, key, value = _time_major(query, key, value)
        if not batched:
            query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        tgt_len, bsz, embed_dim = query.shape
        heads, head_dim = self.num_heads, self.head_dim
        if self._qkv_same_embed_dim:
            w_q, w_k, w_v = self.in_proj_weight.chunk(3)
        else:
            w_q, w_k, w_v = self.q_proj_weight, self.k_proj_weight, self.v_proj_weight
        b_q, b_k, b_v = self.in_proj_bias.chunk(3) if self.in_proj_bias is not None else (None, None, None)
        q, k, v = F.linear(query, w_q, b_q), F.linear(key, w_k, b_k), F.linear(value, w_v, b_v)

        attn_mask = _float_mask(attn_mask, "attn_mask")
        key_padding_mask = _float_mask(key_padding_mask, "key_padding_mask")
        if attn_mask is not None and attn_mask.dim() == 2:
            attn_mask = attn_mask.unsqueeze(0)
        if self.bias_k is not None:
            k = torch.cat([k, self.bias_k.repeat(1, bsz, 1)])
            v = torch.cat([v, self.bias_v.repeat(1, bsz, 1)])
            attn_mask = pad(attn_mask, (0, 1)) if attn_mask is not None else None
            key_padding_mask = pad(key_padding_mask, (0, 1)) if key_padding_mask is not None else None
        q = q.reshape(tgt_len, bsz * heads, head_dim).transpose(0, 1)
        k = k.reshape(k.shape[0], bsz * heads, head_dim).transpose(0, 1)
        v = v.reshape(v.shape[0], bsz * heads, head_dim).transpose(0, 1)
        if self.add_zero_attn:
            k = torch.cat([k, torch.zeros(bsz * heads, 1, head_dim, dtype=k.dtype, device=k.device)], dim=1)
            v = torch.cat([v, torch.zeros(bsz * heads, 1, head_dim, dtype=v.dtype, device=v.device)], dim=1)
            attn_mask = pad(attn_mask, (0, 1)) if attn_mask is not None else None
            key_padding_mask = pad(key_padding_mask, (0, 1)) if key_padding_mask is not None else None
        src_len = k.shape[1]
        if key_padding_mask is not None:
            kpm = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(-1, heads, -1, -1).reshape(bsz * heads, 1, src_len)
            attn_mask = kpm if attn_mask is None else P.add(attn_mask, kpm)
        dropout = self.dropout if self.training else 0.0
        out, weights = _attention.attention(q, k, v, attn_mask, dropout, 1.0 / math.sqrt(head_dim))
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = F.linear(out, self.out_proj.weight, self.out_proj.bias).reshape(tgt_len, bsz, -1)
        if self.batch_first and batched:
            out = out.transpose(0, 1)
        if not batched:
            out = out.squeeze(1)
        if not need_weights:
            return out, None
        weights = weights.reshape(bsz, heads, tgt_len, src_len)
        if average_attn_weights:
            weights = P.div(reductions._sum(weights, [1], False, "sequential"), float(heads))
        if not batched:
            weights = weights.squeeze(0)
        return out, weights

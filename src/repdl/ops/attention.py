"""scaled_dot_product_attention (docs/CONTRACT.md, "Attention"), with
torch.nn.functional's signature.

    s = matmul(q, k^T)        one fma chain over the head dim per score
    s = s * fl32(scale)       scale = 1 / sqrt(E) in Python float unless given
    s = s + mask              a float mask: one addition
    s = where(mask, s, -inf)  a bool mask (True keeps), or is_causal's lower triangle
    p = softmax(s, -1)        the softmax family's rule
    p = dropout(p, dropout_p) RepDL's stream, when dropout_p > 0
    out = matmul(p, v)        one fma chain over the key positions per element

A query row whose keys are all masked has s = -inf throughout, so its
softmax is NaN (contract section 4) and so is its output.  With
enable_gqa, Hq = G * Hkv query heads share each key/value head: the
products broadcast the key and value heads, so their gradients are single
chains over the G sharing heads and the positions (the matmul rule).
"""
import math
import numbers
from typing import Optional

import torch

from .. import _checks, backends
from .. import random as _random
from .._library import primitive
from .._scalar import fl32
from ..backends._views import mask_line_strides
from . import _prims as P
from . import linalg, softmax as _softmax

__all__ = ["scaled_dot_product_attention"]

Tensor = torch.Tensor


# The steps from the scores s to p = softmax(...) as one primitive, whose
# backend takes the scale and the mask as it first reads each line of s:
# the (..., L, S) scores are not written twice more, at 4 MB a layer in a
# small transformer (16 x 4 heads x 128 x 128).  Its gradient is the
# steps' in turn: softmax's, where's (the gradient where the mask holds,
# +0.0 elsewhere) or add's (unchanged), then mul's by the scale; one fused
# primitive of the backend's too, unless a graph of it is recorded.

def _attention_softmax_impl(s: Tensor, scale: float, mask: Optional[Tensor]) -> Tensor:
    return backends.for_tensor(s).attention_softmax(s, scale, mask)


def _attention_softmax_fake(s, scale, mask):
    return torch.empty_like(s)


def _attention_softmax_setup(ctx, inputs, output):
    _, ctx.scale, mask = inputs
    ctx.save_for_backward(output, mask if mask is not None and mask.dtype == torch.bool else None)


def _attention_softmax_backward(ctx, g):
    p, keep = ctx.saved_tensors
    if not torch.is_grad_enabled():
        return _attention_softmax_grad(g, p, ctx.scale, keep), None, None
    dz = _softmax.softmax_backward(g, p, p.dim() - 1)
    if keep is not None:
        dz = torch.where(keep, dz, 0.0)  # torch's own rule for where, which the steps one by one take
    return P.mul(dz, ctx.scale), None, None


def _attention_softmax_grad_impl(g: Tensor, p: Tensor, scale: float, keep: Optional[Tensor]) -> Tensor:
    return backends.for_tensor(p).attention_softmax_backward(g, p, scale, keep)


_attention_softmax = primitive("attention_softmax", _attention_softmax_impl, _attention_softmax_fake,
                               setup_context=_attention_softmax_setup, backward=_attention_softmax_backward)
_attention_softmax_grad = primitive("attention_softmax_grad", _attention_softmax_grad_impl,
                                    lambda g, p, scale, keep: torch.empty_like(p))


def _scores_softmax(s, scale, mask):
    """softmax(mask step(fl32(s * scale)), -1): the primitive above where
    the backend can place the mask along the scores' lines and no gradient
    flows to it, else the steps one by one (the same bits)."""
    if mask is not None and mask.device != s.device:
        raise RuntimeError(f"repdl attention: the mask is on {mask.device}, the queries and keys on {s.device}; "
                           "expected one device")
    if mask is None or (not mask.requires_grad and mask_line_strides(mask, s.shape) is not None):
        return _attention_softmax(s, scale, mask)
    s = P.mul(s, scale)
    if mask.dtype == torch.bool:
        s = torch.where(mask, s, torch.full((), -math.inf, dtype=torch.float32, device=s.device))
    else:
        s = P.add(s, mask)
    return _softmax.softmax(s, -1)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False, *, generator=None) -> Tensor:
    """torch.nn.functional.scaled_dot_product_attention; generator= picks
    the RepDL stream the dropout draws from (the default generator otherwise)."""
    op = "scaled_dot_product_attention"
    _checks.check_float32(op, query=query, key=key, value=value)
    _checks.check_same_device(op, query=query, key=key, value=value)
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError(f"repdl.{op}: query, key and value need at least 2 dims")
    e, length, source = query.shape[-1], query.shape[-2], key.shape[-2]
    if key.shape[-1] != e or value.shape[-2] != source:
        raise RuntimeError(f"repdl.{op}: shapes query {tuple(query.shape)}, key {tuple(key.shape)} and value "
                           f"{tuple(value.shape)} do not match")
    if isinstance(dropout_p, bool) or not isinstance(dropout_p, numbers.Real) or not 0.0 <= dropout_p <= 1.0:
        raise RuntimeError(f"repdl.{op}: dropout_p must be in [0, 1], got {dropout_p!r}")
    if is_causal and attn_mask is not None:
        raise RuntimeError(f"repdl.{op}: is_causal=True cannot be combined with an explicit attn_mask")
    if scale is None:
        scale = 1.0 / math.sqrt(e) if e else 1.0
    elif isinstance(scale, bool) or not isinstance(scale, numbers.Real):
        raise TypeError(f"repdl.{op}: scale must be a real number, got {type(scale).__name__}")
    q, k, v = query, key, value
    groups = 1
    if enable_gqa and q.dim() >= 3 and q.shape[-3] != k.shape[-3]:
        hq, hk = q.shape[-3], k.shape[-3]
        if hq % hk or v.shape[-3] != hk:
            raise RuntimeError(f"repdl.{op}: {hq} query heads cannot share {hk} key/value heads")
        groups = hq // hk
        q = q.reshape(*q.shape[:-3], hk, groups, length, e)
        k, v = k.unsqueeze(-3), v.unsqueeze(-3)
    mask = _mask(attn_mask, is_causal, length, source, q.device, op, groups)
    if groups > 1:
        out, _ = attention(q, k, v, mask, dropout_p, scale, generator)
        return out.reshape(*out.shape[:-4], out.shape[-4] * groups, length, out.shape[-1])
    return attention(q, k, v, mask, dropout_p, scale, generator)[0]


def _mask(attn_mask, is_causal, length, source, device, op, groups):
    """The mask of the masking step: bool (True keeps; is_causal's lower
    triangle) or float (added), shaped like the scores."""
    if is_causal:
        attn_mask = torch.ones(length, source, dtype=torch.bool, device=device).tril()
    if attn_mask is None:
        return None
    if not isinstance(attn_mask, Tensor):
        raise TypeError(f"repdl.{op}: attn_mask must be a tensor, got {type(attn_mask).__name__}")
    if attn_mask.dtype != torch.bool:
        _checks.check_float32(op, attn_mask=attn_mask)
    if groups > 1 and attn_mask.dim() >= 3 and attn_mask.shape[-3] != 1:  # per query head: split like the scores
        attn_mask = attn_mask.reshape(*attn_mask.shape[:-3], attn_mask.shape[-3] // groups, groups, length, source)
    return attn_mask


def attention(q, k, v, mask, dropout_p, scale, generator=None):
    """(out, p): the contract's steps above; `mask` None, a float tensor
    (added to the scores) or a bool one (True keeps)."""
    p = _scores_softmax(linalg.matmul(q, k.transpose(-1, -2)), fl32(scale), mask)
    if dropout_p > 0.0:
        p = _random.dropout(p, dropout_p, True, generator=generator)
    return linalg.matmul(p, v), p

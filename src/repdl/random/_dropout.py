"""Dropout from RepDL's stream: keep-masks and the applied form with autograd.

Element i (row-major) of a draw is dropped when u_i < p, i.e. when
(w_i >> 8) < T = ceil(p * 2**24); one word per element, ceil(n / 4) blocks
in training mode whatever p is (so changing p never shifts later draws).
Applied: y = x * (keep ? s : 0.0) with s = fl32(1 / (1 - p)) (Python float
arithmetic, then one rounding to float32), one float32 multiplication,
which equals (x * mask) * s; p = 1 gives y = x * 0.0.  The backward pass
regenerates the same mask from the saved (seed, offset): grad_x = grad_y *
(keep ? s : 0.0).  See docs/CONTRACT.md section 7.
"""
import torch

from ..ops import _prims
from ..ops._in_place import inplace_source, write_inplace
from . import _args
from ._draws import threshold, _probability

__all__ = ["dropout", "dropout_mask", "dropout1d", "dropout2d", "dropout3d"]


def scale(p: float) -> float:
    """fl32(1 / (1 - p)) for p < 1; 0.0 for p = 1 (nothing is kept)."""
    return 0.0 if p == 1.0 else _args.fl32(1.0 / (1.0 - p))


def _apply(x, seed, offset, t, s):
    y = _args.backend(x.device).dropout(seed, offset, x.contiguous(), t, s)
    return y.view(x.shape)


class _Dropout(torch.autograd.Function):
    @staticmethod
    def forward(x, seed, offset, t, s):
        return _apply(x, seed, offset, t, s)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.stream = inputs[1:]

    @staticmethod
    def backward(ctx, grad):
        return _masked(grad, *ctx.stream), None, None, None, None

    @staticmethod
    def vmap(info, in_dims, x, seed, offset, t, s):
        # The draw happened before vmap saw the call: one mask of the logical
        # size, where a batch would need a draw per entry.
        raise NotImplementedError("repdl.random.dropout cannot run under torch.vmap (one draw would have to "
                                  "serve every batch entry); call it outside vmap")


def _masked(x, seed, offset, t, s):
    """x times the draw's mask and scale, recorded by autograd (and seen by
    torch.func) when that is needed."""
    if (torch.is_grad_enabled() and x.requires_grad) or torch._C._are_functorch_transforms_active():
        return _Dropout.apply(x, seed, offset, t, s)
    return _apply(x, seed, offset, t, s)


def dropout(input, p=0.5, training=True, inplace=False, *, generator=None):
    """torch.nn.functional.dropout from RepDL's stream.

    With training=False, returns input itself and draws nothing."""
    _args.float32_tensor("dropout", "input", input)
    p = _probability("dropout", p, ValueError)
    g = _args.generator("dropout", generator)
    if not training:
        return input
    n = input.numel()
    seed, offset = g._reserve(_args.blocks(n, 4))
    if p == 0.0 or n == 0:
        return input  # x * 1.0 is x: nothing to compute, but the blocks are spent
    return write_inplace(input, _masked(inplace_source(input, inplace), seed, offset, threshold(p), scale(p)), inplace)


def dropout_mask(size, p=0.5, *, generator=None, device=None):
    """The keep-mask a dropout of this size would use: a bool tensor, True
    where the element is kept ((w >> 8) >= ceil(p * 2**24))."""
    shape = _args.size("dropout_mask", (size,))
    p = _probability("dropout_mask", p, ValueError)
    dev = _args.device(device)
    g = _args.generator("dropout_mask", generator)
    n = _args.numel(shape)
    seed, offset = g._reserve(_args.blocks(n, 4))
    return _args.backend(dev).keep_mask(seed, offset, n, threshold(p), dev).view(shape)


def _feature_dropout(op, nd, input, p, training, inplace, generator):
    """Channel dropout: one draw per (sample, channel) of input (N, C, *) or
    (C, *) with nd spatial dims; element i of the draw scales channel i's
    values: y = x * (s if kept else 0.0), one multiplication each."""
    _args.float32_tensor(op, "input", input)
    p = _probability(op, p, ValueError)
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"repdl.random.{op}: expected {nd + 1}D or {nd + 2}D input, got shape {tuple(input.shape)}")
    if not training:
        return input
    channels = input.shape[:input.dim() - nd]
    scale_per_channel = dropout(torch.ones(channels, dtype=torch.float32, device=input.device), p, True,
                                generator=generator)
    y = _prims.mul(inplace_source(input, inplace), scale_per_channel.reshape(*channels, *([1] * nd)))
    return write_inplace(input, y, inplace)


def dropout1d(input, p=0.5, training=True, inplace=False, *, generator=None):
    """torch.nn.functional.dropout1d from RepDL's stream: whole channels of (N, C, L)."""
    return _feature_dropout("dropout1d", 1, input, p, training, inplace, generator)


def dropout2d(input, p=0.5, training=True, inplace=False, *, generator=None):
    """torch.nn.functional.dropout2d from RepDL's stream: whole channels of (N, C, H, W)."""
    return _feature_dropout("dropout2d", 2, input, p, training, inplace, generator)


def dropout3d(input, p=0.5, training=True, inplace=False, *, generator=None):
    """torch.nn.functional.dropout3d from RepDL's stream: whole channels of (N, C, D, H, W)."""
    return _feature_dropout("dropout3d", 3, input, p, training, inplace, generator)

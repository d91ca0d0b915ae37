"""Batch image augmentation from RepDL's stream: random crop with padding
and horizontal flip.

Both take a batch ``images`` of shape (N, ..., H, W) (for example
(N, C, H, W), any dtype) and make one decision per sample from the stream,
so a batch's augmentation is a function of (seed, offset) and the batch,
not of DataLoader workers or process-global state.  The pixels are only
moved and padded, never computed, so every dtype is exact.

* random_crop: sample i takes block (offset + i): top = floor(U0 *
  (H' - h + 1) / 2**64) with U0 the 64-bit number of words 0, 1, and
  left = floor(U1 * (W' - w + 1) / 2**64) with U1 that of words 2, 3
  (H', W' the padded size); n blocks.
* random_horizontal_flip: sample i is flipped when u_i < p (one word each,
  ceil(n / 4) blocks), u_i as in rand.
"""
import torch
import torch.nn.functional as F

from . import _args, _reference
from ._draws import _probability, threshold

__all__ = ["random_crop", "random_horizontal_flip"]

_PAD_MODES = {"constant": "constant", "reflect": "reflect", "edge": "replicate", "replicate": "replicate"}


def _batch(op, images):
    if not isinstance(images, torch.Tensor):
        raise TypeError(f"repdl.random.{op}: images must be a torch.Tensor, got {type(images).__name__}")
    if images.dim() < 3:
        raise ValueError(f"repdl.random.{op}: images must be a batch (N, ..., H, W), got shape {tuple(images.shape)}")


def _pair(op, name, v):
    if isinstance(v, (tuple, list)):
        if len(v) != 2:
            raise ValueError(f"repdl.random.{op}: {name} must be an int or a pair (h, w), got {v}")
        return tuple(_args.integer(op, name, x) for x in v)
    v = _args.integer(op, name, v)
    return v, v


def _padding(op, padding):
    """(left, top, right, bottom) from torchvision's forms: int, (lr, tb),
    (left, top, right, bottom)."""
    if padding is None:
        return 0, 0, 0, 0
    if isinstance(padding, (tuple, list)):
        p = tuple(_args.integer(op, "padding", x) for x in padding)
        if len(p) == 2:
            p = (p[0], p[1], p[0], p[1])
        elif len(p) != 4:
            raise ValueError(f"repdl.random.{op}: padding must be an int or a sequence of 2 or 4 ints, got {padding}")
    else:
        v = _args.integer(op, "padding", padding)
        p = (v, v, v, v)
    if min(p) < 0:
        raise ValueError(f"repdl.random.{op}: padding must be >= 0, got {padding}")
    return p


def crop_offsets(n, h_range, w_range, *, generator=None):
    """(top, left) int64 tensors of n samples drawn as random_crop draws
    them: top in [0, h_range), left in [0, w_range).  Consumes n blocks."""
    g = _args.generator("random_crop", generator)
    seed, offset = g._reserve(n)
    w = _args.backend(torch.device("cpu")).words(seed, offset, n, None, per_element=4)
    top = _reference.bounded(w[:, 0], w[:, 1], 0, h_range)
    left = _reference.bounded(w[:, 2], w[:, 3], 0, w_range)
    return top, left


def random_crop(images, size, padding=None, *, padding_mode="constant", fill=0, generator=None):
    """Pad each image, then crop a (h, w) window at a per-sample random
    position.  padding: int, (left/right, top/bottom) or (left, top, right,
    bottom), as torchvision; padding_mode: constant (with `fill`), reflect,
    edge/replicate.  Returns a new (N, ..., h, w) tensor."""
    _batch("random_crop", images)
    h, w = _pair("random_crop", "size", size)
    left, top, right, bottom = _padding("random_crop", padding)
    if padding_mode not in _PAD_MODES:
        raise ValueError(
            f"repdl.random.random_crop: padding_mode must be one of {sorted(_PAD_MODES)}, got {padding_mode!r}")
    H, W = images.shape[-2] + top + bottom, images.shape[-1] + left + right
    if h < 1 or w < 1 or h > H or w > W:
        raise ValueError(f"repdl.random.random_crop: crop size {(h, w)} must be positive and at most the padded "
                         f"image size {(H, W)}")
    if padding_mode == "reflect" and (max(top, bottom) >= images.shape[-2] or max(left, right) >= images.shape[-1]):
        raise ValueError("repdl.random.random_crop: reflect padding must be smaller than the image")
    _args.real("random_crop", "fill", fill)
    n = images.shape[0]
    top_off, left_off = crop_offsets(n, H - h + 1, W - w + 1, generator=generator)
    padded = _pad(images, left, top, right, bottom, padding_mode, fill)
    crops = [padded[i, ..., t:t + h, l:l + w] for i, (t, l) in enumerate(zip(top_off.tolist(), left_off.tolist()))]
    return torch.stack(crops) if crops else padded[..., :h, :w].clone()


def _pad_index(size, before, after, mode, device):
    i = torch.arange(-before, size + after, device=device)
    if mode == "replicate":
        return i.clamp(0, size - 1)
    i = i.abs()                                  # reflect (the edge is not repeated)
    return torch.where(i > size - 1, 2 * (size - 1) - i, i)


def _pad(images, left, top, right, bottom, mode, fill):
    """Padding as pure data movement, for every dtype."""
    if not any((left, top, right, bottom)):
        return images
    if mode == "constant":
        return F.pad(images, (left, right, top, bottom), mode="constant", value=fill)
    mode = _PAD_MODES[mode]
    rows = _pad_index(images.shape[-2], top, bottom, mode, images.device)
    cols = _pad_index(images.shape[-1], left, right, mode, images.device)
    return images.index_select(-2, rows).index_select(-1, cols)


def random_horizontal_flip(images, p=0.5, *, generator=None):
    """Flip sample i along the last dim (W) when u_i < p.  Returns a new tensor."""
    _batch("random_horizontal_flip", images)
    p = _probability("random_horizontal_flip", p, ValueError)
    g = _args.generator("random_horizontal_flip", generator)
    n = images.shape[0]
    seed, offset = g._reserve(_args.blocks(n, 4))
    w = _args.backend(torch.device("cpu")).words(seed, offset, n, None)
    flip = ((w >> 8) < threshold(p)).to(images.device).view(n, *([1] * (images.dim() - 1)))
    return torch.where(flip, images.flip(-1), images)

"""Bitwise comparison helpers.

Bitwise equality means equal bit patterns: ``-0.0`` differs from ``+0.0`` and
a NaN equals only a NaN with the same bits.  ``torch.equal`` and
``allclose`` say otherwise, which is why they are not used for this.
"""
import torch

_INT_VIEW = {torch.float32: torch.int32, torch.float64: torch.int64, torch.float16: torch.int16,
             torch.bfloat16: torch.int16}


def bits(t: torch.Tensor) -> torch.Tensor:
    """The tensor's bit patterns as an integer tensor (same shape, on CPU)."""
    t = t.detach().cpu()
    view = _INT_VIEW.get(t.dtype)
    return t.contiguous().view(view) if view is not None else t


def bitwise_equal(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(bits(a), bits(b))


def assert_bitwise_equal(actual: torch.Tensor, expected: torch.Tensor, msg: str = "") -> None:
    """AssertionError naming the first differing element unless bits agree."""
    prefix = f"{msg}: " if msg else ""
    if actual.dtype != expected.dtype:
        raise AssertionError(f"{prefix}dtype {actual.dtype} != {expected.dtype}")
    if actual.shape != expected.shape:
        raise AssertionError(f"{prefix}shape {tuple(actual.shape)} != {tuple(expected.shape)}")
    ba, be = bits(actual), bits(expected)
    diff = (ba != be).nonzero()
    if len(diff):
        idx = tuple(diff[0].tolist())
        a, e = actual.detach().cpu()[idx].item(), expected.detach().cpu()[idx].item()
        raise AssertionError(
            f"{prefix}{len(diff)} of {ba.numel()} elements differ; first at {idx}: "
            f"{a!r} (0x{ba[idx].item() & 0xFFFFFFFF:08x}) != {e!r} (0x{be[idx].item() & 0xFFFFFFFF:08x})"
        )

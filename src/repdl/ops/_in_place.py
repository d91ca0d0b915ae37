"""torch.nn.functional's ``inplace=True`` for RepDL's activations.

The activation is computed out of place and its result written into the
input: a copy moves bits, so the result is the contract's either way.  A
call that records autograd computes from a clone of the input instead of
the input itself, because the activation's backward reads the tensor it
saved, which the write would then have overwritten ("modified by an
inplace operation"); torch's own in-place activations keep the original
input the same way.  The write's backward hands the output's gradient to
the result and none to the overwritten input: ``Tensor.copy_``'s gives it
zeros, which autograd adds to the gradient arriving through the clone,
and -0.0 + +0.0 = +0.0 would change a bit.  So the gradient's bits are the
out-of-place call's.
"""
import torch

__all__ = ["inplace_source", "write_inplace"]


def _records(t: torch.Tensor) -> bool:
    return t.requires_grad and torch.is_grad_enabled()


def inplace_source(x: torch.Tensor, inplace: bool) -> torch.Tensor:
    """The tensor an activation of x computes from: x, or for an in-place
    call that records autograd, a clone that the write will not touch."""
    return x.clone() if inplace and _records(x) else x


class _Write(torch.autograd.Function):
    """input.copy_(y), differentiable in y only (see the module's text)."""

    @staticmethod
    def forward(ctx, input, y):
        ctx.mark_dirty(input)
        return input.copy_(y)

    @staticmethod
    def backward(ctx, grad):
        return None, grad


def write_inplace(input: torch.Tensor, y: torch.Tensor, inplace: bool) -> torch.Tensor:
    """y, or y written into input (what torch's inplace=True returns)."""
    if not inplace:
        return y
    if (_records(input) or _records(y)) and not torch._C._are_functorch_transforms_active():
        return _Write.apply(input, y)
    return input.copy_(y)

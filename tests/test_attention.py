"""Attention's steps from the scores to their softmax (docs/CONTRACT.md,
"Attention"): scale, mask (added, or where(mask, s, -inf)), softmax.  The
attention_softmax primitive takes the scale and the mask as its kernels
first read each line; it must give the bits of the steps one by one,
forward and backward, on both backends and every instruction set, with
special values in the scores and the masks."""
import math
import sys

import pytest
import torch

import repdl
import repdl.ops.attention  # noqa: F401  (the module, not the function the package exports)
from repdl.backends import cpu, reference as ref
from repdl.backends._views import mask_line_strides
from repdl.ops import _prims as P
from repdl.testing import assert_bitwise_equal

from values import SPECIALS, sprinkle, wide

attention = sys.modules["repdl.ops.attention"]
softmax_ops = sys.modules["repdl.ops.softmax"]

SCALE = repdl._scalar.fl32(0.37)

# (scores shape, mask shape, mask kind): masks broadcast over the batch,
# over heads and queries (a key padding mask), full ones, a bool mask over
# one line, and a mask whose batch dims place no line (batch dims broadcast
# beside kept ones), which takes the steps one by one.
CASES = [((4, 5, 7), (5, 7), "float"), ((4, 5, 7), (4, 5, 7), "float"), ((2, 3, 5, 7), (1, 1, 5, 7), "bool"),
         ((2, 3, 5, 7), (2, 3, 1, 7), "float"), ((6, 33), (33,), "bool"), ((3, 5, 7), None, None),
         ((2, 3, 5, 7), (2, 1, 5, 7), "float"), ((1, 2, 17, 130), (17, 130), "bool"), ((2, 0, 4), (4,), "float")]


def one_by_one(s, scale, mask):
    """The contract's steps as separate ops."""
    s = P.mul(s, scale)
    if mask is not None:
        s = torch.where(mask, s, torch.full((), -math.inf)) if mask.dtype == torch.bool else P.add(s, mask)
    return softmax_ops.softmax(s, -1)


def inputs(shape, mask_shape, kind, gen):
    s = sprinkle(wide(*shape, gen=gen, spread=3), SPECIALS, gen, 0.05)
    if kind == "float":
        return s, sprinkle(wide(*mask_shape, gen=gen, spread=2), [-math.inf, math.inf, float("nan"), -0.0], gen, 0.2)
    if kind == "bool":
        return s, torch.rand(*mask_shape, generator=gen) > 0.3
    return s, None


@pytest.mark.parametrize("shape,mask_shape,kind", CASES)
def test_fused_steps_give_the_steps_bits(shape, mask_shape, kind, gen, isa):
    s, mask = inputs(shape, mask_shape, kind, gen)
    want = one_by_one(s, SCALE, mask)
    if mask is None or mask_line_strides(mask, s.shape) is not None:
        assert_bitwise_equal(cpu.attention_softmax(s, SCALE, mask), want, "cpu")
        assert_bitwise_equal(ref.attention_softmax(s, SCALE, mask), want, "reference")
    assert_bitwise_equal(attention._scores_softmax(s, SCALE, mask), want, "op")


@pytest.mark.parametrize("shape,mask_shape,kind", CASES)
def test_fused_steps_gradient_is_the_steps_gradient(shape, mask_shape, kind, gen, isa):
    s, mask = inputs(shape, mask_shape, kind, gen)
    g = wide(*shape, gen=gen, spread=2)
    fused, steps = s.clone().requires_grad_(), s.clone().requires_grad_()
    (got,) = torch.autograd.grad(attention._scores_softmax(fused, SCALE, mask), fused, g)
    (want,) = torch.autograd.grad(one_by_one(steps, SCALE, mask), steps, g)
    assert_bitwise_equal(got, want)


@pytest.mark.parametrize("shape,mask_shape,kind", CASES)
def test_fused_gradient_kernel_matches_the_reference(shape, mask_shape, kind, gen, isa):
    """The backends' gradient of the scores from that of p, on special
    values in the gradient too (the primitive's own backward, no graph)."""
    s, mask = inputs(shape, mask_shape, kind, gen)
    if mask is not None and mask_line_strides(mask, s.shape) is None:
        return
    p = ref.attention_softmax(s, SCALE, mask)
    g = sprinkle(wide(*shape, gen=gen, spread=2), SPECIALS, gen, 0.05)
    keep = mask if kind == "bool" else None
    assert_bitwise_equal(cpu.attention_softmax_backward(g, p, SCALE, keep),
                         ref.attention_softmax_backward(g, p, SCALE, keep))


def test_a_mask_that_needs_a_gradient_gets_the_steps_one_by_one(gen):
    s = wide(3, 4, 5, gen=gen)
    mask = wide(4, 5, gen=gen).requires_grad_()
    (got,) = torch.autograd.grad(attention._scores_softmax(s, SCALE, mask).sum(), mask)
    (want,) = torch.autograd.grad(one_by_one(s, SCALE, mask).sum(), mask)
    assert_bitwise_equal(got, want)


@pytest.mark.parametrize("kind", ["float", "bool"])
def test_a_mask_on_another_device_is_refused(kind):
    q = torch.zeros(2, 3, 4)
    mask = (torch.zeros(3, 3) if kind == "float" else torch.ones(3, 3, dtype=torch.bool)).to("meta")
    with pytest.raises(RuntimeError, match="the mask is on meta"):
        repdl.scaled_dot_product_attention(q, q, q, mask)


@pytest.mark.parametrize("mask_shape,strides", [((5, 7), (0, 7)), ((4, 5, 7), (35, 7)), ((4, 1, 7), (7, 0)),
                                                 ((1, 5, 7), (0, 7)), ((7,), (0, 0)), ((2, 1, 5, 7), None),
                                                 ((4, 5, 8), None)])
def test_mask_line_strides(mask_shape, strides):
    """Where each line of (..., L, S) scores finds its mask: b * m1 + l * m0."""
    shape = (2, 4, 5, 7) if len(mask_shape) == 4 else (4, 5, 7)
    assert mask_line_strides(torch.zeros(mask_shape), shape) == strides
    if strides is not None:  # a strided last dim places no line
        wide_rows = torch.zeros(*mask_shape[:-1], 2 * mask_shape[-1])[..., ::2]
        assert mask_line_strides(wide_rows, shape) is None

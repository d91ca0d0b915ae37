"""The fused kernels behind layer/RMS/group norm (csrc/norm) and softmax's
backward (csrc/softmax) against the reference bit for bit, on every
instruction set, over row lengths 1 and primes, affine or not, strided
lines and adversarial values; and equal to the composition of primitives
they stand for (what double backward differentiates)."""
import pytest
import torch

import repdl
from repdl.backends import cpu, reference as ref
from repdl.ops import norm as N
from repdl.testing import assert_bitwise_equal

from values import SPECIALS, TINY, sprinkle, wide

SHAPES = [(1, 1), (3, 2), (13, 7), (9, 768), (17, 1031), (2, 4099)]


@pytest.mark.parametrize("rows,n", SHAPES)
@pytest.mark.parametrize("centered", [True, False])
def test_norm_rows_match_the_reference(rows, n, centered, gen, isa):
    x = sprinkle(wide(rows, n, gen=gen, spread=3), SPECIALS + TINY, gen, 0.01)
    g = wide(rows, n, gen=gen, spread=2)
    w, b = wide(n, gen=gen), wide(n, gen=gen)
    for ww, bb in ((w, b), (None, None), (w, None)):
        out, want = cpu.norm_rows(x, ww, bb, 1e-5, centered), ref.norm_rows(x, ww, bb, 1e-5, centered)
        for a, e in zip(out, want):
            assert_bitwise_equal(a, e, "forward")
        grads = cpu.norm_rows_backward(g, x, out[1], out[2], ww, centered, ww is not None, bb is not None)
        want_grads = ref.norm_rows_backward(g, x, want[1], want[2], ww, centered, ww is not None, bb is not None)
        for a, e in zip(grads, want_grads):
            if e is not None:
                assert_bitwise_equal(a, e, "backward")


@pytest.mark.parametrize("centered", [True, False])
def test_fused_norm_is_the_composition(centered, gen):
    x = wide(11, 37, gen=gen).requires_grad_()
    w, b = wide(37, gen=gen).requires_grad_(), wide(37, gen=gen).requires_grad_()
    bias = b if centered else None
    g = wide(11, 37, gen=gen)
    eps = N.fl32(1e-5)
    fused = N._norm_rows(x, w, bias, eps, centered)[0]
    normalized = (N._normalize(x, [1], eps) if centered else N._rms_normalize(x, [1], eps))[0]
    composed = repdl.mul(normalized, w)
    composed = repdl.add(composed, bias) if centered else composed
    assert_bitwise_equal(fused, composed)
    leaves = (x, w, b) if centered else (x, w)
    for a, e in zip(torch.autograd.grad(fused, leaves, g), torch.autograd.grad(composed, leaves, g)):
        assert_bitwise_equal(a, e)


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("shape,dim", [((7, 13), 1), ((7, 13), 0), ((3, 1, 5), 1), ((4, 9, 300), -1), ((2, 4099), 1)])
def test_softmax_backward_matches_the_reference(shape, dim, log, gen, isa):
    x = sprinkle(wide(*shape, gen=gen, spread=2), SPECIALS, gen, 0.02)
    y = (repdl.log_softmax if log else repdl.softmax)(x, dim)
    g = wide(*shape, gen=gen, spread=2)
    want = ref.softmax_backward(g, y, dim % len(shape), log=log)
    assert_bitwise_equal(cpu.softmax_backward(g, y, dim % len(shape), log=log), want)
    gt = g.transpose(0, -1).contiguous().transpose(0, -1)  # another layout for g
    assert_bitwise_equal(cpu.softmax_backward(gt, y, dim % len(shape), log=log), want)


def test_double_backward_keeps_the_first_order_bits(gen):
    x = wide(5, 9, gen=gen).requires_grad_()
    g = wide(5, 9, gen=gen)
    for f in (lambda t: repdl.softmax(t, 1), lambda t: repdl.log_softmax(t, 0), lambda t: repdl.layer_norm(t, (9,))):
        (plain,) = torch.autograd.grad(f(x), x, g)
        (graph,) = torch.autograd.grad(f(x), x, g, create_graph=True)
        assert_bitwise_equal(graph.detach(), plain)
        assert graph.requires_grad

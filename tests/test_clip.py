"""repdl.nn.utils gradient clipping: the documented order (sequential over
parameters, pairwise within each), kernels against the reference, norms
against float64 within stated bounds, torch's behaviour and errors."""
import math

import pytest
import torch

import repdl
from repdl import backends
from repdl.nn.utils import clip_grad_norm_, clip_grad_value_, get_total_norm
from repdl.testing import assert_bitwise_equal

from values import SPECIALS, sprinkle, wide

NORMS = [2.0, 1.0, 3, 2.5, 0.5, math.inf, -math.inf, 0]


def params_with_grads(gen, shapes=((10,), (3, 40), (1,), (7, 7, 3))):
    ps = []
    for s in shapes:
        p = torch.nn.Parameter(torch.zeros(s))
        p.grad = wide(*s, gen=gen, spread=2)
        ps.append(p)
    return ps


def float64_norm(grads, p):
    flat = torch.cat([g.double().reshape(-1) for g in grads])
    if p == 0:
        return float((flat != 0).sum())
    return float(torch.linalg.vector_norm(flat, p))


@pytest.mark.parametrize("p", NORMS)
def test_total_norm_is_accurate(p, gen):
    grads = [q.grad for q in params_with_grads(gen)]
    got = float(get_total_norm(grads, p))
    # pairwise sums of < 2^11 terms, one sequential sum of 4, and for
    # fractional p a correctly rounded exp/log per term: well under 1e-5
    assert got == pytest.approx(float64_norm(grads, p), rel=1e-5)


@pytest.mark.parametrize("p", NORMS)
def test_kernels_match_the_reference(p, gen, isa):
    grads = [sprinkle(q.grad, SPECIALS[:2] + SPECIALS[10:], gen, 0.05) for q in params_with_grads(gen)]
    fast = get_total_norm(grads, p)
    with backends.use("reference"):
        slow = get_total_norm(grads, p)
    assert_bitwise_equal(fast, slow)


def test_parameters_are_summed_in_the_order_given():
    """2^24 then 1 then 1 rounds twice to 2^24; 1, 1, 2^24 keeps 2^24 + 2."""
    def norm(order):
        return get_total_norm([torch.tensor([v]) for v in order], 1).item()
    assert norm([2.0 ** 24, 1.0, 1.0]) == 2.0 ** 24
    assert norm([1.0, 1.0, 2.0 ** 24]) == 2.0 ** 24 + 2


def test_clipping_scales_like_torch(gen):
    ours, theirs = params_with_grads(gen), params_with_grads(gen)
    for a, b in zip(ours, theirs):
        b.grad = a.grad.clone()
    total = clip_grad_norm_(ours, 1.0)
    expected = torch.nn.utils.clip_grad_norm_(theirs, 1.0)
    assert total.item() == pytest.approx(expected.item(), rel=1e-6)
    for a, b in zip(ours, theirs):
        assert torch.allclose(a.grad, b.grad, rtol=1e-5, atol=0)
    # a norm below max_norm multiplies by exactly 1
    before = [a.grad.clone() for a in ours]
    clip_grad_norm_(ours, 100.0)
    for a, g in zip(ours, before):
        assert_bitwise_equal(a.grad, g)


def test_clip_grad_value(gen):
    ps = params_with_grads(gen)
    expected = [p.grad.clamp(-0.5, 0.5) for p in ps]
    clip_grad_value_(ps, 0.5)
    for p, e in zip(ps, expected):
        assert_bitwise_equal(p.grad, e)


def test_nonfinite_norms():
    p = torch.nn.Parameter(torch.ones(3))
    p.grad = torch.tensor([1.0, float("nan"), 2.0])
    assert math.isnan(clip_grad_norm_([p], 1.0).item())  # no crash, no hang: NaN propagates
    p.grad = torch.tensor([1.0, float("inf"), 2.0])
    with pytest.raises(RuntimeError, match="non-finite"):
        clip_grad_norm_([p], 1.0, error_if_nonfinite=True)


def test_bad_arguments():
    p = torch.nn.Parameter(torch.ones(3))
    p.grad = torch.ones(3)
    with pytest.raises(NotImplementedError, match="foreach"):
        clip_grad_norm_([p], 1.0, foreach=True)
    with pytest.raises(NotImplementedError, match="norm_type=-2"):
        clip_grad_norm_([p], 1.0, norm_type=-2)
    with pytest.raises(TypeError, match="float32"):
        get_total_norm([torch.ones(2, dtype=torch.float64)])
    assert get_total_norm([]).item() == 0.0
    assert repdl.nn.utils.clip_grad_norm_(torch.nn.Parameter(torch.ones(2)), 1.0).item() == 0.0  # no grads

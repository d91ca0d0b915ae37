"""Pooling kernels (csrc/pool) against the reference bit for bit on random
geometries, forward and backward, on every instruction set: sizes 1 and
primes, strides beyond the window, padding up to half the window, dilation,
ceil_mode, both divisor rules, adaptive windows that overlap, and values
that break careless kernels (NaN, ties of signed zeros, -inf, subnormals)."""
import random

import pytest
import torch

import repdl
from repdl import backends
from repdl.testing import assert_bitwise_equal

from values import SPECIALS, sprinkle, wide


def sliding_cases(count, seed):
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        k = (rng.choice([1, 2, 3, 5]), rng.choice([1, 2, 3, 4]))
        s = (rng.choice([1, 2, 3, 7]), rng.choice([1, 2, 5]))
        p = tuple(rng.randint(0, ki // 2) for ki in k)
        d = (rng.choice([1, 2]), rng.choice([1, 3]))
        hw = (rng.choice([1, 2, 7, 13]), rng.choice([1, 3, 8, 17, 31]))
        ceil = rng.random() < 0.5
        if all((hw[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) >= 0 for i in range(2)):
            out.append((hw, k, s, p, d, ceil))
    return out


def both_backends(fn, x):
    """fn's outputs and input gradient on the CPU kernels and on the reference."""
    results = []
    for name in ("cpu", "reference"):
        with backends.use(name):
            xr = x.clone().requires_grad_()
            y = fn(xr)
            y = y if isinstance(y, tuple) else (y,)
            g = torch.linspace(-3, 5, y[0].numel()).reshape(y[0].shape)
            (dx,) = torch.autograd.grad(y[0], xr, g)
            results.append((*y, dx))
    return results


def assert_backends_agree(fn, x):
    cpu, ref = both_backends(fn, x)
    for a, b, what in zip(cpu, ref, ("forward", "second output", "grad")):
        assert_bitwise_equal(a, b, what)


def pool_input(hw, gen, planes=(2, 3)):
    # Ties are common in pooled activations (ReLU zeros): draw from a few values
    # besides the wide ones, and sprinkle NaN, infinities, signed zeros and subnormals.
    x = wide(*planes, *hw, gen=gen, spread=3)
    ties = torch.tensor([0.0, -0.0, 1.0])[torch.randint(0, 3, x.shape, generator=gen)]
    x = torch.where(torch.rand(x.shape, generator=gen) < 0.3, ties, x)
    return sprinkle(x, SPECIALS, gen, 0.05)


@pytest.mark.parametrize("case", sliding_cases(30, 7), ids=lambda c: f"{c[0]}k{c[1]}s{c[2]}p{c[3]}d{c[4]}c{int(c[5])}")
def test_max_pool_matches_the_reference(case, gen, isa):
    hw, k, s, p, d, ceil = case
    x = pool_input(hw, gen)
    assert_backends_agree(lambda t: repdl.max_pool2d(t, k, s, p, d, ceil_mode=ceil, return_indices=True), x)


@pytest.mark.parametrize("case", sliding_cases(30, 8), ids=lambda c: f"{c[0]}k{c[1]}s{c[2]}p{c[3]}c{int(c[5])}")
@pytest.mark.parametrize("include_pad", [True, False])
def test_avg_pool_matches_the_reference(case, include_pad, gen, isa):
    hw, k, s, p, _, ceil = case
    x = pool_input(hw, gen)
    assert_backends_agree(lambda t: repdl.avg_pool2d(t, k, s, p, ceil, include_pad), x)


@pytest.mark.parametrize("hw,out", [((1, 1), (1, 1)), ((7, 13), (3, 5)), ((5, 3), (7, 4)), ((31, 2), (1, 2)),
                                    ((17, 17), (4, 4))])
def test_adaptive_pools_match_the_reference(hw, out, gen, isa):
    x = pool_input(hw, gen)
    assert_backends_agree(lambda t: repdl.adaptive_avg_pool2d(t, out), x)
    assert_backends_agree(lambda t: repdl.adaptive_max_pool2d(t, out, return_indices=True), x)


# Rows longer than the kernels' blocks of 64 outputs (csrc/pool/pool.cpp),
# with padding on rows only (even columns, some rows partly outside), on
# columns (the per-output path) and none.
LONG_ROWS = [((5, 150), 2, 2, 0, 1), ((4, 131), 3, 2, (1, 0), 1), ((3, 200), (2, 3), 1, 0, (1, 2)),
             ((6, 97), 3, (1, 2), 1, 1), ((2, 257), (1, 2), (1, 2), 0, 1)]


@pytest.mark.parametrize("case", LONG_ROWS, ids=lambda c: f"{c[0][1]}k{c[1]}s{c[2]}p{c[3]}d{c[4]}")
def test_pools_on_long_rows(case, gen, isa):
    hw, k, s, p, d = case
    x = pool_input(hw, gen)
    assert_backends_agree(lambda t: repdl.max_pool2d(t, k, s, p, d, return_indices=True), x)
    if d == 1:
        assert_backends_agree(lambda t: repdl.avg_pool2d(t, k, s, p), x)


def test_non_contiguous_input(gen):
    x = wide(2, 9, 10, 6, gen=gen).permute(0, 3, 1, 2)[:, ::2]
    assert_bitwise_equal(repdl.max_pool2d(x, 3, 2, 1), repdl.max_pool2d(x.contiguous(), 3, 2, 1))
    assert_bitwise_equal(repdl.avg_pool2d(x, 3, 2, 1), repdl.avg_pool2d(x.contiguous(), 3, 2, 1))


def test_max_pool_semantics():
    """NaN beats every number, the first of equal maxima wins (so -0.0 before
    +0.0 answers -0.0), and a window of -inf answers its first input, never
    a padding position."""
    x = torch.tensor([[[[-0.0, 0.0, float("-inf"), float("-inf"), 1.0, float("nan"), 2.0, 0.0]]]])
    y, i = repdl.max_pool2d(x, (1, 2), return_indices=True)
    assert_bitwise_equal(y, torch.tensor([[[[-0.0, float("-inf"), float("nan"), 2.0]]]]))
    assert i.reshape(-1).tolist() == [0, 2, 5, 6]
    y, i = repdl.max_pool2d(torch.full((1, 1, 1, 2), float("-inf")), (1, 3), 1, (0, 1), return_indices=True)
    assert i.reshape(-1).tolist() == [0, 0]


def test_avg_pool_sums_in_window_order():
    """The window's sum is sequential in row-major order: 2^24 + 1 + 1 rounds
    twice to 2^24, where a pairwise or reordered sum would keep 2^24 + 2."""
    x = torch.tensor([[[[2.0 ** 24, 1.0, 1.0]]]])
    assert repdl.avg_pool2d(x, (1, 3), divisor_override=1).item() == 2.0 ** 24
    assert repdl.avg_pool2d(x.flip(-1), (1, 3), divisor_override=1).item() == 2.0 ** 24 + 2

"""Convolution kernels (forward, grad_input, grad_weight) against the
reference bit for bit on random geometries: sizes 1 and primes, strides and
padding larger than the kernel, dilation, groups up to depthwise,
non-contiguous inputs, adversarial values; and on every instruction set."""
import random

import pytest
import torch

import repdl
from repdl.backends import cpu, reference as ref
from repdl.testing import assert_bitwise_equal

from values import SPECIALS, TINY, sprinkle, wide


def geometries(count, seed):
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        g = rng.choice([1, 1, 2, 3])
        c, oc = g * rng.choice([1, 2, 3, 5]), g * rng.choice([1, 2, 7])
        if rng.random() < 0.2:  # depthwise
            g, c, oc = 4, 4, 4
        kh, kw = rng.choice([1, 2, 3, 5]), rng.choice([1, 3, 4])
        sh, sw = rng.choice([1, 2, 3, 6]), rng.choice([1, 2, 5])  # strides beyond the kernel included
        dh, dw = rng.choice([1, 2]), rng.choice([1, 3])
        ph, pw = rng.choice([0, 1, 4, 7]), rng.choice([0, 2, 6])  # padding beyond the kernel included
        h, w = rng.choice([1, 2, 7, 11, 13]), rng.choice([1, 3, 8, 17])
        n = rng.choice([1, 2, 3])
        oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
        ow = (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
        if oh > 0 and ow > 0:
            out.append((n, c, h, w, oc, kh, kw, (sh, sw), (ph, pw), (dh, dw), g, (oh, ow)))
    return out


@pytest.mark.parametrize("geom", geometries(40, 1), ids=lambda g: "x".join(map(str, g[:7])) + f"-s{g[7]}p{g[8]}g{g[10]}")
def test_three_kernels_match_the_reference(geom, gen, isa):
    n, c, h, w, oc, kh, kw, stride, padding, dilation, groups, out_hw = geom
    x = sprinkle(wide(n, c, h, w, gen=gen, spread=3), SPECIALS + TINY, gen, 0.03)
    wt = sprinkle(wide(oc, c // groups, kh, kw, gen=gen, spread=3), TINY, gen, 0.05)
    dy = wide(n, oc, *out_hw, gen=gen, spread=3)
    args = (stride, padding, dilation, groups)
    assert_bitwise_equal(cpu.conv2d(x, wt, out_hw, *args), ref.conv2d(x, wt, out_hw, *args), "forward")
    assert_bitwise_equal(cpu.conv2d_input(dy, wt, x.shape, *args), ref.conv2d_input(dy, wt, x.shape, *args),
                         "grad_input")
    assert_bitwise_equal(cpu.conv2d_weight(x, dy, wt.shape, *args), ref.conv2d_weight(x, dy, wt.shape, *args),
                         "grad_weight")


def test_non_contiguous_operands(gen):
    x = wide(3, 8, 9, 10, gen=gen).permute(0, 1, 3, 2)[:, ::2]
    wt = wide(6, 4, 3, 3, gen=gen).transpose(2, 3)
    dense = repdl.conv2d(x.contiguous(), wt.contiguous(), padding=1)
    assert_bitwise_equal(repdl.conv2d(x, wt, padding=1), dense)


def test_large_blocks_and_many_threads(gen):
    """A geometry whose im2col exceeds one scratch block: the blocks of one
    weight gradient's chain are taken in order."""
    x = wide(2, 16, 40, 40, gen=gen)
    wt = wide(8, 16, 5, 5, gen=gen)
    dy = wide(2, 8, 36, 36, gen=gen)
    args = ((1, 1), (0, 0), (1, 1), 1)
    assert_bitwise_equal(cpu.conv2d_weight(x, dy, wt.shape, *args), ref.conv2d_weight(x, dy, wt.shape, *args))
    torch.set_num_threads(1)
    try:
        one = cpu.conv2d(x, wt, (36, 36), *args)
    finally:
        torch.set_num_threads(2)
    assert_bitwise_equal(one, cpu.conv2d(x, wt, (36, 36), *args))


def test_zero_taps_take_part_as_plus_zero():
    """Padding taps are +0.0 terms of the chain: a NaN or infinite weight
    meeting them gives NaN, and -0.0 products meeting them become +0.0 (the
    contract), as the reference says."""
    x = torch.full((1, 1, 1, 1), -0.0)
    wt = torch.tensor([[[[float("inf"), 1.0, 2.0]]]])
    y = repdl.conv2d(x, wt, padding=(0, 1))
    assert_bitwise_equal(y, ref.conv2d(x, wt, (1, 1), (1, 1), (0, 1), (1, 1), 1))
    assert torch.isnan(y).all()

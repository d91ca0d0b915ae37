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


def assert_three_kernels_match(x, wt, dy, out_hw, args, gen):
    """The forward without a bias and with one holding special values (the
    kernels add it job by job; NaN comes out canonical), then both gradients."""
    bias = sprinkle(wide(wt.shape[0], gen=gen, spread=3), SPECIALS, gen, 0.3)
    for b in (None, bias):
        assert_bitwise_equal(cpu.conv2d(x, wt, b, out_hw, *args), ref.conv2d(x, wt, b, out_hw, *args),
                             f"forward, bias {b is not None}")
    assert_bitwise_equal(cpu.conv2d_input(dy, wt, x.shape, *args), ref.conv2d_input(dy, wt, x.shape, *args),
                         "grad_input")
    assert_bitwise_equal(cpu.conv2d_weight(x, dy, wt.shape, *args), ref.conv2d_weight(x, dy, wt.shape, *args),
                         "grad_weight")


@pytest.mark.parametrize("geom", geometries(40, 1), ids=lambda g: "x".join(map(str, g[:7])) + f"-s{g[7]}p{g[8]}g{g[10]}")
def test_three_kernels_match_the_reference(geom, gen, isa):
    n, c, h, w, oc, kh, kw, stride, padding, dilation, groups, out_hw = geom
    x = sprinkle(wide(n, c, h, w, gen=gen, spread=3), SPECIALS + TINY, gen, 0.03)
    wt = sprinkle(wide(oc, c // groups, kh, kw, gen=gen, spread=3), TINY, gen, 0.05)
    dy = wide(n, oc, *out_hw, gen=gen, spread=3)
    assert_three_kernels_match(x, wt, dy, out_hw, (stride, padding, dilation, groups), gen)


# Fixed geometries on both sides of the direct path's bounds (any stride,
# grad_input stride 1; at most 32 outputs and 16 inputs per group, 32 on
# the AVX-512 row for outputs a vector wide or more, and there 128 a side
# for 3 x 3 rows of one or two vectors; the weight gradient at
# most 64 inputs and 4 to 32 outputs per group, 64 where two images fit in
# 2 MB): the random ones above have few channels, so these keep im2col
# tested, and pin the direct path's edges (strides, padding beyond the
# kernel, dilation, groups) and its tiles (rows of one to four vectors,
# the last channels and rows of a layer in smaller tiles, one channel's
# rows together, chains in several passes over the input channels, the
# weight gradient's chains over several chunks of images, threads owning
# its output channels).
BOUNDARY_GEOMETRIES = {
    "direct-at-bounds": (2, 16, 9, 8, 32, 3, 3, (1, 1), (1, 1), (1, 1), 1),
    "im2col-17-channels": (2, 17, 9, 8, 8, 3, 3, (1, 1), (1, 1), (1, 1), 1),
    "im2col-33-outputs": (1, 4, 7, 11, 33, 3, 2, (1, 1), (0, 1), (1, 1), 1),
    "im2col-wide-groups": (2, 40, 6, 6, 80, 3, 3, (1, 1), (1, 1), (1, 1), 2),
    # outputs as wide as the input (im2col's shifted-plane rows): blocks of
    # 448 columns that cut the 30-wide rows, dilation, rows beyond the input
    "im2col-rows-across-blocks": (1, 64, 30, 30, 8, 3, 3, (1, 1), (1, 1), (1, 1), 1),
    "im2col-same-dilated": (2, 20, 9, 9, 8, 3, 3, (1, 1), (2, 2), (2, 2), 1),
    "im2col-rows-beyond-input": (1, 17, 5, 6, 4, 3, 3, (1, 1), (3, 1), (1, 1), 1),
    "direct-padding-beyond-kernel": (1, 3, 5, 4, 5, 2, 3, (1, 1), (4, 5), (1, 1), 1),
    "direct-dilation": (2, 6, 13, 12, 4, 3, 3, (1, 1), (2, 0), (3, 2), 1),
    "direct-groups": (2, 12, 7, 9, 18, 3, 1, (1, 1), (1, 0), (1, 1), 3),
    "direct-depthwise-5x5": (3, 8, 10, 10, 8, 5, 5, (1, 1), (2, 2), (1, 1), 8),
    "direct-depthwise-20-channels-dilated": (2, 20, 7, 9, 20, 3, 3, (1, 1), (1, 1), (2, 1), 20),
    "3-outputs-gemm-weight-grad": (2, 5, 6, 9, 3, 3, 3, (1, 1), (1, 1), (1, 1), 1),
    "direct-4-outputs-per-group": (2, 8, 7, 7, 8, 3, 3, (1, 1), (1, 1), (1, 1), 2),
    "direct-kernel-beyond-input": (1, 2, 2, 3, 4, 5, 5, (1, 1), (3, 3), (1, 1), 1),
    "direct-wide-rows": (1, 3, 4, 67, 5, 1, 7, (1, 1), (0, 3), (1, 1), 1),
    "direct-32-channels": (2, 32, 6, 37, 11, 3, 3, (1, 1), (1, 1), (1, 1), 1),
    "im2col-33-channels": (1, 33, 4, 20, 6, 3, 3, (1, 1), (1, 1), (1, 1), 1),
    "direct-four-vector-rows": (1, 5, 3, 50, 7, 3, 3, (1, 1), (1, 1), (1, 1), 1),
    "direct-two-vector-rows": (2, 24, 5, 20, 13, 3, 3, (1, 1), (1, 1), (1, 1), 1),
    "direct-one-vector-rows": (1, 20, 7, 16, 9, 3, 3, (1, 1), (1, 1), (1, 1), 1),
    "direct-channel-passes": (1, 16, 9, 18, 20, 7, 7, (1, 1), (3, 3), (1, 1), 1),
    "direct-channel-passes-5x5": (1, 32, 6, 17, 5, 5, 5, (1, 1), (2, 2), (1, 1), 1),
    "direct-weight-grad-chunks": (3, 40, 40, 40, 6, 3, 3, (1, 1), (1, 1), (1, 1), 1),
    # two threads owning vectors of outputs (the second a partial one), each
    # over two chunks of images, its 27 taps in blocks of nine
    "direct-weight-grad-outputs-by-thread": (5, 3, 40, 40, 20, 3, 3, (1, 1), (1, 1), (1, 1), 1),
    "gemm-weight-grad-65-channels": (1, 65, 12, 30, 8, 3, 3, (1, 1), (1, 1), (1, 1), 1),
    "direct-weight-grad-50-outputs": (2, 8, 6, 9, 50, 3, 3, (1, 1), (1, 1), (1, 1), 1),
    "direct-depthwise-wide-rows": (2, 6, 11, 37, 6, 3, 3, (1, 1), (1, 1), (1, 1), 6),
    "direct-stride-2": (2, 5, 11, 13, 7, 3, 3, (2, 2), (1, 1), (1, 1), 1),
    "direct-stride-3x2-dilated": (2, 4, 13, 12, 6, 3, 2, (3, 2), (2, 1), (2, 3), 1),
    "direct-stride-2-32-channels": (1, 32, 9, 36, 9, 3, 3, (2, 2), (1, 1), (1, 1), 1),
    "direct-depthwise-stride-2": (2, 20, 9, 12, 20, 3, 3, (2, 2), (1, 1), (1, 1), 20),
    "im2col-stride-2-65-channels": (1, 65, 9, 10, 8, 3, 3, (2, 2), (1, 1), (1, 1), 1),
    "im2col-stride-2x3-65-channels": (1, 65, 8, 11, 4, 2, 3, (2, 3), (0, 1), (1, 1), 1),
    # 3 x 3 rows of one or two vectors, up to 128 channels a side, direct on
    # the AVX-512 row (passes over 40 and 70 input channels), and past it
    "direct-unrolled-70-outputs": (2, 40, 5, 16, 70, 3, 3, (1, 1), (1, 1), (1, 1), 1),
    "im2col-unrolled-129-outputs": (1, 8, 3, 20, 129, 3, 3, (1, 1), (1, 1), (1, 1), 1),
}


@pytest.mark.parametrize("name", sorted(BOUNDARY_GEOMETRIES))
def test_direct_and_im2col_bounds(name, gen, isa):
    n, c, h, w, oc, kh, kw, stride, padding, dilation, groups = BOUNDARY_GEOMETRIES[name]
    out_hw = tuple((size + 2 * p - d * (k - 1) - 1) // s + 1
                   for size, p, d, k, s in zip((h, w), padding, dilation, (kh, kw), stride))
    x = sprinkle(wide(n, c, h, w, gen=gen, spread=3), SPECIALS + TINY, gen, 0.02)
    wt = sprinkle(wide(oc, c // groups, kh, kw, gen=gen, spread=3), TINY, gen, 0.05)
    dy = wide(n, oc, *out_hw, gen=gen, spread=3)
    assert_three_kernels_match(x, wt, dy, out_hw, (stride, padding, dilation, groups), gen)


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
        one = cpu.conv2d(x, wt, None, (36, 36), *args)
    finally:
        torch.set_num_threads(2)
    assert_bitwise_equal(one, cpu.conv2d(x, wt, None, (36, 36), *args))


def test_zero_taps_take_part_as_plus_zero():
    """Padding taps are +0.0 terms of the chain: a NaN or infinite weight
    meeting them gives NaN, and -0.0 products meeting them become +0.0 (the
    contract), as the reference says."""
    x = torch.full((1, 1, 1, 1), -0.0)
    wt = torch.tensor([[[[float("inf"), 1.0, 2.0]]]])
    y = repdl.conv2d(x, wt, padding=(0, 1))
    assert_bitwise_equal(y, ref.conv2d(x, wt, None, (1, 1), (1, 1), (0, 1), (1, 1), 1))
    assert torch.isnan(y).all()


@pytest.mark.parametrize("case", ["underflow-patch", "underflow-everywhere", "non-finite-weights"])
def test_strided_grad_input_leaves_stride_holes_out(case, gen, isa):
    """grad_input of a strided layer multiplies only the taps that reach an
    output (conv.cpp's phases), where the contract's chain also adds each
    stride hole's w * (+0.0).  Those terms can still turn a -0.0 sum into
    +0.0, and a NaN or infinite weight makes them NaN.  Products that
    underflow (dy of 2^-149 times weights of both signs below 1/2) leave
    such zero sums: in one patch of dy (replayed one by one) and everywhere
    (past the replays' budget: the GEMMs over every term)."""
    args = ((2, 2), (1, 1), (1, 1), 1)
    wt = (torch.rand(5, 3, 3, 3, generator=gen) - 0.5) * 0.98
    dy = wide(2, 5, 7, 7, gen=gen, spread=3)
    least = 2.0 ** -149
    if case == "underflow-patch":
        dy[:, :, 2:4, 2:4] = least
    elif case == "underflow-everywhere":
        dy.fill_(least)
    else:
        wt[1, 2, 0, 1], wt[3, 0, 2, 2] = float("inf"), float("nan")
    want = ref.conv2d_input(dy, wt, (2, 3, 13, 13), *args)
    assert_bitwise_equal(cpu.conv2d_input(dy, wt, (2, 3, 13, 13), *args), want)
    if case != "non-finite-weights":  # both zero signs among the results, so that the test can fail
        zeros = want[want == 0]
        assert torch.signbit(zeros).any() and not torch.signbit(zeros).all()

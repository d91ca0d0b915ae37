"""One long line's sequential chain on the grid (csrc/reduce/grid_sum.inc,
docs/reductions.md): seqsum, and the fmachains of dot products, matrix
times vector and var, whose terms are exact products.  Each condition under
which a chunk's terms may be summed in integers on the sum's grid, and the
lines that break each one, against the chain itself (numpy's float32
accumulate, one add at a time, for seqsum) and the reference backend.  A
line goes on the grid when it is the only output and at least 16384 long;
the lines here are longer."""
import numpy as np
import pytest
import torch

import repdl
from repdl.backends import cpu, reference as ref
from repdl.testing import assert_bitwise_equal

from values import canonical

N = 40000  # past the grid's shortest line, 16384
U = 2.0 ** -23  # the grid's unit on [1, 2)


def chain(line):
    """The contract's seqsum from +0.0, one float32 add at a time, NaN
    canonical."""
    terms = np.concatenate([np.zeros(1, np.float32), line.numpy()])
    with np.errstate(invalid="ignore", over="ignore"):
        return canonical(torch.tensor(np.add.accumulate(terms, dtype=np.float32)[-1:]))


def check(lines, label):
    """Each line's sum alone (the grid's case) equals the chain's and the
    reference's, bit for bit."""
    want = ref.sum(lines, (1,), False, order="sequential")
    for i, line in enumerate(lines):
        got = cpu.sum(line, (0,), False, order="sequential").reshape(1)
        assert_bitwise_equal(chain(line), want[i:i + 1], f"{label} line {i}: the chain against the reference")
        assert_bitwise_equal(got, want[i:i + 1], f"{label} line {i}")


def picks(gen, values, n=N):
    values = torch.tensor(values, dtype=torch.float32)
    return values[torch.randint(len(values), (n,), generator=gen)]


def test_ties_follow_the_sum_last_bit(isa, gen):
    """On [1, 2) terms of u/2 and 3u/2 are ties, rounded by the parity of
    the partial sum before them; u and u/4 are not.  Summed on the grid
    without the tie test, every tie would round as the term alone does."""
    lines = []
    for mix in ([0.5 * U, U], [0.5 * U, 1.5 * U, U, 0.25 * U, 0.0], [1.5 * U, 2 * U]):
        line = picks(gen, mix)
        line[0] = 1.0 + U  # an odd last bit before the first tie
        lines.append(line)
    check(torch.stack(lines), "ties")


def test_sums_crossing_powers_of_two(isa, gen):
    """Terms in [0.5, 1) with full significands: the sum crosses 2, 4, ...,
    16384, and a chunk summed across a crossing would round its terms above
    it on the finer grid below it.  Negated: the same below zero."""
    up = 0.5 + 0.5 * torch.rand(2, N, generator=gen)
    check(torch.cat([up, -up]), "crossings")


def test_sums_hovering_at_a_power_of_two(isa, gen):
    """From 1024, terms of both signs with full significands: the partial
    sums cross 1024 down and up, where the grid below it is twice as fine.
    The last line starts exactly at 1024 with terms of -0.3 u' (u' = 2^-13,
    the grid above 1024): on 1024's grid they round to 0, but 1024 - 0.3 u'
    rounds to 1024 - u'/2 below it; the first attempt on the grid comes
    after 256 terms, which here leave the sum at 1024."""
    walk = (torch.rand(3, N, generator=gen) - 0.5) * torch.tensor([[1.0], [0.01], [2.0 ** -8]])
    walk[:, 0] = 1024.0
    start = torch.full((1, N), -0.3 * 2.0 ** -13)
    start[0, 0], start[0, 1:256] = 1024.0, 0.0
    lines = torch.cat([walk, start])
    check(torch.cat([lines, -lines]), "hovering")


def test_terms_as_large_as_the_sum(isa, gen):
    """Terms up to 2^(k-1) go on the grid of [2^k, 2^(k+1)); larger ones
    would leave C's binade (their bits' difference no longer the rounded
    term), and runs of huge terms would wrap the chunk's integer sums.  The
    last line's first attempt (after 256 terms, at s = 1.5) meets 256 terms
    of 2^30, whose steps from C = 1.5 sum to -2^30 modulo 2^32: every other
    check would pass them."""
    lines = 0.5 + 0.5 * torch.rand(4, N, generator=gen)
    lines[0, 20000:24000] = 3e30                     # a run of huge terms
    lines[1, 5000::997] = torch.tensor(4000.0)       # terms past the sum's half
    lines[2, ::3] = -lines[2, ::3].clone() * 0.999   # partial sums spread in a chunk
    lines[3, 0], lines[3, 1:256], lines[3, 256:512] = 1.5, 0.0, 2.0 ** 30
    check(lines, "large terms")


def test_tiny_and_huge_sums(isa, gen):
    """The grid wants 2^-100 <= |s| < 2^126: below, u/2 might not be
    normal; above, 2^(k+1) might overflow.  Subnormal terms beside a tiny
    sum, sums that reach 2^-100 from below, sums that overflow to inf."""
    base = 0.5 + 0.5 * torch.rand(4, N, generator=gen)
    tiny = base[0] * 2.0 ** -110                        # reaches 2^-100 after ~1400 terms
    sub = base[1] * 2.0 ** -100
    sub[1::2] = torch.tensor(2.0 ** -149 * 3)           # subnormal terms beside a sum of 2^-90
    huge = base[2] * 2.0 ** 113                         # crosses 2^126, overflows near the end
    neg = -base[3] * 2.0 ** -95
    check(torch.stack([tiny, sub, huge, neg]), "tiny and huge")


def test_special_terms(isa, gen):
    """NaN, inf, -inf and signed zeros amid terms the grid sums."""
    lines = 0.5 + 0.5 * torch.rand(5, N, generator=gen)
    lines[0, 30000] = float("nan")
    lines[1, 17000] = float("inf")
    lines[2, 17000], lines[2, 30001] = float("inf"), float("-inf")
    lines[3] = -0.0
    lines[4, ::2] = -0.0
    check(lines, "specials")


@pytest.mark.parametrize("n", [16383, 16384, 16385, 16384 + 255, 16384 + 257, 3 * 65536 + 7])
def test_line_lengths(n, isa, gen):
    """Lines at the grid's shortest and with partial last chunks."""
    lines = torch.stack([0.5 + torch.rand(n, generator=gen), torch.exp(torch.randn(n, generator=gen) - 4)])
    check(lines, f"n={n}")


def test_continued_chains_and_mean(isa, gen):
    """A chain continued call by call (an outer reduced index: (0, 2) of
    (3, 1, N)) and mean's division after the grid's sum."""
    x = 0.5 + torch.rand(3, 1, N, generator=gen)
    assert_bitwise_equal(cpu.sum(x, (0, 2), False, order="sequential"),
                         ref.sum(x, (0, 2), False, order="sequential"), "outer reduced index")
    line = x.reshape(-1)
    assert_bitwise_equal(cpu.mean(line, (0,), False), ref.mean(line, (0,), False), "mean")


def check_products(a, b, label):
    """fmachain(a line, b line) for each pair of lines alone: sumprod (b in
    a's layout), dot of 1-D tensors and a row times a column (the matrix
    times vector route), against the reference."""
    want = ref.sumprod(a, b, (1,), False)
    for i in range(a.shape[0]):
        x, y = a[i], b[i]
        assert_bitwise_equal(cpu.sumprod(x, y, (0,), False).reshape(1), want[i:i + 1], f"{label} sumprod {i}")
        assert_bitwise_equal(repdl.dot(x, y).reshape(1), want[i:i + 1], f"{label} dot {i}")
        got = cpu.matmul(x.reshape(1, -1), y.reshape(-1, 1)).reshape(1)
        assert_bitwise_equal(got, want[i:i + 1], f"{label} row times column {i}")


def test_products(isa, gen):
    """Products of positive factors (sums that grow: the grid's case), of
    both signs (sums that cancel), exact ties on [1, 2)'s grid (2^-12 times
    2^-12 is u/2, times 3 2^-12 is 3u/2) after an odd last bit, and
    products that cross powers of two."""
    pos = torch.rand(2, N, generator=gen) + 0.25
    mixed = torch.randn(2, N, generator=gen)
    ties_a = picks(gen, [2.0 ** -12, 3 * 2.0 ** -12, 2.0 ** -11]).reshape(1, N)
    ties_b = torch.full((1, N), 2.0 ** -12)
    ties_a[0, 0], ties_b[0, 0] = 1.0 + U, 1.0
    a = torch.cat([pos[:1], mixed[:1], ties_a])
    b = torch.cat([pos[1:], mixed[1:], ties_b])
    check_products(a, b, "products")


def test_squared_deviations(isa, gen):
    """var's second pass, fmachain(d, d) with d = fl(x - mean): its terms
    are positive, so the grid takes most chunks (var and std of a whole
    tensor take one line)."""
    x = torch.stack([torch.randn(N, generator=gen) * 3 + 1, torch.rand(N, generator=gen)])
    for i, line in enumerate(x):
        m = ref.mean(line, (0,), False)
        assert_bitwise_equal(cpu.sqdev(line, m, (0,), False), ref.sqdev(line, m, (0,), False), f"sqdev {i}")

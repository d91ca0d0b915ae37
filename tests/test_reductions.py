"""sum, sum_pairwise, mean, var, std, max, min, argmax, argmin: fast == reference
bitwise on every layout; torch's calling conventions; accuracy bounds."""
import math

import pytest
import torch

import repdl
from repdl.backends import cpu, reference as ref
from repdl.testing import assert_bitwise_equal

from values import HUGE, SPECIALS, SUBNORMALS, layouts, sprinkle, wide

SHAPES = [(1,), (7,), (37, 19), (3, 17, 29), (64, 100), (9, 8), (2, 3, 4, 5), (5, 1, 6)]
ORDERS = ["sequential", "pairwise"]


def dim_choices(ndim):
    yield from ((d,) for d in range(ndim))
    yield tuple(range(ndim))
    if ndim >= 3:
        yield (0, 2)
        yield (1, ndim - 1)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_sum_and_sqdev_match_reference(shape, gen, isa):
    x = sprinkle(wide(*shape, gen=gen), SPECIALS, gen, 0.05)
    for name, xv in layouts(x):
        for dims in dim_choices(len(shape)):
            for order in ORDERS:
                for keepdim in (False, True):
                    assert_bitwise_equal(cpu.sum(xv, dims, keepdim, order=order),
                                         ref.sum(xv, dims, keepdim, order=order), f"{name} {dims} {order}")
            m = ref.sum(xv, dims, False, order="sequential")
            assert_bitwise_equal(cpu.sqdev(xv, m, dims, False), ref.sqdev(xv, m, dims, False), f"sqdev {name} {dims}")


# The rows kernels take sixteen rows as two chains, then eight, then the
# last eight again for the rest (9-15 left: beside the eight before them),
# four elements of each row at a time and then the last n % 4; rows 1-8 KB
# apart (n = 256 ... 2048) may crowd L1 and go eight at a time, four or
# eight elements at a time.  Each kernel: sum (both orders), sqdev,
# sumprod, and dot (a matrix times a vector: its step reads the vector at
# the reduced index).
@pytest.mark.parametrize("rows", [8, 10, 13, 16, 17, 33, 47])
@pytest.mark.parametrize("n", [1, 3, 4, 5, 6, 7, 64, 127, 256, 512, 1000, 1024, 2048])
def test_rows_kernels_match_reference(rows, n, gen, isa):
    a = sprinkle(wide(rows, n, gen=gen), SPECIALS, gen, 0.01)
    b = sprinkle(wide(rows, n, gen=gen), SPECIALS, gen, 0.01)
    assert_bitwise_equal(cpu.sumprod(a, b, (1,), False), ref.sumprod(a, b, (1,), False), "sumprod")
    for order in ORDERS:
        assert_bitwise_equal(cpu.sum(a, (1,), False, order=order), ref.sum(a, (1,), False, order=order), order)
    m = ref.sum(b, (1,), False, order="sequential")
    assert_bitwise_equal(cpu.sqdev(a, m, (1,), False), ref.sqdev(a, m, (1,), False), "sqdev")
    v = b[:1].t()
    assert_bitwise_equal(cpu.matmul(a, v), ref.matmul(a, v), "matrix times vector")


# Sequential chains over dims on both sides of a kept one take an outer
# reduced index, continued call by call, instead of a copy: rows segments
# (NCHW over (0, 2, 3): sixteen channels, then the last eight overlapping,
# or fewer than eight) and columns segments (the same reduction with the
# tensor laid out as (H, W, N, C): channels innermost, samples outside
# them, positions outermost).
@pytest.mark.parametrize("shape", [(3, 20, 5, 7), (2, 9, 4, 257), (5, 3, 2, 2), (4, 33, 1, 3)], ids=str)
def test_outer_reduced_index_matches_reference(shape, gen, isa):
    from repdl.backends._views import NO_OUTER, reduction_view

    x = sprinkle(wide(*shape, gen=gen), SPECIALS, gen, 0.02)
    y = sprinkle(wide(*shape, gen=gen), SPECIALS, gen, 0.02)
    dims = (0, 2, 3)
    def hwnc(t):
        return t.permute(2, 3, 0, 1).contiguous().permute(2, 3, 0, 1)

    for name, xv, yv in (("NCHW", x, y), ("HWNC", hwnc(x), hwnc(y))):
        v = reduction_view(xv, dims, True)
        assert v.perm is None and v.outer != NO_OUTER, name  # no copy: the path under test
        for keepdim in (False, True):
            assert_bitwise_equal(cpu.sum(xv, dims, keepdim, order="sequential"),
                                 ref.sum(xv, dims, keepdim, order="sequential"), f"sum {name}")
            assert_bitwise_equal(cpu.mean(xv, dims, keepdim), ref.mean(xv, dims, keepdim), f"mean {name}")
        m = ref.mean(xv, dims, False)
        assert_bitwise_equal(cpu.sqdev(xv, m, dims, False), ref.sqdev(xv, m, dims, False), f"sqdev {name}")
        assert_bitwise_equal(cpu.sumprod(xv, yv, dims, False), ref.sumprod(xv, yv, dims, False), f"sumprod {name}")
        assert_bitwise_equal(cpu.sum(xv, dims, False, order="pairwise"), ref.sum(xv, dims, False, order="pairwise"),
                             f"pairwise {name} (a copy)")


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_mean_matches_reference(shape, gen, isa):
    """The CPU's mean (the sum and its division in one kernel call) against
    the reference's composition, on every layout and dim choice, with
    specials; then lines of subnormals whose quotients are subnormal, with
    flush-to-zero on (the division must keep them)."""
    x = sprinkle(wide(*shape, gen=gen), SPECIALS, gen, 0.05)
    for name, xv in layouts(x):
        for dims in dim_choices(len(shape)):
            for keepdim in (False, True):
                assert_bitwise_equal(cpu.mean(xv, dims, keepdim), ref.mean(xv, dims, keepdim),
                                     f"{name} {dims} keepdim={keepdim}")
    tiny = torch.tensor(SUBNORMALS, dtype=torch.float32)[torch.randint(0, len(SUBNORMALS), shape, generator=gen)]
    want = ref.mean(tiny, (len(shape) - 1,), False)
    assert (want != 0).any() and (want.abs() < 2.0 ** -126).all()
    if torch.set_flush_denormal(True):
        try:
            got = cpu.mean(tiny, (len(shape) - 1,), False)
        finally:
            torch.set_flush_denormal(False)
        assert_bitwise_equal(got, want, "subnormal quotients, flush-to-zero")


@pytest.mark.parametrize("shape", SHAPES + [(0, 3)], ids=str)
def test_mean_is_the_sum_and_one_division(shape, gen):
    """repdl::mean is one node (the sum and its division, without a second
    node's routing); forward and backward, its bits are the contract's
    composition: the sequential sum, then one division by fl32(n)."""
    x = sprinkle(wide(*shape, gen=gen), SPECIALS, gen, 0.05)
    for dims in [None, *dim_choices(len(shape))]:
        n = x.numel() if dims is None else math.prod(shape[d] for d in dims)
        for keepdim in (False, True):
            a, b = x.clone().requires_grad_(), x.clone().requires_grad_()
            y = repdl.mean(a, dims, keepdim) if dims is not None else repdl.mean(a)
            z = repdl.div(repdl.sum(b, dims, keepdim) if dims is not None else repdl.sum(b), n)
            assert_bitwise_equal(y, z, f"{dims} keepdim={keepdim}")
            g = sprinkle(wide(y.numel() + 1, gen=gen), SPECIALS, gen, 0.2)[:y.numel()].reshape(y.shape)
            (ga,), (gb,) = torch.autograd.grad(y, a, g), torch.autograd.grad(z, b, g)
            assert_bitwise_equal(ga, gb, f"gradient {dims} keepdim={keepdim}")


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_extremum_matches_reference(shape, gen, isa):
    x = sprinkle(torch.randint(-3, 4, shape, generator=gen).float(), [0.0, -0.0, float("nan")], gen, 0.2)
    for name, xv in layouts(x):
        for dim in range(len(shape)):
            for largest in (True, False):
                v1, i1 = cpu.extremum(xv, dim, False, largest=largest)
                v2, i2 = ref.extremum(xv, dim, False, largest=largest)
                assert_bitwise_equal(v1, v2, f"{name} {dim} {largest}")
                assert torch.equal(i1, i2)


@pytest.mark.parametrize("n", [16, 39, 40, 41, 72, 1000, 1003])
def test_extremum_of_long_lines(n, gen, isa):
    """Lines long enough for the vector scan's four chains and its tails:
    the extreme is a zero of either sign (its sign from the line's first
    zero) or a value anywhere in the line, with and without one NaN."""
    lines = -torch.randint(0, 3, (24, n), generator=gen).float()  # 0, -1, -2: the max is often a zero
    lines[:, ::2] = torch.where(lines[:, ::2] == 0, -0.0, lines[:, ::2])
    lines[1::2, 0] = 5.0 * (1 + torch.arange(12) % 3)  # a positive max at the front
    lines[2::4, n - 1] = 9.0  # ... or at the end
    nans = lines.clone()
    nans[torch.arange(24), torch.randint(0, n, (24,), generator=gen)] = float("nan")
    for x in (lines, nans, -lines):
        for largest in (True, False):
            v1, i1 = cpu.extremum(x, 1, False, largest=largest)
            v2, i2 = ref.extremum(x, 1, False, largest=largest)
            assert_bitwise_equal(v1, v2, f"n={n} largest={largest}")
            assert torch.equal(i1, i2)
        assert_bitwise_equal(cpu.softmax(x, 1, log=False), ref.softmax(x, 1, log=False), f"softmax n={n}")


@pytest.mark.parametrize("n", [0, 1, 2, 3, 8, 63, 64, 65, 1000, 65535, 65536, 65537, 100_003, 3 * 65536 + 5])
def test_long_lines(n, gen, isa):
    x = wide(n, gen=gen, spread=6)
    for order in ORDERS:
        assert_bitwise_equal(cpu.sum(x, (0,), False, order=order), ref.sum(x, (0,), False, order=order), order)
    rows = wide(3, n, gen=gen, spread=6)
    for order in ORDERS:
        assert_bitwise_equal(cpu.sum(rows, (1,), False, order=order), ref.sum(rows, (1,), False, order=order))


def test_sequential_sum_is_sequential():
    # 2^24 + 1 + 1: sequential gives 2^24 (each 1 is lost), pairwise 2^24 + 2.
    x = torch.tensor([2.0 ** 24, 1.0, 1.0])
    assert repdl.sum(x).item() == 2.0 ** 24
    assert repdl.sum_pairwise(x).item() == 2.0 ** 24  # (2^24 + 1) + 1 with split at 2
    y = torch.tensor([1.0, 1.0, 2.0 ** 24])
    assert repdl.sum(y).item() == 2.0 ** 24 + 2
    z = torch.tensor([2.0 ** 24, 1.0, 1.0, 1.0])  # pairwise: (2^24 + 1) + (1 + 1)
    assert repdl.sum_pairwise(z).item() == 2.0 ** 24 + 2
    assert repdl.sum(z).item() == 2.0 ** 24


def test_signed_zeros_and_specials(isa):
    neg = torch.tensor([-0.0, -0.0])
    assert repdl.sum(neg).view(torch.int32).item() == 0  # +0.0 start
    assert repdl.sum_pairwise(torch.tensor([-0.0])).view(torch.int32).item() == -(2 ** 31)  # one term: itself
    assert repdl.sum(torch.tensor(HUGE[:2] * 2)).item() == math.inf
    out = repdl.sum(torch.tensor([1.0, float("inf"), float("-inf")]))
    assert out.view(torch.int32).item() == 0x7FC00000
    x = torch.tensor([-0.0, 0.0, 1.0, float("nan"), 1.0, float("nan")])
    assert repdl.argmax(x).item() == 3 and repdl.argmin(x).item() == 3
    assert repdl.max(x[:2]).view(torch.int32).item() == -(2 ** 31)  # first of equal zeros
    assert repdl.min(x[:2], 0).indices.item() == 0
    assert repdl.argmax(torch.tensor([1.0, 5.0, 5.0])).item() == 1


def test_torch_conventions():
    x = torch.arange(24.0).reshape(2, 3, 4)
    assert repdl.sum(x, dim=(-1, 0)).shape == (3,)
    assert repdl.sum(x, dim=1, keepdim=True).shape == (2, 1, 4)
    assert repdl.sum(x, dim=()).shape == ()
    assert repdl.sum(torch.tensor(2.5)).item() == 2.5
    assert repdl.sum(torch.empty(0, 3), 0).tolist() == [0.0, 0.0, 0.0]
    assert math.isnan(repdl.mean(torch.empty(0)).item())
    assert repdl.mean(x, 2).tolist() == torch.mean(x, 2).tolist()
    values, indices = repdl.max(x, -1)
    assert values.tolist() == torch.max(x, -1).values.tolist() and indices.tolist() == torch.max(x, -1).indices.tolist()
    assert repdl.max(x, 1, keepdim=True).values.shape == (2, 1, 4)
    assert repdl.argmax(x, keepdim=True).shape == (1, 1, 1)
    assert repdl.max(torch.tensor(3.0), 0).values.item() == 3.0
    assert repdl.var(x, 1, correction=0).tolist() == torch.var(x, 1, correction=0).tolist()
    assert repdl.var(x, 1, unbiased=False).tolist() == torch.var(x, 1, unbiased=False).tolist()
    assert math.isnan(repdl.var(torch.ones(1)).item())
    assert repdl.std(x, (0, 2)).shape == (3,)


def test_errors():
    x = torch.randn(3, 4)
    with pytest.raises(TypeError, match="float32"):
        repdl.sum(x.double())
    with pytest.raises(TypeError, match="float32"):
        repdl.max(torch.ones(3, dtype=torch.int32))
    with pytest.raises(TypeError):
        repdl.sum(x, dtype=torch.float64)
    with pytest.raises(IndexError):
        repdl.sum(x, 2)
    with pytest.raises(RuntimeError, match="multiple"):
        repdl.sum(x, (0, -2))
    with pytest.raises(RuntimeError):
        repdl.max(torch.empty(0))
    with pytest.raises(IndexError):
        repdl.max(torch.empty(2, 0), 1)
    with pytest.raises(RuntimeError):
        repdl.argmax(torch.empty(0))


# ---- accuracy ------------------------------------------------------------------------------------

def _gamma(k):
    u = 2.0 ** -24
    return k * u / (1 - k * u)


@pytest.mark.parametrize("n", [10, 1000, 100_000])
def test_sum_error_bounds(n, gen):
    """|computed - exact| <= gamma(n-1) * sum|x| (sequential, Higham 4.4) and
    gamma(ceil(log2 n)) * sum|x| (pairwise).  The exact sum of float32 values
    in float64 is off by at most n * 2^-53 * sum|x|, far below the bounds."""
    x = torch.randn(n, generator=gen) * torch.exp2(torch.randint(-10, 10, (n,), generator=gen).float())
    exact = x.double().sum().item()
    abs_sum = x.double().abs().sum().item()
    seq_err = abs(repdl.sum(x).item() - exact)
    pw_err = abs(repdl.sum_pairwise(x).item() - exact)
    assert seq_err <= _gamma(n - 1) * abs_sum
    assert pw_err <= _gamma(math.ceil(math.log2(n))) * abs_sum
    # The bounds are not vacuous: a sum with error far beyond them is caught.
    assert abs(x.sum().item() * (1 + 1e-3) - exact) > _gamma(math.ceil(math.log2(n))) * abs_sum or abs_sum == 0


def test_var_accuracy(gen):
    x = torch.randn(50_000, generator=gen) * 3 + 100
    exact = x.double().var().item()
    got = repdl.var(x).item()
    # two-pass: error ~ n * u relative for well-conditioned data
    assert abs(got - exact) <= 50_000 * 2.0 ** -24 * exact


@pytest.mark.parametrize("dims", [(-1,), (1, 0), (0, 2)], ids=str)
def test_the_kernel_view_refuses_dims_it_cannot_describe(dims):
    """The backends take sorted dims in [0, ndim) (the public ops wrap and
    sort them).  A negative dim given straight to a backend once made a view
    whose lines ran past the tensor's memory (softmax wrote beyond its
    output, and the heap broke later).  The general path, the only one such
    dims reach (the row-major shortcut needs dims[0] == ndim - len(dims)),
    now refuses them before any kernel runs."""
    from repdl.backends._views import reduction_view

    x = torch.zeros(37, 29)
    with pytest.raises(ValueError, match="dims must be sorted"):
        reduction_view(x.t(), dims)  # (a transposed x takes the general path, as a negative dim did)
    if dims == (-1,):
        with pytest.raises(ValueError, match="dims must be sorted"):
            cpu.softmax(x, -1, log=False)

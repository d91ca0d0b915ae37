"""dot, mm, bmm, matmul, addmm, linear: fast path == reference, bit for bit."""
import pytest
import torch

import repdl
from repdl import backends
from repdl.backends import cpu, reference as ref
from repdl.testing import assert_bitwise_equal

from values import HUGE, SPECIALS, TINY, layouts, sprinkle, wide


# ---- mm and friends ---------------------------------------------------------------------------

# (M, N, K): empty dims, ones, primes, and sizes that cross the micro-tile
# (6x16), the K block (256) and the M block (144).
MM_SHAPES = [(0, 5, 3), (5, 0, 3), (4, 6, 0), (1, 1, 1), (1, 17, 1), (1, 1, 300), (3, 1, 7),
             (7, 13, 257), (13, 35, 31), (6, 16, 256), (149, 37, 263), (2, 97, 5),
             (1, 300, 70), (300, 1, 70), (1, 40, 1000)]  # the last three: matrix-vector kernels


@pytest.mark.parametrize("m,n,k", MM_SHAPES)
def test_mm_matches_reference(m, n, k, gen, isa):
    a = wide(m, k, gen=gen, spread=4)
    b = wide(k, n, gen=gen, spread=4)
    expected = ref.matmul(a, b)
    for la, a_view in layouts(a):
        for lb, b_view in layouts(b):
            assert_bitwise_equal(repdl.mm(a_view, b_view), expected, f"{la} x {lb}")


def test_mm_adversarial_values(gen, isa):
    a = sprinkle(wide(23, 300, gen=gen), SPECIALS + TINY + HUGE, gen, 0.1)
    b = sprinkle(wide(300, 19, gen=gen), SPECIALS + TINY + HUGE, gen, 0.1)
    assert_bitwise_equal(repdl.mm(a, b), ref.matmul(a, b))
    # Every product is a tiny negative number: each fma rounds the exact
    # (negative) sum, so the chain ends at -0.0, where rounding the products
    # first would have given +0.0.
    t = torch.tensor(TINY * 30)[:64].abs()
    assert_bitwise_equal(repdl.mm(t[None, :], -t[:, None]), ref.matmul(t[None, :], -t[:, None]))
    assert repdl.dot(t, -t).view(torch.int32).item() == -(2 ** 31)  # -0.0
    # Products that are exactly -0.0 add to the initial +0.0: +0.0.
    z = torch.full((5,), -0.0)
    assert repdl.dot(z, torch.ones(5)).view(torch.int32).item() == 0


def test_mm_subnormal_results_are_kept(isa):
    a = torch.tensor([[2.0 ** -70, 2.0 ** -70]])
    b = torch.tensor([[2.0 ** -70], [2.0 ** -72]])
    expected = 2.0 ** -140 + 2.0 ** -142
    assert repdl.mm(a, b).item() == expected


def test_dot_huge_k(gen, isa):
    k = 100_000
    x, y = wide(k, gen=gen, spread=3), wide(k, gen=gen, spread=3)
    assert_bitwise_equal(repdl.dot(x, y), ref.matmul(x[None], y[:, None]).reshape(()))


def test_mm_is_batch_invariant(gen, isa):
    a = wide(37, 300, gen=gen, spread=2)
    b = wide(300, 50, gen=gen, spread=2)
    full = repdl.mm(a, b)
    for i in range(a.shape[0]):
        assert_bitwise_equal(repdl.mm(a[i : i + 1], b), full[i : i + 1], f"row {i}")
    for lo, hi in [(0, 6), (5, 17), (30, 37)]:
        assert_bitwise_equal(repdl.mm(a[lo:hi], b), full[lo:hi])


# Teams of threads split rows or (for few rows, or a B of at least 2^20
# floats wider than A is tall) columns of C, and pack B together (at least
# 2^25 flops, teams of more than four) or each for itself (gemm.cpp): one
# shape for each of the five, at team sizes of both kinds.
@pytest.mark.parametrize("m,n,k", [(150, 70, 300), (300, 200, 300), (20, 500, 300), (40, 1500, 300), (100, 3500, 300)])
def test_mm_thread_count_invariant(m, n, k, gen, isa):
    a = wide(m, k, gen=gen, spread=2)
    b = wide(k, n, gen=gen, spread=2)
    saved = torch.get_num_threads()
    try:
        results = []
        for t in (1, 2, 3, 5):
            torch.set_num_threads(t)
            results.append(repdl.mm(a, b))
    finally:
        torch.set_num_threads(saved)
    assert_bitwise_equal(results[0], ref.matmul(a, b))
    for r in results[1:]:
        assert_bitwise_equal(r, results[0])


# Shapes that reach every tile of every instruction set's row (csrc/gemm/
# config.cpp: AVX-512 takes the tile that pads m and n least, 6x64's area
# counted 25/24: 12x32 for (131, 50) and (141, 3101), 6x64 for (5, 3100)
# and (97, 64), 8x48 for (136, 3101)) with several K blocks, N beyond one N
# block (3072) and partial tiles on both edges; the column-major operands
# reach each packer's transposed-A copy.
@pytest.mark.parametrize("m,n,k", [(131, 50, 300), (5, 3100, 270), (141, 3101, 200), (97, 64, 129),
                                   (136, 3101, 400)])
def test_every_tile_of_every_row(m, n, k, gen, isa):
    a = wide(m, k, gen=gen, spread=2)
    b = wide(k, n, gen=gen, spread=2)
    want = ref.matmul(a, b)
    assert_bitwise_equal(repdl.mm(a, b), want)
    assert_bitwise_equal(repdl.mm(a.t().contiguous().t(), b.t().contiguous().t()), want, "column-major operands")


@pytest.mark.parametrize("sa,sb", [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((5, 2, 3), (3, 4)),
                                   ((2, 3), (6, 3, 4)), ((2, 1, 3, 4), (5, 4, 2)), ((4,), (2, 4, 3)),
                                   ((2, 3, 4), (4,))])
def test_matmul_broadcasting(sa, sb, gen, isa):
    a, b = wide(*sa, gen=gen, spread=2), wide(*sb, gen=gen, spread=2)
    out = repdl.matmul(a, b)
    assert out.shape == torch.matmul(a, b).shape
    a2 = a.unsqueeze(0) if a.dim() == 1 else a
    b2 = b.unsqueeze(-1) if b.dim() == 1 else b
    assert_bitwise_equal(out, ref.matmul(a2, b2).reshape(out.shape))


@pytest.mark.parametrize("layout", ["contiguous", "seq_first", "strided_rows", "expanded_rows", "long_transposed"])
def test_batched_rows_against_one_matrix(layout, gen, isa):
    """A (*A, M, K) @ (K, N): the batch's rows run as one GEMM when one
    stride reaches them (or after a copy, for short M), else as a batched
    GEMM: the same chains either way."""
    a = {"contiguous": lambda: wide(3, 5, 7, 33, gen=gen),
         "seq_first": lambda: wide(16, 12, 33, gen=gen).transpose(0, 1),  # MultiheadAttention's (L, N, E)
         "strided_rows": lambda: wide(6, 10, 33, gen=gen)[:, ::3],
         "expanded_rows": lambda: wide(1, 33, gen=gen).expand(4, 9, 33),
         "long_transposed": lambda: wide(130, 3, 33, gen=gen).transpose(0, 1)}[layout]()
    b = wide(33, 21, gen=gen)
    want = ref.matmul(a, b)
    assert_bitwise_equal(repdl.matmul(a, b), want)
    assert_bitwise_equal(repdl.matmul(a, b.t().contiguous().t()), want, "column-major weight")
    empty_k = repdl.matmul(a[..., :0], b[:0])  # +0.0 everywhere: an empty chain
    assert_bitwise_equal(empty_k, torch.zeros(*a.shape[:-1], 21))


def test_bmm_and_expanded_operands(gen, isa):
    a, b = wide(4, 9, 11, gen=gen), wide(4, 11, 6, gen=gen)
    assert_bitwise_equal(repdl.bmm(a, b), ref.matmul(a, b))
    shared = wide(11, 6, gen=gen)
    assert_bitwise_equal(repdl.bmm(a, shared.expand(4, 11, 6)), ref.matmul(a, shared))


def test_linear(gen, isa):
    x, w, bias = wide(2, 5, 33, gen=gen, spread=2), wide(7, 33, gen=gen, spread=2), wide(7, gen=gen)
    y = repdl.linear(x, w, bias)
    expected = ref.fma32(torch.ones(()), ref.matmul(x, w.t()), bias)  # 1*p + b: one rounding
    assert_bitwise_equal(y, expected)
    assert_bitwise_equal(repdl.linear(x[0, 0], w), ref.matmul(x[0, :1], w.t())[0])
    assert_bitwise_equal(repdl.linear(x.transpose(0, 1), w), ref.matmul(x.transpose(0, 1), w.t()))


def test_linear_layer_call_in_every_layout(gen, isa):
    """A layer's call (2-D input and weight, a bias) takes the short path:
    the GEMM on weight's swapped strides, the bias added in place along the
    rows; every layout of the three gives the reference's bits."""
    x, w = sprinkle(wide(7, 13, gen=gen, spread=2), SPECIALS, gen), wide(11, 13, gen=gen, spread=2)
    biases = (wide(11, gen=gen), wide(22, gen=gen)[::2], wide(1, gen=gen).expand(11), wide((), gen=gen))
    for xx, ww in ((x, w), (x.t().contiguous().t(), w.t().contiguous().t()), (x[::2], wide(11, 26, gen=gen)[:, ::2])):
        for bias in biases:
            expected = ref.fma32(torch.ones(()), ref.matmul(xx, ww.t()), bias)
            assert_bitwise_equal(repdl.linear(xx, ww, bias), expected)


def test_addmm(gen, isa):
    inp, m1, m2 = wide(5, 6, gen=gen), wide(5, 9, gen=gen), wide(9, 6, gen=gen)
    p = ref.matmul(m1, m2)
    assert_bitwise_equal(repdl.addmm(inp, m1, m2), ref.fma32(torch.ones(()), p, inp))
    got = repdl.addmm(inp[0], m1, m2, beta=0.5, alpha=3.0)
    expected = ref.fma32(torch.ones(()), ref.fma32(torch.tensor(3.0), p, torch.zeros(())),
                         ref.fma32(torch.tensor(0.5), inp[0], torch.zeros(())))
    assert_bitwise_equal(got, expected)
    nan_input = torch.full((5, 6), float("nan"))
    assert_bitwise_equal(repdl.addmm(nan_input, m1, m2, beta=0), p)  # input not read


@pytest.mark.parametrize("m, k, n", [(1, 1, 1), (5, 9, 6), (24, 32, 96), (7, 131, 3)])
def test_addmm_with_a_vector_input_is_the_product_then_one_addition(gen, isa, m, k, n):
    """A 1-D input (a bias, GPT-2's Conv1D) runs as one linear primitive;
    forward and every gradient equal the two-step definition mm, then add."""
    inp, m1 = sprinkle(wide(n, gen=gen), SPECIALS, gen), sprinkle(wide(m, k, gen=gen, spread=2), SPECIALS, gen)
    for m2 in (wide(k, n, gen=gen), wide(n, k, gen=gen).t()):
        g = wide(m, n, gen=gen)
        leaves = [t.clone().requires_grad_() for t in (inp, m1, m2)]
        twins = [t.clone().requires_grad_() for t in (inp, m1, m2)]
        got = repdl.addmm(*leaves)
        want = repdl.add(repdl.mm(twins[1], twins[2]), twins[0])
        assert_bitwise_equal(got, want)
        for a, b in zip(torch.autograd.grad(got, leaves, g), torch.autograd.grad(want, twins, g)):
            assert_bitwise_equal(a, b)



@pytest.mark.parametrize("b_dims", [3, 2])
def test_a_transposed_operands_gradient_has_its_chains_and_its_layout(gen, isa, b_dims):
    """A column-major operand (attention's k^T) gets its gradient as the
    transpose of a row-major product: the bits of the same values held
    row-major, which are the contract's chains (ref.matmul), and the
    operand's own layout, so that the views above it need no copy.  A 2-D b
    is broadcast over the batch: its chains run over the batch, then M."""
    a_rows = sprinkle(wide(3, 7, 5, gen=gen), SPECIALS + TINY, gen)  # a = a_rows^T: (3, 5, 7)
    b_rows = sprinkle(wide(*([3] * (b_dims - 2)), 6, 7, gen=gen), SPECIALS + HUGE, gen)  # b = b_rows^T
    g = wide(3, 5, 6, gen=gen)
    a, b = a_rows.transpose(-1, -2).requires_grad_(), b_rows.transpose(-1, -2).requires_grad_()
    twins = [a.detach().contiguous().requires_grad_(), b.detach().contiguous().requires_grad_()]
    ga, gb = torch.autograd.grad(repdl.matmul(a, b), [a, b], g)
    want_a, want_b = torch.autograd.grad(repdl.matmul(*twins), twins, g)
    assert_bitwise_equal(ga, want_a, "a")
    assert_bitwise_equal(gb, want_b, "b")
    assert ga.transpose(-1, -2).is_contiguous() and gb.transpose(-1, -2).is_contiguous()
    assert_bitwise_equal(ga, ref.matmul(g, b.detach().transpose(-1, -2)), "a against the contract")
    if b_dims == 3:
        assert_bitwise_equal(gb, ref.matmul(a.detach().transpose(-1, -2), g), "b against the contract")



@pytest.mark.parametrize("a_shape, b_shape", [((5, 0), (3, 0, 4)), ((0, 5), (3, 5, 4)), ((5, 7), (0, 7, 6)),
                                              ((3, 5, 0), (0, 4)), ((2, 1, 5, 3), (4, 3, 0))])
def test_matmul_gradients_of_empty_chains(gen, a_shape, b_shape):
    """Gradients whose chains hold no term (k = 0, an empty batch, no
    columns), a factor broadcast over the batch among them: +0.0 in the
    operand's shape, in both layouts (the reshapes that gather a broadcast
    factor's chains once failed on an empty factor)."""
    for transposed in (False, True):
        a_rows = wide(*a_shape[:-2], a_shape[-1], a_shape[-2], gen=gen) if transposed else wide(*a_shape, gen=gen)
        a = (a_rows.transpose(-1, -2) if transposed else a_rows).requires_grad_()
        b = wide(*b_shape, gen=gen).requires_grad_()
        out = repdl.matmul(a, b)
        for operand, grad in zip((a, b), torch.autograd.grad(out, [a, b], wide(*out.shape, gen=gen))):
            assert_bitwise_equal(grad, torch.zeros(operand.shape), f"transposed={transposed}")


# ---- bad input -------------------------------------------------------------------------------------

def test_errors():
    a = torch.randn(2, 3)
    with pytest.raises(TypeError, match="float32"):
        repdl.mm(a.double(), a.double().t())
    with pytest.raises(TypeError, match="float32"):
        repdl.mm(a.half(), a.half().t())
    with pytest.raises(TypeError, match="float32"):
        repdl.matmul(torch.ones(2, 3, dtype=torch.int64), torch.ones(3, 2, dtype=torch.int64))
    with pytest.raises(RuntimeError, match=r"2x3.*4x5"):
        repdl.mm(a, torch.randn(4, 5))
    with pytest.raises(RuntimeError, match="2D"):
        repdl.mm(a, torch.randn(3))
    with pytest.raises(RuntimeError):
        repdl.bmm(torch.randn(2, 3, 4), torch.randn(3, 4, 5))
    with pytest.raises(RuntimeError):
        repdl.dot(torch.randn(3), torch.randn(4))
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        repdl.matmul(torch.randn(2, 3), torch.randn(4))
    with pytest.raises(RuntimeError):
        repdl.linear(torch.randn(3, 4), torch.randn(5, 3))
    with pytest.raises(TypeError):
        repdl.mm([[1.0]], a)


def test_other_devices_use_the_reference():
    meta = torch.empty(3, 4, device="meta")
    assert backends.for_tensor(meta) is ref
    assert backends.for_tensor(torch.empty(1)) is cpu
    out = repdl.mm(meta, torch.empty(4, 5, device="meta"))
    assert out.shape == (3, 5) and out.device.type == "meta"


def test_forced_reference_backend_gives_same_bits(gen):
    a, b = wide(9, 20, gen=gen), wide(20, 7, gen=gen)
    with backends.use("reference"):
        slow = repdl.mm(a, b)
    assert_bitwise_equal(repdl.mm(a, b), slow)


# ---- PyTorch integration ---------------------------------------------------------------------------

def test_custom_ops_are_registered():
    a, b = torch.randn(3, 4), torch.randn(4, 5)
    assert_bitwise_equal(torch.ops.repdl.matmul(a, b), repdl.mm(a, b))
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        fa, fb = torch.empty(2, 3, 4), torch.empty(4, 6)
        assert repdl.matmul(fa, fb).shape == (2, 3, 6)


def test_torch_compile_keeps_the_op(gen):
    a, b = wide(8, 16, gen=gen), wide(16, 4, gen=gen)

    def f(x, y):
        return repdl.mm(x, y)

    compiled = torch.compile(f, backend="aot_eager", fullgraph=True)
    assert_bitwise_equal(compiled(a, b), repdl.mm(a, b))

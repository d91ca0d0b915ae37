"""The fused kernels behind layer/RMS/group norm and batch norm (csrc/norm), softmax's
backward (csrc/softmax) and the correctly rounded functions' backward
(csrc/elementwise/grad_blocks.inc) against the reference bit for bit, on
every instruction set, over row lengths 1 and primes, affine or not, strided
lines and adversarial values; and equal to the composition of primitives
they stand for (what double backward differentiates)."""
import pytest
import torch

import repdl
from repdl import _C
from repdl.backends import cpu, reference as ref
from repdl.ops import elementwise as E, norm as N
from repdl.testing import assert_bitwise_equal

from values import ROWS, SPECIALS, TINY, layouts, sprinkle, wide

# eps as the ops hand it to the backends: a float32 value (the reference
# adds a Python float exactly, the kernels its float32 bits)
EPS = N.fl32(1e-5)
# 43 rows of 19: two whole groups of sixteen, then eleven (eight side by side,
# three alone); 17 rows of 1031, longer than 1024: the backward's groups of
# eight; 35 rows of 1024 and 17 of 2048, rows 4 KB apart whose forward
# statistics read a padded copy of sixteen rows, then of three or one
SHAPES = [(1, 1), (3, 2), (13, 7), (9, 768), (17, 1031), (43, 19), (2, 4099), (35, 1024), (17, 2048)]


@pytest.mark.parametrize("rows,n", SHAPES)
@pytest.mark.parametrize("centered", [True, False])
def test_norm_rows_match_the_reference(rows, n, centered, gen, isa):
    _check_norm_rows(rows, n, centered, gen)


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("centered", [True, False])
def test_norm_rows_parameter_chains_on_threads(threads, centered, gen, isa):
    """The parameters' column chains advance in the rows' pass on one
    thread; on several, through the first thread's rows in its pass, then
    thread after thread through each one's rows (128 x 700 is work enough
    for three): the reference's bits either way."""
    saved = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        _check_norm_rows(128, 700, centered, gen)
    finally:
        torch.set_num_threads(saved)


def _check_norm_rows(rows, n, centered, gen):
    x = sprinkle(wide(rows, n, gen=gen, spread=3), SPECIALS + TINY, gen, 0.01)
    g = wide(rows, n, gen=gen, spread=2)
    w, b = wide(n, gen=gen), wide(n, gen=gen)
    for ww, bb in ((w, b), (None, None), (w, None), (None, b)):
        out, want = cpu.norm_rows(x, ww, bb, EPS, centered), ref.norm_rows(x, ww, bb, EPS, centered)
        for a, e in zip(out, want):
            assert_bitwise_equal(a, e, "forward")
        grads = cpu.norm_rows_backward(g, x, out[1], ww, centered, ww is not None, bb is not None)
        want_grads = ref.norm_rows_backward(g, x, want[1], ww, centered, ww is not None, bb is not None)
        for a, e in zip(grads, want_grads):
            if e is not None:
                assert_bitwise_equal(a, e, "backward")


@pytest.mark.parametrize("centered", [True, False])
def test_fused_norm_is_the_composition(centered, gen):
    x = wide(11, 37, gen=gen).requires_grad_()
    w, b = wide(37, gen=gen).requires_grad_(), wide(37, gen=gen).requires_grad_()
    bias = b if centered else None
    g = wide(11, 37, gen=gen)
    eps = EPS
    fused = N._norm_rows(x, w, bias, eps, centered)[0]
    normalized = (N._normalize(x, [1], eps) if centered else N._rms_normalize(x, [1], eps))[0]
    composed = repdl.mul(normalized, w)
    composed = repdl.add(composed, bias) if centered else composed
    assert_bitwise_equal(fused, composed)
    leaves = (x, w, b) if centered else (x, w)
    for a, e in zip(torch.autograd.grad(fused, leaves, g), torch.autograd.grad(composed, leaves, g)):
        assert_bitwise_equal(a, e)


# (N, C, *spatial): L == 1 as columns (a thread's 256 channels, then the
# rest); the backward's chains on blocks of channels in the lanes
# (gradient_chains): C below eight (lanes repeating the last row), 17 and 20
# (sixteen, then one or four), 25 (sixteen, then nine: two vectors, the
# second mostly repeats), 9 (eight and one); runs of 1031 (eight 128-float
# pieces and 7, whose last 3 are single columns), runs of 1024 (4 KB
# apart, one L1 set), a run of 2.
BATCH_SHAPES = [(2, 3), (64, 300), (3, 5, 7), (2, 16, 7, 7), (4, 17, 13), (2, 25, 5), (2, 9, 1031),
                (3, 20, 32, 32), (5, 40, 2), (2, 1, 3)]


def _check_channel_norm(name, shape, threads, gen, *args):
    """cpu.<name> and cpu.<name>_backward (x (N, C, *spatial), then `args`)
    against the reference's, with and without each affine parameter and
    parameter gradient, on `threads` threads."""
    c = shape[1]
    x = sprinkle(wide(*shape, gen=gen, spread=3), SPECIALS + TINY, gen, 0.002)
    g = sprinkle(wide(*shape, gen=gen, spread=2), SPECIALS, gen, 0.002)
    w, b = wide(c, gen=gen), wide(c, gen=gen)
    saved = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        for ww, bb in ((w, b), (None, None), (w, None), (None, b)):
            out, want = (getattr(be, name)(x, ww, bb, *args, EPS) for be in (cpu, ref))
            for a, e in zip(out, want):
                assert_bitwise_equal(a, e, "forward")
            for need_w, need_b in ((ww is not None, bb is not None), (False, False)):
                # the statistics the backward reads: mean first, rstd last
                grads, want_grads = (getattr(be, f"{name}_backward")(g, x, o[1], o[-1], ww, need_w, need_b)
                                     for be, o in ((cpu, out), (ref, want)))
                for a, e in zip(grads, want_grads):
                    assert (a is None) == (e is None)
                    if e is not None:
                        assert_bitwise_equal(a, e, "backward")
    finally:
        torch.set_num_threads(saved)


@pytest.mark.parametrize("shape", BATCH_SHAPES)
@pytest.mark.parametrize("threads", [1, 2])
def test_batch_norm_matches_the_reference(shape, threads, gen, isa):
    _check_channel_norm("batch_norm", shape, threads, gen)


def _check_two_orders(fused, composed, leaves, g):
    """The gradients of fused and composed (outputs of leaves x, w, b),
    seeded with g, equal in bits; and the second order's of x and w, through
    sum(dx * dx)."""
    first = torch.autograd.grad(fused, leaves, g, create_graph=True)
    want_first = torch.autograd.grad(composed, leaves, g, create_graph=True)
    for a, e in zip(first, want_first):
        assert_bitwise_equal(a, e, "gradient")
    second = torch.autograd.grad(repdl.sum(repdl.mul(first[0], first[0])), leaves[:2])
    want_second = torch.autograd.grad(repdl.sum(repdl.mul(want_first[0], want_first[0])), leaves[:2])
    for a, e in zip(second, want_second):
        assert_bitwise_equal(a, e, "second order")


@pytest.mark.parametrize("backend", ["cpu", "reference"])
@pytest.mark.parametrize("shape", [(6, 5), (3, 4, 7), (2, 16, 5, 3)])
def test_batch_norm_is_the_composition(shape, backend, gen):
    """Training batch_norm (the fused primitive) against normalize over (N,
    *spatial), then * weight, + bias, in bits: output, gradients (first and
    second order) and the running statistics' update, the running tensors
    contiguous or not."""
    c, dims = shape[1], [0, *range(2, len(shape))]
    x = wide(*shape, gen=gen, spread=2).requires_grad_()
    w, b = wide(c, gen=gen).requires_grad_(), wide(c, gen=gen).requires_grad_()
    g = wide(*shape, gen=gen)
    start_mean, start_var = wide(c, gen=gen), wide(c, gen=gen).abs()
    running_mean = torch.zeros(2 * c)[::2].copy_(start_mean)  # a strided view
    running_var = start_var.clone()
    eps, n = EPS, x.numel() // c
    with repdl.backends.use(backend):
        fused = repdl.batch_norm(x, running_mean, running_var, w, b, True, 0.3)
        normalized, mean, ss, _ = N._normalize(x, dims, eps)
        composed = repdl.add(repdl.mul(normalized, w.reshape(c, *[1] * (len(shape) - 2))),
                             b.reshape(c, *[1] * (len(shape) - 2)))
        assert_bitwise_equal(fused, composed)
        for got, start, stat in ((running_mean, start_mean, mean), (running_var, start_var, repdl.div(ss, N.fl32(n - 1)))):
            want = repdl.add(repdl.mul(start, N.fl32(0.7)), repdl.mul(stat.detach().reshape(c), N.fl32(0.3)))
            assert_bitwise_equal(got, want, "running statistics")
        _check_two_orders(fused, composed, (x, w, b), g)


@pytest.mark.parametrize("shape", BATCH_SHAPES)
def test_batch_norm_evaluation_matches_the_reference(shape, gen, isa):
    c = shape[1]
    x = sprinkle(wide(*shape, gen=gen, spread=3), SPECIALS + TINY, gen, 0.002)
    mean = sprinkle(wide(c, gen=gen), SPECIALS, gen, 0.1)
    var = sprinkle(wide(c, gen=gen), SPECIALS + TINY, gen, 0.2)  # negative and zero variances too
    w, b = wide(c, gen=gen), wide(c, gen=gen)
    for ww, bb in ((w, b), (None, None), (w, None), (None, b)):
        assert_bitwise_equal(cpu.batch_norm_evaluate(x, mean, var, ww, bb, EPS),
                             ref.batch_norm_evaluate(x, mean, var, ww, bb, EPS))


@pytest.mark.parametrize("backend", ["cpu", "reference"])
@pytest.mark.parametrize("shape", [(6, 5), (3, 4, 7), (2, 16, 5, 3)])
def test_batch_norm_evaluation_is_the_composition(shape, backend, gen):
    """Evaluation-mode batch_norm (one primitive) against (x - running_mean)
    * rsqrt(running_var + eps), * weight, + bias, in bits: output and the
    gradients of x, weight and bias, first and second order; the running
    statistics take none."""
    c, view = shape[1], (shape[1], *[1] * (len(shape) - 2))
    x = wide(*shape, gen=gen, spread=2).requires_grad_()
    w, b = wide(c, gen=gen).requires_grad_(), wide(c, gen=gen).requires_grad_()
    mean, var = wide(c, gen=gen), wide(c, gen=gen).abs()
    g = wide(*shape, gen=gen)
    with repdl.backends.use(backend):
        fused = repdl.batch_norm(x, mean, var, w, b)
        rstd = repdl.rsqrt(repdl.add(var, EPS))
        composed = repdl.add(repdl.mul(repdl.mul(repdl.sub(x, mean.reshape(view)), rstd.reshape(view)),
                                       w.reshape(view)), b.reshape(view))
        assert_bitwise_equal(fused, composed)
        first = torch.autograd.grad(fused, (x, w, b), g, create_graph=True)
        want_first = torch.autograd.grad(composed, (x, w, b), g, create_graph=True)
        for a, e in zip(first, want_first):
            assert_bitwise_equal(a, e, "gradient")
        (second,) = torch.autograd.grad(repdl.sum(repdl.mul(first[1], first[1])), (x,))
        (want_second,) = torch.autograd.grad(repdl.sum(repdl.mul(want_first[1], want_first[1])), (x,))
        assert_bitwise_equal(second, want_second, "second order")


CHANNEL_NORMS = {"batch_norm": lambda x: repdl.batch_norm(x, None, None, None, None, True),
                 "group_norm": lambda x: repdl.group_norm(x, 2), "instance_norm": repdl.instance_norm}


@pytest.mark.parametrize("backend", ["cpu", "reference"])
@pytest.mark.parametrize("op", sorted(CHANNEL_NORMS))
def test_norm_output_takes_in_place_updates(op, backend, gen):
    """A residual block's `out += residual` on a normalisation's output (as
    transformers' ResNet writes it): autograd refuses in-place writes to a
    custom op's outputs that are views (the reference's batch norm, and its
    group norm without affine parameters, returned reshaped views once)."""
    x = wide(2, 4, 3, 3, gen=gen).requires_grad_()
    with repdl.backends.use(backend):
        y = CHANNEL_NORMS[op](x)
        y += wide(2, 4, 3, 3, gen=gen)
        (dx,) = torch.autograd.grad(y, x, torch.ones_like(y))
    assert dx.shape == x.shape


# (N, C, *spatial), groups: a block of groups in the lanes of the chains
# (gradient_chains), each lane's row its channels' runs in order: C == G
# (one channel a group), L == 1 (runs of one float), runs of 1031 and 1024
# (pieces of 128 floats and a rest; 1024 puts the rows 4 KB apart, in one
# L1 set), more groups than sixteen (a block of sixteen, then the rest;
# eight when two threads share fewer than 32), 25 groups (sixteen, then
# nine: two vectors), 20 groups of 3 channels, an empty batch, empty runs,
# 18 rows of 1024 (sixteen rows' forward statistics from a padded copy,
# then two), and on two threads too few groups for their lanes: the
# backward's pipeline over samples, the threads splitting 4 channels a
# group, or 3 (two and one) of one group.
GROUP_SHAPES = [((2, 6), 3), ((3, 8, 5), 2), ((2, 4, 3, 3), 4), ((2, 6, 1031), 2), ((3, 4, 1024), 2),
                ((9, 4, 512), 2), ((5, 8, 1100), 2), ((8, 3, 1900), 1),
                ((2, 64, 7), 32), ((2, 25, 3), 25), ((3, 60, 5, 5), 20), ((1, 4, 700), 1), ((0, 4, 3), 2),
                ((2, 4, 0), 2)]


@pytest.mark.parametrize("shape,groups", GROUP_SHAPES)
@pytest.mark.parametrize("threads", [1, 2])
def test_group_norm_matches_the_reference(shape, groups, threads, gen, isa):
    _check_channel_norm("group_norm", shape, threads, gen, groups)


@pytest.mark.parametrize("backend", ["cpu", "reference"])
@pytest.mark.parametrize("shape,groups", [((6, 4), 2), ((3, 4, 7), 4), ((2, 6, 5, 3), 3)])
def test_group_norm_is_the_composition(shape, groups, backend, gen):
    """group_norm (the fused primitive) against normalize over each (sample,
    group)'s row, then * weight, + bias per channel, in bits: output and
    gradients, first and second order."""
    c, view = shape[1], (shape[1], *[1] * (len(shape) - 2))
    x = wide(*shape, gen=gen, spread=2).requires_grad_()
    w, b = wide(c, gen=gen).requires_grad_(), wide(c, gen=gen).requires_grad_()
    g = wide(*shape, gen=gen)
    with repdl.backends.use(backend):
        fused = repdl.group_norm(x, groups, w, b)
        normalized = N._normalize(x.reshape(shape[0] * groups, -1), [1], EPS)[0].reshape(shape)
        composed = repdl.add(repdl.mul(normalized, w.reshape(view)), b.reshape(view))
        assert_bitwise_equal(fused, composed)
        _check_two_orders(fused, composed, (x, w, b), g)


@pytest.mark.parametrize("backend", ["cpu", "reference"])
def test_group_norm_takes_an_empty_batch(backend):
    """N = 0, as torch takes it (the composition's reshape to (0, -1) raised)."""
    x, w = torch.empty(0, 4, 3, requires_grad=True), torch.ones(4, requires_grad=True)
    with repdl.backends.use(backend):
        y = repdl.group_norm(x, 2, w)
        dx, dw = torch.autograd.grad(y, (x, w), torch.empty(0, 4, 3))
    assert y.shape == dx.shape == (0, 4, 3)
    assert_bitwise_equal(dw, torch.zeros(4))


@pytest.mark.parametrize("backend", ["cpu", "reference"])
@pytest.mark.parametrize("shape", [(3, 4, 7), (2, 5, 4, 3)])
def test_instance_norm_is_the_composition(shape, backend, gen):
    """instance_norm without running statistics (group_norm's primitive, a
    group per channel) against normalize over the spatial dims, then *
    weight, + bias per channel, in bits, with both gradient orders."""
    c, view = shape[1], (shape[1], *[1] * (len(shape) - 2))
    x = wide(*shape, gen=gen, spread=2).requires_grad_()
    w, b = wide(c, gen=gen).requires_grad_(), wide(c, gen=gen).requires_grad_()
    g = wide(*shape, gen=gen)
    with repdl.backends.use(backend):
        fused = repdl.instance_norm(x, weight=w, bias=b)
        normalized = N._normalize(x, list(range(2, len(shape))), EPS)[0]
        composed = repdl.add(repdl.mul(normalized, w.reshape(view)), b.reshape(view))
        assert_bitwise_equal(fused, composed)
        _check_two_orders(fused, composed, (x, w, b), g)


@pytest.mark.parametrize("log", [False, True])
# Groups of sixteen lines (two fmachains of eight, 4 x 9 lines: 16 + 16 + 4),
# of eight for longer lines (2 x 1100), lines 2 KB and 4 KB apart (512 and
# 1024: the chains go eight at a time, and so do softmax's groups; 37 lines:
# 8 + 8 + 8 + 8 + 5), lines beyond 2^15 (six to a group), 4 MB, where the
# kernel asks for the next group's lines and dx's ahead (2 MB or more a
# thread), and short lines in groups of 2048 floats, at most 128 lines (261
# of 16: 128 + 128 + 5; 3 x 50 of 30: 68 + 68 + 14; 300 of 2).
@pytest.mark.parametrize("shape,dim", [((7, 13), 1), ((7, 13), 0), ((3, 1, 5), 1), ((4, 9, 300), -1), ((2, 4099), 1),
                                       ((37, 512), 1), ((19, 1024), 1), ((2, 11, 1100), 2), ((7, 40000), 1),
                                       ((4, 512, 512), -1), ((261, 16), 1), ((3, 50, 30), 2), ((300, 2), 1)])
def test_softmax_backward_matches_the_reference(shape, dim, log, gen, isa):
    x = sprinkle(wide(*shape, gen=gen, spread=2), SPECIALS, gen, 0.02)
    y = (repdl.log_softmax if log else repdl.softmax)(x, dim)
    g = wide(*shape, gen=gen, spread=2)
    want = ref.softmax_backward(g, y, dim % len(shape), log=log)
    assert_bitwise_equal(cpu.softmax_backward(g, y, dim % len(shape), log=log), want)
    gt = g.transpose(0, -1).contiguous().transpose(0, -1)  # another layout for g
    assert_bitwise_equal(cpu.softmax_backward(gt, y, dim % len(shape), log=log), want)


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("shape,dim", [((19, 37), 1), ((19, 37), 0), ((3, 11, 37), 2), ((3, 11, 37), 1),
                                       ((3, 50, 30), 2)])
def test_softmax_backward_in_every_layout(shape, dim, log, gen, isa):
    """The backward reads lines in place where they lie end to end in
    memory, and copies them otherwise: both, and groups that straddle an
    outer index (3 x 11 lines of 37 in one group of up to 55, 3 x 50 of 30
    in groups of 68), against the reference, with y and g in transposed,
    strided and row-sliced layouts."""
    x = sprinkle(wide(*shape, gen=gen, spread=2), SPECIALS, gen, 0.02)
    y = (repdl.log_softmax if log else repdl.softmax)(x, dim)
    g = wide(*shape, gen=gen, spread=2)
    want = ref.softmax_backward(g, y, dim, log=log)
    wide_rows = torch.zeros(*shape[:-1], shape[-1] + 5)
    wide_rows[..., 2:2 + shape[-1]] = y
    for name, yv in layouts(y) + [("row-sliced", wide_rows[..., 2:2 + shape[-1]])]:
        for g_name, gv in layouts(g):
            assert_bitwise_equal(cpu.softmax_backward(gv, yv, dim, log=log), want, f"y {name}, g {g_name}")


def test_double_backward_keeps_the_first_order_bits(gen):
    x = wide(5, 9, gen=gen).requires_grad_()
    g = wide(5, 9, gen=gen)
    for f in (lambda t: repdl.softmax(t, 1), lambda t: repdl.log_softmax(t, 0), lambda t: repdl.layer_norm(t, (9,))):
        (plain,) = torch.autograd.grad(f(x), x, g)
        (graph,) = torch.autograd.grad(f(x), x, g, create_graph=True)
        assert_bitwise_equal(graph.detach(), plain)
        assert graph.requires_grad


# ---- the correctly rounded functions' backward ----------------------------------------------

UNARY = list(_C.cr_unary_names())


def _random_bits(n, seed):
    """Any float32 bit pattern for half, normal values for the other half."""
    g = torch.Generator().manual_seed(seed)
    return torch.cat([torch.randint(-(1 << 31), (1 << 31) - 1, (n // 2,), generator=g, dtype=torch.int32)
                      .view(torch.float32), torch.randn(n - n // 2, generator=g) * 4])


def _formula(name):
    """The contract's backward formula of `name` as the primitives run it."""
    from repdl.ops import elementwise as E
    return {"gelu": E._gelu_grad, "gelu_tanh": E._gelu_tanh_grad}.get(name) or E._GRADIENTS[name]


def _gradient_inputs(seed):
    x = torch.cat([_random_bits(1 << 15, seed), torch.tensor(SPECIALS + [20.0, 20.000002, 19.999998, -1e-40])])
    g = _random_bits(x.numel(), seed + 1)[torch.randperm(x.numel(), generator=torch.Generator().manual_seed(seed))]
    gb = g.view(torch.int32).clone()
    gb[:4] = torch.tensor([0x7FC00001, -1, 0x7F800001, 0x00000001], dtype=torch.int32)  # NaN payloads pass where()
    return x, gb.view(torch.float32)


def _fused_reads(name, x):
    """What the fused gradient of `name` reads beside x: the output, or
    another function of x (E.FUSED_GRADIENT_READS: silu's sigmoid)."""
    return getattr(cpu, E.FUSED_GRADIENT_READS.get(name, name))(x)


@pytest.mark.parametrize("name", UNARY)
def test_fused_gradient_is_the_formula(name):
    """csrc/elementwise/grad_blocks.inc's one-pass gradient gives the bits of the
    contract's sequence of primitives, on every row, for adversarial values,
    non-canonical NaN gradients (passed through where the formula selects
    g itself) and layouts the engine hands over (an expanded gradient, a
    transposed input)."""
    from repdl.backends import cpu
    x, g = _gradient_inputs(UNARY.index(name))
    y = _fused_reads(name, x)
    want = _formula(name)(g, x, y)
    saved = repdl.isa()
    try:
        for isa in ROWS:
            repdl.set_isa(isa)
            assert_bitwise_equal(cpu.unary_grad(name, g, x, y), want, f"{name}, {isa} row")
    finally:
        repdl.set_isa(saved)
    xt = x[: 96 * 85].reshape(85, 96).t()
    yt = _fused_reads(name, xt)
    gt = g[:1].expand(96, 85)
    assert_bitwise_equal(cpu.unary_grad(name, gt, xt, yt), _formula(name)(gt, xt, yt), f"{name}, layouts")


@pytest.mark.parametrize("name", ["sigmoid", "gelu", "silu", "log"])
def test_autograd_takes_the_fused_gradient_and_double_backward_the_formula(name):
    """One backward runs the fused primitive; create_graph=True records the
    formula (differentiable); both give the same first derivative."""
    x, g = _gradient_inputs(7)
    x = x[4:].abs() + 0.5 if name == "log" else x[4:]
    g = g[4:]
    fn = getattr(repdl, name)
    leaf = x.clone().requires_grad_()
    (fused,) = torch.autograd.grad(fn(leaf), leaf, g)
    leaf2 = x.clone().requires_grad_()
    (recorded,) = torch.autograd.grad(fn(leaf2), leaf2, g, create_graph=True)
    assert recorded.requires_grad and not fused.requires_grad
    assert_bitwise_equal(fused, recorded)
    assert_bitwise_equal(fused, _formula(name)(g, x, fn(x)))
    (second,) = torch.autograd.grad(recorded.sum(), leaf2)
    assert second.shape == x.shape


def test_silu_saves_sigmoid_for_its_backward():
    """silu recording autograd computes sigmoid(x) in the same pass
    (repdl::silu_and_sigmoid) and its backward reads it instead of
    recomputing it: silu's forward bits and the formula's gradient, eagerly,
    under the reference backend, through torch.func (grad, vmap) and for
    a double backward."""
    x, g = _gradient_inputs(11)
    leaf = x.clone().requires_grad_()
    y = repdl.silu(leaf)
    assert "silu_and_sigmoid" in type(y.grad_fn).__name__
    assert_bitwise_equal(y, cpu.silu(x))
    (dx,) = torch.autograd.grad(y, leaf, g)
    want = _formula("silu")(g, x, None)
    assert_bitwise_equal(dx, want)
    with repdl.backends.use("reference"):
        leaf_ref = x.clone().requires_grad_()
        (dx_ref,) = torch.autograd.grad(repdl.silu(leaf_ref), leaf_ref, g)
    assert_bitwise_equal(dx_ref, want)
    xs, gs = x[:64].reshape(8, 8), g[:64].reshape(8, 8)
    per_row = torch.func.vmap(torch.func.grad(lambda r, gr: (repdl.silu(r) * gr).sum()))(xs, gs)
    assert_bitwise_equal(per_row, _formula("silu")(gs, xs, None))
    pair = torch.func.vmap(lambda r: E._silu_and_sigmoid(r))(xs)
    assert_bitwise_equal(pair[0], cpu.silu(xs))
    assert_bitwise_equal(pair[1], cpu.sigmoid(xs))


# ---- cross_entropy's class-index rule ---------------------------------------------------------

@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("shape", [(37, 11), (5, 7, 3), (3, 4)])
def test_class_nll_is_the_general_rule(reduction, shape, gen):
    """cross_entropy without weight or smoothing runs one primitive after
    log_softmax (ops.loss._class_nll), or for a 2-D input one with
    log_softmax inside (ops.loss._lsm_class_nll, whose backward never forms
    the one-hot gradient); its loss and input gradient are the bits of the
    general rule's chain of primitives (pick, neg, where, sum, count, div),
    with ignored samples, specials in the logits, and no valid sample at all."""
    from repdl.ops import loss as L
    x0 = sprinkle(wide(*shape, gen=gen, spread=2), SPECIALS, gen, 0.05)
    C = shape[1]
    target = torch.randint(0, C, (shape[0], *shape[2:]), generator=gen)
    target.view(-1)[::4] = -100
    for t in (target, torch.full_like(target, -100)):
        g = wide(*t.shape, gen=gen) if reduction == "none" else torch.tensor(1.5)
        x = x0.clone().requires_grad_()
        got = repdl.cross_entropy(x, t, reduction=reduction)
        (got_grad,) = torch.autograd.grad(got, x, g)
        x = x0.clone().requires_grad_()
        lsm = repdl.log_softmax(x, 1).movedim(1, -1)
        valid = t != -100
        zero = torch.zeros(())
        nll = torch.where(valid, repdl.neg(L._class_pick(lsm, t, -100)), zero)
        want = nll if reduction == "none" else repdl.sum(nll)
        if reduction == "mean":
            want = repdl.div(want, valid.sum().to(torch.float32))
        (want_grad,) = torch.autograd.grad(want, x, g)
        assert_bitwise_equal(got, want, f"{reduction} loss")
        assert_bitwise_equal(got_grad, want_grad, f"{reduction} gradient")


def test_gradient_checker_on_a_slice():
    """tools/cr/check_gradients.py itself (the 2^32 sweep behind
    docs/elementwise.md's record) on a 2^16-input slice around 1.0."""
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools", "cr"))
    import check_gradients
    threads = torch.get_num_threads()
    try:
        first, bad = check_gradients.check_chunk("gelu", 0x3F800000 - (1 << 15), 1 << 16)
    finally:
        torch.set_num_threads(threads)
    assert bad == 0, [hex(b) for b in first]
    g = check_gradients.gradients_of(torch.arange(1 << 12, dtype=torch.int64))
    assert torch.isnan(g).any() and torch.isinf(g).any() and (g < 0).any() and (g > 0).any()

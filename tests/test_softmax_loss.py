"""softmax, log_softmax, logsumexp and cross_entropy: fast == reference
bitwise; special rows; torch's conventions and errors."""
import math

import pytest
import torch
import torch.nn.functional as F

import repdl
from repdl import _C, backends
from repdl.backends import cpu, reference as ref
from repdl.backends._views import reduction_view
from repdl.backends.cpu.softmax import _KIND
from repdl.backends.reference.reductions import extremum as ref_max
from repdl.testing import assert_bitwise_equal

from values import layouts, outer_gapped, sprinkle, wide

INF, NAN = float("inf"), float("nan")


# The forward groups sixteen lines of 128 to 1024 (37 lines of 128: 16 + 16 +
# 5), eight of longer ones (11 lines of 1100: 8 + 3), and shorter lines by
# 2048 floats, at most 128 lines (261 of 16: 128 + 128 + 5; 150 of 20: 102 +
# 48; 3 x 50 of 30: 68 + 68 + 14, groups across the outer index; 300 of 2:
# 128 + 128 + 44).
@pytest.mark.parametrize("shape", [(1,), (13,), (37, 29), (4, 5, 6), (3, 1000), (9, 1), (3, 7, 16), (19, 128),
                                   (37, 128), (11, 1100), (261, 16), (150, 20), (3, 50, 30), (300, 2)], ids=str)
def test_softmax_matches_reference(shape, gen, isa):
    x = sprinkle(wide(*shape, gen=gen, spread=3), [0.0, -0.0, -INF, 80.0, -80.0], gen, 0.05)
    for name, xv in layouts(x):
        for dim in range(len(shape)):
            for log in (False, True):
                assert_bitwise_equal(cpu.softmax(xv, dim, log=log), ref.softmax(xv, dim, log=log),
                                     f"{name} dim={dim} log={log}")
        for dims in [(d,) for d in range(len(shape))] + [tuple(range(len(shape)))]:
            assert_bitwise_equal(cpu.logsumexp(xv, dims, False), ref.logsumexp(xv, dims, False), f"{name} {dims}")


@pytest.mark.parametrize("shape", [(3, 50, 30), (4, 5, 16)], ids=str)
def test_kernels_take_lines_with_gaps_between_outer_indices(shape, gen, isa):
    """The line kernels take any view.  Lines end to end within each outer
    index but with a gap between outer indices (which the backend's dense
    copies never hand them) form groups across the gap (3 x 50 lines of 30
    in groups of 68, 4 x 5 of 16 in one), and such a group is no one span:
    forward and backward read and write each line where it lies."""
    x = outer_gapped(wide(*shape, gen=gen, spread=3))
    v = reduction_view(x, (2,))
    assert v.perm is None and x.stride(0) != shape[1] * shape[2]
    for log in (False, True):
        y = outer_gapped(torch.full(shape, NAN))
        _C.softmax(*v.args, y.data_ptr(), _KIND["log_softmax" if log else "softmax"])
        assert_bitwise_equal(y, ref.softmax(x, 2, log=log), f"log={log}")
        g, dx = outer_gapped(wide(*shape, gen=gen, spread=2)), outer_gapped(torch.full(shape, NAN))
        _C.softmax_backward(*reduction_view(y, (2,)).args, g.data_ptr(), dx.data_ptr(), log)
        assert_bitwise_equal(dx, ref.softmax_backward(g, y, 2, log=log), f"backward log={log}")


def test_nan_payloads_come_out_canonical(gen, isa):
    """A NaN with a payload or a sign, in any line and layout, gives the
    contract's NaN (0x7FC00000) wherever the result is NaN: softmax's
    division, log_softmax's d - log(s) and logsumexp each write it."""
    x = wide(12, 37, gen=gen, spread=3)
    bits = x.view(torch.int32)
    for i, b in enumerate([0x7FA00001, -0x3FFFFF, 0x7F800001]):  # payload NaN, -NaN with payload, signalling
        bits[3 * i, 5 + 7 * i] = b
    for name, xv in layouts(x):
        for dim in (0, 1):
            for log in (False, True):
                got = cpu.softmax(xv, dim, log=log)
                assert_bitwise_equal(got, ref.softmax(xv, dim, log=log), f"{name} dim={dim} log={log}")
                nan_bits = got[got.isnan()].view(torch.int32)
                assert nan_bits.numel() > 0 and bool((nan_bits == 0x7FC00000).all()), f"{name} dim={dim} log={log}"
            lse = cpu.logsumexp(xv, (dim,), False)
            assert_bitwise_equal(lse, ref.logsumexp(xv, (dim,), False), f"{name} {dim}")
            assert bool((lse[lse.isnan()].view(torch.int32) == 0x7FC00000).all())


# Lines longer than 32768 go as many to a group as fit 8 x 32768 floats:
# 5 of 70000 as 3 + 2, 7 of 40000 as 6 + 1 (on 2 threads 4 + 3), one of 300000;
# and 2.4 MB of short lines, where one thread asks for the next group's lines
# ahead (2 MB or more a thread) and two do not.
@pytest.mark.parametrize("shape", [(5, 70_000), (7, 40_000), (1, 300_000), (600, 1000)], ids=str)
@pytest.mark.parametrize("threads", [1, 2])
def test_long_line_softmax(shape, threads, gen, isa):
    x = wide(*shape, gen=gen, spread=2)
    saved = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        for log in (False, True):
            assert_bitwise_equal(cpu.softmax(x, 1, log=log), ref.softmax(x, 1, log=log))
    finally:
        torch.set_num_threads(saved)


def test_tiny_exponentials(isa):
    """Lines whose e = exp(x - m) reach below 2^-126 (logits spread by more
    than 87): their division goes through float64 (lines.inc, divide), and
    every quotient, the subnormal ones and those next to 2^-126 included,
    must be the IEEE float32 one; sums from 1 to about 400."""
    steps = torch.linspace(86.0, 104.5, 1000)
    lines = [torch.cat([torch.zeros(k), -steps - 0.37 * j]) for j, k in enumerate((1, 2, 7, 40, 400))]
    n = max(len(t) for t in lines)
    x = torch.stack([torch.cat([t, torch.full((n - len(t),), -INF)]) for t in lines])
    got = {log: cpu.softmax(x, 1, log=log) for log in (False, True)}
    for log, y in got.items():
        assert_bitwise_equal(y, ref.softmax(x, 1, log=log), f"log={log}")
    p = got[False]
    assert bool(((p > 0) & (p < 2.0 ** -126)).any())  # the lines reach the subnormal quotients


@pytest.mark.parametrize("n", [16, 17, 63, 64, 65, 100, 128, 1000])
def test_line_maximum(n, isa):
    """The line's max m, which every forward starts from (each row's reduce
    max_value: on the AVX-512 row sixteen lanes, four vectors at a time,
    the last partial vector padded with -inf), wherever the maximum lies:
    in the bulk, in the last vector, first.  A lone -0.0 among -inf shows
    m's sign: log_softmax there is (-0) - m - log 1, +0.0 for m = -0.0 and
    -0.0 for a +0.0 that padding or a fold made up.  NaN anywhere gives a
    line of canonical NaN."""
    lines = []
    for at in sorted({0, n // 2, n - 16, n - 1}):
        lone = torch.full((n,), -INF)
        lone[at] = -0.0
        peak = torch.linspace(-3.0, -1.0, n)
        peak[at] = -0.5
        nan = torch.linspace(-3.0, 2.0, n)
        nan[at] = NAN
        lines += [lone, peak, nan]
    lines.append(torch.full((n,), -INF))
    x = torch.stack(lines)
    for log in (False, True):
        assert_bitwise_equal(cpu.softmax(x, 1, log=log), ref.softmax(x, 1, log=log), f"log={log}")
    assert_bitwise_equal(cpu.logsumexp(x, (1,), False), ref.logsumexp(x, (1,), False))


@pytest.mark.parametrize("n", [1, 2, 15, 16, 17, 33, 127])
def test_maxima_of_short_lines_side_by_side(n, isa):
    """Lines of up to sixteen floats have their maxima found sixteen at a
    time on the AVX-512 row (reduce's max16, which folds them side by
    side): each line's m must be its own, in its own lane; longer lines
    (17, 33, 127) take max_value a line at a time, on the same blocks.
    Blocks of sixteen lines: a distinct peak per line (wherever it lies),
    zero maxima with either sign first (-0.0 then +0.0, and +0.0 then -0.0,
    among -inf: m takes the first zero's sign, which no output shows with
    two zeros in the line, so m itself is compared, as cross_entropy keeps
    it), lines of -inf, +inf; then the same with a NaN in one line, and
    with +inf in one line where another has -inf in the same lane (their
    sum, which catches NaN, is NaN too: those sixteen take max_value one
    line at a time)."""
    def block(extra=None):
        rows = []
        for q in range(16):
            row = torch.linspace(-3.0, -2.0, n) - q
            kind = q % 4
            if kind == 0:
                row[(5 * q) % n] = float(q)  # each line its own peak
            elif kind in (1, 2) and n > 1:
                row = torch.full((n,), -INF)
                first, second = (q % n, (q + 1) % n)
                row[first], row[second] = (-0.0, 0.0) if kind == 1 else (0.0, -0.0)
            elif kind == 3 and q % 8 == 3:
                row = torch.full((n,), -INF)
            rows.append(row)
        if extra is not None:
            extra(rows)
        return rows

    def nan_line(rows):
        rows[7][n // 2] = NAN

    def infinities(rows):
        rows[4][0] = INF
        rows[8][0] = -INF

    def plus_inf(rows):
        rows[12][n - 1] = INF

    x = torch.stack(block() + block(nan_line) + block(infinities) + block(plus_inf) + block())
    for log in (False, True):
        assert_bitwise_equal(cpu.softmax(x, 1, log=log), ref.softmax(x, 1, log=log), f"log={log}")
    assert_bitwise_equal(cpu.logsumexp(x, (1,), False), ref.logsumexp(x, (1,), False))
    # m itself, as cross_entropy keeps it: with two zeros in a line s >= 2,
    # and no output shows a zero maximum's sign.
    assert_bitwise_equal(cpu.log_softmax_stats(x)[:, 0], ref_max(x, 1, False, largest=True)[0])


def test_special_rows(isa):
    rows = torch.tensor([[-INF, -INF, -INF], [INF, 0.0, 1.0], [NAN, 0.0, 1.0], [-0.0, -INF, -INF],
                         [0.0, 0.0, 0.0], [-1e30, 1e30, 0.0]])
    for log in (False, True):
        assert_bitwise_equal(cpu.softmax(rows, 1, log=log), ref.softmax(rows, 1, log=log))
    lse = repdl.logsumexp(rows, 1)
    assert_bitwise_equal(lse, ref.logsumexp(rows, (1,), False))
    assert lse[0].item() == -INF and lse[1].item() == INF and math.isnan(lse[2].item())
    sm = repdl.softmax(rows, 1)
    assert (sm[0].view(torch.int32) == 0x7FC00000).all()  # -inf - -inf: canonical NaN
    assert sm[3].tolist() == [1.0, 0.0, 0.0]
    # log_softmax of [-0, -inf, -inf]: m = -0.0, (x - m) = +0.0, log(1) = 0 -> +0.0
    assert repdl.log_softmax(rows[3], 0)[0].view(torch.int32).item() == 0
    assert repdl.logsumexp(torch.empty(0, 3), 0).tolist() == [-INF] * 3


def test_softmax_close_to_torch(gen):
    x = torch.randn(64, 100, generator=gen) * 5
    assert torch.allclose(repdl.softmax(x, 1), torch.softmax(x, 1), rtol=1e-5, atol=1e-7)
    assert torch.allclose(repdl.log_softmax(x, 0), torch.log_softmax(x, 0), rtol=1e-5, atol=1e-5)
    assert torch.allclose(repdl.logsumexp(x, (0, 1)), torch.logsumexp(x, (0, 1)), rtol=1e-6)


# ---- cross_entropy ------------------------------------------------------------------------------

CE_CASES = [dict(), dict(reduction="sum"), dict(reduction="none"), dict(label_smoothing=0.1),
            dict(ignore_index=2), dict(weight=True), dict(weight=True, label_smoothing=0.2, ignore_index=1),
            dict(weight=True, reduction="none", label_smoothing=0.3)]


@pytest.mark.parametrize("case", CE_CASES, ids=str)
@pytest.mark.parametrize("shape", [(16, 7), (7,), (4, 5, 3, 2)], ids=str)
def test_cross_entropy(case, shape, gen):
    kw = dict(case)
    C = shape[1] if len(shape) > 1 else shape[0]
    x = wide(*shape, gen=gen, spread=2)
    target_shape = (shape[0],) + shape[2:] if len(shape) > 1 else ()
    t = torch.randint(0, C, target_shape, generator=gen)
    if kw.pop("weight", False):
        kw["weight"] = torch.rand(C, generator=gen) + 0.1
    fast = repdl.cross_entropy(x, t, **kw)
    with backends.use("reference"):
        slow = repdl.cross_entropy(x, t, **kw)
    assert_bitwise_equal(fast, slow)
    assert torch.allclose(fast, F.cross_entropy(x, t, **kw), rtol=1e-5, atol=1e-6)


def _composed_cross_entropy(x, t, ignore_index, reduction):
    """The contract's graph node by node: log_softmax, then the class rule."""
    from repdl.ops.loss import _class_nll
    return _class_nll(repdl.log_softmax(x, 1), t, ignore_index, reduction)


@pytest.mark.parametrize("shape", [(7, 1000), (33, 129), (1, 1), (5, 2), (0, 4), (3, 0)], ids=str)
def test_log_softmax_stats(shape, gen, isa):
    """The two values per row that cross_entropy keeps instead of
    log_softmax (m and log s): both backends agree bit for bit, and
    fl(fl(x - m) - log s) is log_softmax, on every layout, with infinite and
    NaN logits; rows of no elements give NaN."""
    x = sprinkle(wide(*shape, gen=gen, spread=2), [INF, -INF, NAN, 0.0, -0.0, 90.0], gen, 0.05)
    if shape[0] > 2 and shape[1]:
        x[1] = -INF  # a row of -inf: m = -inf, log s = NaN
    for name, xv in layouts(x):
        stats = cpu.log_softmax_stats(xv)
        assert_bitwise_equal(stats, ref.log_softmax_stats(xv), name)
        lsm = repdl.sub(repdl.sub(xv, stats[:, :1]), stats[:, 1:])
        assert_bitwise_equal(lsm, repdl.log_softmax(xv, 1), name)


def assert_class_loss_matches(x, fused, composed, upstream, gen):
    """fused(x, reduction) (one backend call) against composed(x, reduction)
    (the contract's primitives) and against fused on the reference backend:
    the loss and its gradient for each reduction's upstream gradients
    (None: a random one per sample), on every layout of x."""
    for name, xv in layouts(x):
        for reduction, gs in upstream.items():
            for g in gs:
                g = torch.randn(x.shape[0], generator=gen) if g is None else torch.tensor(g)
                label = f"{name} {reduction} g={g.tolist() if g.dim() == 0 else 'random'}"
                x1, x2 = xv.clone().requires_grad_(), xv.clone().requires_grad_()
                loss1, loss2 = fused(x1, reduction), composed(x2, reduction)
                assert_bitwise_equal(loss1, loss2, label)
                (d1,), (d2,) = torch.autograd.grad(loss1, x1, g), torch.autograd.grad(loss2, x2, g)
                assert_bitwise_equal(d1, d2, label)
                with backends.use("reference"):
                    x3 = xv.clone().requires_grad_()
                    loss3 = fused(x3, reduction)
                    (d3,) = torch.autograd.grad(loss3, x3, g)
                assert_bitwise_equal(loss3, loss2, label + ", reference")
                assert_bitwise_equal(d3, d2, label + ", reference")


@pytest.mark.parametrize("threads", [1, 2])
def test_one_hot_backward_kernel_is_the_general_rule(threads, gen, isa):
    """log_softmax_onehot_backward gives log_softmax's backward's bits on
    the dense one-hot gradient, on 2.4 MB of logits: one thread asks for
    the next rows ahead (2 MB or more a thread), two do not."""
    x = sprinkle(wide(600, 1000, gen=gen, spread=2), [INF, -INF, NAN, -0.0], gen, 0.001)
    index = torch.randint(0, 1000, (600,), generator=gen)
    value = wide(600, gen=gen)
    g = torch.zeros(600, 1000)
    g[torch.arange(600), index] = value
    saved = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        got = cpu.log_softmax_onehot_backward(x, cpu.log_softmax_stats(x), index, value)
        want = cpu.softmax_backward(g, cpu.softmax(x, 1, log=True), 1, log=True)
    finally:
        torch.set_num_threads(saved)
    assert_bitwise_equal(got, want)


@pytest.mark.parametrize("shape", [(7, 1000), (33, 129), (1, 1), (5, 2), (0, 4)], ids=str)
def test_cross_entropy_one_hot_backward(shape, gen, isa):
    """A 2-D cross_entropy with class indices is one node whose backward
    never forms the class pick's dense one-hot gradient
    (log_softmax_onehot_backward): its loss and gradient, and a double
    backward's, equal the composed graph's bit for bit, for every
    reduction, ignored samples, infinite and NaN logits, upstream
    gradients of either sign, zero (where the pick's -0.0 meets the
    sum's +0.0) and NaN, and any layout of the logits."""
    N, C = shape
    x = sprinkle(wide(N, C, gen=gen, spread=2), [INF, -INF, NAN, 0.0, -0.0, 90.0], gen, 0.02)
    t = torch.randint(0, C, (N,), generator=gen)
    t[::3] = -7  # ignored (the first sample included)
    upstream = {"mean": [1.5, -0.0, 0.0, NAN], "sum": [-2.0], "none": [None]}
    assert_class_loss_matches(x, lambda xv, r: repdl.cross_entropy(xv, t, ignore_index=-7, reduction=r),
                              lambda xv, r: _composed_cross_entropy(xv, t, -7, r), upstream, gen)
    x1, x2 = x.clone().requires_grad_(), x.clone().requires_grad_()
    (d1,) = torch.autograd.grad(repdl.cross_entropy(x1, t, ignore_index=-7), x1, create_graph=True)
    (d2,) = torch.autograd.grad(_composed_cross_entropy(x2, t, -7, "mean"), x2, create_graph=True)
    assert_bitwise_equal(d1, d2, "double backward, first derivative")
    if N:
        w = torch.randn(N, C, generator=gen)
        assert_bitwise_equal(torch.autograd.grad(repdl.sum(repdl.mul(d1, w)), x1)[0],
                             torch.autograd.grad(repdl.sum(repdl.mul(d2, w)), x2)[0], "double backward")


def test_cross_entropy_probability_targets(gen):
    x = wide(6, 5, gen=gen, spread=2)
    p = torch.softmax(torch.randn(6, 5, generator=gen), 1)
    w = torch.rand(5, generator=gen)
    for kw in (dict(), dict(label_smoothing=0.2, weight=w), dict(reduction="none")):
        fast = repdl.cross_entropy(x, p, **kw)
        with backends.use("reference"):
            slow = repdl.cross_entropy(x, p, **kw)
        assert_bitwise_equal(fast, slow)
        assert torch.allclose(fast, F.cross_entropy(x, p, **kw), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shape", [(7, 1000), (33, 129), (1, 1), (5, 2), (0, 4)], ids=str)
def test_nll_loss_of_log_probabilities(shape, gen, isa):
    """A 2-D nll_loss without weight is the backend's one call (nll), and its
    gradient the one-hot values written into zeros: loss and gradient equal
    the general rule's primitives (pick, mask, sum, count, division) and the
    reference backend, bit for bit, for every reduction, ignored samples,
    infinite and NaN log-probabilities, upstream gradients of either sign,
    zero and NaN, and any layout."""
    from repdl.ops.loss import _class_pick, _reduced_nll
    N, C = shape
    x = sprinkle(wide(N, C, gen=gen, spread=2), [INF, -INF, NAN, 0.0, -0.0], gen, 0.05)
    t = torch.randint(0, C, (N,), generator=gen)
    t[1::3] = -7  # ignored
    upstream = {"mean": [1.5, -0.0, NAN], "sum": [-2.0], "none": [None]}
    assert_class_loss_matches(x, lambda xv, r: repdl.nll_loss(xv, t, ignore_index=-7, reduction=r),
                              lambda xv, r: _reduced_nll(_class_pick(xv, t, -7), t != -7, r), upstream, gen)


@pytest.mark.parametrize("backend", ["cpu", "reference"])
def test_cross_entropy_all_ignored(backend):
    """No valid sample: the mean is 0 / 0 (canonical NaN), the sum +0.0."""
    x, t = torch.randn(3, 4), torch.full((3,), -100)
    with backends.use(backend):
        assert repdl.cross_entropy(x, t).view(torch.int32).item() == 0x7FC00000
        assert repdl.cross_entropy(x, t, reduction="sum").view(torch.int32).item() == 0


@pytest.mark.parametrize("backend", ["cpu", "reference"])
def test_cross_entropy_class_targets(backend, gen):
    """A class index outside [0, C) (other than ignore_index) raises the same
    IndexError on every backend, naming the first such target; strided
    targets and logits give the other backend's bits."""
    x = wide(6, 9, gen=gen, spread=2)
    with backends.use(backend):
        for bad in ([0, -1, 9, 2, 3, 4], [0, 1, 9, -2, 3, 4]):
            with pytest.raises(IndexError, match=f"Target {[v for v in bad if not 0 <= v < 9][0]} is out of bounds"):
                repdl.cross_entropy(x, torch.tensor(bad))
        t = torch.tensor([[3, 0], [8, 0], [-100, 0], [0, 0], [5, 0], [1, 0]])[:, 0]  # a strided target
        xt = x.t().contiguous().t()  # column-major logits
        got = {r: repdl.cross_entropy(xt, t, reduction=r) for r in ("none", "mean", "sum")}
    with backends.use("reference" if backend == "cpu" else "cpu"):
        for r, value in got.items():
            assert_bitwise_equal(value, repdl.cross_entropy(x, t.contiguous(), reduction=r), r)


def test_errors():
    x = torch.randn(3, 4)
    with pytest.raises(TypeError, match="float32"):
        repdl.softmax(x.double(), 1)
    with pytest.raises(IndexError):
        repdl.softmax(x, 2)
    with pytest.raises(TypeError):
        repdl.softmax(x, None)
    with pytest.raises(IndexError, match="out of bounds"):
        repdl.cross_entropy(x, torch.tensor([0, 1, 7]))
    with pytest.raises(ValueError):
        repdl.cross_entropy(x, torch.tensor([0, 1]))
    with pytest.raises(ValueError):
        repdl.cross_entropy(x, torch.tensor([0, 1, 2]), reduction="avg")
    with pytest.raises(RuntimeError):
        repdl.cross_entropy(x, torch.tensor([0, 1, 2]), label_smoothing=1.5)
    with pytest.raises(RuntimeError):
        repdl.cross_entropy(x, torch.tensor([0, 1, 2]), weight=torch.ones(3))


@pytest.mark.parametrize("kw", [dict(), dict(ignore_index=1), dict(reduction="sum")], ids=str)
def test_cross_entropy_per_sample_gradients(kw):
    """vmap(grad(cross_entropy)) (per-sample gradients) runs the class
    pick's backward on batched tensors, warning-free (no per-sample
    fallback loop), and equals a loop of grad."""
    import warnings
    x = repdl.random.randn(4, 3, 5, generator=repdl.random.Generator(7))
    t = repdl.random.randint(0, 5, (4, 3), generator=repdl.random.Generator(8))

    def loss(xi, ti):
        return repdl.cross_entropy(xi, ti, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        batched = torch.func.vmap(torch.func.grad(loss))(x, t)
    looped = torch.stack([torch.func.grad(loss)(x[i], t[i]) for i in range(4)])
    assert_bitwise_equal(batched, looped)

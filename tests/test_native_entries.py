"""The CPU backend's native entries (backends.cpu.NATIVE, csrc/common/route.cpp):
a primitive's common case taken in C from the tensors themselves.  Each must
give the bits, shape and layout of the Python function it stands for (run here
under backends.use("cpu"), which turns the native entries off), must be the
path an eager call takes, and must hand every other case to that function."""
import pytest
import torch

import repdl
from repdl import backends
from repdl.backends import cpu
from repdl.testing import assert_bitwise_equal
from values import SPECIALS, TINY, sprinkle, wide

SHAPES = [(0,), (1,), (7,), (2, 4), (3, 5, 13), (4, 0), (), (2, 1, 31)]


def _input(shape, gen):
    return sprinkle(wide(*(shape or (1,)), gen=gen), SPECIALS + TINY, gen).reshape(shape)


def _row(y):
    """A 1-d tensor of y's last size (a bias), from y's values."""
    return y.reshape(-1)[: y.shape[-1]] if y.dim() else y


# (name, the public call, the backend function the primitive's impl calls).
# Which calls the entries hand back is in _handed_back.
CASES = [
    ("add", lambda x, y: repdl.add(x, y), "binary"),
    ("sub", lambda x, y: repdl.sub(x, y), "binary"),
    ("mul", lambda x, y: repdl.mul(x, y), "binary"),
    ("div", lambda x, y: repdl.div(x, y), "binary"),
    ("add bias row", lambda x, y: repdl.add(x, _row(y)), "binary"),
    ("mul_scalar", lambda x, y: repdl.mul(x, 3.0000002), "binary_scalar"),
    ("add_scalar int", lambda x, y: repdl.add(x, 7), "binary_scalar"),
    ("div_scalar left", lambda x, y: repdl.div(1.5, x), "binary_scalar"),
    ("sub_scalar left", lambda x, y: repdl.sub(-2.0, x), "binary_scalar"),
    ("exp", lambda x, y: repdl.exp(x), "exp"),
    ("log1p", lambda x, y: repdl.log1p(x), "log1p"),
    ("sigmoid", lambda x, y: repdl.sigmoid(x), "sigmoid"),
    ("gelu", lambda x, y: repdl.nn.functional.gelu(x), "gelu"),
    ("softmax", lambda x, y: repdl.softmax(x, -1), "softmax"),
    ("log_softmax", lambda x, y: repdl.log_softmax(x, -1), "softmax"),
    ("sum", lambda x, y: repdl.sum(x), "sum"),
    ("sum last dim", lambda x, y: repdl.sum(x, -1), "sum"),
    ("sum trailing dims", lambda x, y: repdl.sum(x, (-2, -1)) if x.dim() > 1 else repdl.sum(x, 0), "sum"),
    ("sum_pairwise", lambda x, y: repdl.sum_pairwise(x), "sum"),
    ("mean", lambda x, y: repdl.mean(x), "mean"),
    ("mean last dim", lambda x, y: repdl.mean(x, -1), "mean"),
    ("mm", lambda x, y: repdl.mm(x, y.reshape(-1)[: x.shape[-1] * 3].reshape(x.shape[-1], 3)), "matmul"),
    ("mm transposed", lambda x, y: repdl.mm(x.t(), _square(y, x.shape[0])), "matmul"),
    ("mm parameter", lambda x, y: repdl.mm(torch.nn.Parameter(x, requires_grad=False), _square(y, x.shape[-1])),
     "matmul"),
    ("linear", lambda x, y: repdl.nn.functional.linear(x, _square(y, x.shape[-1])), "linear"),
    ("linear bias", lambda x, y: repdl.nn.functional.linear(x, _square(y, x.shape[-1]), _row(y)), "linear"),
    ("linear bias (1,)", lambda x, y: repdl.nn.functional.linear(x, y[..., :1, :], y.reshape(-1)[:1]), "linear"),
    ("layer_norm", lambda x, y: repdl.nn.functional.layer_norm(x, x.shape[-1:]), "norm_rows"),
    ("layer_norm affine", lambda x, y: repdl.nn.functional.layer_norm(x, x.shape[-1:], _row(y), _row(y) * 2),
     "norm_rows"),
    ("rms_norm", lambda x, y: repdl.nn.functional.rms_norm(x, x.shape[-1:], _row(y), eps=1e-3), "norm_rows"),
]


def _square(y, n):
    """An (n, n) matrix from y's values (repeated as needed)."""
    flat = y.reshape(-1)
    return flat.repeat(n * n // max(1, flat.numel()) + 1)[: n * n].reshape(n, n)


def _handed_back(name, x):
    """Whether a contiguous x's call goes to the Python function: empty
    softmax and reduction inputs (answered without a kernel), and a bias of
    no columns; None where the test does not say."""
    if name.startswith(("softmax", "log_softmax", "sum", "mean")):
        return x.numel() == 0
    if name.startswith(("linear", "layer_norm", "rms_norm")):
        return None if x.dim() != 2 else False  # other ranks: whatever view the public op makes
    return name == "add bias row" and x.dim() > 1 and x.shape[-1] == 0


class _Spy:
    """Counts the calls of backends.cpu.<name> (the Python function a
    primitive's impl reaches)."""

    def __init__(self, monkeypatch, name):
        self.calls = 0
        original = getattr(cpu, name)

        def spy(*args, **kwargs):
            self.calls += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(cpu, name, spy)


def _same(got, want, label):
    assert got.shape == want.shape and got.dtype == want.dtype, label
    assert got.stride() == want.stride(), f"{label}: strides {got.stride()} != {want.stride()}"
    assert_bitwise_equal(got, want, label)


@pytest.mark.parametrize("name,call,backend_fn", CASES, ids=[c[0] for c in CASES])
def test_native_entries_give_the_python_functions_bits(name, call, backend_fn, gen, monkeypatch):
    spy = _Spy(monkeypatch, backend_fn)
    for shape in SHAPES:
        if name in ("softmax", "log_softmax") and shape == ():
            continue  # a 0-d softmax is computed on a reshaped view: covered by its own tests
        x, y = _input(shape, gen), _input(shape, gen)
        label = f"{name} {shape}"
        try:
            with backends.use("cpu"):
                want = call(x, y)
        except (RuntimeError, IndexError) as error:  # a shape the op rejects: rejected the same way
            with pytest.raises(type(error)):
                call(x, y)
            continue
        spy.calls = 0
        got = call(x, y)
        _same(got, want, label)
        expected = _handed_back(name, x)
        if expected is not None:
            assert spy.calls == expected, f"{label}: {spy.calls} calls of the Python function, expected {expected}"
        # Strided layouts are handed to the Python function (a last size of 1
        # is contiguous at any stride), but for the products, which take any.
        product = name.startswith(("mm", "linear"))
        if x.dim() and x.numel() and x.shape[-1] > 1 and (x.dim() == 2 or not product):
            big = torch.zeros(*x.shape[:-1], 2 * x.shape[-1])
            big[..., ::2] = x
            strided = big[..., ::2]
            with backends.use("cpu"):
                want = call(strided, y)
            spy.calls = 0
            _same(call(strided, y), want, f"{label} strided")
            expected = 0 if product else 1
            assert spy.calls == expected, f"{label} strided: {spy.calls} calls of the Python function"


def test_native_entries_hand_back_what_they_do_not_take(gen):
    x = _input((3, 4), gen)
    nat = cpu.NATIVE
    assert nat["add"](x, _input((3, 1), gen)) is None  # a broadcast other than a row over the last dim
    assert nat["add"](x.t(), x.t()) is None  # not contiguous
    assert nat["mul_scalar"](x, 2, False) is None  # not a float
    assert nat["softmax"](x, 0, False) is None  # not the last dim
    assert nat["sum"](x, (0,), False, "sequential") is None  # not trailing dims
    assert nat["sum"](x, (0, 1), True, "sequential") is None  # keepdim
    assert nat["sum"](x, (0, 1), False, "kahan") is None  # an order it does not know
    assert nat["mean"](torch.zeros(0, 3), (0, 1), False) is None  # empty
    with pytest.raises(TypeError, match="native entry takes"):
        nat["exp"](x, x)


def test_recording_calls_take_the_native_entries_and_other_backends_do_not(gen, monkeypatch):
    x = _input((2, 4), gen).requires_grad_()
    g = _input((2, 4), gen)
    with backends.use("cpu"):
        want = repdl.mul(repdl.exp(x), x)
        (want_grad,) = torch.autograd.grad(want, x, g)
    exp_spy, mul_spy = _Spy(monkeypatch, "exp"), _Spy(monkeypatch, "binary")
    got = repdl.mul(repdl.exp(x), x)  # recorded: the autograd.Functions' forwards take the native entries
    assert got.grad_fn is not None and exp_spy.calls == mul_spy.calls == 0
    (got_grad,) = torch.autograd.grad(got, x, g)
    assert_bitwise_equal(got, want)
    assert_bitwise_equal(got_grad, want_grad)
    calls = []
    original = backends.reference.exp
    monkeypatch.setattr(backends.reference, "exp", lambda t: calls.append(1) or original(t))
    with backends.use("reference"):
        repdl.exp(x)
        repdl.exp(x.detach())
    assert calls == [1, 1]
    meta = repdl.exp(torch.empty(2, 4, device="meta"))  # the custom op's fake
    assert meta.device.type == "meta" and meta.shape == (2, 4)


@pytest.mark.parametrize("norm", ["layer_norm", "rms_norm"])
def test_norm_statistics_from_the_native_entry_give_the_gradients_bits(norm, gen, monkeypatch):
    """norm_rows' second output, the rows' statistics, is read by the
    backward only: the gradients check its layout."""
    x, w, b = _input((5, 11), gen).requires_grad_(), _input((11,), gen).requires_grad_(), _input((11,), gen)
    g = _input((5, 11), gen)
    fn = getattr(repdl.nn.functional, norm)

    def grads():
        y = fn(x, (11,), w, b) if norm == "layer_norm" else fn(x, (11,), w)
        return (y, *torch.autograd.grad(y, (x, w), g))

    with backends.use("cpu"):
        want = grads()
    spy = _Spy(monkeypatch, "norm_rows")
    for got, expected in zip(grads(), want):
        assert_bitwise_equal(got, expected, norm)
    assert spy.calls == 0


@pytest.mark.parametrize("name", ["exp", "log", "sigmoid", "silu", "gelu", "tanh", "erfc"])
def test_fused_gradients_take_their_native_entries(name, gen, monkeypatch):
    fused = repdl.ops.elementwise._FUSED[name]
    x, g = _input((3, 17), gen), _input((3, 17), gen)
    y = getattr(cpu, name)(x)
    spy = _Spy(monkeypatch, "unary_grad")
    for label, args in [("contiguous", (g, x, y)), ("transposed g", (g.t().contiguous().t(), x, y)),
                        ("empty", (g[:0], x[:0], y[:0]))]:
        with backends.use("cpu"):
            want = fused(*args)
        spy.calls = 0
        _same(fused(*args), want, f"{name} {label}")
        assert spy.calls == (1 if label == "transposed g" else 0), f"{name} {label}: {spy.calls} calls"


def test_every_native_entry_names_a_primitive():
    for name in cpu.NATIVE:
        assert hasattr(torch.ops.repdl, name), name


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("loss_fn,backend_fns", [("cross_entropy", ("class_nll", "class_nll_backward")),
                                                 ("nll_loss", ("nll", "nll_backward"))])
def test_class_loss_entries_give_the_python_functions_bits(loss_fn, backend_fns, reduction, gen, monkeypatch):
    """The class losses and their gradients (cross_entropy's lsm_class_nll
    and lsm_class_nll_grad, nll_loss's class_nll and nll_grad): the loss,
    through cross_entropy's gradient its statistics' layout, and which path
    ran; the losses take inputs at any strides, cross_entropy's gradient
    dense ones only (nll's reads no input), and a target out of bounds goes
    to the Python function, which raises."""
    loss_spy, grad_spy = _Spy(monkeypatch, backend_fns[0]), _Spy(monkeypatch, backend_fns[1])
    fn = getattr(repdl, loss_fn)
    for rows, cols in [(0, 5), (1, 1), (2, 4), (7, 13), (3, 0)]:
        logits = _input((rows, cols), gen)
        target = torch.tensor([(3 * i) % cols if cols and i % 3 else -100 for i in range(rows)], dtype=torch.int64)
        for layout, x in [("dense", logits), ("column-major", logits.t().contiguous().t())]:
            x = x.detach().requires_grad_()
            g = _input(target.shape if reduction == "none" else (), gen)
            label = f"{reduction} ({rows}, {cols}) {layout}"

            def run():
                loss = fn(x, target, reduction=reduction)
                return loss, *torch.autograd.grad(loss, x, g)

            with backends.use("cpu"):
                want = run()
            loss_spy.calls = grad_spy.calls = 0
            for got, expected in zip(run(), want):
                _same(got, expected, label)
            dense = x.is_contiguous() or rows * cols == 0 or loss_fn == "nll_loss"
            assert (loss_spy.calls, grad_spy.calls) == (0, 0 if dense else 1), label
    x = _input((3, 4), gen)
    for bad in ([0, 4, 1], [-1, 0, 1]):
        loss_spy.calls = 0
        with pytest.raises(IndexError, match=f"Target {bad[0] if bad[0] < 0 else 4} is out of bounds"):
            fn(x, torch.tensor(bad))
        assert loss_spy.calls == 1


def test_class_loss_entries_hand_back_what_they_do_not_take(gen):
    x, t = _input((3, 4), gen), torch.tensor([0, 3, 1])
    nat = cpu.NATIVE
    stats = nat["lsm_class_nll"](x, t, -100, "mean")[1]
    g = _input((), gen)
    assert nat["lsm_class_nll"](x, t, -100, "max") is None  # a reduction it does not know
    assert nat["lsm_class_nll"](x, torch.tensor([[0, 3, 1]] * 2)[1], -100, "mean") is not None  # a row: contiguous
    assert nat["lsm_class_nll"](x, torch.tensor([0, 0, 3, 0, 1, 0])[::2], -100, "mean") is None  # strided target
    assert nat["lsm_class_nll"](x, torch.tensor([0, 4, 1]), -100, "sum") is None  # out of bounds
    assert nat["lsm_class_nll_grad"](x.t().contiguous().t(), stats, t, -100, "mean", g) is None  # not dense
    assert nat["lsm_class_nll_grad"](x, stats, t, -100, "avg", g) is None
    assert nat["lsm_class_nll_grad"](x, stats, t, -100, "mean", g) is not None
    assert nat["class_nll"](x.reshape(3, 2, 2), t, -100, "mean") is None  # (N, C, d): the composite rule
    assert nat["class_nll"](x, t, -100, "sum") is not None
    assert nat["nll_grad"](g, t, 3, 4, -100, "avg") is None
    assert nat["nll_grad"](_input((6,), gen)[::2], t, 3, 4, -100, "none") is None  # strided g
    assert nat["nll_grad"](_input((3,), gen), t, 3, 4, -100, "none") is not None
    with pytest.raises(TypeError, match="native entry takes"):
        nat["lsm_class_nll"](x, t, -100)

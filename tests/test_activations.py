"""Activations with parameters (docs/CONTRACT.md section 6): softplus(beta,
threshold), elu(alpha), celu(alpha), and the torch-style API of the
activations (inplace, parameter checks).

The correctly rounded functions themselves (tanh, sigmoid, logsigmoid,
softplus, silu, mish, elu, selu) are checked against MPFR with every other
unary function in test_elementwise.py.  Here: the contract's fixed sequences
for other parameter values, rebuilt step by step from numpy float32
arithmetic (IEEE, one rounding per operation) and the correctly rounded
unary steps, on both C++ rows and the reference.
"""
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import repdl
from repdl.backends import cpu, reference as ref
from repdl.testing import assert_bitwise_equal, bitwise_equal

from values import ROWS



def inputs(seed=0, n=1 << 14):
    """Values at two scales, random bit patterns and the special values, the
    same bits on every machine (repdl.random: torch.randn's change with the
    CPU capability), so that a failing element can be recomputed anywhere."""
    g = repdl.random.Generator(seed)
    parts = [
        repdl.random.randn(n, generator=g) * 4,
        repdl.random.randn(n, generator=g) * 40,
        repdl.random.randint(-(1 << 31), (1 << 31) - 1, (n,), generator=g).to(torch.int32).view(torch.float32),
        torch.tensor([0.0, -0.0, math.inf, -math.inf, math.nan, 1e-45, -1e-45, 3e38, -3e38, 15.0, 20.0, 20.5]),
    ]
    return torch.cat(parts)


def _on_path(path, fn_name, x, *params):
    """fn_name on one path: "<isa> row" or "reference"."""
    if path == "reference":
        return getattr(ref, fn_name)(x, *params)
    saved = repdl.isa()
    try:
        repdl.set_isa(path.split()[0])
        return getattr(cpu, fn_name)(x, *params)
    finally:
        repdl.set_isa(saved)


def on_every_path(fn_name, x, *params):
    """The result of the C++ rows and the reference (all must agree).  A
    failure names the path that differs from the first row's, and says
    whether both paths gave their bits again in a second call: a difference
    that does not repeat is not the arithmetic's."""
    paths = [f"{isa} row" for isa in ROWS] + ["reference"]
    out = {path: _on_path(path, fn_name, x, *params) for path in paths}
    first, want = paths[0], out[paths[0]]
    for path in paths[1:]:
        if not bitwise_equal(out[path], want):
            again = [bitwise_equal(_on_path(p, fn_name, x, *params), out[p]) for p in (first, path)]
            assert_bitwise_equal(out[path], want, f"{fn_name}{params}: {path} differs from the {first} (a second call "
                                 f"repeated the {first}'s bits: {again[0]}, the {path}'s: {again[1]})")
    return want


def f32(v):
    return np.float32(v)


def canon(a):
    t = torch.from_numpy(np.ascontiguousarray(a, dtype=np.float32))
    return torch.where(torch.isnan(t), torch.full_like(t, math.nan), t)


def cr(name, a):
    """A correctly rounded unary step (verified against MPFR elsewhere)."""
    return getattr(repdl, name)(torch.from_numpy(np.ascontiguousarray(a, dtype=np.float32))).numpy()


@pytest.mark.parametrize("beta,threshold", [(2.0, 20.0), (0.5, 20.0), (1.0, 5.0), (1.0, -3.0), (0.1, 7.5),
                                            (-1.5, 20.0), (3.0, math.inf), (1e-30, 20.0), (0.0, 20.0),
                                            (1.0, math.nan), (math.nan, 20.0), (math.inf, 20.0)])
def test_softplus_sequence(beta, threshold):
    x = inputs(1)
    b, h = f32(beta), f32(threshold)
    xn = x.numpy()
    with np.errstate(all="ignore"):
        t = (xn * b).astype(np.float32)
        want = np.where(t > h, xn, (cr("softplus", t) / b).astype(np.float32))
    got = on_every_path("softplus_param", x, float(b), float(h))
    assert_bitwise_equal(got, canon(want))
    assert_bitwise_equal(repdl.softplus(x, beta=beta, threshold=threshold), got)


@pytest.mark.parametrize("alpha", [2.0, 0.5, -1.0, 0.1, 1e-40, math.inf, math.nan, 0.0])
def test_elu_sequence(alpha):
    x = inputs(2)
    a = f32(alpha)
    xn = x.numpy()
    with np.errstate(all="ignore"):
        want = np.where(xn > 0, xn, (a * cr("expm1", xn)).astype(np.float32))
    got = on_every_path("elu_param", x, float(a))
    assert_bitwise_equal(got, canon(want))
    assert_bitwise_equal(repdl.elu(x, alpha=alpha), got)


@pytest.mark.parametrize("alpha", [2.0, 0.5, -1.0, 0.1, 3.0, 1e-40, math.inf, math.nan])
def test_celu_sequence(alpha):
    x = inputs(3)
    a = f32(alpha)
    xn = x.numpy()
    with np.errstate(all="ignore"):
        t = (xn / a).astype(np.float32)
        want = np.where(xn > 0, xn, (a * cr("expm1", t)).astype(np.float32))
    got = on_every_path("celu_param", x, float(a))
    assert_bitwise_equal(got, canon(want))
    assert_bitwise_equal(repdl.celu(x, alpha=alpha), got)


def test_defaults_are_the_correctly_rounded_functions():
    """softplus with beta = 1 and any threshold >= 15, elu and celu with
    alpha = 1, are the correctly rounded unary functions, and the general
    sequences agree with them there."""
    x = inputs(4)
    sp = cpu.softplus(x)
    for th in (15.0, 20.0, 1e30, math.inf):
        assert_bitwise_equal(repdl.softplus(x, 1.0, th), sp)
        assert_bitwise_equal(on_every_path("softplus_param", x, 1.0, th), sp)
    assert_bitwise_equal(repdl.softplus(x), sp)
    e = cpu.elu(x)
    for fn in (repdl.elu, repdl.celu):
        assert_bitwise_equal(fn(x), e)
        assert_bitwise_equal(fn(x, 1.0), e)
    assert_bitwise_equal(on_every_path("elu_param", x, 1.0), e)
    assert_bitwise_equal(on_every_path("celu_param", x, 1.0), e)


def test_softplus_linear_regime_is_exact():
    """fl32(ln(1 + e^x)) = x for every float32 x > 14.556090354919434
    (0x4168E5BF), which is itself the last exception (the contract's claim;
    beyond 32 the half-ulp of x only grows and e^-x shrinks)."""
    last = torch.tensor([0x4168E5BF], dtype=torch.int32).view(torch.float32)
    hi = torch.tensor(32.0).view(torch.int32).item()
    x = torch.arange(0x4168E5BF + 1, hi, dtype=torch.int32).view(torch.float32)
    assert_bitwise_equal(cpu.softplus(x), x)
    assert cpu.softplus(last).item() > last.item()


def test_close_to_torch():
    """The same functions as torch's (a few float32 ulps apart at most)."""
    x = torch.randn(1 << 16, generator=torch.Generator().manual_seed(5)) * 6
    cases = [
        (repdl.tanh(x), torch.tanh(x)), (repdl.sigmoid(x), torch.sigmoid(x)),
        (repdl.logsigmoid(x), F.logsigmoid(x)), (repdl.softplus(x), F.softplus(x)),
        (repdl.softplus(x, 2.0, 5.0), F.softplus(x, 2.0, 5.0)), (repdl.silu(x), F.silu(x)),
        (repdl.mish(x), F.mish(x)), (repdl.elu(x), F.elu(x)), (repdl.elu(x, 0.3), F.elu(x, 0.3)),
        (repdl.selu(x), F.selu(x)), (repdl.celu(x), F.celu(x)), (repdl.celu(x, 2.5), F.celu(x, 2.5)),
    ]
    for i, (a, b) in enumerate(cases):
        ulps = (a.double() - b.double()).abs() / torch.finfo(torch.float32).eps / b.double().abs().clamp(min=1e-30)
        assert ulps.max().item() <= 8, (i, ulps.max().item())


def test_infinities_and_zeros():
    """Limits at infinities (silu, mish: -0 at -inf; logsigmoid: -0 at +inf) and signed zeros."""
    x = torch.tensor([0.0, -0.0, math.inf, -math.inf])
    bits = lambda t: [b & 0xFFFFFFFF for b in t.view(torch.int32).tolist()]  # noqa: E731
    assert bits(repdl.silu(x)) == [0, 0x80000000, 0x7F800000, 0x80000000]
    assert bits(repdl.mish(x)) == [0, 0x80000000, 0x7F800000, 0x80000000]
    assert bits(repdl.logsigmoid(x))[2:] == [0x80000000, 0xFF800000]
    assert bits(repdl.elu(x, 2.0)) == [0, 0x80000000, 0x7F800000, 0xC0000000]
    assert bits(repdl.celu(x, 2.0)) == [0, 0x80000000, 0x7F800000, 0xC0000000]
    assert bits(repdl.softplus(x, 2.0, 20.0))[2:] == [0x7F800000, 0]


@pytest.mark.parametrize("name", ["silu", "mish", "elu", "selu", "celu"])
def test_inplace(name):
    fn = getattr(repdl, name)
    x = torch.randn(100)
    want = fn(x)
    y = x.clone()
    out = fn(y, inplace=True)
    assert out is y
    assert_bitwise_equal(y, want)
    with pytest.raises(RuntimeError):
        fn(torch.arange(4), inplace=True)
    with pytest.raises(TypeError, match="float32"):
        fn(torch.ones(4, dtype=torch.float64), inplace=True)
    assert_bitwise_equal(fn(torch.arange(4)), fn(torch.arange(4).float()))


# torch.nn.functional's activations that take inplace=, as RepDL runs them.
INPLACE = {name: lambda t, inplace, f=getattr(repdl.nn.functional, name): f(t, inplace=inplace)
           for name in ("relu", "relu6", "hardtanh", "leaky_relu", "hardsigmoid", "hardswish", "silu", "mish",
                        "elu", "selu", "celu")}
INPLACE.update({name: lambda t, inplace, f=getattr(repdl.random, name): f(t, 0.5, True, inplace,
                                                                          generator=repdl.random.Generator(3))
                for name in ("dropout", "dropout2d")})


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_on_a_computed_tensor_records_autograd(name):
    """An in-place activation of a tensor the graph computed (conv, then
    ReLU(inplace=True): the layout of most vision models) writes its result
    into that tensor and backpropagates through it with the out-of-place
    call's bits: it computes from a clone that the copy leaves alone
    (ops._in_place), where the saved input used to be overwritten."""
    fn = INPLACE[name]
    x = repdl.random.randn(2, 3, 4, 5, generator=repdl.random.Generator(7)) * 3
    g = repdl.random.randn(2, 3, 4, 5, generator=repdl.random.Generator(8))
    leaf = x.clone().requires_grad_()
    computed = repdl.mul(leaf, 1.0)
    out = fn(computed, True)
    assert out is computed
    (dx,) = torch.autograd.grad(out, leaf, g)
    leaf2 = x.clone().requires_grad_()
    y = fn(leaf2, False)
    (want,) = torch.autograd.grad(y, leaf2, g)
    assert_bitwise_equal(out, y)
    assert_bitwise_equal(dx, want)


def test_inplace_relu_trains_under_the_dropin_mode():
    """torch.nn.ReLU(inplace=True) inside a model, under repdl.reproducible():
    the backward runs and gives ReLU()'s gradient bits."""
    def grads(inplace):
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.ReLU(inplace=inplace), torch.nn.Linear(5, 1))
        x = repdl.random.randn(4, 6, generator=repdl.random.Generator(2))
        with repdl.reproducible():
            model(x).sum().backward()
        return [p.grad for p in model.parameters()]

    for a, b in zip(grads(True), grads(False)):
        assert_bitwise_equal(a, b)


def test_parameter_checks():
    x = torch.randn(8)
    with pytest.raises(RuntimeError, match="alpha cannot be 0"):
        repdl.celu(x, 0.0)
    for bad in (torch.tensor(2.0), "2", None, 1j):
        with pytest.raises(TypeError):
            repdl.elu(x, bad)
        with pytest.raises(TypeError):
            repdl.softplus(x, bad)
        with pytest.raises(TypeError):
            repdl.softplus(x, 1.0, bad)
    for fn in (lambda t: repdl.softplus(t, 2.0), lambda t: repdl.elu(t, 2.0), lambda t: repdl.celu(t, 2.0)):
        for dt in (torch.float16, torch.bfloat16, torch.float64):
            with pytest.raises(TypeError, match="float32"):
                fn(torch.ones(3, dtype=dt))
        assert_bitwise_equal(fn(torch.arange(5)), fn(torch.arange(5).float()))
    # a parameter is fl32(value): 0.1 and fl32(0.1) are the same call
    assert_bitwise_equal(repdl.elu(x, 0.1), repdl.elu(x, float(np.float32(0.1))))
    assert_bitwise_equal(repdl.softplus(x, 3, 7), repdl.softplus(x, 3.0, 7.0))


def test_parametrised_layouts_threads_and_ops():
    from torch._subclasses.fake_tensor import FakeTensorMode
    g = torch.Generator().manual_seed(9)
    base = torch.randn(4, 6, 5, generator=g) * 3
    for fn in (lambda t: repdl.softplus(t, 2.0, 4.0), lambda t: repdl.elu(t, 0.5), lambda t: repdl.celu(t, 0.5)):
        want = fn(base.contiguous())
        for x in (base.transpose(0, 2), base[:, ::2], base[:1].expand(3, -1, -1)):
            assert_bitwise_equal(fn(x).contiguous(), fn(x.contiguous()))
        assert fn(torch.tensor(0.5)).shape == ()
        assert fn(torch.empty(0, 3)).shape == (0, 3)
        assert_bitwise_equal(fn(base), want)
    x = torch.randn(1 << 17, generator=g) * 5
    want = ref.softplus_param(x, 2.0, 4.0)
    saved = torch.get_num_threads()
    try:
        for threads in (1, 2, 3):
            torch.set_num_threads(threads)
            assert_bitwise_equal(repdl.softplus(x, 2.0, 4.0), want)
    finally:
        torch.set_num_threads(saved)
    for name in ("softplus_param", "elu_param", "celu_param"):
        assert hasattr(torch.ops.repdl, name)
    with FakeTensorMode():
        assert repdl.softplus(torch.empty(3, 4), 2.0).shape == (3, 4)
        assert repdl.celu(torch.empty(3, 4), 2.0).shape == (3, 4)

"""add, sub, mul, div, neg, fma32 (docs/CONTRACT.md sections 1 and 6): one
IEEE-754 rounding per element, every path bitwise equal to the reference
and to MPFR, over broadcasting, strides, both scalar sides and adversarial
values."""
import math
import operator

import gmpy2
import pytest
import torch

import repdl
from repdl.backends import cpu, reference as ref
from repdl.testing import assert_bitwise_equal

from values import HUGE, SPECIALS, SUBNORMALS, TINY, canonical, f32, layouts, sprinkle, u32, wide

OPS = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "div": operator.truediv}
MPFR = {"add": gmpy2.add, "sub": gmpy2.sub, "mul": gmpy2.mul, "div": gmpy2.div}
ADVERSARIAL = SPECIALS + TINY + HUGE
CTX = gmpy2.context(precision=24, emin=-148, emax=128, subnormalize=True)


def _mpfr_bits(op, xs, ys):
    """fl32(x op y) by MPFR for finite operands (None where not settled by it)."""
    out = []
    with gmpy2.context(CTX):
        for x, y in zip(xs, ys):
            if not (math.isfinite(x) and math.isfinite(y)) or (op == "div" and y == 0):
                out.append(None)
                continue
            r = MPFR[op](gmpy2.mpfr(x, 24), gmpy2.mpfr(y, 24))
            v = float(r)
            if v == 0:  # the sign of an exact zero result follows IEEE-754, which torch gets right
                out.append(None)
                continue
            out.append(u32(torch.tensor([v], dtype=torch.float32))[0])
    return out


@pytest.mark.parametrize("op", OPS)
def test_matches_mpfr_and_reference(op, gen, isa):
    a = sprinkle(wide(1 << 14, gen=gen, spread=12), ADVERSARIAL, gen, 0.05)
    b = sprinkle(wide(1 << 14, gen=gen, spread=12), ADVERSARIAL, gen, 0.05)
    got = getattr(repdl, op)(a, b)
    assert_bitwise_equal(got, getattr(ref, "binary")(op, a, b))
    assert_bitwise_equal(got, canonical(OPS[op](a, b)))  # torch's float32 + - * / are IEEE too
    want = _mpfr_bits(op, a[:3000].tolist(), b[:3000].tolist())
    bits = u32(got[:3000])
    bad = [(i, hex(bits[i]), hex(w)) for i, w in enumerate(want) if w is not None and bits[i] != w]
    assert not bad, bad[:5]


@pytest.mark.parametrize("op", OPS)
def test_subnormal_operands_and_results(op, isa):
    v = torch.tensor(SUBNORMALS + [2.0 ** -126, 2.0 ** -125, 1.5, -0.75, 2.0 ** 100, 2.0 ** -30])
    a, b = v[:, None].expand(-1, v.numel()), v[None, :].expand(v.numel(), -1)
    assert_bitwise_equal(getattr(repdl, op)(a, b), canonical(OPS[op](a, b)))
    assert_bitwise_equal(ref.binary(op, a, b), canonical(OPS[op](a, b)))


@pytest.mark.parametrize("op", OPS)
def test_broadcasting_and_layouts(op, gen, isa):
    a = wide(6, 1, 7, gen=gen)
    b = wide(5, 1, gen=gen)
    assert_bitwise_equal(getattr(repdl, op)(a, b), canonical(OPS[op](a, b)))
    x, y = wide(37, 29, gen=gen), wide(37, 29, gen=gen)
    expected = ref.binary(op, x, y)
    for la, xv in layouts(x):
        for lb, yv in layouts(y):
            assert_bitwise_equal(getattr(repdl, op)(xv, yv), expected, f"{la} {op} {lb}")
    assert_bitwise_equal(getattr(repdl, op)(x[:, :1], y[:1]), ref.binary(op, x[:, :1], y[:1]))
    assert_bitwise_equal(getattr(repdl, op)(x.t()[3:9], y.t()[0]), ref.binary(op, x.t()[3:9], y.t()[0]))
    for shape in ((0,), (0, 3), (1,), ()):
        z = torch.ones(shape)
        assert getattr(repdl, op)(z, z).shape == shape
    # a vector over the last dim of a dense tensor (the CPU backend's rows of a matrix), either side
    for shape in ((37, 29), (3, 5, 29), (1, 29), (0, 29)):
        m = sprinkle(wide(*shape, gen=gen), ADVERSARIAL, gen, 0.05)
        v = sprinkle(wide(29, gen=gen), ADVERSARIAL, gen)
        assert_bitwise_equal(getattr(repdl, op)(m, v), canonical(OPS[op](m, v)), f"{shape} {op} vector")
        assert_bitwise_equal(getattr(repdl, op)(v, m), canonical(OPS[op](v, m)), f"vector {op} {shape}")


@pytest.mark.parametrize("op", OPS)
def test_python_numbers_on_either_side(op, gen, isa):
    a = sprinkle(wide(4097, gen=gen), ADVERSARIAL, gen, 0.05)
    for s in (3.0, -0.0, 0.1, 1e-40, 2.0 ** 127, float("inf"), 7, 2 ** 24 + 1):
        t = torch.tensor(repdl._scalar.fl32(s))
        assert_bitwise_equal(getattr(repdl, op)(a, s), canonical(OPS[op](a, t)), f"x {op} {s}")
        assert_bitwise_equal(getattr(repdl, op)(s, a), canonical(OPS[op](t, a)), f"{s} {op} x")
        assert_bitwise_equal(ref.binary_scalar(op, a, repdl._scalar.fl32(s), True), canonical(OPS[op](t, a)))
    assert_bitwise_equal(getattr(repdl, op)(a.reshape(17, 241).t(), 2.5),
                         canonical(OPS[op](a.reshape(17, 241).t(), 2.5)))


def test_alpha_is_a_separate_rounding(gen):
    a, b = wide(999, gen=gen), wide(999, gen=gen)
    assert_bitwise_equal(repdl.add(a, b, alpha=0.1), repdl.add(a, repdl.mul(b, 0.1)))
    assert_bitwise_equal(repdl.sub(a, b, alpha=3), repdl.sub(a, repdl.mul(b, 3.0)))
    with pytest.raises(TypeError, match="alpha"):
        repdl.add(a, b, alpha="2")


def test_neg_is_an_exact_sign_flip(isa):
    x = f32([0x00000000, 0x80000000, 0x7F800000, 0x00000001, 0x3F800000, 0xFFC00001, 0x7F800001])
    assert u32(repdl.neg(x)) == [0x80000000, 0x00000000, 0xFF800000, 0x80000001, 0xBF800000, 0x7FC00000, 0x7FC00000]
    assert_bitwise_equal(repdl.neg(torch.arange(3)), torch.tensor([0, -1, -2]))


def test_division_is_not_a_reciprocal_product(gen):
    # torch's `3.0 / a` is reciprocal(a) * 3, two roundings; div is one
    a = wide(4096, gen=gen)
    assert_bitwise_equal(repdl.div(3.0, a), torch.div(torch.full_like(a, 3.0), a))
    assert_bitwise_equal(repdl.div(a, 0.1), a / torch.tensor(0.1, dtype=torch.float32))


def test_promotion_and_integers(gen):
    a = wide(3, 4, gen=gen)
    assert_bitwise_equal(repdl.div(a, torch.tensor(7)), a / 7.0)
    assert_bitwise_equal(repdl.div(torch.arange(6), torch.tensor([4, 5, 6, 7, 8, 9])),
                         torch.arange(6) / torch.tensor([4, 5, 6, 7, 8, 9]))
    assert repdl.div(torch.arange(3), 2).dtype == torch.float32
    # integer operands: torch's exact integer arithmetic and dtype
    assert_bitwise_equal(repdl.add(torch.arange(3), 2), torch.arange(3) + 2)
    assert_bitwise_equal(repdl.mul(torch.arange(3), torch.arange(3)), torch.arange(3) ** 2)
    assert repdl.add(torch.arange(3), 0.5).dtype == torch.float32
    # a 0-d float32 tensor joins a larger one
    assert_bitwise_equal(repdl.mul(a, torch.tensor(0.5)), a * 0.5)


def test_bad_arguments():
    a = torch.ones(3)
    for op in OPS:
        fn = getattr(repdl, op)
        for bad in (torch.ones(3, dtype=torch.float64), torch.ones(3, dtype=torch.float16),
                    torch.tensor(2.0, dtype=torch.float64)):
            with pytest.raises(TypeError, match="float32"):
                fn(a, bad)
        with pytest.raises(RuntimeError, match="broadcast"):
            fn(torch.ones(3), torch.ones(4))
        with pytest.raises(TypeError):
            fn(2.0, 3.0)
        with pytest.raises(TypeError, match="other"):
            fn(a, [1.0])
        with pytest.raises(TypeError, match="input"):
            fn("x", a)
    with pytest.raises(NotImplementedError):
        repdl.div(a, a, rounding_mode="floor")
    with pytest.raises(RuntimeError, match="rounding_mode"):
        repdl.div(a, a, rounding_mode="bad")


def test_in_place_form_broadcasts_the_second_operand(gen, isa):
    y = wide(40, 17, gen=gen)
    b = wide(17, gen=gen)
    want = ref.binary("add", y, b)
    assert_bitwise_equal(cpu.binary_("add", y.clone(), b), want)
    assert_bitwise_equal(cpu.binary_("add", y.clone(), b[None]), want)


# ---- fma32 -----------------------------------------------------------------------------------

def test_fma32_is_single_rounding():
    # (1 + 2^-23)(1 - 2^-23) - 1 = -2^-46 exactly; two roundings would give 0.
    a = torch.tensor([1 + 2.0 ** -23])
    b = torch.tensor([1 - 2.0 ** -23])
    c = torch.tensor([-1.0])
    assert repdl.fma32(a, b, c).item() == -(2.0 ** -46)
    assert ((a * b) + c).item() == 0.0


def test_fma32_matches_reference(gen, isa):
    a, b, c = (sprinkle(wide(4099, gen=gen), SPECIALS + TINY, gen) for _ in range(3))
    assert_bitwise_equal(cpu.fma32(a, b, c), ref.fma32(a, b, c))
    # broadcasting and strided views
    assert_bitwise_equal(cpu.fma32(a[:7, None], b[None, :5], c[:1]), ref.fma32(a[:7, None], b[None, :5], c[:1]))
    m = a[:4096].reshape(64, 64)
    assert_bitwise_equal(cpu.fma32(m.t(), m[::2].repeat(2, 1), c[:64]), ref.fma32(m.t(), m[::2].repeat(2, 1), c[:64]))


def test_fma32_nan_is_canonical(isa):
    inf, nan = float("inf"), float("nan")
    a = torch.tensor([inf, 0.0, -nan, 1.0])
    b = torch.tensor([0.0, inf, 1.0, 1.0])
    c = torch.tensor([1.0, 1.0, 1.0, -nan])
    out = repdl.fma32(a, b, c)
    assert (out.view(torch.int32) == 0x7FC00000).all()


def test_fma32_shape_errors():
    with pytest.raises(RuntimeError, match="broadcast"):
        repdl.fma32(torch.ones(3), torch.ones(4), torch.ones(1))

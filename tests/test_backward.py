"""Backward of every differentiable op (docs/CONTRACT.md, "Gradients"):
float64 autograd agrees within stated bounds; the CPU kernels and the
reference backend agree bit for bit; nothing that rounds is left to torch's
native backward kernels (a TorchDispatchMode watches every aten op); meta
and fake tensors trace; torch.func's grad, vjp and vmap work; a tensor used
several times gets its contributions summed in the documented order."""
import pytest
import torch
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode

import repdl
from repdl import backends
from repdl._aten import is_exact
from repdl.ops import elementwise
from repdl.testing import assert_bitwise_equal
from repdl.verify import pattern

from public_ops import ALL, CASES, TARGET, outputs
from values import SPECIALS, sprinkle

NOT_DIFFERENTIABLE = {"argmax", "argmin", "sign", "dropout"}  # dropout: tested in test_random_api with its own stream
DIFFERENTIABLE = sorted(n for n in ALL if n not in NOT_DIFFERENTIABLE)

# The same call in float64 torch, for the accuracy check.
TORCH = {
    "add": torch.add, "sub": lambda a, b: torch.sub(a, b, alpha=3), "mul": torch.mul, "div": torch.div,
    "neg": torch.neg, "fma32": lambda a, b, c: a * b + c, "dot": torch.dot, "mm": torch.mm, "bmm": torch.bmm,
    "matmul": torch.matmul, "addmm": lambda i, a, b: torch.addmm(i, a, b, beta=0.5, alpha=2),
    "addmm:default": torch.addmm, "linear": F.linear, "sum": lambda a: a.sum(1), "sum_pairwise": lambda a: a.sum(0),
    "mean": lambda a: a.mean(1), "mean:all": torch.mean, "var": lambda a: a.var(0), "var:all": torch.var,
    "std": lambda a: a.std(1, correction=0), "max": lambda a: a.max(1).values, "min": torch.min,
    "softmax": lambda a: torch.softmax(a, 1), "log_softmax": lambda a: torch.log_softmax(a, 0),
    "logsumexp": lambda a: torch.logsumexp(a, 1),
    "cross_entropy": lambda a, t: F.cross_entropy(a, t, label_smoothing=0.1, reduction="none"),
    "cross_entropy:none": lambda a, t: F.cross_entropy(a, t, reduction="none"),
    "cross_entropy:weighted_mean": lambda a, t, w: F.cross_entropy(a, t, weight=w, ignore_index=2),
    "cross_entropy:probabilities": lambda a, p: F.cross_entropy(a, p, label_smoothing=0.2),
    "pow": lambda a: a ** 3, "gelu": lambda a: F.gelu(a, approximate="tanh"),
    "softplus": lambda a: F.softplus(a, beta=2.0, threshold=5.0), "softplus:default": F.softplus,
    "elu": lambda a: F.elu(a, alpha=0.5), "celu": lambda a: F.celu(a, alpha=2.0),
    "div:scalar_right": lambda a: a / 1e-40, "sub:scalar_left": lambda a: 1e-39 - a,
    "mul:scalar": lambda a: a * 2.0 ** -100, "logsigmoid": F.logsigmoid, "silu": F.silu, "mish": F.mish,
    "selu": F.selu, "reciprocal": torch.reciprocal,
    "clamp": lambda a: torch.clamp(a, -0.2, 0.3), "relu": F.relu, "relu6": F.relu6,
    "hardtanh": lambda a: F.hardtanh(a, -0.25, 0.5), "leaky_relu": lambda a: F.leaky_relu(a, 0.2), "prelu": F.prelu,
    "hardsigmoid": F.hardsigmoid, "hardswish": F.hardswish,
    "conv1d": lambda a, w, b: F.conv1d(a, w, b, stride=2, padding=1),
    "conv2d": lambda a, w, b: F.conv2d(a, w, b, padding=1, groups=2),
    "conv_transpose1d": lambda a, w: F.conv_transpose1d(a, w, stride=2, output_padding=1),
    "conv_transpose2d": lambda a, w, b: F.conv_transpose2d(a, w, b, stride=2, padding=1),
    "layer_norm": lambda a, w, b: F.layer_norm(a, (6,), w, b), "group_norm": lambda a, w, b: F.group_norm(a, 2, w, b),
    "rms_norm": lambda a, w: F.rms_norm(a, (6,), w),
    "batch_norm": lambda a, w, b: F.batch_norm(a, None, None, w, b, training=True),
    "batch_norm:eval": lambda a, m, v: F.batch_norm(a, m, v),
    "instance_norm": F.instance_norm, "pad": lambda a: F.pad(a[None], (2, 1, 1, 2), mode="reflect")[0],
    "pad:circular": lambda a: F.pad(a[None], (2, 3), mode="circular")[0],
    "pad:constant": lambda a: F.pad(a, (1, -2, 0, 1), value=0.5),
    "max_pool1d": lambda a: F.max_pool1d(a, 3, 2, 1), "max_pool2d": lambda a: F.max_pool2d(a, 2, 1, 1),
    "max_pool2d:ceil": lambda a: F.max_pool2d(a, 2, 2, ceil_mode=True, return_indices=True),
    "avg_pool1d": lambda a: F.avg_pool1d(a, 3, 2, 1),
    "avg_pool2d": lambda a: F.avg_pool2d(a, 2, 1, 1, count_include_pad=False),
    "adaptive_avg_pool1d": lambda a: F.adaptive_avg_pool1d(a, 3),
    "adaptive_avg_pool2d": lambda a: F.adaptive_avg_pool2d(a, (2, 3)),
    "adaptive_max_pool1d": lambda a: F.adaptive_max_pool1d(a, 3),
    "adaptive_max_pool2d": lambda a: F.adaptive_max_pool2d(a, (2, 3)),
    "nll_loss": lambda a, t: F.nll_loss(a, t, ignore_index=2, reduction="none"), "mse_loss": F.mse_loss,
    "l1_loss": lambda a, b: F.l1_loss(a, b, reduction="sum"),
    "smooth_l1_loss": lambda a, b: F.smooth_l1_loss(a, b, reduction="none", beta=0.3),
    "huber_loss": lambda a, b: F.huber_loss(a, b, delta=0.2), "binary_cross_entropy": F.binary_cross_entropy,
    "binary_cross_entropy_with_logits": lambda a, t, w: F.binary_cross_entropy_with_logits(a, t, pos_weight=w),
    "kl_div": lambda a, t: F.kl_div(a, t, reduction="batchmean"),
    "kl_div:log_target": lambda a, t: F.kl_div(a, t, log_target=True),
    "cosine_embedding_loss": lambda a, b, y: F.cosine_embedding_loss(a, b, y, 0.1),
    "margin_ranking_loss": lambda a, b, y: F.margin_ranking_loss(a, b, y, 0.1),
    "embedding": lambda i, w: F.embedding(i, w, padding_idx=2),
    "scaled_dot_product_attention": lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
    "scaled_dot_product_attention:gqa_mask":
        lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, m, enable_gqa=True, scale=0.7),
}
_DOMAIN_POSITIVE = {"log", "log2", "log10", "log1p", "sqrt", "rsqrt"}


def base(name):
    x = pattern(8, 6, salt=5) * 4
    if name in _DOMAIN_POSITIVE:
        x = x.abs() + 0.25
    return x


def grad_args(name, args):
    """The float32 inputs of a case, as leaves that require grad (the class
    weight of cross_entropy is not differentiated, as in torch)."""
    skip = {"cross_entropy:weighted_mean": {2}, "batch_norm:eval": {1, 2},
            "binary_cross_entropy_with_logits": {2}}.get(name, set())
    return [a.detach().clone().requires_grad_(a.dtype == torch.float32 and i not in skip)
            for i, a in enumerate(args)]


def output_weights(fn, args):
    """Fixed gradients for the outputs of fn(*args)."""
    with torch.no_grad():
        return [pattern(*o.shape, salt=i) for i, o in enumerate(outputs(fn(*args)))]


def gradients(fn, args, weights=None):
    """(outputs, gradients of the float inputs) for fixed output gradients."""
    weights = output_weights(fn, args) if weights is None else weights
    outs = outputs(fn(*args))
    leaves = [a for a in args if a.requires_grad]
    grads = torch.autograd.grad(outs, leaves, weights, allow_unused=True)
    return outs, [torch.zeros_like(a) if g is None else g for a, g in zip(leaves, grads)]


@pytest.mark.parametrize("name", sorted(n for n in DIFFERENTIABLE if n in TORCH or hasattr(torch, n)))
def test_gradient_matches_float64(name):
    fn, make = ALL[name]
    args = grad_args(name, make(base(name)))
    _, got = gradients(fn, args)
    ref = TORCH.get(name) or getattr(torch, name.split(":")[0])
    args64 = [a.detach().double().requires_grad_(a.requires_grad) if a.dtype == torch.float32 else a for a in args]
    outs64 = ref(*args64)
    outs64 = [o for o in ([outs64] if isinstance(outs64, torch.Tensor) else outs64) if o.is_floating_point()]
    leaves64 = [a for a in args64 if a.requires_grad]
    weights = [pattern(*o.shape, salt=i).double() for i, o in enumerate(outs64)]
    want = torch.autograd.grad(outs64, leaves64, weights, allow_unused=True)
    for g, w in zip(got, want):
        w = torch.zeros_like(g, dtype=torch.float64) if w is None else w
        finite = w.abs() < 3.4e38  # where the float32 gradient can be finite at all
        g, w = g.double()[finite], w[finite]
        scale = w.abs().max().item() + 1e-30
        err = (g - w).abs().max().item()
        # float32 formulas of a few roundings each: within 2^-14 of the gradient's scale
        assert err <= scale * 2.0 ** -14, f"{name}: max error {err:.3g} against scale {scale:.3g}"


@pytest.mark.parametrize("values", ["plain", "adversarial"])
@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_backward_matches_reference(name, values, gen):
    fn, make = ALL[name]
    x = base(name)
    if values == "adversarial":
        x = sprinkle(x, SPECIALS, gen, 0.15)
    args = make(x)
    outs, grads = gradients(fn, grad_args(name, args))
    with backends.use("reference"):
        ref_outs, ref_grads = gradients(fn, grad_args(name, args))
    for a, b in zip(outs + grads, ref_outs + ref_grads):
        assert_bitwise_equal(a, b, f"{name} ({values})")


class AtenRecorder(TorchDispatchMode):
    """Records every aten op that runs, with whether it is reproducible as is."""

    def __init__(self):
        super().__init__()
        self.seen = {}

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        self.seen.setdefault(str(func), is_exact(func, args, kwargs))
        return func(*args, **kwargs)


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_nothing_that_rounds_is_left_to_torch(name):
    fn, make = ALL[name]
    args = grad_args(name, make(base(name)))
    weights = output_weights(fn, args)
    with AtenRecorder() as rec:
        gradients(fn, args, weights)
    leaked = sorted(op for op, ok in rec.seen.items() if not ok)
    assert not leaked, f"{name}: aten ops outside the allow-list ran: {leaked}"


class ZerosRecorder(TorchDispatchMode):
    """Records the (shape, dtype) of every tensor of zeros made."""

    def __init__(self):
        super().__init__()
        self.made = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func in (torch.ops.aten.zeros.default, torch.ops.aten.zeros_like.default):
            self.made.append((tuple(out.shape), out.dtype))
        return out


def _leaf(*shape):
    return repdl.random.randn(*shape, generator=repdl.random.Generator(1)).requires_grad_()


# Ops whose primitive has outputs besides the one differentiable result
# (statistics, indices, silu's sigmoid), and the zeros their backward makes
# itself: max's gradient is a scatter into zeros of the input's shape.
WITH_NON_DIFFERENTIABLE_OUTPUTS = {
    "silu": (lambda: repdl.nn.functional.silu(_leaf(64)), []),
    "layer_norm": (lambda: repdl.nn.functional.layer_norm(_leaf(4, 16), (16,)), []),
    "layer_norm over two dims": (lambda: repdl.nn.functional.layer_norm(_leaf(2, 3, 16), (3, 16)), []),
    "rms_norm": (lambda: repdl.nn.functional.rms_norm(_leaf(4, 16), (16,)), []),
    "group_norm": (lambda: repdl.nn.functional.group_norm(_leaf(2, 4, 3, 3), 2), []),
    "batch_norm": (lambda: repdl.nn.functional.batch_norm(_leaf(2, 4, 3, 3), None, None, training=True), []),
    "instance_norm": (lambda: repdl.nn.functional.instance_norm(_leaf(2, 4, 3, 3)), []),
    "max_pool2d": (lambda: repdl.nn.functional.max_pool2d(_leaf(1, 2, 4, 4), 2), []),
    "max over a dim": (lambda: repdl.max(_leaf(4, 6), 1)[0], [((4, 6), torch.float32)]),
    "cross_entropy": (lambda: repdl.nn.functional.cross_entropy(_leaf(4, 6), torch.tensor([0, 1, 2, 3])), []),
}


@pytest.mark.parametrize("name", WITH_NON_DIFFERENTIABLE_OUTPUTS)
def test_no_zero_gradients_are_made_for_non_differentiable_outputs(name):
    """autograd hands a backward zeros for every output without a gradient
    unless told not to (_library.mark_non_differentiable): for silu's saved
    sigmoid, an allocation and a fill the size of the input."""
    forward, own_zeros = WITH_NON_DIFFERENTIABLE_OUTPUTS[name]
    y = forward()
    with ZerosRecorder() as rec:
        y.backward(torch.ones_like(y))
    assert rec.made == own_zeros


def test_the_recorder_catches_torch_kernels():
    x = torch.ones(3, requires_grad=True)
    with AtenRecorder() as rec:
        torch.autograd.grad(torch.exp(x).sum(), x)
    assert not rec.seen["aten.exp.default"] and not rec.seen["aten.sum.default"]


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_meta_tensors_take_the_fake_implementations(name):
    fn, make = ALL[name]
    real = outputs(fn(*make(base(name))))
    meta = outputs(fn(*[a.to("meta") for a in make(base(name))]))
    assert [(t.shape, t.device.type) for t in meta] == [(r.shape, "meta") for r in real]


FUNC_CASES = ["exp", "gelu", "silu", "mul", "div", "sum", "mean", "var", "softmax", "log_softmax", "logsumexp",
              "mm", "matmul", "linear", "max", "cross_entropy", "fma32", "pow", "softplus", "std"]


@pytest.mark.parametrize("name", FUNC_CASES)
def test_torch_func_grad_and_vjp_equal_autograd(name):
    fn, make = ALL[name]
    args = make(base(name))
    floats = [i for i, a in enumerate(args) if a.dtype == torch.float32]

    def scalar(*xs):
        full = list(args)
        for i, x in zip(floats, xs):
            full[i] = x
        return repdl.sum(outputs(fn(*full))[0])

    got = torch.func.grad(scalar, argnums=tuple(range(len(floats))))(*[args[i] for i in floats])
    leaves = grad_args(name, args)
    want = torch.autograd.grad(scalar(*[leaves[i] for i in floats]), [leaves[i] for i in floats])
    for g, w in zip(got, want):
        assert_bitwise_equal(g, w, f"{name}: torch.func.grad")
    out, vjp = torch.func.vjp(lambda *xs: scalar(*xs), *[args[i] for i in floats])
    for g, w in zip(vjp(torch.ones(())), want):
        assert_bitwise_equal(g, w, f"{name}: torch.func.vjp")


@pytest.mark.parametrize("name", FUNC_CASES)
def test_vmap_equals_a_loop(name):
    fn, make = ALL[name]
    batch = [make(pattern(8, 6, salt=s)) for s in range(3)]
    stacked = [torch.stack([b[i] for b in batch]) for i in range(len(batch[0]))]
    in_dims = tuple(0 if a.dtype == torch.float32 else None for a in batch[0])
    stacked = [s if d == 0 else batch[0][i] for i, (s, d) in enumerate(zip(stacked, in_dims))]
    got = torch.vmap(lambda *a: outputs(fn(*a))[0], in_dims=in_dims)(*stacked)
    want = torch.stack([outputs(fn(*b))[0] for b in batch])
    assert_bitwise_equal(got, want, f"{name}: vmap")


def test_vmap_with_an_unbatched_operand():
    x, w = pattern(4, 5, 6, salt=1), pattern(6, 3, salt=2)
    assert_bitwise_equal(torch.vmap(repdl.mm, in_dims=(0, None))(x, w), torch.stack([repdl.mm(t, w) for t in x]))
    b = pattern(5, 6, salt=3)
    assert_bitwise_equal(torch.vmap(repdl.add, in_dims=(None, 1))(b, x.transpose(0, 1)),
                         torch.stack([repdl.add(b, t) for t in x]))


def test_contributions_to_a_reused_tensor_add_up_in_the_engines_order():
    """x feeds three ops; the engine runs their backward nodes latest first,
    so x.grad = (g3 + g2) + g1 (contract, "Gradients": accumulation)."""
    x0 = torch.tensor([1.0, 3.0, -2.0, 0.7])
    w = [torch.tensor([1e8, 1.0, 3.0, 2.0 ** 30]), torch.tensor([1.0, 1e-8, -3.0, 1.0]),
         torch.tensor([-1e8, 7.0, 1e-7, -(2.0 ** 30)])]
    x = x0.clone().requires_grad_()
    out = repdl.add(repdl.add(repdl.mul(x, w[0]), repdl.mul(x, w[1])), repdl.mul(x, w[2]))
    (got,) = torch.autograd.grad(out, x, torch.ones(4))
    g1, g2, g3 = w  # each use's contribution is g * w_i = w_i exactly
    assert_bitwise_equal(got, repdl.add(repdl.add(g3, g2), g1))
    assert not torch.equal(got, repdl.add(repdl.add(g1, g2), g3)), "the other order gives the same bits here"


def test_scalar_ops_keep_tensors_only_where_their_gradient_reads_them():
    """x op number keeps no tensor for its backward; number / x keeps x and
    the output, which its gradient -g * (y / x) reads."""
    x = repdl.random.randn(5, generator=repdl.random.Generator(1)).requires_grad_()
    for y in (repdl.add(x, 2.0), repdl.sub(x, 2.0), repdl.mul(x, 2.0), repdl.div(x, 2.0), repdl.sub(2.0, x)):
        assert y.grad_fn.saved_tensors == ()
    assert len(repdl.div(2.0, x).grad_fn.saved_tensors) == 2


def test_tensor_ops_keep_tensors_only_where_their_gradient_reads_them():
    """a + b and a - b keep no tensor for their backward (their gradients
    read the shapes only; torch's add and sub keep nothing), a * b keeps a
    and b, a / b keeps b and the output.  So a tensor that a gradient does
    not read may change in place before the backward, as with torch's ops."""
    a = repdl.random.randn(5, generator=repdl.random.Generator(1)).requires_grad_()
    b = repdl.random.randn(5, generator=repdl.random.Generator(2))
    c = repdl.random.randn(5, generator=repdl.random.Generator(3))
    saved = lambda y: [t.data_ptr() for t in y.grad_fn.saved_tensors]  # noqa: E731
    assert saved(repdl.add(a, c)) == saved(repdl.sub(a, c)) == []
    q = repdl.div(a, b)
    assert saved(q) == [b.data_ptr(), q.data_ptr()]
    y = repdl.mul(a, b)
    assert saved(y) == [a.data_ptr(), b.data_ptr()]
    s = repdl.add(a, c)
    c.neg_()  # an operand of s, which s's gradient does not read
    y.neg_()  # the output of y, which y's gradient does not read
    assert_bitwise_equal(torch.autograd.grad(s, a, torch.ones(5))[0], torch.ones(5))
    assert_bitwise_equal(torch.autograd.grad(y, a, torch.ones(5))[0], -b)


# The parameters of the unary primitives that take them (elementwise._OPS).
UNARY_PARAMS = {"pow_int": (3,), "softplus_param": (2.0, 10.0), "elu_param": (0.5,), "celu_param": (0.5,)}


def test_unary_primitives_keep_the_one_tensor_their_gradient_reads():
    """Each unary primitive keeps y (elementwise.GRADIENT_READS_OUTPUT, and
    std's square root) or x, not both.  A recorded backward (create_graph)
    hands its formula None for the other, so a formula that read it would
    raise here; the fused backward's bits are the formula's."""
    reads_output = elementwise.GRADIENT_READS_OUTPUT | {"std_sqrt"}
    x0 = repdl.random.rand(64, generator=repdl.random.Generator(1)) + 0.25  # in every function's domain
    g = repdl.random.randn(64, generator=repdl.random.Generator(2))
    for name, prim in elementwise._OPS.items():
        x = x0.clone().requires_grad_()
        y = prim(x, *UNARY_PARAMS.get(name, ()))
        assert [t.data_ptr() for t in y.grad_fn.saved_tensors] == [(y if name in reads_output else x).data_ptr()]
        fused = torch.autograd.grad(y, x, g, retain_graph=True)[0]
        recorded = torch.autograd.grad(y, x, g, create_graph=True)[0]
        assert_bitwise_equal(recorded.detach(), fused)


def test_max_routes_the_gradient_to_the_returned_index():
    x = torch.tensor([[1.0, 3.0, 3.0], [-0.0, 0.0, -1.0]], requires_grad=True)
    v, i = repdl.max(x, 1)
    (g,) = torch.autograd.grad(v, x, torch.tensor([2.0, 5.0]))
    assert_bitwise_equal(g, torch.tensor([[0.0, 2.0, 0.0], [5.0, 0.0, 0.0]]))
    (g,) = torch.autograd.grad(repdl.max(x), x)  # the full reduction too: the first maximum
    assert_bitwise_equal(g, torch.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]]))


def test_std_of_a_constant_line_has_zero_gradient():
    x = torch.ones(2, 5, requires_grad=True)
    (g,) = torch.autograd.grad(repdl.std(x, 1).sum(), x)
    assert_bitwise_equal(g, torch.zeros(2, 5))


def test_broadcast_gradients_are_sequential_sums():
    a = pattern(7, 1, 5, salt=1).requires_grad_()
    b = pattern(3, 5, salt=2).requires_grad_()
    g = pattern(7, 3, 5, salt=3)
    ga, gb = torch.autograd.grad(repdl.mul(a, b), (a, b), g)
    assert_bitwise_equal(ga, repdl.sum(repdl.mul(g, b.detach()), 1, keepdim=True))
    assert_bitwise_equal(gb, repdl.sum(repdl.mul(g, a.detach()), 0))


def test_case_list_covers_every_public_op():
    assert set(repdl.ops.__all__) <= set(CASES)
    assert TARGET.dtype == torch.int64


def test_tensor_escaped_from_a_transform_records_like_a_plain_one():
    """A tensor kept from inside torch.func.grad outlives its transform (a
    dead functorch wrapper); eager autograd then sees the tensor it wraps."""
    kept = []

    def f(t):
        kept.append(t)
        return repdl.exp(t).sum()

    x = pattern(5, salt=3)
    torch.func.grad(f)(x)
    w = pattern(5, salt=4).requires_grad_()
    repdl.mul(kept[0], w).sum().backward()
    assert_bitwise_equal(w.grad, x)


def test_every_primitive_routes_on_its_tensor_arguments():
    """A primitive's entry point looks only at the positions its impl
    annotates Tensor or Optional[Tensor]; they must be exactly its schema's
    tensor arguments, or a tensor that requires grad in an unlisted position
    would be computed without recording autograd."""
    import gc

    from repdl._library import Primitive

    # type(), not isinstance(): isinstance on a weakref proxy whose object
    # has died (torch.compile leaves some) raises ReferenceError.
    ops = [o for o in gc.get_objects() if type(o) is Primitive]
    assert len(ops) > 50
    optional_tensor = torch._C.OptionalType(torch._C.TensorType.get())
    for op in ops:
        schema = op.custom._opoverload._schema
        expected = tuple(i for i, a in enumerate(schema.arguments) if a.type.isSubtypeOf(optional_tensor))
        assert op._tensor_args == expected, op.name


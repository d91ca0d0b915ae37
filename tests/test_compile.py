"""torch.compile against eager (contract section 8): every public op,
compiled with fullgraph=True (no graph break may hide an op from the
compiler), gives the bits it gives in eager mode, and so does FakeTensor
tracing give the eager output's shapes."""
import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

import repdl
from repdl.testing import assert_bitwise_equal
from repdl.verify import pattern

from public_ops import ALL, outputs

# The random draws move a Python-side generator, which a graph cannot hold.
COMPILED = {name: case for name, case in ALL.items() if name != "dropout"}


@pytest.fixture(autouse=True)
def fresh_dynamo():
    # The unary ops share one Python function (made per op by a factory), so
    # without a reset dynamo would count each op as a recompilation of it.
    torch._dynamo.reset()
    yield


def base():
    return pattern(8, 6, salt=23) * 6


@pytest.mark.parametrize("name", sorted(COMPILED))
def test_compiled_equals_eager(name):
    fn, make = COMPILED[name]
    args = make(base())
    eager = outputs(fn(*args))
    compiled = outputs(torch.compile(fn, fullgraph=True, dynamic=False)(*args))
    assert len(compiled) == len(eager)
    for c, e in zip(compiled, eager):
        assert_bitwise_equal(c, e, f"{name} compiled")


@pytest.mark.parametrize("name", sorted(COMPILED))
def test_fake_tensors_trace(name):
    fn, make = COMPILED[name]
    args = make(base())
    eager = outputs(fn(*args))
    with FakeTensorMode() as mode:
        fake_args = [mode.from_tensor(a) for a in args]
        traced = outputs(fn(*fake_args))
    assert [tuple(t.shape) for t in traced] == [tuple(t.shape) for t in eager]


def test_compiled_backward_equals_eager():
    """A compiled forward and backward (AOT autograd through the custom ops'
    registered gradients): silu's, whose primitive returns sigmoid(x) beside
    silu(x) for the backward, and gelu's, give the eager gradient's bits."""
    x, g = base(), pattern(8, 6, salt=5)
    for fn in (repdl.silu, repdl.gelu):
        a, b = x.clone().requires_grad_(), x.clone().requires_grad_()
        y = torch.compile(fn, fullgraph=True, dynamic=False)(a)
        (compiled,) = torch.autograd.grad(y, a, g)
        (eager,) = torch.autograd.grad(fn(b), b, g)
        assert_bitwise_equal(y, fn(x), f"{fn.__name__} compiled forward")
        assert_bitwise_equal(compiled, eager, f"{fn.__name__} compiled backward")


# module arguments and the input's shape
NORM_MODULES = {"BatchNorm1d": ((3,), (4, 3, 4)), "LayerNorm": ((4,), (4, 3, 4)), "GroupNorm": ((3, 6), (2, 6, 4))}


@pytest.mark.parametrize("name", sorted(NORM_MODULES))
def test_compiled_norm_training_equals_eager(name):
    """A normalisation module in training, compiled with its backward: the
    fused backward kernels are ops of their own (a direct kernel call read a
    fake tensor's data pointer under AOT autograd: LayerNorm's compiled
    backward failed so), and batch norm's running statistics, new values
    from an op copied into the buffers, match eager's."""
    args, shape = NORM_MODULES[name]
    x, g = (pattern(8, 6, salt=23) * 6).reshape(shape), pattern(8, 6, salt=5).reshape(shape)
    ours, theirs = (getattr(repdl.nn, name)(*args) for _ in range(2))
    a, b = x.clone().requires_grad_(), x.clone().requires_grad_()
    y = torch.compile(ours, fullgraph=True)(a)
    grads = torch.autograd.grad(y, (a, *ours.parameters()), g)
    want = theirs(b)
    want_grads = torch.autograd.grad(want, (b, *theirs.parameters()), g)
    assert_bitwise_equal(y, want, f"{name} compiled forward")
    for got, expected in zip(grads, want_grads):
        assert_bitwise_equal(got, expected, f"{name} compiled backward")
    for (key, got), expected in zip(ours.state_dict().items(), theirs.state_dict().values()):
        assert torch.equal(got, expected), f"{name} {key}"


_TARGETS = torch.tensor([0, 5, 2, 3, 1, 4, 0, 2])
FUSED_BACKWARDS = {
    "softmax": lambda a: repdl.softmax(a, 1),
    "log_softmax": lambda a: repdl.log_softmax(a, 0),
    "cross_entropy": lambda a: repdl.nn.functional.cross_entropy(a, _TARGETS),
    "nll_loss": lambda a: repdl.nn.functional.nll_loss(repdl.log_softmax(a, 1), _TARGETS),
}


@pytest.mark.parametrize("name", sorted(FUSED_BACKWARDS))
def test_compiled_fused_backwards_equal_eager(name):
    """The softmax family's and the class losses' fused backward kernels,
    compiled with their forward: ops of their own, which AOT autograd traces
    with fake tensors (a direct kernel call read a fake tensor's data
    pointer, and these compiled backwards failed)."""
    fn = FUSED_BACKWARDS[name]
    x, g = base(), pattern(8, 6, salt=5)
    a, b = x.clone().requires_grad_(), x.clone().requires_grad_()
    y = torch.compile(fn, fullgraph=True, dynamic=False)(a)
    want = fn(b)
    seed = g if y.dim() else g.sum()
    (compiled,) = torch.autograd.grad(y, a, seed)
    (eager,) = torch.autograd.grad(want, b, seed)
    assert_bitwise_equal(y, want, f"{name} compiled forward")
    assert_bitwise_equal(compiled, eager, f"{name} compiled backward")


class _Exported(torch.nn.Module):
    """A product of the input with a plain tensor attribute (not a parameter
    or buffer: export sees it as a constant, which non-strict export does
    not fake), then exp of the attribute alone."""

    def __init__(self):
        super().__init__()
        self.w = pattern(6, 5, salt=7)

    def forward(self, x):
        return repdl.mm(x, self.w), repdl.exp(self.w)


@pytest.mark.parametrize("strict", [True, False], ids=["strict", "non-strict"])
def test_exported_program_holds_the_ops(strict):
    """torch.export, strict (dynamo) and non-strict (the Python run
    eagerly with torch.compiler's compiling flag set): the program holds
    RepDL's ops, the constant's exp included, and gives eager bits."""
    x = base()
    program = torch.export.export(_Exported(), (x,), strict=strict)
    ops = {str(n.target) for n in program.graph.nodes if n.op == "call_function"}
    assert ops == {"repdl.matmul.default", "repdl.exp.default"}, ops
    for got, want in zip(program.module()(x), _Exported()(x)):
        assert_bitwise_equal(got, want, "exported")

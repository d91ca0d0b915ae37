"""torch's process-wide defaults change no bit and no device (contract
section 1): every public op, forward and backward, gives the same bits on
the CPU under a default device other than the CPU (``torch.device(...)``
as a context or ``torch.set_default_device``, common for model
initialisation) and under a default dtype of float64, as without them.

The meta device stands in for an accelerator: a kernel that wrote into a
tensor allocated on the default device would write through a null pointer
(an accelerator's would be a device pointer), so a factory call that forgot
its device crashes this test rather than passing it."""
import contextlib

import pytest
import torch

import repdl
from repdl import backends
from repdl.testing import assert_bitwise_equal
from repdl.verify import pattern

from public_ops import ALL, outputs


@contextlib.contextmanager
def default_dtype(dtype):
    saved = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        yield
    finally:
        torch.set_default_dtype(saved)


DEFAULTS = {
    "meta device": lambda: torch.device("meta"),
    "float64 dtype": lambda: default_dtype(torch.float64),
}


# A case whose base input also gives a weight, whose gradient RepDL (as torch) refuses.
FORWARD_ONLY = {"cross_entropy:weighted_mean"}


def arguments(name, x):
    """The case's arguments from the base input `x` (a leaf that records
    autograd, unless the case is forward-only), made with torch's usual
    defaults, as a user's tensors would be."""
    x = x.detach().requires_grad_(name not in FORWARD_ONLY)
    return x, ALL[name][1](x)


def forward_backward(name, x, args, cotangents):
    """The op's float32 outputs and the gradient with respect to `x` of
    their sum weighted by `cotangents`."""
    outs = outputs(ALL[name][0](*args))
    pairs = [(o, c) for o, c in zip(outs, cotangents) if o.requires_grad]
    grads = []
    if pairs:
        (grad,) = torch.autograd.grad([o for o, _ in pairs], x, [c for _, c in pairs], allow_unused=True)
        grads = [grad] if grad is not None else []
    return [o.detach() for o in outs] + grads


@pytest.mark.parametrize("default", sorted(DEFAULTS))
@pytest.mark.parametrize("backend", ["cpu", "reference"])
@pytest.mark.parametrize("name", sorted(ALL))
def test_torch_defaults_change_nothing(name, backend, default):
    base = pattern(8, 6, salt=23)
    with backends.use(backend):
        shapes = [o.shape for o in outputs(ALL[name][0](*arguments(name, base)[1]))]
        cotangents = [pattern(*s, salt=29) if s else pattern(1, salt=29).reshape(()) for s in shapes]
        plain = forward_backward(name, *arguments(name, base), cotangents)
        x, args = arguments(name, base)
        with DEFAULTS[default]():
            changed = forward_backward(name, x, args, cotangents)
    assert len(changed) == len(plain)
    for a, b in zip(changed, plain):
        assert a.device == b.device, f"{name} ({backend}) under a {default}: a result on {a.device}"
        assert_bitwise_equal(a, b, f"{name} ({backend}) under a {default}")


@pytest.mark.parametrize("default", sorted(DEFAULTS))
def test_a_training_step_ignores_torch_defaults(default):
    """Layers, a loss, dropout's draws and an optimizer step on CPU tensors."""
    def step():
        repdl.manual_seed(3)  # the layers' initial weights and dropout's masks
        where = {"device": "cpu", "dtype": torch.float32}  # torch's layers follow the defaults too
        model = repdl.nn.Sequential(
            repdl.nn.Conv2d(1, 2, 3, padding=1, **where), repdl.nn.ReLU(), repdl.nn.MaxPool2d(2),
            repdl.nn.Flatten(), repdl.nn.LayerNorm(8, **where), repdl.nn.Dropout(0.25),
            repdl.nn.Linear(8, 3, **where))
        opt = repdl.optim.AdamW(model.parameters(), lr=1e-2)
        g = repdl.random.Generator(5)
        x = repdl.random.randn(4, 1, 4, 4, generator=g, device="cpu")
        target = repdl.random.randint(0, 3, (4,), generator=g, device="cpu")
        for _ in range(2):
            opt.zero_grad()
            repdl.cross_entropy(model(x), target).backward()
            opt.step()
        return [p.detach() for p in model.parameters()]

    plain = step()
    with DEFAULTS[default]():
        changed = step()
    for a, b in zip(changed, plain):
        assert a.device == b.device
        assert_bitwise_equal(a, b, f"a parameter after two steps under a {default}")


@pytest.mark.parametrize("default", sorted(DEFAULTS))
def test_random_states_and_samplers_ignore_torch_defaults(default):
    def draws():
        g = repdl.random.Generator(7).set_offset(3)
        sampler = repdl.random.RandomSampler(range(10), seed=9)
        states = [g.get_state(), repdl.random.sample_generator(9, 1, 2).get_state(),
                  repdl.random.RandomSampler(range(5), shuffle=False).order(0)]
        return states, list(sampler)

    plain, order = draws()
    with DEFAULTS[default]():
        changed, changed_order = draws()
    assert changed_order == order
    for a, b in zip(changed, plain):
        assert a.device == b.device and torch.equal(a, b)

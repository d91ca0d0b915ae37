"""repdl.optim: every optimizer's step, kernels against the reference bit for
bit (every ISA, adversarial gradients, layouts), accuracy against a float64
evaluation of the same update, torch.optim compatibility (state_dict both
ways, hooks, zero_grad), and bad input."""
import math

import pytest
import torch

from repdl import backends, optim
from repdl.testing import assert_bitwise_equal

from values import SPECIALS, TINY, sprinkle, wide

CONFIGS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.25, weight_decay=1e-2, maximize=True)),
    ("SGD", dict(lr=0.1, momentum=0.8, nesterov=True, weight_decay=3e-4)),
    ("Adam", dict(lr=1e-2)),
    ("Adam", dict(lr=1e-2, betas=(0.8, 0.99), weight_decay=0.1, amsgrad=True)),
    ("Adam", dict(lr=1e-3, weight_decay=0.05, decoupled_weight_decay=True, maximize=True)),
    ("AdamW", dict(lr=1e-2)),
    ("AdamW", dict(lr=1e-2, weight_decay=0.3, amsgrad=True, eps=1e-6)),
    ("RMSprop", dict(lr=1e-2)),
    ("RMSprop", dict(lr=1e-2, alpha=0.9, centered=True)),
    ("RMSprop", dict(lr=1e-2, momentum=0.9, weight_decay=0.1, maximize=True)),
    ("RMSprop", dict(lr=1e-2, momentum=0.5, centered=True, weight_decay=0.01)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.2, eps=1e-8)),
]
IDS = [f"{name}-{i}" for i, (name, _) in enumerate(CONFIGS)]


def run_steps(name, kwargs, p0, grads, backend=None):
    """Final parameter and optimizer state after one step per gradient."""
    p = torch.nn.Parameter(p0.clone())
    opt = getattr(optim, name)([p], **kwargs)
    for g in grads:
        p.grad = g.clone()
        if backend:
            with backends.use(backend):
                opt.step()
        else:
            opt.step()
    return p.detach(), opt.state[p]


def assert_runs_agree(a, b):
    assert_bitwise_equal(a[0], b[0], "parameter")
    assert a[1].keys() == b[1].keys()
    for key in a[1]:
        assert_bitwise_equal(a[1][key], b[1][key], key)


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_kernels_match_the_reference(config, gen, isa):
    name, kwargs = config
    p0 = sprinkle(wide(7, 13, gen=gen, spread=4), SPECIALS + TINY, gen, 0.05)
    grads = [sprinkle(wide(7, 13, gen=gen, spread=6), SPECIALS + TINY, gen, 0.05) for _ in range(4)]
    assert_runs_agree(run_steps(name, kwargs, p0, grads), run_steps(name, kwargs, p0, grads, "reference"))


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_large_parameter_split_over_threads(config, gen):
    """Above the kernels' grain, threads split the elements: same bits as one thread."""
    name, kwargs = config
    p0, grads = wide(300_001, gen=gen, spread=2), [wide(300_001, gen=gen, spread=2) for _ in range(2)]
    many = run_steps(name, kwargs, p0, grads)
    torch.set_num_threads(1)
    try:
        one = run_steps(name, kwargs, p0, grads)
    finally:
        torch.set_num_threads(2)
    assert_runs_agree(many, one)


def _float64_adam(p, grads, lr, b1, b2, eps, wd):
    """The contract's AdamW sequence with every operation in float64: the
    accuracy yardstick (not bitwise)."""
    p, m, v = p.double(), torch.zeros_like(p, dtype=torch.float64), torch.zeros_like(p, dtype=torch.float64)
    for t, g in enumerate(grads, 1):
        g = g.double()
        p = p * (1 - lr * wd)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        p = p - lr / (1 - b1 ** t) * (m / (v.sqrt() / math.sqrt(1 - b2 ** t) + eps))
    return p


def test_adamw_is_accurate(gen):
    p0 = torch.randn(1000, generator=gen)
    grads = [torch.randn(1000, generator=gen) for _ in range(20)]
    got, _ = run_steps("AdamW", dict(lr=1e-2, weight_decay=0.1), p0, grads)
    exact = _float64_adam(p0, grads, 1e-2, 0.9, 0.999, 1e-8, 0.1)
    # 20 steps of a dozen float32 roundings each, on values of size ~1
    assert ((got.double() - exact).abs() / exact.abs().clamp(min=1e-2)).max() < 1e-5


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_close_to_torch_and_state_dicts_load_both_ways(config, gen):
    name, kwargs = config
    p0 = torch.randn(40, generator=gen)
    grads = [torch.randn(40, generator=gen) for _ in range(6)]
    ours_p, torch_p = torch.nn.Parameter(p0.clone()), torch.nn.Parameter(p0.clone())
    ours, theirs = getattr(optim, name)([ours_p], **kwargs), getattr(torch.optim, name)([torch_p], **kwargs)
    for g in grads[:3]:
        ours_p.grad, torch_p.grad = g.clone(), g.clone()
        ours.step()
        theirs.step()
    assert ours.state_dict()["param_groups"] == theirs.state_dict()["param_groups"]
    assert ours.state_dict()["state"].get(0, {}).keys() == theirs.state_dict()["state"].get(0, {}).keys()
    # torch's state continues in RepDL and RepDL's in torch
    swapped_ours, swapped_theirs = getattr(optim, name)([ours_p], **kwargs), getattr(torch.optim, name)([torch_p],
                                                                                                      **kwargs)
    swapped_ours.load_state_dict(theirs.state_dict())
    swapped_theirs.load_state_dict(ours.state_dict())
    for g in grads[3:]:
        ours_p.grad, torch_p.grad = g.clone(), g.clone()
        swapped_ours.step()
        swapped_theirs.step()
    assert torch.allclose(ours_p, torch_p, rtol=1e-4, atol=1e-5)


def test_layouts_give_the_same_bits(gen):
    """A channels_last parameter, a gradient in another layout, and a
    parameter that is a strided view: same values as the contiguous run."""
    p0 = wide(2, 3, 4, 5, gen=gen, spread=2)
    grads = [wide(2, 3, 4, 5, gen=gen, spread=2) for _ in range(3)]
    dense, _ = run_steps("Adam", dict(lr=0.1, amsgrad=True), p0, grads)

    p = torch.nn.Parameter(p0.clone().to(memory_format=torch.channels_last))
    opt = optim.Adam([p], lr=0.1, amsgrad=True)
    for g in grads:
        p.grad = g.clone()  # contiguous, unlike p
        opt.step()
    assert_bitwise_equal(p.detach().contiguous(), dense)

    base = torch.zeros(2, 3, 4, 10)
    view = base[..., ::2]
    view.copy_(p0)
    q = torch.nn.Parameter(view)  # a view with gaps: not dense
    opt = optim.Adam([q], lr=0.1, amsgrad=True)
    for g in grads:
        q.grad = g.clone()
        opt.step()
    assert_bitwise_equal(q.detach().contiguous(), dense)
    assert (base[..., 1::2] == 0).all()


def test_nonfinite_gradients_do_not_crash():
    p = torch.nn.Parameter(torch.ones(4))
    opt = optim.Adam([p], lr=0.1)
    p.grad = torch.tensor([float("nan"), float("inf"), -float("inf"), 1.0])
    opt.step()
    assert torch.isnan(p[:3]).all() and torch.isfinite(p[3])
    assert_bitwise_equal(p.detach()[:1], torch.tensor([float("nan")]))  # canonical NaN


def test_hooks_zero_grad_and_closure():
    p = torch.nn.Parameter(torch.ones(3))
    opt = optim.SGD([p], lr=0.5)
    calls = []
    opt.register_step_post_hook(lambda o, a, k: calls.append("post"))
    loss = opt.step(lambda: (p.sum() * 2).backward() or torch.tensor(1.0))
    assert loss.item() == 1.0 and calls == ["post"]
    assert torch.equal(p.detach(), torch.zeros(3))
    opt.zero_grad(set_to_none=True)
    assert p.grad is None
    opt.step()  # a parameter without gradient is skipped


def test_isinstance_of_torch_classes():
    p = torch.nn.Parameter(torch.ones(1))
    assert isinstance(optim.AdamW([p]), torch.optim.AdamW)
    assert isinstance(optim.SGD([p], lr=0.1), torch.optim.Optimizer)


@pytest.mark.parametrize("option", ["foreach", "fused", "capturable", "differentiable"])
def test_torch_implementation_options_raise(option):
    p = torch.nn.Parameter(torch.ones(2))
    with pytest.raises(NotImplementedError, match=option):
        optim.Adam([p], **{option: True})


def test_bad_input():
    with pytest.raises(TypeError, match="float64"):
        optim.SGD([torch.nn.Parameter(torch.ones(2, dtype=torch.float64))], lr=0.1)
    p = torch.nn.Parameter(torch.ones(2))
    opt = optim.Adam([p])
    p.grad_dtype = None  # torch >= 2.10 refuses the mismatch itself unless told not to
    p.grad = torch.ones(2, dtype=torch.float64)
    with pytest.raises(TypeError, match="gradient"):
        opt.step()
    p.grad = None
    q = torch.nn.Parameter(torch.ones(3))
    q.grad = torch.ones(3)
    source = optim.Adam([q])
    source.step()
    with pytest.raises(ValueError, match=r"shape \(3,\), the parameter \(2,\)"):
        optim.Adam([p]).load_state_dict(source.state_dict())
    with pytest.raises(ValueError, match="1 parameter"):
        optim.Adam([p, q]).load_state_dict(source.state_dict())
    with pytest.raises(ValueError, match="group"):
        optim.Adam([{"params": [p]}, {"params": [q]}]).load_state_dict(source.state_dict())
    s = torch.nn.Parameter(torch.ones(3))
    s.grad = torch.ones(3).to_sparse()
    with pytest.raises(NotImplementedError, match="sparse"):
        optim.SGD([s], lr=0.1).step()


def test_step_scalars_follow_the_contract():
    """One Adam step by hand: the update of an element with grad 1 from
    zero state is lr / (1 - b1) * ((1 - b1) / (sqrt(1 - b2) / sqrt(1 - b2) + eps)),
    every operation in float32."""
    f = lambda v: torch.tensor(v, dtype=torch.float32)  # noqa: E731
    p = torch.nn.Parameter(torch.zeros(1))
    p.grad = torch.ones(1)
    optim.Adam([p], lr=0.01).step()
    b1c, b2c = f(1 - 0.9), f(1 - 0.999)
    m, v = f(0.9) * 0 + b1c * 1, f(0.999) * 0 + b2c * (f(1.0) * 1)
    denom = f(math.sqrt(v.item())) / f(math.sqrt(1 - 0.999)) + f(1e-8)  # float32 sqrt, correctly rounded
    expected = 0 - f(0.01 / (1 - 0.9)) * (m / denom)
    assert_bitwise_equal(p.detach(), expected.reshape(1))

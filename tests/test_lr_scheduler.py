"""repdl.optim.lr_scheduler: the rates of torch's schedulers within float64
rounding, with RepDL's and torch's optimizers, state_dict resumption, and a
golden hash of every schedule's exact bits (the same on every machine and
torch release: tests/golden.json)."""
import json
import struct
import warnings
from pathlib import Path

import pytest
import torch

from repdl import optim
from repdl.optim import lr_scheduler as R

GOLDEN = json.loads((Path(__file__).parent / "golden.json").read_text())

# (name, constructor arguments); optimizer SGD with momentum (OneCycleLR cycles it)
SCHEDULES = [
    ("StepLR", dict(step_size=3, gamma=0.5)),
    ("MultiStepLR", dict(milestones=[3, 3, 7, 20], gamma=0.3)),
    ("ConstantLR", dict(factor=0.5, total_iters=4)),
    ("LinearLR", dict(start_factor=0.1, end_factor=0.9, total_iters=7)),
    ("ExponentialLR", dict(gamma=0.93)),
    ("PolynomialLR", dict(total_iters=15, power=3)),
    ("CosineAnnealingLR", dict(T_max=11, eta_min=1e-3)),
    ("CosineAnnealingWarmRestarts", dict(T_0=3, T_mult=2, eta_min=1e-2)),
    ("OneCycleLR", dict(max_lr=1.0, total_steps=40)),
    ("OneCycleLR", dict(max_lr=0.5, total_steps=40, three_phase=True, anneal_strategy="linear")),
    ("LambdaLR", dict(lr_lambda=lambda e: 1.0 / (e + 1))),
]
IDS = [f"{n}-{i}" for i, (n, _) in enumerate(SCHEDULES)]
STEPS = 39


def _optimizer(module, lr=0.1):
    p = torch.nn.Parameter(torch.zeros(2))
    p.grad = torch.zeros(2)
    return module.SGD([p], lr=lr, momentum=0.9)


def _rates(module_optim, module_sched, name, kwargs):
    opt = _optimizer(module_optim)
    sched = getattr(module_sched, name)(opt, **kwargs)
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(STEPS):
            opt.step()
            sched.step()
            out.append((opt.param_groups[0]["lr"], opt.param_groups[0]["momentum"]))
    return out


def schedule_bits():
    """Every schedule's (lr, momentum) sequence as the bytes of its doubles."""
    data = b""
    for name, kwargs in SCHEDULES:
        for lr, momentum in _rates(optim, R, name, kwargs):
            data += struct.pack("<dd", lr, momentum)
    return data


@pytest.mark.parametrize("schedule", SCHEDULES, ids=IDS)
def test_rates_match_torch(schedule):
    name, kwargs = schedule
    ours = _rates(optim, R, name, kwargs)
    theirs = _rates(torch.optim, torch.optim.lr_scheduler, name, kwargs)
    for (a, am), (b, bm) in zip(ours, theirs):
        # torch's math.cos(math.pi * t / T) carries the rounding of pi*t/T;
        # relative to the schedule's scale that is a few float64 ulps
        assert abs(a - b) <= 1e-14 * 1.0 and abs(am - bm) <= 1e-14


def test_schedules_have_the_golden_bits():
    import hashlib
    assert hashlib.sha256(schedule_bits()).hexdigest() == GOLDEN["lr_schedules"]


def test_sequential_warmup_then_cosine_and_resume():
    """LinearLR warm-up into CosineAnnealingLR (SequentialLR); a scheduler
    rebuilt from state_dict mid-way continues with identical rates."""
    def build():
        opt = _optimizer(optim, lr=0.5)
        warm = R.LinearLR(opt, start_factor=0.01, total_iters=5)
        cos = R.CosineAnnealingLR(opt, T_max=20, eta_min=0.0)
        return opt, R.SequentialLR(opt, [warm, cos], milestones=[5])

    opt, sched = build()
    rates = []
    for step in range(25):
        opt.step()
        sched.step()
        rates.append(opt.param_groups[0]["lr"])
        if step == 11:
            saved_opt, saved_sched = opt.state_dict(), sched.state_dict()
    opt2, sched2 = build()
    opt2.load_state_dict(saved_opt)
    sched2.load_state_dict(saved_sched)
    resumed = []
    for _ in range(12, 25):
        opt2.step()
        sched2.step()
        resumed.append(opt2.param_groups[0]["lr"])
    assert resumed == rates[12:]
    assert rates[4] == pytest.approx(0.5) and rates[-1] < rates[10]


def test_reduce_on_plateau_with_repdl_optimizer():
    opt = _optimizer(optim, lr=1.0)
    sched = R.ReduceLROnPlateau(opt, factor=0.5, patience=1)
    for loss in (1.0, 1.0, 1.0, 1.0, 0.5):
        sched.step(loss)
    assert opt.param_groups[0]["lr"] == 0.5


def test_classes_are_torch_schedulers():
    opt = _optimizer(optim)
    assert isinstance(R.CosineAnnealingLR(opt, T_max=3), torch.optim.lr_scheduler.LRScheduler)


def test_fractional_polynomial_power_is_not_supported():
    with pytest.raises(NotImplementedError, match="power=1.5"):
        R.PolynomialLR(_optimizer(optim), total_iters=4, power=1.5)


def test_warm_restarts_with_an_explicit_epoch():
    """step(epoch) finds the cycle with integers (torch uses math.log)."""
    ours = R.CosineAnnealingWarmRestarts(_optimizer(optim), T_0=3, T_mult=2)
    theirs = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(_optimizer(torch.optim), T_0=3, T_mult=2)
    for epoch in (0, 2, 3, 8, 9, 20, 21.5, 44):
        ours.step(epoch)
        theirs.step(epoch)
        assert (ours.T_cur, ours.T_i) == (theirs.T_cur, theirs.T_i)
        assert ours.get_last_lr()[0] == pytest.approx(theirs.get_last_lr()[0], rel=1e-13)

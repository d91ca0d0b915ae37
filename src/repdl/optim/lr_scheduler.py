"""repdl.optim.lr_scheduler: torch's learning-rate schedulers with
arithmetic that gives the same float64 bits on every machine and torch
release (CONTRACT.md, "Learning-rate schedules").

Each class extends its torch namesake (constructor arguments, checks,
``state_dict``, ``step``, ``get_last_lr``, and the chainable behaviour
that lets several schedulers share an optimizer), and computes its rates
itself, with torch 2.13's formulas: ``+ - * /`` only, powers by squaring
(``powi``) and cosines from ``cospi`` (a fixed polynomial after an exact
reduction), never ``math.cos`` or ``**`` on floats, whose last bit comes
from the C library.  The rates equal torch's within float64 rounding
(torch's own ``math.cos(math.pi * t / T)`` carries the rounding of pi*t/T)
and are identical everywhere.  SequentialLR, ChainedScheduler and
ReduceLROnPlateau have no arithmetic beyond one IEEE multiply and
comparisons, and are torch's.  LambdaLR multiplies by the user's
function, whose bits are the user's affair.
"""
import bisect
import math

import torch.optim.lr_scheduler as _torch

from .._float64 import cospi, powi

__all__ = ["LRScheduler", "LambdaLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR", "ExponentialLR",
           "PolynomialLR", "CosineAnnealingLR", "CosineAnnealingWarmRestarts", "OneCycleLR", "SequentialLR",
           "ChainedScheduler", "ReduceLROnPlateau"]

LRScheduler = _torch.LRScheduler
SequentialLR = _torch.SequentialLR
ChainedScheduler = _torch.ChainedScheduler
ReduceLROnPlateau = _torch.ReduceLROnPlateau


def _lrs(scheduler):
    return [group["lr"] for group in scheduler.optimizer.param_groups]


def _scaled(scheduler, factor):
    return [group["lr"] * factor for group in scheduler.optimizer.param_groups]


def _first_call(scheduler) -> bool:
    """The step made by the constructor (torch's ``_is_initial``)."""
    return getattr(scheduler, "_is_initial", False)


class LambdaLR(_torch.LambdaLR):
    """base_lr * lr_lambda(epoch)."""

    def get_lr(self):
        return [base * f(self.last_epoch) for f, base in zip(self.lr_lambdas, self.base_lrs)]


class StepLR(_torch.StepLR):
    """lr * gamma every step_size epochs; closed form base_lr * gamma^(epoch // step_size)."""

    def get_lr(self):
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return _lrs(self)
        return _scaled(self, self.gamma)

    def _get_closed_form_lr(self):
        return [base * powi(self.gamma, self.last_epoch // self.step_size) for base in self.base_lrs]


class MultiStepLR(_torch.MultiStepLR):
    """lr * gamma^k at a milestone listed k times."""

    def get_lr(self):
        if self.last_epoch not in self.milestones:
            return _lrs(self)
        return _scaled(self, powi(self.gamma, self.milestones[self.last_epoch]))

    def _get_closed_form_lr(self):
        passed = bisect.bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return [base * powi(self.gamma, passed) for base in self.base_lrs]


class ConstantLR(_torch.ConstantLR):
    """lr * factor until total_iters, then back."""

    def get_lr(self):
        if self.last_epoch == 0:
            return _scaled(self, self.factor)
        if self.last_epoch != self.total_iters:
            return _lrs(self)
        return _scaled(self, 1.0 / self.factor)

    def _get_closed_form_lr(self):
        f = self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor)
        return [base * f for base in self.base_lrs]


class LinearLR(_torch.LinearLR):
    """The factor moves linearly from start_factor to end_factor over total_iters."""

    def get_lr(self):
        if self.last_epoch == 0:
            return _scaled(self, self.start_factor)
        if _first_call(self) or self.last_epoch > self.total_iters:
            return _lrs(self)
        span = self.end_factor - self.start_factor
        return _scaled(self, 1.0 + span / (self.total_iters * self.start_factor + (self.last_epoch - 1) * span))

    def _get_closed_form_lr(self):
        f = self.start_factor + (self.end_factor - self.start_factor) * min(self.total_iters,
                                                                            self.last_epoch) / self.total_iters
        return [base * f for base in self.base_lrs]


class ExponentialLR(_torch.ExponentialLR):
    """lr * gamma every epoch; closed form base_lr * gamma^epoch."""

    def get_lr(self):
        return _lrs(self) if _first_call(self) or self.last_epoch == 0 else _scaled(self, self.gamma)

    def _get_closed_form_lr(self):
        return [base * powi(self.gamma, self.last_epoch) for base in self.base_lrs]


class PolynomialLR(_torch.PolynomialLR):
    """base_lr * (1 - t / total_iters)^power, for an integer power (powi)."""

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        if float(power) != int(power) or power < 0:
            raise NotImplementedError(f"repdl.optim.lr_scheduler.PolynomialLR: power={power!r} is not supported; "
                                      "an integer power >= 0 is (a fractional power needs the C library's pow)")
        super().__init__(optimizer, total_iters, power, last_epoch)

    def get_lr(self):
        if _first_call(self) or self.last_epoch == 0 or self.last_epoch > self.total_iters:
            return _lrs(self)
        ratio = (1.0 - self.last_epoch / self.total_iters) / (1.0 - (self.last_epoch - 1) / self.total_iters)
        return _scaled(self, powi(ratio, int(self.power)))

    def _get_closed_form_lr(self):
        f = powi(1.0 - min(self.total_iters, self.last_epoch) / self.total_iters, int(self.power))
        return [base * f for base in self.base_lrs]


class CosineAnnealingLR(_torch.CosineAnnealingLR):
    """eta_min + (base_lr - eta_min) * (1 + cos(pi t / T_max)) / 2, in
    torch's chainable (ratio of successive values) form."""

    def get_lr(self):
        t, T, eta = self.last_epoch, self.T_max, self.eta_min
        if _first_call(self) or t == 0:
            return _lrs(self)
        if self._step_count == 1 and t > 0:
            return [eta + (base - eta) * (1 + cospi(t / T)) / 2 for base in self.base_lrs]
        if (t - 1 - T) % (2 * T) == 0:
            return [group["lr"] + (base - eta) * (1 - cospi(1 / T)) / 2
                    for base, group in zip(self.base_lrs, self.optimizer.param_groups)]
        ratio = (1 + cospi(t / T)) / (1 + cospi((t - 1) / T))
        return [ratio * (group["lr"] - eta) + eta for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        c = 1 + cospi(self.last_epoch / self.T_max)
        return [self.eta_min + (base - self.eta_min) * c / 2 for base in self.base_lrs]


class CosineAnnealingWarmRestarts(_torch.CosineAnnealingWarmRestarts):
    """Cosine annealing restarted every T_i epochs, T_i = T_0 * T_mult^i."""

    def get_lr(self):
        c = 1 + cospi(self.T_cur / self.T_i)
        return [self.eta_min + (base - self.eta_min) * c / 2 for base in self.base_lrs]

    def step(self, epoch=None):
        if epoch is None or epoch < self.T_0 or self.T_mult == 1:
            return super().step(epoch)
        # torch finds the cycle with math.log; count it in integers instead
        # (the same n for every epoch that is a whole number of steps).
        if epoch < 0:
            raise ValueError(f"Expected non-negative epoch, but got {epoch}")
        n, start, length = 0, 0, self.T_0
        while start + length <= epoch:
            start, length, n = start + length, length * self.T_mult, n + 1
        self.T_cur, self.T_i = epoch - start, length
        self.last_epoch = math.floor(epoch)
        for group, lr in zip(self.optimizer.param_groups, self.get_lr()):
            group["lr"] = lr
        self._last_lr = _lrs(self)


class OneCycleLR(_torch.OneCycleLR):
    """The 1cycle policy; its cosine annealing uses cospi."""

    @staticmethod
    def _annealing_cos(start, end, pct):
        return end + (start - end) / 2.0 * (cospi(pct) + 1)

    @staticmethod
    def _annealing_linear(start, end, pct):
        return (end - start) * pct + start

    def get_lr(self):
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"Tried to step {step} times. The specified number of total steps is {self.total_steps}")
        anneal = self._annealing_cos if self._anneal_func_type == "cos" else self._annealing_linear
        lrs = []
        for group in self.optimizer.param_groups:
            begin = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end = phase["end_step"]
                if step <= end or i == len(self._schedule_phases) - 1:
                    pct = (step - begin) / (end - begin)
                    lrs.append(anneal(group[phase["start_lr"]], group[phase["end_lr"]], pct))
                    if self.cycle_momentum:
                        m = anneal(group[phase["start_momentum"]], group[phase["end_momentum"]], pct)
                        if self.use_beta1:
                            group["betas"] = (m, *group["betas"][1:])
                        else:
                            group["momentum"] = m
                    break
                begin = end
        return lrs

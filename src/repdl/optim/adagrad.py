"""Adagrad with lr_decay, initial_accumulator_value, weight decay and
maximize (CONTRACT.md, "Optimizers")."""
import torch

from .._scalar import fl32
from .optimizer import (ReproducibleOptimizer, apply_kernel,
                        params_with_grad, run_closure, scalar, state, step_count)

__all__ = ["Adagrad"]


class Adagrad(ReproducibleOptimizer, torch.optim.Adagrad):
    """torch.optim.Adagrad whose step t is the contract's float32 sequence:

        g = -grad if maximize else grad
        g = g + weight_decay * p             (if weight_decay != 0)
        s = s + g * g
        p = p - clr * (g / (sqrt(s) + eps))

    each operation rounded once to float32, with clr = lr / (1 + (t - 1) *
    lr_decay) computed in float64 and rounded once."""

    @torch.no_grad()
    def step(self, closure=None):
        loss = run_closure(closure)
        for group in self.param_groups:
            lr, lr_decay = scalar(group["lr"]), scalar(group["lr_decay"])
            fixed = dict(sign=-1.0 if group["maximize"] else 1.0, weight_decay=fl32(scalar(group["weight_decay"])),
                         eps=fl32(scalar(group["eps"])))
            for p in params_with_grad(self, group):
                t = step_count(self, p)
                total = state(self, p, "sum", scalar(group["initial_accumulator_value"]))
                apply_kernel("adagrad_step", p, p.grad, [total], clr=fl32(lr / (1.0 + (t - 1) * lr_decay)), **fixed)
        return loss

"""Adam and AdamW, with amsgrad, weight decay and maximize (CONTRACT.md,
"Optimizers")."""
import math

import torch

from .._float64 import powi
from .._scalar import fl32
from .optimizer import (ReproducibleOptimizer, apply_kernel,
                        params_with_grad, run_closure, scalar, state, step_count)

__all__ = ["Adam", "AdamW"]


def _adam_step(self, closure=None):
    """One step of every parameter with a gradient: per parameter, the
    float64 scalars of step t, rounded to float32, then the kernel."""
    loss = run_closure(closure)
    for group in self.param_groups:
        lr, wd = scalar(group["lr"]), scalar(group["weight_decay"])
        beta1, beta2 = (scalar(b) for b in group["betas"])
        decoupled = bool(group.get("decoupled_weight_decay", False)) or isinstance(self, torch.optim.AdamW)
        fixed = dict(sign=-1.0 if group["maximize"] else 1.0, weight_decay=fl32(wd), decoupled=decoupled,
                     decay=fl32(1.0 - lr * wd), beta1=fl32(beta1), beta1_c=fl32(1.0 - beta1), beta2=fl32(beta2),
                     beta2_c=fl32(1.0 - beta2), eps=fl32(scalar(group["eps"])))
        for p in params_with_grad(self, group):
            t = step_count(self, p)
            states = [state(self, p, "exp_avg"), state(self, p, "exp_avg_sq"),
                      state(self, p, "max_exp_avg_sq") if group["amsgrad"] else None]
            apply_kernel("adam_step", p, p.grad, states, step_size=fl32(lr / (1.0 - powi(beta1, t))),
                        bias2_sqrt=fl32(math.sqrt(1.0 - powi(beta2, t))), **fixed)
    return loss


class Adam(ReproducibleOptimizer, torch.optim.Adam):
    """torch.optim.Adam whose step t is the contract's float32 sequence:

        g = -grad if maximize else grad
        p = p * (1 - lr * weight_decay)    (decoupled_weight_decay, if weight_decay != 0)
        g = g + weight_decay * p           (otherwise, if weight_decay != 0)
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * (g * g)
        v_max = max(v_max, v), used for v  (amsgrad)
        p = p - step_size * (m / (sqrt(v) / bias2_sqrt + eps))

    each operation rounded once to float32, with step_size = lr / (1 -
    beta1^t) and bias2_sqrt = sqrt(1 - beta2^t) computed in float64 (powers
    by squaring) and rounded to float32 once, as is every coefficient."""

    step = torch.no_grad()(_adam_step)


class AdamW(ReproducibleOptimizer, torch.optim.AdamW):
    """torch.optim.AdamW: Adam's step with the decoupled weight decay
    p = p * (1 - lr * weight_decay) first (see Adam)."""

    step = torch.no_grad()(_adam_step)

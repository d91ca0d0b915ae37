"""RMSprop with alpha, momentum, centered, weight decay and maximize
(CONTRACT.md, "Optimizers")."""
import torch

from .._scalar import fl32
from .optimizer import (ReproducibleOptimizer, apply_kernel,
                        params_with_grad, run_closure, scalar, state, step_count)

__all__ = ["RMSprop"]


class RMSprop(ReproducibleOptimizer, torch.optim.RMSprop):
    """torch.optim.RMSprop whose step is the contract's float32 sequence:

        g = -grad if maximize else grad
        g = g + weight_decay * p                 (if weight_decay != 0)
        v = alpha * v + (1 - alpha) * (g * g)
        a = alpha * a + (1 - alpha) * g          (centered)
        d = sqrt(v - a * a) or sqrt(v), then d + eps
        b = momentum * b + g / d; p = p - lr * b (momentum > 0)
        p = p - lr * (g / d)                     (otherwise)

    each operation rounded once to float32."""

    @torch.no_grad()
    def step(self, closure=None):
        loss = run_closure(closure)
        for group in self.param_groups:
            alpha, momentum = scalar(group["alpha"]), scalar(group["momentum"])
            scalars = dict(sign=-1.0 if group["maximize"] else 1.0, weight_decay=fl32(scalar(group["weight_decay"])),
                           lr=fl32(scalar(group["lr"])), alpha=fl32(alpha), alpha_c=fl32(1.0 - alpha),
                           eps=fl32(scalar(group["eps"])), momentum=fl32(momentum))
            for p in params_with_grad(self, group):
                step_count(self, p)
                states = [state(self, p, "square_avg"), state(self, p, "grad_avg") if group["centered"] else None,
                          state(self, p, "momentum_buffer") if momentum > 0 else None]
                apply_kernel("rmsprop_step", p, p.grad, states, **scalars)
        return loss

"""SGD with momentum, dampening, Nesterov, weight decay and maximize
(CONTRACT.md, "Optimizers")."""
import torch

from .._scalar import fl32
from .optimizer import ReproducibleOptimizer, apply_kernel, params_with_grad, run_closure, scalar, state

__all__ = ["SGD"]


class SGD(ReproducibleOptimizer, torch.optim.SGD):
    """torch.optim.SGD whose step is the contract's float32 sequence:

        g = -grad if maximize else grad
        g = g + weight_decay * p                     (if weight_decay != 0)
        b = g (first step) or momentum * b + (1 - dampening) * g
        g = g + momentum * b (nesterov) or b         (if momentum != 0)
        p = p - lr * g

    each operation rounded once to float32, with every hyperparameter
    rounded to float32 once."""

    @torch.no_grad()
    def step(self, closure=None):
        loss = run_closure(closure)
        for group in self.param_groups:
            momentum = scalar(group["momentum"])
            scalars = dict(sign=-1.0 if group["maximize"] else 1.0, weight_decay=fl32(scalar(group["weight_decay"])),
                           lr=fl32(scalar(group["lr"])), momentum=fl32(momentum),
                           dampening_c=fl32(1.0 - scalar(group["dampening"])), nesterov=bool(group["nesterov"]))
            for p in params_with_grad(self, group):
                buf, first = None, False
                if momentum != 0:
                    first = self.state[p].get("momentum_buffer") is None
                    if first:  # the kernel writes it: b = g
                        self.state[p].pop("momentum_buffer", None)
                    buf = state(self, p, "momentum_buffer")
                apply_kernel("sgd_step", p, p.grad, [buf], first=first, **scalars)
        return loss

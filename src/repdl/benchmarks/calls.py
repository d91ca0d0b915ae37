"""The per-call cost of small ops: 8-element tensors, where a kernel's
work is nothing and what is timed is the Python, dispatch and allocation
around it.  Issue 14's targets are differences, not ratios: at most 2 us
above torch for an eager call, 8 us for a call that records autograd.
Used by bench/bench_calls.py and `repdl bench --suite calls`."""
import torch
import torch.nn.functional as F

import repdl
import repdl.nn.functional as RF


def call_cases():
    """(case name, torch call, RepDL call), each a function of no arguments."""
    g = repdl.random.Generator(11)
    x, y = repdl.random.randn(8, generator=g), repdl.random.randn(8, generator=g)
    m = repdl.random.randn(2, 4, generator=g)
    row = repdl.random.randn(4, generator=g)
    a, b = repdl.random.randn(2, 2, generator=g), repdl.random.randn(2, 2, generator=g)
    w, bias = repdl.random.randn(3, 4, generator=g), repdl.random.randn(3, generator=g)
    yield "add", (lambda: torch.add(x, y)), (lambda: repdl.add(x, y))
    yield "add, broadcast (2, 4) + (4,)", (lambda: torch.add(m, row)), (lambda: repdl.add(m, row))
    yield "mul by a number", (lambda: torch.mul(x, 0.5)), (lambda: repdl.mul(x, 0.5))
    yield "exp", (lambda: torch.exp(x)), (lambda: repdl.exp(x))
    yield "sum", (lambda: torch.sum(x)), (lambda: repdl.sum(x))
    yield "mean over dim 1 of (2, 4)", (lambda: torch.mean(m, 1)), (lambda: repdl.mean(m, 1))
    yield "mm 2x2", (lambda: torch.mm(a, b)), (lambda: repdl.mm(a, b))
    yield "softmax (2, 4)", (lambda: torch.softmax(m, -1)), (lambda: repdl.softmax(m, -1))
    yield "layer_norm (2, 4)", (lambda: F.layer_norm(m, (4,))), (lambda: RF.layer_norm(m, (4,)))
    yield "linear (2, 4) -> 3", (lambda: F.linear(m, w, bias)), (lambda: RF.linear(m, w, bias))
    target = torch.tensor([1, 3])
    yield "cross_entropy (2, 4)", (lambda: F.cross_entropy(m, target)), (lambda: RF.cross_entropy(m, target))
    xg = x.detach().requires_grad_()
    yield "mul, recording autograd", (lambda: torch.mul(xg, xg)), (lambda: repdl.mul(xg, xg))
    yield "exp, recording autograd", (lambda: torch.exp(xg)), (lambda: repdl.exp(xg))
    mg = m.detach().requires_grad_()
    yield "softmax, recording autograd", (lambda: torch.softmax(mg, -1)), (lambda: repdl.softmax(mg, -1))
    yield "cross_entropy, recording autograd", (lambda: F.cross_entropy(mg, target)), \
        (lambda: RF.cross_entropy(mg, target))

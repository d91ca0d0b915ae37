"""Where training runs: the correctly rounded functions and the softmax
family on tensors of a layer's size, which stay in L2, beside one size
from memory, forward and forward plus backward.  16M-element runs are
bandwidth-bound on a 2-core machine and hide a kernel's cost; these do not.
Used by bench/bench_in_cache.py and `repdl bench --suite in-cache`."""
import torch

import repdl
from repdl.benchmarks.elementwise import FUNCTIONS, domain, pair
from repdl.benchmarks.layers import fwd_bwd

SIZES = (8192, 65536, 524288, 1 << 24)
# The attention shapes and a classifier's, 4 MB and 16 MB a tensor,
# one layer's attention at 512 KB a tensor, whose input, gradient and
# output stay in a 2 MB L2: there softmax's backward is bound by its
# sequential fmachains, where from memory the bandwidth hides them; and
# lines of 16 (1 MB), where each line's own steps, not its elements, take
# the time.
SOFTMAX_SHAPES = ((64, 128, 128), (16, 512, 512), (4096, 1000), (8, 128, 128), (16384, 16))
SOFTMAX_FAMILY = ("softmax", "log_softmax", "cross_entropy")
# Attention scores under a causal mask, as a hand-written attention forms
# them (masked_fill with -inf above the diagonal): half of every line is
# -inf, whose exponentials are rescued in whole blocks (elementwise.md).
CAUSAL_SHAPE = (64, 128, 128)


def _with_backward(fn, x, grad_output=None):
    """fn(x) and its gradient, x a fresh leaf (layers.fwd_bwd)."""
    return fwd_bwd(fn, (x.detach().requires_grad_(),), grad_output)


def elementwise_cases(sizes=SIZES, names=FUNCTIONS, backward=True):
    """(case name, torch step, RepDL step) per function, size and pass."""
    for n in sizes:
        x0 = repdl.random.randn(n, generator=repdl.random.Generator(n))
        for name in names:
            x = domain(name, x0)
            tf, rf = pair(name)
            yield f"{name} {_size(n)}", (lambda f=tf, x=x: f(x)), (lambda f=rf, x=x: f(x))
            if backward:
                yield f"{name} {_size(n)} +backward", _with_backward(tf, x), _with_backward(rf, x)


def softmax_cases(shapes=SOFTMAX_SHAPES, backward=True, names=SOFTMAX_FAMILY):
    F = torch.nn.functional
    inputs = [(repdl.random.randn(*shape, generator=repdl.random.Generator(sum(shape))), shape_label(shape))
              for shape in shapes]
    inputs.append((causal_scores(float("-inf")), shape_label(CAUSAL_SHAPE) + " causal"))
    for x, label in inputs:
        for name, tf, rf in (("softmax", lambda t: F.softmax(t, -1), lambda t: repdl.softmax(t, -1)),
                             ("log_softmax", lambda t: F.log_softmax(t, -1), lambda t: repdl.log_softmax(t, -1))):
            if name not in names:
                continue
            yield f"{name} {label}", (lambda f=tf, x=x: f(x)), (lambda f=rf, x=x: f(x))
            if backward:
                # A gradient of ones is degenerate here: softmax's is then y (1 - sum y), with
                # 1 - sum y near 2^-24, and its products subnormal (microcode assists on Zen 4,
                # for torch too: 64x128x128 took 7x the forward's time).
                g = repdl.random.randn(*x.shape, generator=repdl.random.Generator(8))
                yield f"{name} {label} +backward", _with_backward(tf, x, g), _with_backward(rf, x, g)
    if "cross_entropy" not in names:
        return
    logits = repdl.random.randn(4096, 1000, generator=repdl.random.Generator(5))
    target = repdl.random.randint(0, 1000, (4096,), generator=repdl.random.Generator(6))
    yield "cross_entropy 4096x1000", (lambda: F.cross_entropy(logits, target)), \
        (lambda: repdl.cross_entropy(logits, target))
    if backward:
        yield "cross_entropy 4096x1000 +backward", _with_backward(lambda t: F.cross_entropy(t, target), logits), \
            _with_backward(lambda t: repdl.cross_entropy(t, target), logits)


def causal_scores(fill=None):
    """Attention scores of CAUSAL_SHAPE from repdl.random, with `fill` above
    the diagonal (None: unmasked)."""
    scores = repdl.random.randn(*CAUSAL_SHAPE, generator=repdl.random.Generator(7))
    if fill is None:
        return scores
    return scores.masked_fill(torch.ones(CAUSAL_SHAPE[-2:], dtype=torch.bool).triu(1), fill)


def shape_label(shape):
    """'64x128x128' for (64, 128, 128)."""
    return "x".join(map(str, shape))


def _size(n):
    return f"{n // (1 << 20)}M" if n >= 1 << 20 else f"{n // 1024}K"

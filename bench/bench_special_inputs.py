"""The correctly rounded functions on the inputs that reach their slow paths:
special values and tails that come in whole tensors (a causal mask's -inf,
zero padding, NaN, logits far out, subnormals), against the same function
on random inputs and against torch on the same inputs.  A fast path sends
the lanes it cannot settle to the float64 path one at a time, which costs
10-30 times a block's share; the rescue of hard blocks (docs/elementwise.md)
settles most of these in whole blocks.  64K elements (in cache), 1 thread.

    python bench/bench_special_inputs.py [NAME ...] [--size 65536] [--threads 1]

Columns per input: RepDL's time relative to its own time on randn * 3
(1.0: the input costs nothing extra), then torch/RepDL on that input.
"""
import argparse

import torch

import repdl
from repdl.benchmarks.elementwise import FUNCTIONS, pair
from repdl.benchmarks.in_cache import CAUSAL_SHAPE, causal_scores, shape_label
from repdl.benchmarks.timing import best_time, compare

# The functions with a fast path in front of their float64 evaluation
# (row_simd.inc's FastPath): the ones whose cost depends on the input.
FAST = ["exp", "exp2", "log", "log2", "log10", "log1p", "rsqrt", "tanh", "sigmoid", "logsigmoid", "softplus", "silu",
        "gelu_tanh", "erf", "erfc", "gelu", "sin", "cos"]


def inputs(n):
    """(label, tensor) pairs, each from repdl.random (reproducible bits)."""
    r = repdl.random.randn(n, generator=repdl.random.Generator(1))
    return [("randn*3", r * 3), ("zeros", torch.zeros(n)), ("randn*1e-3", r * 1e-3), ("randn*50", r * 50),
            ("+-1e30", r.sign() * 1e30), ("negative", -(r.abs() + 0.1)),
            ("half -inf", r.masked_fill(r > 0, float("-inf"))),
            ("NaN", torch.full((n,), float("nan"))), ("subnormal", r * 1e-40)]


def softmax_rows():
    """Causal-masked attention scores through softmax, as a hand-written
    attention forms them, and scores spread by more than 87 (a peaked
    softmax, whose smaller exponentials fall below 2^-126), against the
    same scores unmasked."""
    x = causal_scores()
    t_plain = best_time(lambda: repdl.softmax(x, -1), 3)
    masked = (("causal -inf", causal_scores(float("-inf"))), ("causal -1e9", causal_scores(-1e9)))
    for label, v in (("random", x), *masked, ("spread x50", x * 50)):
        _, t_repdl, ratio = compare(lambda v=v: torch.softmax(v, -1), lambda v=v: repdl.softmax(v, -1), rounds=3)
        print(f"softmax {shape_label(CAUSAL_SHAPE)} {label:<12} {t_repdl / t_plain:6.2f}x own random, "
              f"torch/RepDL {ratio:.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", default=FAST, help=f"any of {', '.join(FUNCTIONS)}")
    parser.add_argument("--size", type=int, default=65536)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    unknown = [n for n in args.names if n not in FUNCTIONS]
    if unknown:
        parser.error(f"unknown {', '.join(unknown)}; choose from {', '.join(FUNCTIONS)}")
    torch.set_num_threads(args.threads)
    cases = inputs(args.size)
    print(f"# {args.size} elements, {args.threads} thread(s), isa {repdl.isa()}, torch {torch.__version__}")
    print("# per input: RepDL time / its time on randn*3, then (torch/RepDL)")
    print(f"{'function':<11}" + "".join(f"{label:>17}" for label, _ in cases))
    for name in args.names:
        theirs, ours = pair(name)
        base = best_time(lambda f=ours: f(cases[0][1]), 3)
        cells = []
        for _, x in cases:
            _, t_repdl, ratio = compare(lambda f=theirs, x=x: f(x), lambda f=ours, x=x: f(x), rounds=2)
            cells.append(f"{t_repdl / base:8.2f} ({ratio:5.2f})")
        print(f"{name:<11}" + "".join(f"{c:>17}" for c in cells))
    softmax_rows()


if __name__ == "__main__":
    main()

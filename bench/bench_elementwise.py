"""Correctly rounded elementwise functions vs the matching torch float32
function, 16M elements, as throughput ratios measured side by side in one
process (ratio = torch time / repdl time; target >= 0.5, goal 1).

Inputs: standard normal values mapped into each function's natural domain
(|x| for the logs, sqrt and rsqrt, |x| - 0.5 for log1p, 10 x for sin and
cos).  Each call allocates its output, for torch as for RepDL.

    python bench/bench_elementwise.py [--threads 2] [--n 16777216] [--float64]

--float64 adds the plain float64 route through PyTorch (x.double() -> f ->
.float()) that the C++ path must beat.
"""
import argparse

import torch

import repdl
from repdl.benchmarks.timing import compare, header, row

FUNCTIONS = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal", "sin", "cos",
             "erf", "erfc", "gelu", "gelu_tanh"]

# Functions that are not torch.<name> / repdl.<name>.
TORCH = {"gelu": torch.nn.functional.gelu,
         "gelu_tanh": lambda t: torch.nn.functional.gelu(t, approximate="tanh")}
REPDL = {"gelu_tanh": lambda t: repdl.gelu(t, approximate="tanh")}
FUNCTIONS += ["tanh", "sigmoid", "logsigmoid", "softplus", "silu", "mish", "elu", "selu", "celu"]
TORCH.update({name: getattr(torch.nn.functional, name) for name in ("logsigmoid", "softplus", "silu", "mish", "elu",
                                                                    "selu", "celu")})
# Parametrised activations off their defaults (the contract's fixed sequences).
PARAMETRISED = [("softplus", dict(beta=2.0, threshold=10.0)), ("elu", dict(alpha=0.5)), ("celu", dict(alpha=2.0))]


def domain(name, x):
    if name in ("log", "log2", "log10", "sqrt", "rsqrt"):
        return x.abs()
    if name == "log1p":
        return x.abs() - 0.5
    if name in ("sin", "cos"):
        return x * 10
    return x


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--n", type=int, default=1 << 24)
    parser.add_argument("--float64", action="store_true", help="also time torch's float64 route")
    parser.add_argument("names", nargs="*", default=FUNCTIONS)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    header(f"elementwise, {args.n} elements, isa {repdl.isa()}")
    x0 = torch.randn(args.n, generator=torch.Generator().manual_seed(0))
    worst = float("inf")
    for name in args.names:
        x = domain(name, x0)
        tf, rf = TORCH.get(name) or getattr(torch, name), REPDL.get(name) or getattr(repdl, name)
        t_torch, t_repdl, ratio = compare(lambda: tf(x), lambda: rf(x))
        extra = f"{args.n / t_repdl / 1e9:.2f} Gelem/s"
        if args.float64:
            t64 = compare(lambda: tf(x.double()).float(), lambda: rf(x), rounds=2)[0]
            extra += f"  (torch float64 route {t64 * 1e3:.1f} ms, repdl x{t64 / t_repdl:.1f} faster)"
        row(name, t_torch, t_repdl, ratio, extra)
        worst = min(worst, ratio)
    for name, kw in PARAMETRISED:
        if name in args.names:
            tf, rf = TORCH[name], getattr(repdl, name)
            t_torch, t_repdl, ratio = compare(lambda: tf(x0, **kw), lambda: rf(x0, **kw))
            row(f"{name}({', '.join(f'{k}={v}' for k, v in kw.items())})", t_torch, t_repdl, ratio)
    a, b = torch.randn(args.n), torch.randn(args.n) + 3
    t_torch, t_repdl, ratio = compare(lambda: torch.div(a, b), lambda: repdl.div(a, b))
    row("div", t_torch, t_repdl, ratio)
    t_torch, t_repdl, ratio = compare(lambda: torch.pow(a, 3), lambda: repdl.pow(a, 3))
    row("pow (n = 3)", t_torch, t_repdl, ratio)
    print(f"# lowest unary ratio: {worst:.2f} (target 0.5)")


if __name__ == "__main__":
    main()

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
from repdl.benchmarks.elementwise import FUNCTIONS, PARAMETRISED, TORCH, domain, pair
from repdl.benchmarks.timing import compare, header, row


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
        tf, rf = pair(name)
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

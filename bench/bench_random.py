"""RepDL's random numbers vs torch's, 16M float32 values, as throughput
ratios measured side by side in one process (ratio = torch time / repdl
time; target for randn >= 0.5).  Each call allocates its output, for torch
as for RepDL.

    python bench/bench_random.py [--threads 2] [--n 16777216] [--all]

--all adds randint, randperm (n/16), bernoulli, dropout, uniform_, normal_
and trunc_normal_ (no target; for the record).  Also prints the isa row and
the reference path's speed on 1M values (the path every non-CPU device
takes until a GPU kernel exists).
"""
import argparse
import time

import torch
import torch.nn.functional as F

import repdl
import repdl.random as rr
from repdl.benchmarks.timing import compare, header, row


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--n", type=int, default=1 << 24)
    parser.add_argument("--all", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    n = args.n
    header(f"random, {n} elements, isa {repdl.isa()}")
    tg, rg = torch.Generator().manual_seed(0), rr.Generator(0)
    cases = [
        ("rand", lambda: torch.rand(n, generator=tg), lambda: rr.rand(n, generator=rg)),
        ("randn", lambda: torch.randn(n, generator=tg), lambda: rr.randn(n, generator=rg)),
    ]
    if args.all:
        x = torch.randn(n)
        p = torch.rand(n)
        buf_t, buf_r = torch.empty(n), torch.empty(n)
        m = n // 16
        cases += [
            ("randint [0, 1000)", lambda: torch.randint(0, 1000, (n,), generator=tg),
             lambda: rr.randint(0, 1000, (n,), generator=rg)),
            (f"randperm ({m})", lambda: torch.randperm(m, generator=tg), lambda: rr.randperm(m, generator=rg)),
            ("bernoulli (tensor p)", lambda: torch.bernoulli(p, generator=tg), lambda: rr.bernoulli(p, generator=rg)),
            ("dropout p=0.1", lambda: F.dropout(x, 0.1), lambda: rr.dropout(x, 0.1, generator=rg)),
            ("uniform_", lambda: buf_t.uniform_(-1, 1, generator=tg), lambda: rr.uniform_(buf_r, -1, 1, generator=rg)),
            ("normal_", lambda: buf_t.normal_(0, 0.02, generator=tg), lambda: rr.normal_(buf_r, 0, 0.02, generator=rg)),
            ("trunc_normal_", lambda: torch.nn.init.trunc_normal_(buf_t, std=0.02, generator=tg),
             lambda: rr.trunc_normal_(buf_r, std=0.02, generator=rg)),
        ]
    ratios = {}
    for name, tf, rf in cases:
        t_torch, t_repdl, ratio = compare(tf, rf)
        row(name, t_torch, t_repdl, ratio, f"{n / t_repdl / 1e9:.2f} Gelem/s")
        ratios[name] = ratio
    with repdl.backends.use("reference"):
        k = 1 << 20
        rr.randn(4, generator=rg)  # first use loads the elementwise hard-case tables
        t = time.perf_counter()
        rr.randn(k, generator=rg)
        print(f"# reference path (any device): randn of {k} values in {time.perf_counter() - t:.2f} s")
    print(f"# rand ratio {ratios['rand']:.2f}, randn ratio {ratios['randn']:.2f} (target >= 0.5)")


if __name__ == "__main__":
    main()

"""repdl.mm vs torch.mm (MKL), float32, as throughput ratios measured side by
side in one process.  Target: >= 0.9 at every shape with 2 threads.

    python bench/bench_gemm.py [--threads 2]
"""
import argparse

import torch

import repdl
from repdl.benchmarks.timing import compare, header, row

SQUARE = [256, 512, 1024, 2048]
LAYERS = [(4096, 3072, 768), (8192, 64, 1024), (128, 4096, 4096), (100, 120, 400)]
EXTRA = [(1, 4096, 4096), (4096, 1, 4096), (64, 64, 64)]  # gemv shapes and a tiny one


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--extra", action="store_true", help="also gemv-like and tiny shapes")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    header(f"mm, isa {repdl.isa()}")
    shapes = [(n, n, n) for n in SQUARE] + LAYERS + (EXTRA if args.extra else [])
    for m, n, k in shapes:
        a, b = torch.randn(m, k), torch.randn(k, n)
        t_torch, t_repdl, ratio = compare(lambda: torch.mm(a, b), lambda: repdl.mm(a, b))
        gflops = 2 * m * n * k / t_repdl / 1e9
        row(f"mm {m}x{n}x{k}", t_torch, t_repdl, ratio, f"{gflops:.0f} GFLOP/s")
    x, w = torch.randn(512, 768), torch.randn(3072, 768)
    t_torch, t_repdl, ratio = compare(lambda: torch.nn.functional.linear(x, w), lambda: repdl.linear(x, w))
    row("linear 512x768 -> 3072", t_torch, t_repdl, ratio)


if __name__ == "__main__":
    main()

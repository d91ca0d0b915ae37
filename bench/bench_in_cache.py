"""Correctly rounded functions and the softmax family where training runs
them: 8K, 64K and 512K elements (in L2) and 16M (from memory), forward and
forward plus backward, at 1 and 2 threads, as throughput ratios measured
side by side in one process (torch time / RepDL time).  Issue 14's targets
are ratios in cache.

    python bench/bench_in_cache.py [--threads 1 2] [--sizes 8192 65536] [--no-backward] [NAME ...]
"""
import argparse

import torch

import repdl
from repdl.benchmarks.elementwise import FUNCTIONS
from repdl.benchmarks.in_cache import SIZES, SOFTMAX_FAMILY, elementwise_cases, softmax_cases
from repdl.benchmarks.timing import compare, header, row


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--no-backward", action="store_true")
    choices = [*FUNCTIONS, *SOFTMAX_FAMILY]
    parser.add_argument("names", nargs="*", default=choices, help=f"any of {', '.join(choices)} (default: all)")
    args = parser.parse_args()
    unknown = [n for n in args.names if n not in choices]
    if unknown:
        parser.error(f"unknown {', '.join(unknown)}; choose from {', '.join(choices)}")
    backward = not args.no_backward
    functions = [n for n in args.names if n in FUNCTIONS]
    family = [n for n in args.names if n in SOFTMAX_FAMILY]
    for threads in args.threads:
        torch.set_num_threads(threads)
        header(f"in cache and from memory, isa {repdl.isa()}")
        for name, theirs, ours in [*elementwise_cases(args.sizes, functions, backward), *softmax_cases(
                backward=backward, names=family)]:
            row(name, *compare(theirs, ours, rounds=3, repeats=2))


if __name__ == "__main__":
    main()

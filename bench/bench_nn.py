"""Layers forward plus backward against torch.nn (oneDNN/MKL), as
throughput ratios measured side by side in one process (torch time / RepDL
time; above 1 means RepDL is faster).  Targets (2 threads): conv2d on
(32, 64, 56, 56) 3x3 >= 0.7; linear at transformer sizes >= 0.9;
layer_norm, softmax and scaled_dot_product_attention >= 0.5.  The
per-call cost of small ops is bench/bench_calls.py's.

    python bench/bench_nn.py [--threads 2] [--quick]
"""
import argparse

import torch

import repdl
from repdl.benchmarks.layers import conv_cases, layer_cases
from repdl.benchmarks.timing import compare, header, row


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="smaller batches (a smoke run)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    header(f"layers forward + backward, isa {repdl.isa()}")
    for name, theirs, ours in [*conv_cases(args.quick), *layer_cases(args.quick)]:
        row(name, *compare(theirs, ours, rounds=3 if not args.quick else 1, repeats=2))


if __name__ == "__main__":
    main()

"""Whole training steps (forward, backward, optimizer) against plain PyTorch,
and optimizer steps alone, as ratios measured side by side in one process
(torch time / RepDL time; above 1 means RepDL is faster).  Targets (2
threads): LeNet-5 at batch 100, a three-stage CNN with batch norm at batch
32 x 3 x 32 x 32, and a 4-layer, d=256, 4-head transformer at batch 16 x
128 within 1.5x torch's time (ratio >= 0.67; goal 0.83); an
optimizer step over 10M parameters >= 0.5x torch.optim's foreach path.
``--profile`` breaks RepDL's step down by where the time goes.

    python bench/bench_training.py [--threads 2] [--quick] [--profile]
"""
import argparse

import torch

import repdl
from repdl.benchmarks.timing import compare, header, row
from repdl.benchmarks.training import (batchnorm_cnn_case, groupnorm_cnn_case, lenet_case, optimizer_case, profile,
                                       transformer_case)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="smaller batches (a smoke run)")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    header(f"training steps, isa {repdl.isa()}")
    rounds = 1 if args.quick else 3
    for name, (theirs, ours) in (("LeNet-5, batch 100, SGD", lenet_case(args.quick)),
                                 ("CNN with BatchNorm2d, 32x3x32x32, SGD", batchnorm_cnn_case(args.quick)),
                                 ("CNN with GroupNorm and SiLU, 32x3x32x32, SGD", groupnorm_cnn_case(args.quick)),
                                 ("transformer 4x256, 16x128, AdamW", transformer_case(args.quick))):
        row(name, *compare(theirs, ours, rounds=rounds, repeats=2))
        if args.profile:
            profile(ours)
    for name, kwargs in (("Adam", dict(lr=1e-3)), ("AdamW", dict(lr=1e-3)), ("SGD", dict(lr=0.1, momentum=0.9))):
        theirs, ours = optimizer_case(name, args.quick, **kwargs)
        row(f"{name} step, 10M parameters", *compare(theirs, ours, rounds=rounds, repeats=2))


if __name__ == "__main__":
    main()

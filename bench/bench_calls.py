"""The per-call cost of small ops (8 elements, 1 thread): torch's time per
call, RepDL's, and how far RepDL's is above torch's, measured side by side
in one process.  Targets (issue 14): at most +2 us for an eager call, +8 us
for a call that records autograd.

    python bench/bench_calls.py [--rounds 5]
"""
import argparse

import torch

import repdl
from repdl.benchmarks.calls import call_cases
from repdl.benchmarks.timing import above, compare, header, row


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    torch.set_num_threads(1)
    header(f"per call, 8 elements, isa {repdl.isa()}")
    for name, theirs, ours in call_cases():
        t_torch, t_repdl, ratio = compare(theirs, ours, rounds=args.rounds, repeats=3)
        row(name, t_torch, t_repdl, ratio, above(t_torch, t_repdl))


if __name__ == "__main__":
    main()

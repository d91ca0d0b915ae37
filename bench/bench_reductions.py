"""Reductions and softmax vs torch, ratios measured side by side (target
>= 0.5, goal parity).  A full-tensor sequential sum is one chain: on terms
that cancel around zero (randn) it waits on every add, and is shown for
information next to the pairwise variant, which exists for exactly that
case; on positive terms (a loss's squares, a softmax's exponentials) most
of it is summed on the sum's grid (docs/reductions.md), and so is one
softmax line of a million floats.

    python bench/bench_reductions.py [--threads 2]
"""
import argparse

import torch
import torch.nn.functional as F

import repdl
from repdl.benchmarks.timing import compare, header, row


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    header(f"reductions, isa {repdl.isa()}")
    x = torch.randn(4096, 4096)
    sq = x * x
    cases = [
        ("sum dim 0 (4096x4096)", lambda: torch.sum(x, 0), lambda: repdl.sum(x, 0)),
        ("sum dim 1 (4096x4096)", lambda: torch.sum(x, 1), lambda: repdl.sum(x, 1)),
        ("sum_pairwise dim 0", lambda: torch.sum(x, 0), lambda: repdl.sum_pairwise(x, 0)),
        ("sum_pairwise dim 1", lambda: torch.sum(x, 1), lambda: repdl.sum_pairwise(x, 1)),
        ("sum_pairwise all", lambda: torch.sum(x), lambda: repdl.sum_pairwise(x)),
        ("sum all (one chain)", lambda: torch.sum(x), lambda: repdl.sum(x)),
        ("sum all, positive terms", lambda: torch.sum(sq), lambda: repdl.sum(sq)),
        ("mean all, positive terms", lambda: torch.mean(sq), lambda: repdl.mean(sq)),
        ("mean dim 1", lambda: torch.mean(x, 1), lambda: repdl.mean(x, 1)),
        ("var dim 0", lambda: torch.var(x, 0), lambda: repdl.var(x, 0)),
        ("var dim 1", lambda: torch.var(x, 1), lambda: repdl.var(x, 1)),
        ("var all (one line)", lambda: torch.var(x), lambda: repdl.var(x)),
        ("max dim 0", lambda: torch.max(x, 0), lambda: repdl.max(x, 0)),
        ("max dim 1", lambda: torch.max(x, 1), lambda: repdl.max(x, 1)),
        ("argmax dim 1", lambda: torch.argmax(x, 1), lambda: repdl.argmax(x, 1)),
    ]
    s = torch.randn(4096, 1000)
    t = torch.randint(0, 1000, (4096,))
    line = torch.randn(1 << 20)
    cases += [
        ("softmax (4096x1000) dim 1", lambda: torch.softmax(s, 1), lambda: repdl.softmax(s, 1)),
        ("log_softmax (4096x1000) dim 1", lambda: torch.log_softmax(s, 1), lambda: repdl.log_softmax(s, 1)),
        ("softmax (4096x1000) dim 0", lambda: torch.softmax(s, 0), lambda: repdl.softmax(s, 0)),
        ("logsumexp (4096x1000) dim 1", lambda: torch.logsumexp(s, 1), lambda: repdl.logsumexp(s, 1)),
        ("cross_entropy (4096x1000)", lambda: F.cross_entropy(s, t), lambda: repdl.cross_entropy(s, t)),
        ("softmax, one line of 2^20", lambda: torch.softmax(line, 0), lambda: repdl.softmax(line, 0)),
    ]
    for name, theirs, ours in cases:
        row(name, *compare(theirs, ours))


if __name__ == "__main__":
    main()

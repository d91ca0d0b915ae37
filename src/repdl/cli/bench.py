"""`repdl bench`: ratios against PyTorch (torch time / RepDL time, above 1
means RepDL is faster) for the main ops and for whole training steps, from
the cases in repdl.benchmarks (the same code as bench/*.py)."""
import torch

import repdl
from repdl.benchmarks import calls, dropin, in_cache, layers, training
from repdl.benchmarks.timing import above, compare, header, row
from repdl.cli import progress
from repdl.cli.task import CliError


def add_parser(sub):
    p = sub.add_parser("bench", help="time the main ops and training steps against PyTorch",
                       description=__doc__)
    p.add_argument("--threads", type=int, default=torch.get_num_threads(),
                   help=f"intra-op threads (default {torch.get_num_threads()})")
    p.add_argument("--suite", choices=("main", "in-cache", "calls", "dropin"), default="main",
                   help="main: the main ops and training steps (default); in-cache: every correctly rounded "
                        "function at 8K-16M elements and the softmax family, forward and backward; calls: "
                        "the per-call cost of small ops (8 elements; run it with --threads 1); dropin: "
                        "training steps of unmodified models under repdl.reproducible against plain torch")
    p.add_argument("--quick", action="store_true", help="smaller sizes, one round (a smoke run, under a minute)")
    p.add_argument("--only", metavar="TEXT", help="run only the cases whose name contains TEXT")
    p.add_argument("--json", action="store_true", help="print the ratios as JSON instead of the table")
    p.set_defaults(func=run)


def op_cases(quick):
    """mm, a correctly rounded function in cache, softmax."""
    g = repdl.random.Generator(7)
    n = 256 if quick else 1024
    a, b = repdl.random.randn(n, n, generator=g), repdl.random.randn(n, n, generator=g)
    yield f"mm {n}x{n}x{n}", (lambda: torch.mm(a, b)), (lambda: repdl.mm(a, b))
    yield from in_cache.elementwise_cases((65536,), ("exp", "sigmoid", "tanh"), backward=False)
    s = repdl.random.randn(1024 if quick else 4096, 1000, generator=g)
    yield f"softmax {s.shape[0]}x1000", (lambda: torch.softmax(s, 1)), (lambda: repdl.softmax(s, 1))


def main_cases(quick):
    return [*op_cases(quick), *layers.conv_cases(quick), *layers.layer_cases(quick),
            ("LeNet-5 training step, SGD", *training.lenet_case(quick)),
            ("CNN with batch norm training step, SGD", *training.batchnorm_cnn_case(quick)),
            ("CNN with group norm and SiLU training step, SGD", *training.groupnorm_cnn_case(quick)),
            ("transformer training step, AdamW", *training.transformer_case(quick))]


def in_cache_cases(quick):
    sizes = (65536,) if quick else in_cache.SIZES
    shapes = in_cache.SOFTMAX_SHAPES[:1] if quick else in_cache.SOFTMAX_SHAPES
    return [*in_cache.elementwise_cases(sizes), *in_cache.softmax_cases(shapes)]


def calls_cases(quick):
    return list(calls.call_cases())


def dropin_cases(quick):
    return list(dropin.step_cases())


def run(args):
    if args.threads < 1:
        raise CliError(f"--threads must be at least 1, got {args.threads}")
    torch.set_num_threads(args.threads)
    cases = {"main": main_cases, "in-cache": in_cache_cases, "calls": calls_cases,
             "dropin": dropin_cases}[args.suite](args.quick)
    if args.only:
        cases = [c for c in cases if args.only in c[0]]
        if not cases:
            raise CliError(f"no benchmark case matches {args.only!r}")
    rounds = 1 if args.quick else 3
    results = []
    if not args.json:
        header(f"RepDL {repdl.__version__}, isa {repdl.isa()}")
    for name, theirs, ours in progress.iterate(cases, "bench", args.json):
        t_torch, t_repdl, ratio = compare(theirs, ours, rounds=rounds, repeats=2)
        results.append({"case": name, "torch_s": t_torch, "repdl_s": t_repdl, "ratio": ratio})
        if not args.json:
            row(name, t_torch, t_repdl, ratio, above(t_torch, t_repdl) if args.suite == "calls" else "")
    if args.json:
        print(progress.dumps({"threads": args.threads, "isa": repdl.isa(), "torch": torch.__version__,
                              "results": results}))
    return 0

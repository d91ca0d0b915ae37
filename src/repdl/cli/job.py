"""The process that one cell of a verification matrix runs:

    python -m repdl.cli.job [--demo [demo options] | SCRIPT [script args]]

It applies the cell's settings that are not plain environment variables
(REPDL_VERIFY_FLUSH_DENORMAL, REPDL_VERIFY_BACKEND; REPDL_VERIFY_DEVICE is
read by the job through repdl.verify.device()), then runs the demo task or
the user's script as ``__main__``.  Hashes come back through
repdl.verify.report, which appends them to the file REPDL_VERIFY_REPORT
names.
"""
import argparse
import contextlib
import os
import runpy
import sys

import torch

from repdl import backends, verify


def settings():
    """The context in which the job runs, from this cell's variables."""
    if os.environ.get("REPDL_VERIFY_FLUSH_DENORMAL") == "1":
        torch.set_flush_denormal(True)
    backend = os.environ.get("REPDL_VERIFY_BACKEND")
    return backends.use(backend) if backend else contextlib.nullcontext()


def run_demo(argv):
    from repdl.cli import task

    parser = argparse.ArgumentParser(prog="repdl.cli.job --demo")
    parser.add_argument("--framework", choices=sorted(task.FRAMEWORKS), default="repdl")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--steps", type=int, default=None)
    args = parser.parse_args(argv)
    result = task.train(args.framework, args.seed, args.epochs, verify.device(), steps=args.steps)[0]
    for name, value in result.hashes().items():
        verify.report_hash(name, value)
    for name, value in result.metrics().items():
        verify.report_metric(name, value)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    with settings():
        if argv[:1] == ["--demo"]:
            run_demo(argv[1:])
        else:
            sys.argv = argv
            runpy.run_path(argv[0], run_name="__main__")


if __name__ == "__main__":
    main()

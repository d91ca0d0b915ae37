"""The repdl command line: ``repdl <command>`` or ``python -m repdl <command>``.

Commands: demo (the main job), verify (a job across environments and
machines), experiment (the variance study), bench (ratios against PyTorch),
audit (which ops of a script the drop-in mode makes reproducible).
A user error prints one line, ``repdl: error: ...``, and exits with 2.
"""
import argparse
import sys
import warnings


def parser():
    import repdl
    from repdl.cli import audit, bench, demo, experiment, verify

    p = argparse.ArgumentParser(
        prog="repdl", description="Bit-for-bit reproducible float32 training and inference for PyTorch.",
        epilog="Run 'repdl COMMAND --help' for a command's options.")
    p.add_argument("--version", action="version", version=f"repdl {repdl.__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in (demo, verify, experiment, bench, audit):
        module.add_parser(sub)
    return p


def main(argv=None) -> int:
    # torch warns at import when numpy is missing or older than it was built
    # for; the commands do not need numpy, so that warning is noise here.
    warnings.filterwarnings("ignore", message="Failed to initialize NumPy")
    from repdl.cli.task import CliError

    args = parser().parse_args(argv)
    try:
        return args.func(args)
    except CliError as e:
        print(f"repdl: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("repdl: interrupted", file=sys.stderr)
        return 130

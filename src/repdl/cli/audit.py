"""repdl audit SCRIPT: run a script under the drop-in mode (non-strict) and
report every op it met, its class, how often, and where each unsupported
op ran (repdl.audit)."""
import argparse
import json
import runpy
import sys
import traceback

from .task import CliError


def add_parser(sub):
    p = sub.add_parser(
        "audit", help="run a script under repdl.reproducible and report which ops are reproducible",
        description="Run SCRIPT under repdl.reproducible(strict=False): every torch op it calls is rerouted to "
                    "RepDL, checked, or reported. Prints the report (every op seen with its class and count, "
                    "every unsupported op with its call sites) after the script's own output. Exits 0 when every "
                    "op was reproducible, 1 when some were not or the script failed. Options go before SCRIPT; "
                    "whatever follows SCRIPT is passed to it.")
    p.add_argument("script", help="the Python script to run")
    p.add_argument("script_args", nargs=argparse.REMAINDER, help="arguments passed to SCRIPT")
    p.add_argument("--json", action="store_true", help="print the report as JSON instead of the table")
    p.add_argument("--output", metavar="FILE", help="also write the JSON report to FILE")
    p.set_defaults(func=run)


def run(args) -> int:
    from repdl.dropin.audit import recording
    try:
        open(args.script).close()
    except OSError as e:
        raise CliError(f"cannot read {args.script}: {e.strerror}") from None
    failed = False
    saved_argv = sys.argv
    sys.argv = [args.script, *args.script_args]
    try:
        with recording() as report:
            try:
                runpy.run_path(args.script, run_name="__main__")
            except SystemExit as e:
                failed = e.code not in (None, 0)
            except Exception:  # noqa: BLE001  (the script's own failure: shown, then the partial report)
                traceback.print_exc()
                failed = True
    finally:
        sys.argv = saved_argv
    sys.stdout.flush()
    if args.output:
        with open(args.output, "w") as f:
            f.write(report.to_json() + "\n")
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        print(f"\nrepdl audit of {args.script}{' (the script failed; report up to the failure)' if failed else ''}:")
        print(report.table())
    return 1 if failed or not report.reproducible else 0

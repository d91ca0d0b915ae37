"""`repdl verify`: run the demo, or a script that reports hashes through
repdl.verify.report, in a matrix of fresh processes; compare the hashes
across the matrix, and against a golden file recorded on another machine."""
import argparse
import hashlib
import json
import os

from repdl.cli import matrix, progress, task
from repdl.cli.task import CliError

GOLDEN_FORMAT = "repdl-verify-golden-1"


def add_parser(sub):
    p = sub.add_parser(
        "verify", help="run a job in a matrix of environments and compare its hashes",
        description="Run the demo (no SCRIPT) or SCRIPT, which reports hashes with repdl.verify.report(name, obj), "
                    "once per environment variant in a fresh process, with RepDL and, for the demo, with plain "
                    "PyTorch. Exits 1 when RepDL's hashes differ between variants or from a golden file. Options "
                    "go before SCRIPT; whatever follows SCRIPT is passed to it.")
    p.add_argument("script", nargs="?", help="a Python script that calls repdl.verify.report (default: the demo)")
    p.add_argument("script_args", nargs=argparse.REMAINDER, help="arguments passed to SCRIPT")
    p.add_argument("--variants", help="comma-separated variants to run (default: all this machine has; "
                                      "--list-variants shows them)")
    p.add_argument("--list-variants", action="store_true", help="print the variants and exit")
    p.add_argument("--epochs", type=int, default=2, help="demo training epochs per cell (default 2)")
    p.add_argument("--steps", type=int, default=None, help="stop the demo after this many steps (quick checks)")
    p.add_argument("--no-torch", action="store_true", help="skip the demo's plain-PyTorch cells")
    p.add_argument("--report", default="repdl-verify.json", help="where to write the JSON report "
                                                                 "(default repdl-verify.json)")
    golden = p.add_mutually_exclusive_group()
    golden.add_argument("--record", metavar="GOLDEN", help="store RepDL's hashes and this machine's description")
    golden.add_argument("--check", metavar="GOLDEN", help="compare every cell with a recorded golden file")
    p.add_argument("--json", action="store_true", help="print the JSON report instead of the table")
    p.set_defaults(func=run)


def job_of(args):
    """(arguments of repdl.cli.job, the job's identity in reports and golden files)."""
    if args.script is None:
        task.check_length(args.epochs, args.steps)
        job = {"job": "demo", "epochs": args.epochs} | ({} if args.steps is None else {"steps": args.steps})
        return task.job_args(args.epochs, args.steps), job
    path = args.script
    if not os.path.isfile(path):
        raise CliError(f"no such script: {path}")
    with open(path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    return [os.path.abspath(path), *args.script_args], {"job": "script", "name": os.path.basename(path),
                                                         "args": args.script_args, "sha256": digest}


def load_golden(path, job):
    try:
        with open(path) as f:
            golden = json.load(f)
    except FileNotFoundError:
        raise CliError(f"golden file not found: {path}") from None
    except (OSError, ValueError) as e:
        raise CliError(f"golden file {path} is not valid JSON: {e}") from None
    if not isinstance(golden, dict) or golden.get("format") != GOLDEN_FORMAT or \
            not isinstance(golden.get("hashes"), dict) or "job" not in golden:
        raise CliError(f"golden file {path} is not a repdl verify golden file (format {GOLDEN_FORMAT})")
    if golden["job"] != job:
        raise CliError(f"golden file {path} is from another job: {json.dumps(golden['job'])}, "
                       f"this job is {json.dumps(job)}")
    return golden


def digest(hashes):
    """One short name for a cell's whole set of hashes."""
    return hashlib.sha256(json.dumps(hashes, sort_keys=True).encode()).hexdigest()[:16]


def run(args):
    if args.list_variants:
        for v in matrix.variants():
            print(f"{v.name:<16} {v.what}")
        return 0
    job_args, job = job_of(args)
    golden = load_golden(args.check, job) if args.check else None
    chosen = matrix.select(args.variants)
    frameworks = ["repdl"] if job["job"] == "script" or args.no_torch or args.record or args.check \
        else ["repdl", "torch"]
    cells = [(v, fw) for v in chosen for fw in frameworks]
    results = []
    for variant, fw in progress.iterate(cells, "verify", args.json):
        extra = ["--framework", "torch"] if fw == "torch" else []
        cell = matrix.run_cell(job_args, variant, extra)
        results.append({"variant": variant.name, "framework": fw, "hashes": cell.hashes, "metrics": cell.metrics})
    ours = [r for r in results if r["framework"] == "repdl"]
    distinct = {fw: len({digest(r["hashes"]) for r in results if r["framework"] == fw}) for fw in frameworks}
    mismatches = compare_golden(golden, ours) if golden else []
    report = {"job": job, "environment": matrix.environment(), "cells": results,
              "distinct": distinct, "identical": distinct["repdl"] == 1 and not mismatches}
    if golden:
        report["golden"] = {"path": args.check, "environment": golden["environment"], "mismatches": mismatches}
    with open(args.report, "w") as f:
        f.write(progress.dumps(report) + "\n")
    if args.record and report["identical"]:
        with open(args.record, "w") as f:
            f.write(progress.dumps({"format": GOLDEN_FORMAT, "job": job, "environment": report["environment"],
                                    "hashes": ours[0]["hashes"]}) + "\n")
    if args.json:
        print(progress.dumps(report))
    else:
        print_table(report, frameworks, args)
    return 0 if report["identical"] else 1


def compare_golden(golden, ours):
    """Every (variant, name) whose hash differs from the golden file's."""
    out = []
    for r in ours:
        for name in sorted(set(golden["hashes"]) | set(r["hashes"])):
            want, got = golden["hashes"].get(name), r["hashes"].get(name)
            if want != got:
                out.append({"variant": r["variant"], "name": name, "golden": want, "here": got})
    return out


def print_table(report, frameworks, args):
    titles = {"repdl": "RepDL", "torch": "plain PyTorch"}
    by_variant = {}
    for r in report["cells"]:
        by_variant.setdefault(r["variant"], {})[r["framework"]] = digest(r["hashes"])
    width = max(len(v) for v in by_variant)
    print(f"{'variant':<{width}}  " + "  ".join(f"{titles[fw]:<16}" for fw in frameworks))
    for variant, cells in by_variant.items():
        print(f"{variant:<{width}}  " + "  ".join(f"{cells[fw]:<16}" for fw in frameworks))
    counts = ", ".join(f"{titles[fw]} {report['distinct'][fw]} distinct" for fw in frameworks)
    print(f"\n{len(by_variant)} variants: {counts}.")
    if "golden" in report:
        g = report["golden"]
        for m in g["mismatches"]:
            print(f"differs from {g['path']}: {m['name']} in {m['variant']}: golden {m['golden']}, here {m['here']}")
        if g["mismatches"]:
            print("golden environment: " + json.dumps(g["environment"]))
            print("this environment:   " + json.dumps(report["environment"]))
        else:
            print(f"Every hash equals {g['path']}, recorded on: {g['environment']['cpu']}, "
                  f"torch {g['environment']['torch']}, {g['environment']['os']}.")
    if report["identical"]:
        print("Verdict: RepDL gave the same bits in every variant." +
              (f" Recorded in {args.record}." if args.record else ""))
    else:
        print("Verdict: RepDL's hashes DIFFER" + (" from the golden file." if report.get("golden", {}).get(
            "mismatches") else " between variants.") + (" Nothing recorded." if args.record else ""))
    print(f"Report: {args.report}")

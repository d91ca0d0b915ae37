#!/usr/bin/env python
"""Print the records of verify.py --record, crosscheck.py --record and
check_gradients.py --record (JSON lines) as the markdown tables of
docs/elementwise.md.

    python tools/cr/records.py tools/cr/verified.jsonl
    python tools/cr/records.py tools/cr/crosschecked.jsonl
    python tools/cr/records.py tools/cr/gradients_checked.jsonl

A function recorded more than once keeps its last record (the latest run
of the shipped kernel); crosscheck records are kept per set of paths.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def checkout_commit():
    """The checkout's commit, for a record (with "+changes" when tracked files differ from it), or None."""
    try:
        rev = subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             check=True).stdout.strip()
        # The record files themselves do not count.
        dirty = subprocess.run(["git", "-C", HERE, "status", "--porcelain", "--untracked-files=no", "--", ":/",
                                ":(top,exclude)tools/cr/*.jsonl"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return rev + ("+changes" if dirty else "")


def _minutes(r):
    return f"{r['seconds'] / 60:.0f} min"


def verify_row(r):
    paths = f"C++ {r['isa']}" + (", reference" if r["mismatches_reference"] is not None else "")
    mism = str(r["mismatches_cpp"]) + ("" if r["mismatches_reference"] is None else f" / {r['mismatches_reference']}")
    err = "-"
    if r["max_error_ulp_cpp64"] is not None:
        err = f"{r['max_error_ulp_cpp64']:.3g} / {r['max_error_ulp_reference64']:.3g}"
    inputs = "2^32" if r["inputs"] == 1 << 32 else str(r["inputs"])
    return f"| {r['function']} | {r['date']} | {inputs} | {paths} | {mism} | {r['mpfr_settled']} | {err} | {_minutes(r)} |"


# avx2: the AVX2 row of a kernel that computes several functions together,
# against each function's own AVX2 row (crosscheck.py's TOGETHER).
_PATH_NAMES = {"avx2": "AVX2 row (together)", "generic": "generic row", "avx512": "AVX-512 row",
               "reference": "reference"}


def crosscheck_table(records):
    """One row per (function, set of paths compared): the AVX-512 row's runs
    sit beside the generic row's and the reference's."""
    paths = [p for p in _PATH_NAMES if any(f"{p}_vs_avx2" in r for r in records)]
    print("| function | date | inputs | " + " | ".join(f"{_PATH_NAMES[p]} != AVX2 row" for p in paths) + " | time |")
    print("|---|---|---|" + "---|" * len(paths) + "---|")
    for r in records:
        cells = " | ".join(str(r.get(f"{p}_vs_avx2", "-")) for p in paths)
        print(f"| {r['function']} | {r['date']} | 2^32 | {cells} | {_minutes(r)} |")


def main():
    latest = {}
    for line in open(sys.argv[1]):
        r = json.loads(line)
        latest[(r["function"], tuple(k for k in r if k.endswith("_vs_avx2")))] = r
    records = list(latest.values())
    if records and any(k.endswith("_vs_avx2") for k in records[0]):
        crosscheck_table(records)
        return
    if records and "fused_vs_formula" in records[0]:
        print("| function | date | inputs | fused backward != formula | time |")
        print("|---|---|---|---|---|")
        for r in records:
            inputs = "2^32" if r["inputs"] == 1 << 32 else str(r["inputs"])
            print(f"| {r['function']} | {r['date']} | {inputs} | {r['fused_vs_formula']} | {_minutes(r)} |")
        return
    print("| function | date | inputs | paths checked | mismatches C++ / reference | MPFR-settled "
          "| max float64 error C++ / reference formula (ulp) | time |")
    print("|---|---|---|---|---|---|---|---|")
    for r in records:
        print(verify_row(r))


if __name__ == "__main__":
    main()

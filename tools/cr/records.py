#!/usr/bin/env python
"""Print the records of verify.py --record and crosscheck.py --record (JSON
lines) as the markdown tables of docs/elementwise.md.

    python tools/cr/records.py tools/cr/verified.jsonl
    python tools/cr/records.py tools/cr/crosschecked.jsonl

A function recorded more than once keeps its last record (the latest run
of the shipped kernel).
"""
import json
import sys


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


def main():
    latest = {}
    for line in open(sys.argv[1]):
        r = json.loads(line)
        latest[r["function"]] = r
    records = list(latest.values())
    if records and "generic_vs_avx2" in records[0]:
        print("| function | date | inputs | generic row != AVX2 row | reference != AVX2 row | time |")
        print("|---|---|---|---|---|---|")
        for r in records:
            print(f"| {r['function']} | {r['date']} | 2^32 | {r['generic_vs_avx2']} | {r['reference_vs_avx2']} | "
                  f"{_minutes(r)} |")
        return
    print("| function | date | inputs | paths checked | mismatches C++ / reference | MPFR-settled "
          "| max float64 error C++ / reference formula (ulp) | time |")
    print("|---|---|---|---|---|---|---|---|")
    for r in records:
        print(verify_row(r))


if __name__ == "__main__":
    main()

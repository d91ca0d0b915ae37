#!/usr/bin/env python
"""Print verify.py --record lines (JSON) as the markdown rows of
docs/elementwise.md's verification table.

    python tools/cr/records.py tools/cr/verified.jsonl
"""
import json
import sys


def main():
    print("| function | date | inputs | paths checked | mismatches | MPFR-settled | max float64 error C++ / reference formula (ulp) | time |")
    print("|---|---|---|---|---|---|---|---|")
    for line in open(sys.argv[1]):
        r = json.loads(line)
        paths = f"C++ {r['isa']}" + (", reference" if r["mismatches_reference"] is not None else "")
        mism = str(r["mismatches_cpp"]) + ("" if r["mismatches_reference"] is None else f" / {r['mismatches_reference']}")
        err = "-"
        if r["max_error_ulp_cpp64"] is not None:
            err = f"{r['max_error_ulp_cpp64']:.3g} / {r['max_error_ulp_reference64']:.3g}"
        inputs = "2^32" if r["inputs"] == 1 << 32 else str(r["inputs"])
        print(f"| {r['function']} | {r['date']} | {inputs} | {paths} | {mism} | {r['mpfr_settled']} | {err} | "
              f"{r['seconds'] / 60:.0f} min |")


if __name__ == "__main__":
    main()

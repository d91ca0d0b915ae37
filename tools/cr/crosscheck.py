#!/usr/bin/env python
"""Bit-for-bit comparison of every implementation path of the correctly
rounded functions over all 2^32 float32 inputs: the C++ AVX2 row against
the C++ generic row, the C++ AVX-512 row (where the CPU has it) and the
reference backend (pure PyTorch float64 + table).  silu_and_sigmoid (the
kernel that computes both in one pass) is checked on every row, AVX2's
included, against silu's and sigmoid's own AVX2 rows.

This is the cheap companion of verify.py: verify.py proves one path
correctly rounded against long double libm and MPFR (minutes per function
on a shared machine); crosscheck.py then extends the proof to the other
paths by equality, without any libm (about a minute per function).  The
AVX-512 row runs twice on every chunk, the second time from one block in
(see check_chunk).  Each vector row also runs the chunk's spread twin,
whose blocks hold one input from each sixteenth of the 2^32 patterns, and
is compared with the AVX2 row on the twin in pattern order: in pattern
order an input's block-mates are its neighbours, much like it, and a lane
that a rescue's rule settles only when a lane beside it is hard would
pass unseen (gelu(-0) on the AVX-512 row's series, before its fix; the
limits test of tests/test_erf_gelu.py found it).  The AVX2 row's own
spread run is reported as avx2_spread.  The twin's runs take several times
the pattern-order ones: most spread blocks hold a hard lane.  --no-twin
leaves them out, for a change that moves no rescue rule and no test of
hardness (a loop's schedule, say) once the twin has run on the rules as
they are; its records have no avx2_spread entry.

    nice -n 19 python tools/cr/crosscheck.py [names] [--paths generic,avx512,reference] [--workers 2]
                                             [--record FILE] [--no-twin]
"""
import argparse
import datetime
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import torch

import records

CHUNK = 1 << 24
SHIFT = 16  # one block of the AVX-512 row's float32 lanes


PATHS = ("generic", "avx512", "reference")
# Kernels that compute several functions in one pass (backends' silu_and_sigmoid):
# every row's outputs, the AVX2 row's included, against each function's own AVX2 row.
TOGETHER = {"silu_and_sigmoid": ("silu", "sigmoid")}


def _row(name, isa, x):
    import repdl
    from repdl.backends import cpu
    repdl.set_isa(isa)
    try:
        return getattr(cpu, name)(x)
    finally:
        repdl.set_isa("auto")


def _outputs(y):
    return y if isinstance(y, tuple) else (y,)


def _spread_twin(start, count):
    """The patterns of the chunk's spread twin, (SHIFT, count / SHIFT): row j
    runs from start / SHIFT + j 2^32 / SHIFT, so that over all chunks every
    pattern comes once, and each column is a block of inputs from every
    sixteenth of the patterns (signs and exponent ranges)."""
    base = torch.arange(SHIFT, dtype=torch.int64) * ((1 << 32) // SHIFT) + start // SHIFT
    return base[:, None] + torch.arange(count // SHIFT, dtype=torch.int64)[None, :]


def _first_and_count(xb, differs):
    """The first ten differing inputs' bit patterns and how many differ."""
    bad = differs.nonzero().squeeze(1)
    return [int(xb[i]) & 0xFFFFFFFF for i in bad[:10]], len(bad)


def _spread_differs(name, paths, start, count):
    """{path: (first differing inputs, how many)}: each vector row's outputs
    on the twin's blocks against the AVX2 row's on the twin in pattern
    order (avx2_spread: the AVX2 row's own)."""
    twin = _spread_twin(start, count)
    xb = twin.reshape(-1).to(torch.int32)
    want = [_row(part, "avx2", xb.view(torch.float32)).view(torch.int32) for part in TOGETHER.get(name, (name,))]
    blocks = twin.t().reshape(-1).to(torch.int32).view(torch.float32)
    out = {}
    for path in paths:
        isa = "avx2" if path == "avx2_spread" else path
        if isa not in ("avx2", "avx512"):
            continue
        differs = torch.zeros(count, dtype=torch.bool)
        for a, y in zip(want, _outputs(_row(name, isa, blocks))):
            differs |= a != y.view(torch.int32).view(-1, SHIFT).t().reshape(-1)
        out[path] = _first_and_count(xb, differs)
    return out


def check_chunk(name, start, count, paths):
    """{path: (first differing inputs, how many differ from the AVX2 row)},
    the spread twin's runs included when paths hold avx2_spread (main)."""
    from repdl.backends import reference as ref
    torch.set_num_threads(1)
    x = torch.arange(start, start + count, dtype=torch.int64).to(torch.int32).view(torch.float32)
    want = [_row(part, "avx2", x).view(torch.int32) for part in TOGETHER.get(name, (name,))]
    xb = x.view(torch.int32)
    out = {}
    for path in paths:
        if path == "avx2_spread":  # (_spread_differs)
            continue
        if path == "reference":
            pieces = [_outputs(getattr(ref, name)(p)) for p in x.split(1 << 18)]
            ys = [torch.cat(k) for k in zip(*pieces)]
        else:
            ys = _outputs(_row(name, path, x))
        differs = torch.zeros(count, dtype=torch.bool)
        for a, y in zip(want, ys):
            differs |= a != y.view(torch.int32)
        if path == "avx512":
            # Again from one block in: the row's sqrt and reciprocal take
            # alternate blocks through two kernels (run_beside_divider), and
            # this way every input meets both.
            for a, y in zip(want, _outputs(_row(name, path, x[SHIFT:]))):
                differs[SHIFT:] |= a[SHIFT:] != y.view(torch.int32)
        out[path] = _first_and_count(xb, differs)
    twin = _spread_differs(name, paths, start, count) if "avx2_spread" in paths else {}
    for path, (first, n) in twin.items():
        before = out.get(path, ([], 0))
        out[path] = (before[0] + first, before[1] + n)
    return out


def main():
    from repdl import _C
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*")
    ap.add_argument("--paths", default="generic,reference",
                    help=f"paths compared with the AVX2 row, comma-separated, of {', '.join(PATHS)} "
                         "(default: generic,reference)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--record")
    ap.add_argument("--no-twin", action="store_true", help="pattern order only (module docstring)")
    args = ap.parse_args()
    paths = args.paths.split(",")
    unknown = [p for p in paths if p not in PATHS]
    if unknown:
        sys.exit(f"crosscheck.py: unknown path {', '.join(unknown)} (known: {', '.join(PATHS)})")
    if not _C.isa_supported("avx2"):
        sys.exit("crosscheck.py: needs an AVX2 CPU (it compares the AVX2 row with the others)")
    if "avx512" in paths and not _C.isa_supported("avx512"):
        sys.exit("crosscheck.py: this CPU has no AVX-512F, so the avx512 row cannot run here")
    failed = False
    for name in args.names or [*_C.cr_unary_names(), *TOGETHER]:
        paths = ["avx2", *args.paths.split(",")] if name in TOGETHER else args.paths.split(",")
        if not args.no_twin:
            paths = ["avx2_spread", *paths]
        t0 = time.time()
        starts = list(range(0, 1 << 32, CHUNK))
        counts = dict.fromkeys(paths, 0)
        first = {p: [] for p in paths}
        with ProcessPoolExecutor(max_workers=args.workers) as pool:
            for res in pool.map(check_chunk, [name] * len(starts), starts, [CHUNK] * len(starts),
                                [paths] * len(starts)):
                for p, (f, c) in res.items():
                    counts[p] += c
                    first[p] += f
        sec = time.time() - t0
        print(f"{name}: 4294967296 inputs, " + ", ".join(f"{p} != AVX2 row on {counts[p]}" for p in paths)
              + f", {sec:.0f} s", flush=True)
        if any(counts.values()):
            failed = True
            print("  first:", {p: [hex(b) for b in first[p][:5]] for p in paths})
        if args.record:
            with open(args.record, "a") as f:
                f.write(json.dumps({"function": name, "date": datetime.date.today().isoformat(), "inputs": 1 << 32,
                                    **{f"{p}_vs_avx2": counts[p] for p in paths}, "seconds": round(sec),
                                    "torch": torch.__version__, "commit": records.checkout_commit()}) + "\n")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python
"""Exhaustive verifier of the correctly rounded float32 functions.

For every float32 input x (all 2**32 bit patterns) and each named function,
compares bit for bit
  * the shipped C++ kernels (repdl.backends.cpu, the public path on CPU),
    every instruction-set row this CPU runs (AVX-512, AVX2, generic; --isa),
  * the reference backend (pure PyTorch float64 + table; --no-reference skips),
against the correctly rounded result settled independently of RepDL: long
double (x87, 64-bit significand) libm as a screen, and MPFR (gmpy2, 256
bits) for every input whose long double value lies within 2**-50 of a
float32 rounding midpoint and for every disagreement.  It also measures
the largest error, in float64 ulps, of the float64 values that both paths
round (the C++ row's and the reference formula's), over the inputs whose
result is in [2**-151, 2**129): those are the bounds the runtime window
relies on.

    nice -n 19 python tools/cr/verify.py exp log --workers 2
    python tools/cr/verify.py sin --start 0x3f000000 --count 0x01000000   # a slice

Prints one line per function: inputs checked, mismatches, MPFR-settled
inputs, measured float64 errors, time.
"""
import argparse
import ctypes
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import oracle  # noqa: E402
import records  # noqa: E402
from functions import FUNCTIONS  # noqa: E402
import gmpy2  # noqa: E402

# The MPFR function of every verifiable function (the screen's long double
# evaluations are listed in verify_screen.c).
MPFR = {name: spec.mpfr for name, spec in FUNCTIONS.items()}
MPFR.update({"sqrt": gmpy2.sqrt, "reciprocal": lambda v: 1 / v})

CHUNK = 1 << 24
_lib = None


def _screen_lib():
    global _lib
    if _lib is None:
        src = os.path.join(HERE, "verify_screen.c")
        out = os.path.join(tempfile.gettempdir(), f"repdl_verify_screen_{os.getuid()}_{int(os.path.getmtime(src))}.so")
        if not os.path.exists(out):
            subprocess.run(["cc", "-O2", "-fno-fast-math", "-shared", "-fPIC", "-o", out + ".tmp", src, "-lm"], check=True)
            os.replace(out + ".tmp", out)
        _lib = ctypes.CDLL(out)
        _lib.screen.restype = None
    return _lib


def _ptr(t):
    return ctypes.c_void_p(t.data_ptr())


def check_chunk(name, start, count, isas, reference):
    """check_inputs on the `count` consecutive bit patterns from `start`."""
    torch.set_num_threads(1)
    return check_inputs(name, torch.arange(start, start + count, dtype=torch.int64).to(torch.int32), isas, reference)


def check_inputs(name, xb, isas, reference):
    """For the float32 inputs with bit patterns xb (int32): (mismatching inputs
    of the C++ rows, of the reference, MPFR-settled count, float64 errors)."""
    import repdl
    from repdl import _C
    from repdl.backends import cpu, reference as ref
    from repdl.backends.reference.elementwise import FLOAT64
    xb = xb.contiguous()
    count = xb.numel()
    x = xb.view(torch.float32)
    got = []
    for isa in isas:
        repdl.set_isa(isa)
        got.append(getattr(cpu, name)(x).view(torch.int32))
    repdl.set_isa(isas[0])
    # The reference in cache-sized pieces (its int64 passes are ~5x faster so).
    got_r = torch.cat([getattr(ref, name)(p) for p in x.split(1 << 18)]).view(torch.int32) if reference else None
    y64 = []
    if name in FLOAT64:  # the errors of both float64 evaluations, always (cheap)
        yc = torch.empty(count, dtype=torch.float64)
        _C.cr_eval64(list(_C.cr_unary_names()).index(name), x.data_ptr(), yc.data_ptr(), count)
        y64.append(yc)
        y64.append(FLOAT64[name](x.to(torch.float64)).contiguous())
    want = torch.empty(count, dtype=torch.int32)
    near = torch.empty(count, dtype=torch.uint8)
    err = (ctypes.c_double * 2)()
    where = (ctypes.c_int64 * 2)()
    ptrs = (ctypes.c_void_p * 2)(*[t.data_ptr() for t in y64])
    _screen_lib().screen(name.encode(), _ptr(xb), ctypes.c_int64(count), _ptr(want), _ptr(near),
                         len(y64), ptrs, err, where)
    far = near == 0
    bad_c = torch.cat([((g != want) & far).nonzero().squeeze(1) for g in got])
    bad_r = ((got_r != want) & far).nonzero().squeeze(1) if reference else torch.empty(0, dtype=torch.int64)
    # Settle with MPFR: every near input, and every screen disagreement (the
    # screen's libm could be wrong too; MPFR decides).
    fn = MPFR[name]
    settle = torch.cat([near.nonzero().squeeze(1), bad_c, bad_r]).unique()
    mism_c, mism_r = [], []
    for i in settle.tolist():
        xbits = int(xb[i]) & 0xFFFFFFFF
        r = oracle.settle(fn, xbits)
        if any(int(g[i]) & 0xFFFFFFFF != r for g in got):
            mism_c.append(xbits)
        if reference and int(got_r[i]) & 0xFFFFFFFF != r:
            mism_r.append(xbits)
    errs = [(err[k], int(xb[where[k]]) & 0xFFFFFFFF if where[k] >= 0 else None) for k in range(len(y64))]
    return mism_c, mism_r, len(settle), errs


def verify(name, start, count, workers, isas, reference):
    t0 = time.time()
    starts = list(range(start, start + count, CHUNK))
    counts = [min(CHUNK, start + count - s) for s in starts]
    mism_c, mism_r, settled = [], [], 0
    errs = []
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for mc, mr, ns, e in pool.map(check_chunk, [name] * len(starts), starts, counts, [isas] * len(starts),
                                      [reference] * len(starts)):
            mism_c += mc
            mism_r += mr
            settled += ns
            for k, (v, w) in enumerate(e):
                if len(errs) <= k:
                    errs.append((0.0, None))
                if not (v <= errs[k][0]):
                    errs[k] = (v, w)
    seconds = time.time() - t0
    rec = {
        "function": name, "date": datetime.date.today().isoformat(), "inputs": count, "start": start,
        "isa": ",".join(isas), "mismatches_cpp": len(mism_c), "mismatches_reference": len(mism_r) if reference else None,
        "mpfr_settled": settled, "seconds": round(seconds),
        "max_error_ulp_cpp64": errs[0][0] if errs else None,
        "max_error_ulp_reference64": errs[1][0] if len(errs) > 1 else None,
        "worst_input_cpp64": f"0x{errs[0][1]:08x}" if errs and errs[0][1] is not None else None,
        "worst_input_reference64": f"0x{errs[1][1]:08x}" if len(errs) > 1 and errs[1][1] is not None else None,
        "torch": torch.__version__, "mpfr": gmpy2.mpfr_version(), "commit": records.checkout_commit(),
        "first_mismatches_cpp": [f"0x{b:08x}" for b in mism_c[:10]],
        "first_mismatches_reference": [f"0x{b:08x}" for b in mism_r[:10]],
    }
    return rec


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help=f"functions (default: all of {', '.join(MPFR)})")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--isa", default=None,
                    help="C++ rows to check, comma-separated (default: every row this CPU runs: avx512, avx2, generic)")
    ap.add_argument("--no-reference", action="store_true",
                    help="check only the C++ kernels' results (the reference formula's float64 error is still measured)")
    ap.add_argument("--start", type=lambda s: int(s, 0), default=0)
    ap.add_argument("--count", type=lambda s: int(s, 0), default=1 << 32)
    ap.add_argument("--record", help="append each result as a JSON line to this file")
    args = ap.parse_args()
    from repdl import _C
    isas = args.isa.split(",") if args.isa else [i for i in ("avx512", "avx2", "generic") if _C.isa_supported(i)]
    lib = _screen_lib()  # build once, before the workers start
    names = args.names or list(MPFR)
    for name in names:
        if name not in MPFR or not lib.has_function(name.encode()):
            sys.exit(f"verify.py: no MPFR function or long double screen for {name!r}")
    failed = False
    for name in names:
        rec = verify(name, args.start, args.count, args.workers, isas, not args.no_reference)
        ref = "" if rec["mismatches_reference"] is None else f", reference {rec['mismatches_reference']} mismatches"
        e = ""
        if rec["max_error_ulp_cpp64"] is not None:
            e = f", float64 error C++ {rec['max_error_ulp_cpp64']:.3g} ulp"
            if rec["max_error_ulp_reference64"] is not None:
                e += f", reference {rec['max_error_ulp_reference64']:.3g} ulp"
        print(f"{name}: {rec['inputs']} inputs checked, C++ ({rec['isa']}) {rec['mismatches_cpp']} mismatches{ref}, "
              f"{rec['mpfr_settled']} settled by MPFR{e}, {rec['seconds']} s", flush=True)
        if rec["mismatches_cpp"] or rec["mismatches_reference"]:
            failed = True
            print("  first mismatches:", rec["first_mismatches_cpp"], rec["first_mismatches_reference"])
        if args.record:
            with open(args.record, "a") as f:
                f.write(json.dumps(rec) + "\n")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

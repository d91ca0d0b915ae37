#!/usr/bin/env python
"""Bit-for-bit comparison of every implementation path of the correctly
rounded functions over all 2^32 float32 inputs: the C++ AVX2 row, the C++
generic row and the reference backend (pure PyTorch float64 + table).

This is the cheap companion of verify.py: verify.py proves one path
correctly rounded against long double libm and MPFR (minutes per function
on a shared machine); crosscheck.py then extends the proof to the other
paths by equality, without any libm (about a minute per function).

    nice -n 19 python tools/cr/crosscheck.py [names] [--workers 2] [--record FILE]
"""
import argparse
import datetime
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import torch

CHUNK = 1 << 24


def check_chunk(name, start, count):
    import repdl
    from repdl.backends import cpu, reference as ref
    torch.set_num_threads(1)
    x = torch.arange(start, start + count, dtype=torch.int64).to(torch.int32).view(torch.float32)
    repdl.set_isa("avx2")
    a = getattr(cpu, name)(x).view(torch.int32)
    repdl.set_isa("generic")
    g = getattr(cpu, name)(x).view(torch.int32)
    repdl.set_isa("auto")
    r = torch.cat([getattr(ref, name)(p) for p in x.split(1 << 18)]).view(torch.int32)
    bad_g = (a != g).nonzero().squeeze(1)
    bad_r = (a != r).nonzero().squeeze(1)
    xb = x.view(torch.int32)
    return ([int(xb[i]) & 0xFFFFFFFF for i in bad_g[:10]], len(bad_g),
            [int(xb[i]) & 0xFFFFFFFF for i in bad_r[:10]], len(bad_r))


def main():
    from repdl import _C
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--record")
    args = ap.parse_args()
    if not _C.isa_supported("avx2"):
        sys.exit("crosscheck.py: needs an AVX2 CPU (it compares the AVX2 row with the others)")
    failed = False
    for name in args.names or list(_C.cr_unary_names()):
        t0 = time.time()
        starts = list(range(0, 1 << 32, CHUNK))
        ng = nr = 0
        first_g, first_r = [], []
        with ProcessPoolExecutor(max_workers=args.workers) as pool:
            for fg, cg, fr, cr in pool.map(check_chunk, [name] * len(starts), starts, [CHUNK] * len(starts)):
                ng, nr = ng + cg, nr + cr
                first_g += fg
                first_r += fr
        sec = time.time() - t0
        print(f"{name}: 4294967296 inputs, generic row != AVX2 row on {ng}, reference != AVX2 row on {nr}, "
              f"{sec:.0f} s", flush=True)
        if ng or nr:
            failed = True
            print("  first:", [hex(b) for b in first_g[:5]], [hex(b) for b in first_r[:5]])
        if args.record:
            with open(args.record, "a") as f:
                f.write(json.dumps({"function": name, "date": datetime.date.today().isoformat(), "inputs": 1 << 32,
                                    "generic_vs_avx2": ng, "reference_vs_avx2": nr, "seconds": round(sec),
                                    "torch": torch.__version__}) + "\n")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

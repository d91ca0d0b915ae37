#!/usr/bin/env python
"""The fused backward of the correctly rounded functions
(csrc/elementwise/grad_blocks.inc, repdl.backends.cpu.unary_grad) against the
contract's formula run as a sequence of primitives (ops/elementwise.py's
_<name>_grad), bit for bit, over all 2^32 float32 inputs x.  The output
gradient g varies over every input too: g at input bits b is the float32
with bits (b * 0x9E3779B1) >> 1 scrambled into [2^-30, 2^30) or a special
value, so that g's sign, exponent and NaN payloads all vary.

    nice -n 19 python tools/cr/check_gradients.py [names] [--workers 2] [--record FILE]
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


def gradients_of(xb):
    """Output gradients for the inputs with bits xb (int64): mostly normal
    values of either sign, with zeros, infinities, NaN payloads and
    subnormals mixed in."""
    h = (xb * 0x9E3779B1) & 0xFFFFFFFF
    sign = (h >> 31) << 31
    exponent = ((h >> 23) % 60 + 97) << 23  # 2^-30 .. 2^29
    bits = sign | exponent | (h & 0x7FFFFF)
    special = torch.tensor([0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00001, 0xFFFFFFFF, 0x00000001,
                            0x807FFFFF], dtype=torch.int64)
    pick = (h >> 8) % 64
    bits = torch.where(pick < 8, special[pick.clamp(max=7)], bits)
    return bits.to(torch.int32).view(torch.float32)


def check_chunk(name, start, count):
    from repdl.backends import cpu
    from repdl.ops import elementwise as E
    torch.set_num_threads(1)
    formula = {"gelu": E._gelu_grad, "gelu_tanh": E._gelu_tanh_grad}.get(name) or E._GRADIENTS[name]
    xb = torch.arange(start, start + count, dtype=torch.int64)
    x = xb.to(torch.int32).view(torch.float32)
    g = gradients_of(xb)
    y = getattr(cpu, E.FUSED_GRADIENT_READS.get(name, name))(x)  # silu's reads sigmoid(x)
    fused = cpu.unary_grad(name, g, x, y).view(torch.int32)
    want = torch.cat([formula(gp, xp, yp) for gp, xp, yp in zip(g.split(1 << 18), x.split(1 << 18),
                                                                 y.split(1 << 18))]).view(torch.int32)
    bad = (fused != want).nonzero().squeeze(1)
    return [int(xb[i]) for i in bad[:10]], len(bad)


def main():
    from repdl import _C
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--start", type=lambda s: int(s, 0), default=0)
    ap.add_argument("--count", type=lambda s: int(s, 0), default=1 << 32)
    ap.add_argument("--record")
    args = ap.parse_args()
    known = list(_C.cr_unary_names())
    unknown = [n for n in args.names if n not in known]
    if unknown:
        ap.error(f"no fused backward for {', '.join(unknown)}; choose from {', '.join(known)}")
    failed = False
    for name in args.names or known:
        t0 = time.time()
        starts = list(range(args.start, args.start + args.count, CHUNK))
        counts = [min(CHUNK, args.start + args.count - s) for s in starts]
        bad, first = 0, []
        with ProcessPoolExecutor(max_workers=args.workers) as pool:
            for f, c in pool.map(check_chunk, [name] * len(starts), starts, counts):
                bad += c
                first += f
        sec = time.time() - t0
        print(f"{name}: {args.count} inputs, fused backward != formula on {bad}, {sec:.0f} s", flush=True)
        if bad:
            failed = True
            print("  first:", [hex(b) for b in first[:5]])
        if args.record:
            with open(args.record, "a") as fh:
                fh.write(json.dumps({"function": name, "date": datetime.date.today().isoformat(),
                                     "inputs": args.count, "fused_vs_formula": bad, "seconds": round(sec),
                                     "torch": torch.__version__,
                                     "commit": records.checkout_commit()}) + "\n")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

"""A fixed job over RepDL's ops; prints one JSON object of result hashes.

tests/test_invariance.py runs it in fresh processes under different thread
counts, instruction sets, BLAS settings and flush-to-zero
(REPDL_VERIFY_FLUSH_DENORMAL=1 calls torch.set_flush_denormal(True) once the
inputs exist); every RepDL hash must agree.  The same ops through plain
torch are hashed too, to show that the settings really reach the process
(torch's results do move with them).  The "tiny" inputs make subnormal
intermediate values and results."""
import json
import os

import torch
import torch.nn.functional as F

import repdl
from repdl.verify import pattern, tensor_hash


def job():
    a, b = pattern(300, 257, salt=1) * 4, pattern(257, 190, salt=2) * 4
    x = pattern(64, 1000, salt=3) * 20
    w, bias = pattern(33, 257, salt=4), pattern(33, salt=5)
    t = (pattern(64, salt=6) * 2000).to(torch.int64) % 1000
    batch = pattern(8, 37, 41, salt=7), pattern(41, 29, salt=8)
    big = pattern(1 << 18, salt=9)
    tiny = pattern(64, 96, salt=10) * 2.0 ** -66
    tiny_w = pattern(40, 96, salt=11) * 2.0 ** -64
    if os.environ.get("REPDL_VERIFY_FLUSH_DENORMAL") == "1":
        torch.set_flush_denormal(True)
    ops = {
        "mm": (lambda: repdl.mm(a, b), lambda: torch.mm(a, b)),
        "mm_t": (lambda: repdl.mm(b.t(), a.t()), lambda: torch.mm(b.t(), a.t())),
        "matmul_batched": (lambda: repdl.matmul(*batch), lambda: torch.matmul(*batch)),
        "linear": (lambda: repdl.linear(a, w, bias), lambda: F.linear(a, w, bias)),
        "sum_rows": (lambda: repdl.sum(x, 1), lambda: torch.sum(x, 1)),
        "sum_cols": (lambda: repdl.sum(x, 0), lambda: torch.sum(x, 0)),
        "sum_all": (lambda: repdl.sum(big), lambda: torch.sum(big)),
        "sum_pairwise": (lambda: repdl.sum_pairwise(big), lambda: torch.sum(big)),
        "mean_var": (lambda: torch.stack([repdl.mean(x, 1), repdl.var(x, 1)]),
                     lambda: torch.stack([torch.mean(x, 1), torch.var(x, 1)])),
        "max": (lambda: repdl.max(x, 1).values, lambda: torch.max(x, 1).values),
        "softmax": (lambda: repdl.softmax(x, 1), lambda: torch.softmax(x, 1)),
        "log_softmax": (lambda: repdl.log_softmax(x, 0), lambda: torch.log_softmax(x, 0)),
        "logsumexp": (lambda: repdl.logsumexp(x, 1), lambda: torch.logsumexp(x, 1)),
        "cross_entropy": (lambda: repdl.cross_entropy(x, t, label_smoothing=0.1),
                          lambda: F.cross_entropy(x, t, label_smoothing=0.1)),
        "tiny_linear": (lambda: repdl.linear(tiny, tiny_w, tiny_w[:, 0]), lambda: F.linear(tiny, tiny_w, tiny_w[:, 0])),
        "tiny_mean_var": (lambda: torch.stack([repdl.mean(tiny, 1), repdl.var(tiny, 0)[:64]]),
                          lambda: torch.stack([torch.mean(tiny, 1), torch.var(tiny, 0)[:64]])),
        "tiny_scaled": (lambda: repdl.div(repdl.mul(tiny, 2.0 ** -60), 3.0), lambda: tiny * 2.0 ** -60 / 3.0),
    }
    out = {"repdl": {}, "torch": {}}
    for name, (ours, theirs) in ops.items():
        out["repdl"][name] = tensor_hash(ours())
        out["torch"][name] = tensor_hash(theirs())
    return out


if __name__ == "__main__":
    print(json.dumps(job()))

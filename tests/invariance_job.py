"""A fixed job over RepDL's ops; prints one JSON object of result hashes.

tests/test_invariance.py runs it in fresh processes under different thread
counts, instruction sets, BLAS settings and flush-to-zero
(REPDL_VERIFY_FLUSH_DENORMAL=1 calls torch.set_flush_denormal(True) once the
inputs exist); every RepDL hash must agree.  The same ops through plain
torch are hashed too, to show that the settings really reach the process
(torch's results do move with them).  The "tiny" inputs make subnormal
intermediate values and results.  REPDL_VERIFY_DEVICE=cuda (repdl.verify.device())
puts every input on that device, where the reference backend runs:
tests/test_devices.py checks that it gives the CPU's hashes."""
import json
import os

import torch
import torch.nn.functional as F

import repdl
from repdl.verify import device, pattern, tensor_hash


# The correctly rounded functions, by the name torch.* (and F.* for the
# activations) gives them; the POSITIVE ones see |x|.
FUNCTIONS = ("exp", "exp2", "expm1", "tanh", "sigmoid", "erf", "erfc", "sin", "cos")
POSITIVE = ("log", "log2", "log10", "log1p", "sqrt", "rsqrt")
ACTIVATIONS = ("silu", "gelu", "mish", "logsigmoid", "softplus", "elu", "selu", "celu")


def functions(x, torch_ns, f_ns):
    """Every function of x, stacked; through RepDL (repdl, repdl) or torch (torch, F)."""
    return torch.stack([getattr(torch_ns, n)(x) for n in FUNCTIONS] + [getattr(f_ns, n)(x) for n in ACTIVATIONS]
                       + [getattr(torch_ns, n)(x.abs()) for n in POSITIVE] + [f_ns.gelu(x, approximate="tanh")])


def inputs():
    a, b = pattern(300, 257, salt=1) * 4, pattern(257, 190, salt=2) * 4
    x = pattern(64, 1000, salt=3) * 20
    w, bias = pattern(33, 257, salt=4), pattern(33, salt=5)
    t = (pattern(64, salt=6) * 2000).to(torch.int64) % 1000
    batch = pattern(8, 37, 41, salt=7), pattern(41, 29, salt=8)
    big = pattern(1 << 18, salt=9)
    tiny = pattern(64, 96, salt=10) * 2.0 ** -66
    tiny_w = pattern(40, 96, salt=11) * 2.0 ** -64
    return [v.to(device()) for v in (a, b, x, w, bias, t, *batch, big, tiny, tiny_w)]


def ops():
    """name -> (RepDL's call, plain torch's call)."""
    a, b, x, w, bias, t, *batch, big, tiny, tiny_w = inputs()
    return {
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
        "functions": (lambda: functions(x / 4, repdl, repdl), lambda: functions(x / 4, torch, F)),
        "tiny_scaled": (lambda: repdl.div(repdl.mul(tiny, 2.0 ** -60), 3.0), lambda: tiny * 2.0 ** -60 / 3.0),
    }


def job():
    calls = ops()
    if os.environ.get("REPDL_VERIFY_FLUSH_DENORMAL") == "1":
        torch.set_flush_denormal(True)
    out = {"repdl": {}, "torch": {}}
    for name, (ours, theirs) in calls.items():
        out["repdl"][name] = tensor_hash(ours())
        out["torch"][name] = tensor_hash(theirs())
    return out


if __name__ == "__main__":
    print(json.dumps(job()))

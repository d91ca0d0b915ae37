"""Two builds of repdl._C side by side in one process: the softmax family's
kernels and the correctly rounded unary functions, alternated round by
round on the same inputs, with torch's time beside them.

On a shared machine two runs of a benchmark a minute apart differ by more
than most kernel changes (10-30% on the team's VMs); within one process the
rounds of A and B see the same neighbours.  Each build's module is loaded
as its own instance from a copy of its .so (the Python package above it is this
checkout's), the outputs of A and B are compared bit for bit, and the
median of the per-round ratios B/A is the number to report.

    cp src/repdl/_C*.so /tmp/old.so   # before the change; rebuild; then
    python bench/ab_kernels.py /tmp/old.so src/repdl/_C*.so softmax 4096x1000 [--threads 2] [--rounds 20]
                               [--isa avx2] [--scale 1]

The input is 3 randn unless --scale says otherwise: spread beyond the fast
paths' ranges (a third of gelu's lanes beyond its series), where
bench_in_cache.py's randn keeps most inside; a path that covers part of
the range can look slower on one and faster on the other.

CASE: softmax, log_softmax, softmax_backward, log_softmax_backward, sum
(the sequential sum; each along the last dim), layer_norm (ROWSxN: forward
and backward, always as --step runs them), batch_norm (NxCxL, training, likewise), group_norm (NxCxLxG: x (N, C, L) in G
groups, likewise), matvec (NxK: a row-major (N, K) matrix times a vector, as
linear on one sample computes it: the dot rows), mm (MxKxN: row-major (M,
K) times row-major (K, N), the GEMM driver and micro-kernels), conv_forward,
conv_grad_input, conv_grad_weight (NxCxHxOC: a 3x3 convolution with padding 1
of (N, C, H, H) to OC channels, one of its three kernels; the forward with a
bias), any correctly rounded unary function's name, or that name with
_grad (its fused backward, csrc/elementwise/grad_blocks.inc, reading the
forward's output as autograd hands it; torch's time is its backward alone),
or silu_and_sigmoid (the kernel of silu's recorded forward, which writes
sigmoid beside silu; only silu's bits are compared, torch's silu beside it).

--step (the softmax cases): each call is the forward into a new tensor and
the backward, reading it, into another, the previous call's two kept alive,
as a training step runs them.  A fixed input and output stay in L3 at 4 MB
and more; in a step y arrives fresh from the forward and the outputs are new
memory, and there the backward took twice its time alone (64x128x128):
what helps one need not help the other.
"""
import argparse
import importlib.machinery
import importlib.util
import os
import shutil
import statistics
import tempfile
import time

import torch

import repdl
from repdl._scalar import bits32
from repdl.benchmarks.elementwise import TORCH, domain, pair
from repdl.benchmarks.timing import steady_heap
from repdl.backends import cpu
from repdl.backends._views import NO_OUTER, reduction_view
from repdl.backends.cpu.elementwise import _INDEX
from repdl.ops.elementwise import FUSED_GRADIENT_READS

_SOFTMAX = {"softmax": (0, False), "log_softmax": (1, False),
            "softmax_backward": (0, True), "log_softmax_backward": (1, True)}
_CONV = ("conv_forward", "conv_grad_input", "conv_grad_weight")


def load(path, tag):
    """A new instance of the extension module at `path`, from a private copy
    of the file: a path the process has already loaded (the package's own
    module) would give that instance back, and A and B would not be loaded
    alike (a build measured as the package's module and the other as a copy
    differed by 30% at 16 MB, with identical code).  sys.modules is not
    touched.  The copy is deleted once loaded (the mapping outlives the
    file)."""
    folder = tempfile.mkdtemp(prefix="ab_kernels_")
    private = os.path.join(folder, f"{tag}_" + os.path.basename(path))
    try:
        shutil.copyfile(path, private)
        loader = importlib.machinery.ExtensionFileLoader("repdl._C", private)
        spec = importlib.util.spec_from_file_location("repdl._C", private, loader=loader)
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
    finally:
        shutil.rmtree(folder)
    return module


def kernel_and_torch(case, shape, step=False, causal=False, scale=3.0):
    """(run(C, out) -> the result's tensor, torch's call) for one case on
    inputs from repdl.random; causal: -inf above the diagonal of the last
    two dims (an attention mask's scores); the main input is `scale` randn."""
    repdl.random.manual_seed(1)
    if case == "group_norm":
        if len(shape) != 4:
            raise SystemExit("group_norm takes a shape NxCxLxG")
        *shape, groups = shape
        return group_norm_step(repdl.random.randn(*shape) * scale, repdl.random.randn(*shape),
                               repdl.random.randn(shape[1]), repdl.random.randn(shape[1]), groups)
    if case in _CONV:
        return conv_call(case, shape)
    if case == "mm":
        if len(shape) != 3:
            raise SystemExit("mm takes a shape MxKxN")
        m, k, n = shape
        a, b = repdl.random.randn(m, k), repdl.random.randn(k, n)
        return (lambda C, out: C.gemm(m, n, k, a.data_ptr(), k, 1, b.data_ptr(), n, 1, out.data_ptr(), n, 0)
                or out.view(-1)[:m * n],
                lambda: torch.mm(a, b))
    x = repdl.random.randn(*shape) * scale
    if causal:
        x = x.masked_fill(torch.ones(shape[-2:], dtype=torch.bool).triu(1), float("-inf"))
    if case == "layer_norm":
        if len(shape) != 2:
            raise SystemExit("layer_norm takes a shape ROWSxN")
        return layer_norm_step(x, repdl.random.randn(*shape), repdl.random.randn(shape[1]),
                               repdl.random.randn(shape[1]))
    if case == "batch_norm":
        if len(shape) != 3:
            raise SystemExit("batch_norm takes a shape NxCxL")
        return batch_norm_step(x, repdl.random.randn(*shape), repdl.random.randn(shape[1]),
                               repdl.random.randn(shape[1]))
    if case == "matvec":
        if len(shape) != 2:
            raise SystemExit("matvec takes a shape NxK")
        n, k = shape
        v = repdl.random.randn(1, k)
        return (lambda C, out: C.gemm(1, n, k, v.data_ptr(), k, 1, x.data_ptr(), 1, k, out.data_ptr(), n, 0)
                or out.view(-1)[:n],
                lambda: torch.nn.functional.linear(v, x))
    if case == "sum":  # the contract's sum (sequential) along the last dim
        v = reduction_view(x, (x.dim() - 1,))
        return lambda C, out: C.sum(*v.args, *NO_OUTER, out.data_ptr(), 0) or out, lambda: torch.sum(x, -1)
    if step:
        if case not in _SOFTMAX:
            raise SystemExit(f"--step takes the softmax cases: {', '.join(_SOFTMAX)}")
        return softmax_step(_SOFTMAX[case][0], x, repdl.random.randn(*shape))
    if case in _SOFTMAX:
        kind, backward = _SOFTMAX[case]
        if backward:  # the kernels read softmax's output, as autograd hands it
            y = (torch.log_softmax if kind else torch.softmax)(x, -1)
            g = repdl.random.randn(*shape)
            v = reduction_view(y, (y.dim() - 1,))
            ref = torch._log_softmax_backward_data if kind else torch._softmax_backward_data
            return (lambda C, out: C.softmax_backward(*v.args, g.data_ptr(), out.data_ptr(), bool(kind)) or out,
                    lambda: ref(g, y, -1, torch.float32))
        v = reduction_view(x, (x.dim() - 1,))
        ref = torch.log_softmax if kind else torch.softmax
        return lambda C, out: C.softmax(*v.args, out.data_ptr(), kind) or out, lambda: ref(x, -1)
    if case == "silu_and_sigmoid":  # silu's forward where its backward will read sigmoid(x); B's sigmoid unchecked
        s = torch.empty_like(x)
        return (lambda C, out: C.cr_silu_sigmoid(x.data_ptr(), out.data_ptr(), s.data_ptr(), x.numel()) or out,
                lambda: torch.nn.functional.silu(x))
    if case.endswith("_grad") and case[:-len("_grad")] in _INDEX:
        return unary_grad_call(case[:-len("_grad")], x)
    if case not in _INDEX:
        cases = [*_SOFTMAX, "sum", "layer_norm", "batch_norm", "group_norm", "mm", "matvec", *_CONV, *_INDEX, "NAME_grad",
                 "silu_and_sigmoid"]
        raise SystemExit(f"unknown case {case!r}: {', '.join(cases)}")
    ref = TORCH.get(case) or getattr(torch.special, case, None) or getattr(torch, case, None)
    x = domain(case, x)  # as bench_in_cache.py times it (sqrt of a negative is NaN, a different case)
    return (lambda C, out: C.cr_unary(_INDEX[case], x.data_ptr(), out.data_ptr(), x.numel()) or out, lambda: ref(x))


def unary_grad_call(name, x):
    """The fused backward of a correctly rounded unary function at x
    (domain(name, x), as the forward's case): (run(C, out), torch's backward
    of the same function, its graph built once)."""
    x = domain(name, x)
    g = repdl.random.randn(*x.shape)
    torch_fn = pair(name)[0]
    y = getattr(cpu, FUSED_GRADIENT_READS.get(name, name))(x)  # what the formula reads: silu's sigmoid(x)
    leaf = x.detach().requires_grad_()
    y_torch = torch_fn(leaf)
    return (lambda C, out: C.cr_unary_grad(_INDEX[name], g.data_ptr(), x.data_ptr(), y.data_ptr(), out.data_ptr(),
                                           x.numel()) or out,
            lambda: torch.autograd.grad(y_torch, leaf, g, retain_graph=True))


def conv_call(case, shape):
    """One kernel of a 3x3 convolution with padding 1, (N, C, H, H) to OC
    channels: (run(C, out), torch's call of the same kernel)."""
    if len(shape) != 4:
        raise SystemExit(f"{case} takes a shape NxCxHxOC")
    n, c, h, oc = shape
    x, w, b, dy = (repdl.random.randn(n, c, h, h), repdl.random.randn(oc, c, 3, 3), repdl.random.randn(oc),
                   repdl.random.randn(n, oc, h, h))
    geometry = (n, c, h, h, oc, 3, 3, h, h, 1, 1, 1, 1, 1, 1, 1)  # conv.h's Geometry

    def torch_backward(mask):
        return torch.ops.aten.convolution_backward(dy, x, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1, mask)

    if case == "conv_forward":
        return (lambda C, out: C.conv_forward(*geometry, x.data_ptr(), w.data_ptr(), b.data_ptr(), out.data_ptr())
                or out, lambda: torch.nn.functional.conv2d(x, w, b, padding=1))
    if case == "conv_grad_input":
        return (lambda C, out: C.conv_grad_input(*geometry, dy.data_ptr(), w.data_ptr(), out.data_ptr()) or out,
                lambda: torch_backward([True, False, False]))
    return (lambda C, out: C.conv_grad_weight(*geometry, x.data_ptr(), dy.data_ptr(), out.data_ptr()) or out,
            lambda: torch_backward([False, True, False]))


def output_shape(case, shape):
    if case == "sum":
        return shape[:-1]
    if case == "mm":
        return shape[0], shape[2]
    if case in _CONV:
        n, c, h, oc = shape
        return {"conv_forward": (n, oc, h, h), "conv_grad_input": (n, c, h, h), "conv_grad_weight": (oc, c, 3, 3)}[case]
    return shape


def norm_step(kernels, shape, stats, params, x, g, w, b, torch_norm):
    """A normalisation with weight and bias, forward and backward as a step
    runs them (as softmax_step): (run(C, out) -> dx, torch's call).  The
    kernels are C.<kernels>_forward(*shape, eps, w, b, x, y, *stats) and
    C.<kernels>_backward(*shape, 0, w, 0, g, x, mean, rstd, dx, dw, db),
    mean and rstd the first and last of the forward's `stats` (their
    lengths); dw and db have `params` floats."""
    eps = bits32(1e-5)
    held = {}

    def run(C, out):
        y, outs = torch.empty_like(x), [torch.empty(n) for n in stats]
        getattr(C, f"{kernels}_forward")(*shape, eps, w.data_ptr(), b.data_ptr(), x.data_ptr(), y.data_ptr(),
                                         *(t.data_ptr() for t in outs))
        dx, dw, db = torch.empty_like(x), torch.empty(params), torch.empty(params)
        getattr(C, f"{kernels}_backward")(*shape, 0, w.data_ptr(), 0, g.data_ptr(), x.data_ptr(), outs[0].data_ptr(),
                                          outs[-1].data_ptr(), dx.data_ptr(), dw.data_ptr(), db.data_ptr())
        held[C] = y, dx, dw, db
        return dx

    leaves = [t.detach().requires_grad_() for t in (x, w, b)]

    def torch_call():
        y = torch_norm(*leaves)
        held[torch] = y, torch.autograd.grad(y, leaves, g)

    return run, torch_call


def layer_norm_step(x, g, w, b):
    rows, n = x.shape
    return norm_step("norm", (rows, n, True), (rows, rows), n, x, g, w, b,
                     lambda a, c, d: torch.nn.functional.layer_norm(a, (n,), c, d))


def batch_norm_step(x, g, w, b):
    n, c, length = x.shape
    return norm_step("batch_norm", (n, c, length), (c, c, c), c, x, g, w, b,
                     lambda a, c_, d: torch.nn.functional.batch_norm(a, None, None, c_, d, True))


def group_norm_step(x, g, w, b, groups):
    n, c, length = x.shape
    return norm_step("group_norm", (n, groups, c // groups, length), (n * groups, n * groups), c, x, g, w, b,
                     lambda a, c_, d: torch.nn.functional.group_norm(a, groups, c_, d))


def softmax_step(kind, x, g):
    """--step: (run(C, out), torch's call), each the forward (kind 0:
    softmax, 1: log_softmax) into a new y and the backward from it into a
    new dx, returned; the last call's y and dx are held until the next."""
    dim = x.dim() - 1
    v = reduction_view(x, (dim,))
    held = {}

    def run(C, out):
        y, dx = torch.empty_like(x), torch.empty_like(x)
        C.softmax(*v.args, y.data_ptr(), kind)
        C.softmax_backward(*reduction_view(y, (dim,)).args, g.data_ptr(), dx.data_ptr(), bool(kind))
        held[C] = y, dx
        return dx

    forward = torch.log_softmax if kind else torch.softmax
    backward = torch._log_softmax_backward_data if kind else torch._softmax_backward_data

    def torch_call():
        y = forward(x, -1)
        held[torch] = y, backward(g, y, -1, torch.float32)

    return run, torch_call


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a", help="build A's _C .so (before)")
    parser.add_argument("b", help="build B's _C .so (after)")
    parser.add_argument("case")
    parser.add_argument("shape", help="e.g. 4096x1000")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--calls", type=int, default=10, help="calls per round and build")
    parser.add_argument("--step", action="store_true", help="softmax cases: forward and backward as in a step")
    parser.add_argument("--causal", action="store_true", help="-inf above the diagonal of the last two dims")
    parser.add_argument("--isa", help="the row both builds run (avx512, avx2, generic; default: the CPU's best)")
    parser.add_argument("--scale", type=float, default=3.0,
                        help="the main input is scale * randn (default 3: spread beyond the series and the "
                             "float32 paths' ranges; 1 as bench_in_cache.py draws it)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    shape = tuple(int(s) for s in args.shape.split("x"))
    # Freed memory reused (glibc's thresholds out of reach): otherwise which
    # build's new tensors take page faults depends on the order of
    # allocations, and in --step runs one build took about 300 faults per
    # call and the other none, 1.5-2.4 times the time with the same .so.
    steady_heap()
    run, torch_call = kernel_and_torch(args.case, shape, args.step, args.causal, args.scale)
    builds = {"A": load(args.a, "a"), "B": load(args.b, "b")}
    if args.isa:
        for C in builds.values():
            C.set_isa(args.isa)
    outs = {k: torch.empty(output_shape(args.case, shape)) for k in builds}
    last = {}  # each build's last result
    times = {k: [] for k in [*builds, "torch"]}
    calls = {**{k: (lambda C=C, k=k: last.__setitem__(k, run(C, outs[k]))) for k, C in builds.items()},
             "torch": torch_call}
    for _ in range(args.rounds):
        for k, f in calls.items():
            start = time.perf_counter()
            for _ in range(args.calls):
                f()
            times[k].append((time.perf_counter() - start) / args.calls * 1e6)
    if not torch.equal(last["A"].view(torch.int32), last["B"].view(torch.int32)):
        raise SystemExit("A and B give different bits")
    print(f"{args.case} {args.shape}{' causal' if args.causal else ''}{' as in a step' if args.step else ''}, "
          f"{args.threads} thread(s), "
          f"{args.rounds} rounds (us per call)")
    for k, t in times.items():
        print(f"  {k:5s} min {min(t):9.1f}  median {statistics.median(t):9.1f}")
    ratios = [b / a for a, b in zip(times["A"], times["B"])]
    print(f"  B/A per round: median {statistics.median(ratios):.3f}, "
          f"quartiles {statistics.quantiles(ratios, n=4)[0]:.3f}-{statistics.quantiles(ratios, n=4)[2]:.3f}")
    print(f"  torch/B (min): {min(times['torch']) / min(times['B']):.2f}")


if __name__ == "__main__":
    main()

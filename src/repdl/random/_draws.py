"""The draws: rand, randn, randint, randperm, bernoulli, uniform_, normal_,
trunc_normal_ and the *_like variants, with torch's signatures.

Each checks its arguments, reserves its blocks on the generator (advancing
its offset by the count docs/CONTRACT.md section 7 gives), and computes the
values from (seed, first block) with the C++ kernels on the CPU or the
integer-op reference on any other device.  Values fill the output in
row-major order, whatever its strides.
"""
import math

import torch

from . import _args, _cpu

__all__ = ["rand", "randn", "randint", "randperm", "bernoulli", "uniform_", "normal_", "trunc_normal_",
           "rand_like", "randn_like"]

_TWO24 = float(1 << 24)


def _finish(y, shape, requires_grad):
    y = y.view(shape)
    return y.requires_grad_() if requires_grad else y


def rand(*args, size=None, generator=None, dtype=None, device=None, requires_grad=False):
    """Uniform float32 values in [0, 1): (w >> 8) * 2**-24, one word each.

    rand(*size, generator=None, dtype=None, device=None, requires_grad=False)"""
    shape = _args.size("rand", args, size)
    _args.float_dtype("rand", dtype)
    dev = _args.device(device)
    g = _args.generator("rand", generator)
    n = _args.numel(shape)
    seed, offset = g._reserve(_args.blocks(n, 4))
    return _finish(_args.backend(dev).uniform(seed, offset, n, dev), shape, requires_grad)


def randn(*args, size=None, generator=None, dtype=None, device=None, requires_grad=False):
    """Standard normal float32 values by Box-Muller, two per pair of words.

    randn(*size, generator=None, dtype=None, device=None, requires_grad=False)"""
    shape = _args.size("randn", args, size)
    _args.float_dtype("randn", dtype)
    dev = _args.device(device)
    g = _args.generator("randn", generator)
    n = _args.numel(shape)
    seed, offset = g._reserve(_args.blocks(n, 4))
    return _finish(_args.backend(dev).normal(seed, offset, n, dev), shape, requires_grad)


def _like(op, input, dtype, device):
    if not isinstance(input, torch.Tensor):
        raise TypeError(f"repdl.random.{op}: input must be a torch.Tensor, got {type(input).__name__}")
    return (input.dtype if dtype is None else dtype), (input.device if device is None else device)


def rand_like(input, *, generator=None, dtype=None, device=None, requires_grad=False):
    """rand with input's shape, dtype and device (unless given)."""
    dtype, device = _like("rand_like", input, dtype, device)
    return rand(input.shape, generator=generator, dtype=dtype, device=device, requires_grad=requires_grad)


def randn_like(input, *, generator=None, dtype=None, device=None, requires_grad=False):
    """randn with input's shape, dtype and device (unless given)."""
    dtype, device = _like("randn_like", input, dtype, device)
    return randn(input.shape, generator=generator, dtype=dtype, device=device, requires_grad=requires_grad)


def randint(*args, low=None, high=None, size=None, generator=None, dtype=None, device=None, requires_grad=False):
    """Integers uniform in [low, high): low + floor(U * (high - low) / 2**64),
    U the 64-bit number of two words.

    randint(high, size) or randint(low, high, size) (low defaults to 0, size
    is a tuple), generator=, dtype= (torch.int64 or torch.int32), device=."""
    low, high, size = _randint_args(args, low, high, size)
    _no_grad_for_integers("randint", requires_grad)
    shape = _args.size("randint", (size,))
    dtype = _args.int_dtype("randint", dtype)
    low = _args.integer("randint", "low", low)
    high = _args.integer("randint", "high", high)
    if low >= high:
        raise RuntimeError(f"repdl.random.randint: expects low < high, but got low={low} >= high={high}")
    lo, hi = _args.int_limits(dtype)
    if low < lo or high > hi - (dtype == torch.int64):
        raise RuntimeError(
            f"repdl.random.randint: [low, high) = [{low}, {high}) does not fit {dtype}"
            + (" (high must itself be an int64)" if dtype == torch.int64 else ""))
    dev = _args.device(device)
    g = _args.generator("randint", generator)
    n = _args.numel(shape)
    seed, offset = g._reserve(_args.blocks(n, 2))
    return _args.backend(dev).randint(seed, offset, n, low, high - low, dev, dtype).view(shape)


def _no_grad_for_integers(op, requires_grad):
    if requires_grad:
        raise RuntimeError(f"repdl.random.{op}: only tensors of floating point dtype can require gradients")


def _randint_args(args, low, high, size):
    """(low, high, size) from torch's forms: (high, size), (low, high, size),
    and keywords."""
    given = {k: v for k, v in (("low", low), ("high", high), ("size", size)) if v is not None}
    if len(args) == 3:
        names = ("low", "high", "size")
    elif len(args) == 2:
        names = ("low", "high") if "size" in given else ("high", "size")
    elif len(args) == 1:
        names = ("low",) if "high" in given else ("high",)
    elif not args:
        names = ()
    else:
        raise TypeError("repdl.random.randint: at most three positional arguments (low, high, size)")
    for name, v in zip(names, args):
        if name in given:
            raise TypeError(f"repdl.random.randint: got multiple values for {name}")
        given[name] = v
    if "high" not in given or "size" not in given:
        raise TypeError("repdl.random.randint: expects randint(high, size) or randint(low, high, size)")
    if not isinstance(given["size"], (tuple, list, torch.Size)):
        raise TypeError(f"repdl.random.randint: size must be a tuple of ints, got {type(given['size']).__name__}")
    return given.get("low", 0), given["high"], given["size"]


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False):
    """A uniformly random permutation of 0..n-1: the indices that sort n
    64-bit keys (two words each) in ascending order, ties by index."""
    n = _args.integer("randperm", "n", n)
    _no_grad_for_integers("randperm", requires_grad)
    if n < 0:
        raise RuntimeError(f"repdl.random.randperm: Trying to create tensor with negative dimension {n}: [{n}]")
    dtype = _args.int_dtype("randperm", dtype)
    if n > _args.int_limits(dtype)[1]:
        raise RuntimeError(f"repdl.random.randperm: n={n} does not fit {dtype}")
    dev = _args.device(device)
    g = _args.generator("randperm", generator)
    seed, offset = g._reserve(_args.blocks(n, 2))
    return _args.backend(dev).randperm(seed, offset, n, dev, dtype)


def bernoulli(input, p=None, *, generator=None):
    """0/1 float32 samples: 1.0 where u < p.

    bernoulli(input): p = input (float32 probabilities in [0, 1]), elementwise.
    bernoulli(input, p): one probability p for input's shape (compared
    exactly: u < p as real numbers).  One word per element."""
    _args.float32_tensor("bernoulli", "input", input)
    g = _args.generator("bernoulli", generator)
    n = input.numel()
    if p is None:
        if n and not input.is_meta and not bool(((input >= 0) & (input <= 1)).all()):
            raise RuntimeError(
                "repdl.random.bernoulli: expects every probability in input to be in [0, 1] (and not NaN)")
        seed, offset = g._reserve(_args.blocks(n, 4))
        return _args.backend(input.device).bernoulli_tensor(seed, offset, input).view(input.shape)
    p = _probability("bernoulli", p)
    seed, offset = g._reserve(_args.blocks(n, 4))
    y = _args.backend(input.device).bernoulli_scalar(seed, offset, n, threshold(p), input.device)
    return y.view(input.shape)


def threshold(p: float) -> int:
    """ceil(p * 2**24): u < p exactly when (w >> 8) < this (p * 2**24 is exact)."""
    return math.ceil(p * _TWO24)


def _probability(op, p, exc=RuntimeError):
    p = _args.real(op, "p", p)
    if not 0.0 <= p <= 1.0:
        raise exc(f"repdl.random.{op}: probability has to be between 0 and 1, but got {p}")
    return p


def _fill(tensor, draw):
    """tensor's values from draw(backend, **kw): written in place (kw out=)
    when the kernels can write tensor's memory directly (dense CPU), else
    copied in row-major order.  Not recorded by autograd (like
    torch.nn.init)."""
    be = _args.backend(tensor.device)
    if be is _cpu and tensor.is_contiguous():
        draw(be, out=tensor.detach().view(-1))
        torch.autograd.graph.increment_version(tensor)
        return tensor
    y = draw(be)
    with torch.no_grad():
        tensor.copy_(y.view(tensor.shape))
    return tensor


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill tensor with fma32(fl32(b) - fl32(a), u, fl32(a)), u as in rand
    (in row-major order, whatever its strides).  Values lie in
    [fl32(a), fl32(b)]; fl32(b) itself occurs only through rounding.  Returns tensor.

    torch.nn.init.uniform_'s argument names; works on tensors that require
    grad (it does not record the fill)."""
    _args.float32_tensor("uniform_", "tensor", tensor)
    a = _args.finite("uniform_", "a", a)
    b = _args.finite("uniform_", "b", b)
    if a > b:
        raise RuntimeError(f"repdl.random.uniform_: expects a <= b, but got a={a} > b={b}")
    a32, b32 = _args.fl32(a), _args.fl32(b)
    span = _args.fl32(b32 - a32)  # float32 subtraction: the float64 difference rounded once
    if math.isinf(span):
        raise RuntimeError(f"repdl.random.uniform_: b - a = {b - a} overflows float32")
    g = _args.generator("uniform_", generator)
    n = tensor.numel()
    seed, offset = g._reserve(_args.blocks(n, 4))
    return _fill(tensor, lambda be, **kw: be.uniform(seed, offset, n, tensor.device, a32, span, **kw))


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill tensor with fma32(fl32(std), z, fl32(mean)), z as in randn.
    Returns tensor."""
    _args.float32_tensor("normal_", "tensor", tensor)
    mean = _args.finite("normal_", "mean", mean)
    std = _args.finite("normal_", "std", std)
    if std < 0:
        raise RuntimeError(f"repdl.random.normal_: expects std >= 0.0, but found std {std}")
    g = _args.generator("normal_", generator)
    n = tensor.numel()
    seed, offset = g._reserve(_args.blocks(n, 4))
    m32, s32 = _args.fl32(mean), _args.fl32(std)
    return _fill(tensor, lambda be, **kw: be.normal(seed, offset, n, tensor.device, m32, s32, **kw))


# The rejection loop needs the interval to carry at least this probability
# (so that TRUNC_MAX_ATTEMPTS failures in a row are out of reach: below
# 1e-28 per element).  The check uses math.erfc: it only decides whether
# the arguments are accepted, never a value.
_TRUNC_MIN_MASS = 1e-3


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fill tensor with normal values restricted to [a, b] by rejection.

    Element i (row-major) tries y = fma32(fl32(std), z0, fl32(mean)) from
    block (offset + i, attempt j) for j = 0, 1, ... and keeps the first y
    with fl32(a) <= y <= fl32(b).  Consumes one block per element.
    torch.nn.init.trunc_normal_'s arguments (a, b absolute bounds)."""
    _args.float32_tensor("trunc_normal_", "tensor", tensor)
    mean = _args.finite("trunc_normal_", "mean", mean)
    std = _args.finite("trunc_normal_", "std", std)
    a = _args.real("trunc_normal_", "a", a)
    b = _args.real("trunc_normal_", "b", b)
    if not std > 0:
        raise ValueError(f"repdl.random.trunc_normal_: expects std > 0, got {std}")
    if math.isnan(a) or math.isnan(b) or not a < b:
        raise ValueError(f"repdl.random.trunc_normal_: expects a < b, got a={a}, b={b}")
    mass = _normal_mass((a - mean) / std, (b - mean) / std)
    if mass < _TRUNC_MIN_MASS:
        raise ValueError(
            f"repdl.random.trunc_normal_: [a, b] = [{a}, {b}] holds only {mass:.3g} of N({mean}, {std}**2); "
            f"rejection sampling needs at least {_TRUNC_MIN_MASS}")
    g = _args.generator("trunc_normal_", generator)
    n = tensor.numel()
    seed, offset = g._reserve(n)
    m32, s32, a32, b32 = _args.fl32(mean), _args.fl32(std), _args.fl32(a), _args.fl32(b)
    return _fill(tensor, lambda be, **kw: be.trunc_normal(seed, offset, n, tensor.device, m32, s32, a32, b32, **kw))


def _normal_mass(lo: float, hi: float) -> float:
    """P(lo <= Z <= hi) for a standard normal Z, without cancellation."""
    s = math.sqrt(0.5)
    if lo >= 0:
        return 0.5 * (math.erfc(lo * s) - math.erfc(hi * s))
    if hi <= 0:
        return 0.5 * (math.erfc(-hi * s) - math.erfc(-lo * s))
    return 1.0 - 0.5 * (math.erfc(-lo * s) + math.erfc(hi * s))

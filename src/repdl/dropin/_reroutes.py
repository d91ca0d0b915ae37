"""The drop-in mode's rerouted calls: torch's signatures in, RepDL's ops out.

Each function here takes a torch function's (or Tensor method's) arguments
exactly as the user wrote them and computes the result with RepDL's ops,
whose forward and backward are the contract's (docs/CONTRACT.md).  Where
torch's signature and RepDL's differ only in deprecated or defaulted
arguments, the arguments are bound with torch's signature first; an
argument RepDL does not support raises NotImplementedError, which the mode
turns into NonReproducibleError (strict) or a warning and torch's op.
"""
import inspect
import numbers
import weakref

import torch

from .. import nn as _rnn
from .. import ops
from .. import random as _random
from .._scalar import fl32
from ..ops import _grad
from ..ops._in_place import inplace_source, write_inplace
from ..random import init as _init

Tensor = torch.Tensor
F = torch.nn.functional


def repdl_generator(g):
    """RepDL's generator for a torch.Generator argument: one repdl Generator
    per torch generator object and seed (its initial_seed()), so
    ``generator=torch.Generator().manual_seed(5)`` gives a reproducible
    stream that continues across calls, and reseeding restarts it.  None:
    RepDL's default generator."""
    if g is None or isinstance(g, _random.Generator):
        return g
    seed = g.initial_seed()
    found = _GENERATORS.get(g)
    if found is None or found[0] != seed:
        found = _GENERATORS[g] = (seed, _random.Generator(seed))
    return found[1]


_GENERATORS = weakref.WeakKeyDictionary()  # torch.Generator -> (seed, repdl Generator)


# ---- arithmetic ---------------------------------------------------------------

def in_place(op):
    """``x.op_(...)``: x's storage receives RepDL's result, computed from a
    clone of x when autograd records (the op may save x for its backward;
    ops._in_place has the why and how of the write)."""

    def method(self, *args, **kwargs):
        source = inplace_source(self, True)
        result = op(source, *(source if a is self else a for a in args), **kwargs)
        if result.dtype != self.dtype:  # torch's rule: an in-place op keeps the tensor's dtype
            raise RuntimeError(f"result type {result.dtype} can't be cast to the desired output type {self.dtype}")
        return write_inplace(self, result, True)

    method.__name__ = f"{op.__name__}_"
    return method


def reflected(op):
    """``other (op) self`` for Python's reflected operators (__rsub__, ...)."""

    def method(self, other):
        return op(other, self)

    method.__name__ = f"r{op.__name__}"
    return method


def square(input):
    return ops.mul(input, input)


def power(input, exponent):
    """torch.pow / ``**``.  An integral exponent (int or integral float) is
    the contract's square-and-multiply (repdl.pow); 0.5 and -0.5 are sqrt
    and rsqrt; a Python number raised to a tensor, ``a ** x``, is
    exp2(log2(fl32(a)) * x), three correctly rounded steps (the contract's
    drop-in section: reproducible, within about |x log2 a| ulp of a ** x).
    Any other real exponent has no RepDL graph: NotImplementedError."""
    if isinstance(input, numbers.Real) and isinstance(exponent, Tensor):
        if input == 2:
            return ops.exp2(exponent)
        log2a = ops.log2(torch.tensor(fl32(input), dtype=torch.float32, device=exponent.device))
        return ops.exp2(ops.mul(log2a, exponent))
    if isinstance(exponent, Tensor):
        raise NotImplementedError("pow with a tensor exponent has no RepDL graph")
    if isinstance(exponent, numbers.Integral) or (isinstance(exponent, float) and exponent.is_integer()):
        return ops.pow(input, int(exponent))
    if exponent == 0.5:
        return ops.sqrt(input)
    if exponent == -0.5:
        return ops.rsqrt(input)
    raise NotImplementedError(f"pow with the real exponent {exponent!r} has no RepDL graph (integral exponents, "
                              "0.5 and -0.5 have one)")


def reflected_power(self, other):
    return power(other, self)


def clamp(input, min=None, max=None):
    return ops.clamp(input, min, max)


def extremum(op):
    """torch.max / torch.min: a reduction (all, or along dim), or with a
    tensor as second argument torch.maximum / torch.minimum, which RepDL's
    table leaves to torch's guard-checked kernel."""

    def reduce(input, dim=None, keepdim=False, **kwargs):
        if isinstance(dim, Tensor):
            raise NotImplementedError(f"{op.__name__}(input, other) (elementwise) has no RepDL op yet")
        if kwargs:
            raise NotImplementedError(f"{op.__name__}: arguments {sorted(kwargs)}")
        return op(input, dim, keepdim)

    reduce.__name__ = op.__name__
    return reduce


def softmax_of(op):
    """softmax / log_softmax in every spelling: torch.softmax(x, dim, dtype),
    Tensor.softmax(dim, dtype=), F.softmax(x, dim, _stacklevel, dtype)."""

    def call(input, dim=None, *rest, dtype=None, **kwargs):
        if rest and isinstance(rest[0], torch.dtype):
            dtype = rest[0]
        if dim is None:
            raise NotImplementedError(f"{op.__name__} without dim (torch's implicit choice)")
        return op(input, dim, dtype)

    call.__name__ = op.__name__
    return call


# ---- calls whose torch signature has arguments RepDL does not take ----------------

def bound(torch_fn, repdl_fn, *, dropped=("size_average", "reduce", "_stacklevel"), keep=()):
    """A call of ``repdl_fn`` with the arguments bound by ``torch_fn``'s
    signature; `dropped` arguments (deprecated ones) must keep their
    defaults, and any argument with a non-default value that repdl_fn does
    not accept raises NotImplementedError naming it."""
    theirs = inspect.signature(torch_fn)
    ours = set(inspect.signature(repdl_fn).parameters)

    def call(*args, **kwargs):
        given = theirs.bind(*args, **kwargs).arguments
        passed = {}
        for name, value in given.items():
            if name in ours:
                passed[name] = value
            elif name in dropped and value is None:
                continue
            elif value is not theirs.parameters[name].default and name not in keep:
                raise NotImplementedError(f"{torch_fn.__name__}: argument {name}={value!r}")
        return repdl_fn(**passed)

    call.__name__ = torch_fn.__name__
    return call


def dropout_of(op):
    """F.dropout family: the mask from RepDL's stream."""

    def call(input, p=0.5, training=True, inplace=False):
        return op(input, p, training, inplace)

    call.__name__ = op.__name__
    return call


def torch_dropout(input, p, train):
    """torch.dropout(input, p, train) (the function nn.Dropout's F.dropout calls)."""
    return _random.dropout(input, p, train)


# ---- exact forward, rerouted backward ------------------------------------------

class _Expand(torch.autograd.Function):
    """expand with the contract's backward (one sequential sum over the
    broadcast dims, ops._grad.sum_to) instead of torch's sum_to_size."""

    @staticmethod
    def forward(ctx, x, shape):
        ctx.shape = x.shape
        return x.expand(shape)

    @staticmethod
    def backward(ctx, g):
        return _grad.sum_to(g.contiguous(), ctx.shape), None


def expand(self, *sizes):
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list, torch.Size)):
        sizes = tuple(sizes[0])
    if not (self.requires_grad and torch.is_grad_enabled()) or not self.dtype.is_floating_point:
        return self.expand(*sizes)
    return _Expand.apply(self, sizes)


def expand_as(self, other):
    return expand(self, other.shape)


# ---- random draws: RepDL's stream ----------------------------------------------

def _draw(op):
    def call(*args, generator=None, out=None, layout=None, pin_memory=False, names=None, **kwargs):
        if out is not None or (layout not in (None, torch.strided)) or pin_memory or names is not None:
            raise NotImplementedError(f"torch.{op.__name__} with out=, layout=, pin_memory= or names=")
        return op(*args, generator=repdl_generator(generator), **kwargs)

    call.__name__ = op.__name__
    return call


rand, randn, randint, randperm = (_draw(f) for f in (_random.rand, _random.randn, _random.randint, _random.randperm))


def _like(op):
    def call(input, *, generator=None, dtype=None, layout=None, device=None, pin_memory=False,
             requires_grad=False, memory_format=torch.preserve_format):
        return op(input, generator=repdl_generator(generator), dtype=dtype, device=device, requires_grad=requires_grad)

    call.__name__ = op.__name__
    return call


rand_like, randn_like = _like(_random.rand_like), _like(_random.randn_like)


def bernoulli(input, p=None, *, generator=None, out=None):
    if out is not None:
        raise NotImplementedError("torch.bernoulli with out=")
    return _random.bernoulli(input, p, generator=repdl_generator(generator))


def bernoulli_(self, p=0.5, *, generator=None):
    return self.copy_(_random.bernoulli(torch.empty_like(self), p, generator=repdl_generator(generator)))


def uniform_(self, a=0.0, b=1.0, *, generator=None, **kwargs):
    a, b = kwargs.pop("from", a), kwargs.pop("to", b)
    return _random.uniform_(self, a, b, generator=repdl_generator(generator))


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    return _random.normal_(self, mean, std, generator=repdl_generator(generator))


def random_(self, *args, generator=None, **kwargs):
    """Tensor.random_: integers in [from, to), by default [0, 2^mantissa]
    for floating tensors and [0, max] for integer ones (torch's ranges),
    drawn by RepDL's randint."""
    low, high = 0, None
    if len(args) == 1:
        high = args[0]
    elif len(args) == 2:
        low, high = args
    low, high = kwargs.get("from", low), kwargs.get("to", high)
    if high is None:
        high = (2 ** torch.finfo(self.dtype).nmant + 1 if self.dtype.is_floating_point
                else torch.iinfo(self.dtype).max)
    draw = _random.randint(low, high, tuple(self.shape), generator=repdl_generator(generator), dtype=torch.int64,
                           device=self.device)
    return self.copy_(draw)


# ---- torch.nn.init ------------------------------------------------------------

def _init_with_generator(op):
    def call(tensor, *args, generator=None, **kwargs):
        return op(tensor, *args, generator=repdl_generator(generator), **kwargs)

    call.__name__ = op.__name__
    return call


INIT = {name: _init_with_generator(getattr(_init, name))
        for name in ("uniform_", "normal_", "trunc_normal_", "xavier_uniform_", "xavier_normal_",
                     "kaiming_uniform_", "kaiming_normal_")}
# constant_, ones_ and zeros_ are fills: exact as torch does them.

FUNCTIONAL = {name: getattr(_rnn.functional, name) for name in _rnn.functional.__all__}

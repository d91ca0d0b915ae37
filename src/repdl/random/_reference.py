"""The reference stream: Philox4x32-10 and its transforms with integer tensor ops.

This is docs/CONTRACT.md section 7 as code.  It runs on any device: the
Philox words are computed with int64 tensor ops whose values never leave
[0, 2**49) (a 32 x 32 -> 64-bit product is split at 16 bits), the float
transforms are exact conversions, power-of-two scalings, and the correctly
rounded operations of ``backends.reference._exact`` and the elementwise
family.  The C++ kernels (csrc/random) must match it bit for bit.  Entry
points that do float arithmetic run in the IEEE default environment
(``repdl._fpenv``), so FTZ/DAZ set by the caller cannot flush them.

Words are held in int64 tensors with values in [0, 2**32).  Every function
takes the draw's ``seed`` and first block ``offset`` (Python ints in
[0, 2**64)) and returns a new 1-D tensor of ``n`` elements.
"""
import torch

from .._fpenv import ieee_env
from ..backends.reference import _exact
from . import _crmath

MASK32 = 0xFFFFFFFF
M0, M1 = 0xD2511F53, 0xCD9E8D57        # Philox4x32 round multipliers
W0, W1 = 0x9E3779B9, 0xBB67AE85        # key increments between rounds
ROUNDS = 10
TWO_PI32 = 6.28318548202514648          # fl32(2 pi), bits 0x40C90FDB
TRUNC_MAX_ATTEMPTS = 65536

_I64 = torch.int64


# ---- Philox4x32-10 ----------------------------------------------------------------------

def mulhilo(a, m: int):
    """(hi, lo) 32-bit words of a * m, a int64 tensor in [0, 2**32), m a
    Python int in [0, 2**32).  No intermediate reaches 2**49."""
    p_lo = a * (m & 0xFFFF)            # < 2**48
    p_hi = a * (m >> 16)               # < 2**48
    t = p_lo + ((p_hi & 0xFFFF) << 16)  # < 2**49
    return (p_hi >> 16) + (t >> 32), t & MASK32


def philox4x32_10(c0, c1, c2, c3, k0: int, k1: int):
    """Ten Philox rounds on counter words (int64 tensors, broadcastable) and
    key words (Python ints); returns the four output words."""
    for r in range(ROUNDS):
        if r:
            k0, k1 = (k0 + W0) & MASK32, (k1 + W1) & MASK32
        hi0, lo0 = mulhilo(c0, M0)
        hi1, lo1 = mulhilo(c2, M1)
        c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
    return c0, c1, c2, c3


def key_of_seed(seed: int):
    return seed & MASK32, seed >> 32


def blocks_at(seed: int, offset: int, index, stream: int = 0):
    """Blocks (offset + index mod 2**64, stream) for an int64 tensor `index`
    of non-negative block indices: a (len(index), 4) tensor of words."""
    k0, k1 = key_of_seed(seed)
    lo = index + (offset & MASK32)
    c0 = lo & MASK32
    c1 = ((lo >> 32) + (offset >> 32)) & MASK32
    c2 = torch.full_like(index, stream & MASK32)
    c3 = torch.full_like(index, stream >> 32)
    return torch.stack(philox4x32_10(c0, c1, c2, c3, k0, k1), dim=-1)


def words(seed: int, offset: int, n: int, device, per_element: int = 1):
    """The first n * per_element words of the draw, as an (n, per_element)
    tensor (a vector when per_element is 1)."""
    total = n * per_element
    nblocks = -(-total // 4)
    index = torch.arange(nblocks, dtype=_I64, device=device)
    w = blocks_at(seed, offset, index).reshape(-1)[:total]
    return w if per_element == 1 else w.reshape(n, per_element)


# ---- uniform ----------------------------------------------------------------------------

def unit(w):
    """(w >> 8) * 2**-24: the top 24 bits as a float32 in [0, 1), exact."""
    return (w >> 8).to(torch.float32) * (2.0 ** -24)


def _scalar(v: float, like):
    return torch.tensor(v, dtype=torch.float32, device=like.device)


@ieee_env
def uniform(seed, offset, n, device, a=None, span=None):
    """u, or fma32(span, u, a) when a and span (exact float32 values) are given."""
    u = unit(words(seed, offset, n, device))
    if a is None:
        return u
    return _exact.fma32(_scalar(span, u), u, _scalar(a, u))


# ---- normal (Box-Muller) ----------------------------------------------------------------

def box_muller(w0, w1):
    """(z0, z1) from word tensors w0, w1: every step one correctly rounded op."""
    u1 = ((w0 >> 8) + 1).to(torch.float32) * (2.0 ** -24)   # (0, 1], exact
    u2 = unit(w1)                                             # [0, 1), exact
    r = _exact.sqrt32(_crmath.log(u1) * -2.0)                  # * -2 is exact
    th = _exact.mul32(_scalar(TWO_PI32, u2), u2)
    return _exact.mul32(r, _crmath.cos(th)), _exact.mul32(r, _crmath.sin(th))


@ieee_env
def normal_from_words(w):
    """Normals of a word vector: pair k = (w[2k], w[2k+1]) gives elements
    2k (z0) and 2k+1 (z1); an odd length drops the last z1."""
    n = w.numel()
    if n % 2:
        w = torch.cat([w, w.new_zeros(1)])
    z0, z1 = box_muller(w[0::2], w[1::2])
    return torch.stack([z0, z1], dim=-1).reshape(-1)[:n]


@ieee_env
def normal(seed, offset, n, device, mean=None, std=None):
    """Standard normals, or fma32(std, z, mean) when mean and std are given."""
    z = normal_from_words(words(seed, offset, n + n % 2, device))[:n]
    if mean is None:
        return z
    return _exact.fma32(_scalar(std, z), z, _scalar(mean, z))


# ---- bounded integers -------------------------------------------------------------------

def mulhi64(hi, lo, r: int):
    """(vh, vl): the 32-bit halves of floor(U * r / 2**64) for U = hi * 2**32 + lo
    (word tensors) and a Python int r in [1, 2**64)."""
    r1, r0 = r >> 32, r & MASK32
    h00, _ = mulhilo(lo, r0)
    h01, l01 = mulhilo(lo, r1)
    h10, l10 = mulhilo(hi, r0)
    h11, l11 = mulhilo(hi, r1)
    carry = (h00 + l01 + l10) >> 32                  # bits 64.. of the low products
    low = l11 + h01 + h10 + carry                    # < 2**35
    return h11 + (low >> 32), low & MASK32


def bounded(hi, lo, low: int, r: int):
    """low + floor(U * r / 2**64) as int64 (values in [low, low + r))."""
    vh, vl = mulhi64(hi, lo, r)
    s = vl + (low & MASK32)
    # value = (low >> 32 + vh + carry) * 2**32 + s mod 2**32; the factor is
    # the value's own top half, so the product cannot overflow int64.
    return ((low >> 32) + vh + (s >> 32)) * (1 << 32) + (s & MASK32)


def randint(seed, offset, n, low, r, device, dtype=torch.int64):
    w = words(seed, offset, n, device, per_element=2)
    return bounded(w[:, 0], w[:, 1], low, r).to(dtype)


def perm_keys(seed, offset, n, device):
    """U - 2**63 (= U xor 2**63 read as signed): signed order is U's order."""
    w = words(seed, offset, n, device, per_element=2)
    return (w[:, 0] - (1 << 31)) * (1 << 32) + w[:, 1]


def randperm(seed, offset, n, device, dtype=torch.int64):
    """The indices i = 0..n-1 sorted by (U_i, i): a stable sort of the keys
    (any correct stable sort gives this one permutation)."""
    return torch.sort(perm_keys(seed, offset, n, device), stable=True).indices.to(dtype)


# ---- Bernoulli and dropout --------------------------------------------------------------

def bernoulli_scalar(seed, offset, n, threshold, device):
    """1.0 where (w >> 8) < threshold, else 0.0."""
    return ((words(seed, offset, n, device) >> 8) < threshold).to(torch.float32)


@ieee_env
def bernoulli_tensor(seed, offset, p):
    """1.0 where u < p[i], else 0.0 (p float32, dense row-major)."""
    return (unit(words(seed, offset, p.numel(), p.device)) < p.reshape(-1)).to(torch.float32)


def keep_mask(seed, offset, n, threshold, device):
    """True where (w >> 8) >= threshold."""
    return (words(seed, offset, n, device) >> 8) >= threshold


@ieee_env
def dropout(seed, offset, x, threshold, scale):
    """x * (keep ? scale : 0.0), one rounding, NaN canonical; x float32."""
    keep = keep_mask(seed, offset, x.numel(), threshold, x.device)
    w = torch.where(keep, _scalar(scale, x), _scalar(0.0, x))
    return _exact.mul32(x.reshape(-1), w)


# ---- truncated normal -------------------------------------------------------------------

@ieee_env
def trunc_normal(seed, offset, n, device, mean, std, a, b):
    """Element i tries blocks (offset + i, j), j = 0, 1, ...: y = fma32(std,
    z0, mean) from the block's words 0 and 1, accepted when a <= y <= b; after
    TRUNC_MAX_ATTEMPTS failures, min(max(mean, a), b)."""
    out = torch.empty(n, dtype=torch.float32, device=device)
    todo = torch.arange(n, dtype=_I64, device=device)
    ms = torch.tensor(mean, dtype=torch.float32, device=device)
    ss = torch.tensor(std, dtype=torch.float32, device=device)
    for attempt in range(TRUNC_MAX_ATTEMPTS):
        if todo.numel() == 0:
            return out
        w = blocks_at(seed, offset, todo, stream=attempt)
        z0, _ = box_muller(w[:, 0], w[:, 1])
        y = _exact.fma32(ss, z0, ms)
        ok = (a <= y) & (y <= b)
        out[todo[ok]] = y[ok]
        todo = todo[~ok]
    out[todo] = min(max(mean, a), b)
    return out

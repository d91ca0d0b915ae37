"""Correctly rounded float32 elementwise functions, the reference way.

For a float32 input x, f(x) is evaluated in float64 with PyTorch ops (error
a few float64 ulps at most, on CPU and CUDA alike) and rounded to float32.
That rounding is the correctly rounded result unless the float64 value lies
within the function's runtime window of a float32 rounding midpoint; such
inputs are looked up in the function's hard-case table, which holds every
input whose float64 value can come that close, settled with MPFR
(tools/cr/generate.py).  See docs/CONTRACT.md section 6 for what each
function rounds and docs/elementwise.md for windows, error bounds and the
exhaustive verification records.

``sqrt`` and ``reciprocal`` need no table: IEEE ``sqrt`` and ``/``
of float32 operands in float64, rounded to float32, are correctly rounded
(53 >= 2*24 + 2; see ``_exact``).
"""
import torch

from . import _exact
from ...crtables import load as _load_table

__all__ = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal",
           "sin", "cos", "pow_int",
           "tanh", "sigmoid", "logsigmoid",
           "erf", "erfc", "gelu", "gelu_tanh",
           "softplus", "silu", "silu_and_sigmoid", "mish", "elu", "selu", "softplus_param", "elu_param",
           "celu_param"]

_f64 = _exact.f64

# ---- the table-checked rounding -------------------------------------------------------------

_EXP_MIN_NORMAL32 = 1023 - 126  # biased float64 exponent of 2**-126


def midpoint_distance(y64: torch.Tensor) -> torch.Tensor:
    """|y64 - nearest float32 rounding midpoint| in units of y64's last bit
    (int64), for finite y64; a big number for zeros, infinities and NaN.

    For |y64| >= 2**-126 the float32 grid is the top 24 bits of the
    significand, so the distance is that of the low 29 bits to 2**28.  Below
    2**-126 (float32 subnormal results) the grid is 2**-149 and the split
    moves left by one bit per binade."""
    b = y64.view(torch.int64)
    e = (b >> 52) & 0x7FF
    mant = (b & ((1 << 52) - 1)) | (1 << 52)
    s = (29 + (_EXP_MIN_NORMAL32 - e).clamp(min=0)).clamp(max=60)
    one = torch.ones_like(b)
    low = mant & ((one << s) - 1)
    d = (low - (one << (s - 1))).abs()
    return torch.where((e == 0) | (e == 0x7FF), torch.full_like(d, 1 << 62), d)


class _Table:
    """A function's hard cases: sorted input bit patterns and their correctly
    rounded results, on one device."""

    def __init__(self, name):
        window, keys, values = _load_table(name)
        self.window = window
        # keys as unsigned bit patterns (int64, sorted); values as int32 bit patterns.
        signed = [v - (1 << 32) if v >= 1 << 31 else v for v in values]
        self._cpu = (torch.tensor(keys, dtype=torch.int64, device="cpu"),
                     torch.tensor(signed, dtype=torch.int32, device="cpu"))
        self._dev = {}

    def on(self, device):
        if device.type == "cpu":
            return self._cpu
        if device not in self._dev:
            self._dev[device] = tuple(t.to(device) for t in self._cpu)
        return self._dev[device]


_TABLES = {}


def _table(name) -> _Table:
    t = _TABLES.get(name)
    if t is None:
        t = _TABLES[name] = _Table(name)
    return t


def round_checked(name: str, x: torch.Tensor, y64: torch.Tensor) -> torch.Tensor:
    """fl32(f(x)) from y64, a float64 evaluation of f(x) whose error is below
    the table's runtime window: y64 rounded, except that inputs whose y64 lies
    within the window of a midpoint take their result from the table when
    they are in it."""
    table = _table(name)
    shape = y64.shape
    x, y64 = x.reshape(-1), y64.reshape(-1)
    y = y64.to(torch.float32)
    # Quick test first (as the C++ rows do): the low 29 bits near 2**28, or
    # a result below 2**-126; the exact distance only for those.
    b = y64.view(torch.int64)
    w = table.window
    quick = (((b + (w - (1 << 28))) & ((1 << 29) - 1)) <= 2 * w) | ((b & 0x7FFFFFFFFFFFFFFF) < ((1023 - 126) << 52))
    cand = quick.nonzero().squeeze(1)
    if cand.numel():
        near = cand[midpoint_distance(y64[cand]) <= w]
        keys, values = table.on(x.device)
        if near.numel() and keys.numel():
            xb = x[near].view(torch.int32).to(torch.int64) & 0xFFFFFFFF
            pos = torch.searchsorted(keys, xb).clamp(max=keys.numel() - 1)
            hit = keys[pos] == xb
            y = y.clone()
            y[near] = torch.where(hit, values[pos], y[near].view(torch.int32)).view(torch.float32)
    y = y.reshape(shape)
    return _exact.canonical_nan(y)


# ---- the float64 formulas ------------------------------------------------------------------
# One per table-checked function: what the reference evaluates, and exactly
# what tools/cr/generate.py sweeps over all 2**32 inputs to build the table.
# Each must be free of cancellation, with an error (on any IEEE float64
# device) far below the function's runtime window.
# Activations: u = e^-|x| <= 1 keeps every sum below of two terms of one
# sign, so nothing cancels; the bounds (float64 ulps, from 1-ulp exp, expm1,
# log1p) are the generator's gen_error in tools/cr/functions.py.
_SELU_S = float.fromhex("0x1.0cfabep+0")  # fl32(1.0507009873554804934193349852946)
_SELU_SA = float.fromhex("0x1.0cfabep+0") * float.fromhex("0x1.ac5afap+0")  # S * A, exact in float64


def _sigmoid64(x):
    """1 / (1 + e^-x) for x >= 0, e^x / (1 + e^x) for x < 0: <= 5 ulps."""
    u = torch.exp(-x.abs())
    return torch.where(x < 0, u, 1.0) / (1.0 + u)


def _logsigmoid64(x):
    """-(ln(1 + e^-|x|) - min(x, 0)): <= 5 ulps; -0 at +inf, as for large x."""
    return -(torch.log1p(torch.exp(-x.abs())) - x.clamp(max=0.0))


def _softplus64(x):
    """max(x, 0) + ln(1 + e^-|x|): <= 5 ulps."""
    return x.clamp(min=0.0) + torch.log1p(torch.exp(-x.abs()))


def _silu64(x):
    """x / (1 + e^-x), as x e^x / (1 + e^x) for x < 0: <= 6 ulps.  x is
    clamped at -120, where |x e^x| < 2^-160 already rounds to -0 (so -inf
    gives -0, not -inf * 0).  For |x| < 2^-60, x (1/2 +- 2^-44): x/2 moved
    by 2^-43 |x/2| towards +inf, the side silu(x) lies on, and far from the
    midpoint x/2 can be (csrc/elementwise/fn/silu.h)."""
    xc = x.clamp(min=-120.0)
    u = torch.exp(-xc.abs())
    y = torch.where(xc < 0, xc * u, xc) / (1.0 + u)
    nudged = x * (0.5 + torch.where(x < 0, -1.0, 1.0).to(x.dtype) * 2.0 ** -44)
    return torch.where(x.abs() < 2.0 ** -60, nudged, y)


def _mish64(x):
    """x tanh(ln(1 + e^x)) = x n / (n + 2) with n = u (u + 2), u = e^x (all
    terms positive): <= 9 ulps.  u uses min(x, 40), where n / (n + 2) is
    already 1 in float64; x is clamped at -120 as in silu."""
    x = x.clamp(min=-120.0)
    u = torch.exp(x.clamp(max=40.0))
    n = u * (u + 2.0)
    return x * (n / (n + 2.0))


def _elu64(x):
    """x for x > 0, e^x - 1 otherwise: <= 1 ulp."""
    return torch.where(x > 0, x, torch.expm1(x))


def _selu64(x):
    """S x (exact in float64) for x > 0, (S A)(e^x - 1) otherwise: <= 2 ulps."""
    return torch.where(x > 0, x * _SELU_S, torch.expm1(x) * _SELU_SA)


# The erf family (bounds in float64 ulps; torch's float64 erf, erfc and exp
# err by <= 1.5 ulps on CPU (SLEEF) and <= 4 on CUDA).  Near zero both gelu
# forms return x/2 moved by 2^-43 |x/2| towards +inf, as the C++ rows do
# (csrc/elementwise/fn/erf_family.h): the same rounding as f(x), and far from
# every midpoint, where a faithful value could sit on one (x/2 a subnormal
# midpoint) and need a table entry.
_GELU_C_HI = float.fromhex("0x1.6a09e66p-1")  # 1/sqrt 2 to 29 bits: x * C_HI is exact for float32 x
_GELU_C_LO = float.fromhex("0x1.fcef32422cbecp-31")  # 1/sqrt 2 - C_HI
_TWO_OVER_SQRTPI = float.fromhex("0x1.20dd750429b6dp+0")
_GELU_TANH_A = (float.fromhex("0x1.9884533d43651p+0"), float.fromhex("-0x1.cbc0d30ebfd15p-54"))  # 2 sqrt(2/pi)
_GELU_TANH_B = (float.fromhex("0x1.2444f2a4d8b4bp-4"), float.fromhex("-0x1.6c843a29d1c70p-61"))  # A 0.044715


def _gelu_near_zero(x, y):
    """y, except x (1/2 +- 2^-44) (towards +inf) where |x| < 2^-60."""
    nudged = x * (0.5 + torch.where(x < 0, -1.0, 1.0).to(x.dtype) * 2.0 ** -44)  # float64 throughout
    return torch.where(x.abs() < 2.0 ** -60, nudged, y)


def _gelu64(x):
    """(x/2) erfc(z), z = -x/sqrt 2 = zh + zl with zh = -x C_HI exact and
    |zl| <= 2^-30 |z|: erfc(z) = erfc(zh) - (2/sqrt pi) e^(-zh^2) zl (1 - zh zl)
    + O(|z zl|^3), which leaves the rounding of z (amplified 2 z^2 ~ 210
    times for x near -14.7) out of erfc's argument; the remainder is below
    2^-66 relative.  <= 3 ulps.  -0 below -14.75 (|gelu(-14.75)| < 2^-158)."""
    xc = x.clamp(-15.0, 15.0)  # beyond 15, erfc(zh) is 2 and x e^-112 rounds to x
    zh = xc * -_GELU_C_HI
    zl = xc * -_GELU_C_LO
    e = torch.erfc(zh) - _TWO_OVER_SQRTPI * torch.exp(-(zh * zh)) * zl * (1.0 - zh * zl)
    y = torch.where(x < -14.75, -0.0, (0.5 * x) * e)
    return _gelu_near_zero(x, y)


def _split27(a):
    """Veltkamp: a = hi + lo exactly, hi with 26 bits."""
    c = a * 134217729.0
    hi = c - (c - a)
    return hi, a - hi


def _two_prod(a, b):
    """(p, e) with p = fl(a b) and p + e = a b exactly (Dekker; no fma)."""
    p = a * b
    ah, al = _split27(a)
    bh, bl = _split27(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _gelu_tanh64(x):
    """x / (1 + E) for x >= 0, x E / (1 + E) for x < 0, E = e^-|t|, t = A x +
    B x^3 = 2 sqrt(2/pi) (x + 0.044715 x^3) in double-double (|error| <
    2^-95: E is e^-112 near x = -11, so t needs ~2^-58 absolutely):
    e^-|t| = e^-|th| (1 + tl').  <= 7 ulps.  -0 below -11 (|f(-11)| < 2^-158)."""
    xc = x.clamp(-12.0, 12.0)
    ph, pe = _two_prod(xc, _GELU_TANH_A[0])
    pl = pe + xc * _GELU_TANH_A[1]
    x2 = xc * xc  # exact
    x3h, x3l = _two_prod(x2, xc)
    qh, qe = _two_prod(x3h, _GELU_TANH_B[0])
    ql = qe + (x3l * _GELU_TANH_B[0] + x3h * _GELU_TANH_B[1])
    th = ph + qh
    bb = th - ph
    tl = ((ph - (th - bb)) + (qh - bb)) + (pl + ql)
    neg = x < 0
    e = torch.exp(-th.abs()) * (1.0 + torch.where(neg, tl, -tl))
    y = torch.where(neg, x * e, x) / (1.0 + e)
    return _gelu_near_zero(x, torch.where(x < -11.0, -0.0, y))


FLOAT64 = {
    "exp": torch.exp,
    "exp2": torch.exp2,
    "expm1": torch.expm1,
    "log": torch.log,
    "log2": torch.log2,
    "log10": torch.log10,
    "log1p": torch.log1p,
    "rsqrt": torch.rsqrt,
    "sin": torch.sin,
    "cos": torch.cos,
    "tanh": torch.tanh,
    "sigmoid": _sigmoid64,
    "logsigmoid": _logsigmoid64,
    "softplus": _softplus64,
    "silu": _silu64,
    "mish": _mish64,
    "elu": _elu64,
    "selu": _selu64,
    "erf": torch.erf,
    "erfc": torch.erfc,
    "gelu": _gelu64,
    "gelu_tanh": _gelu_tanh64,
}


def _cr(name, x):
    return round_checked(name, x, FLOAT64[name](_f64(x)))


# ---- the functions: fl32 of the real function, one rounding ---------------------------------

def exp(x):
    """fl32(e**x)."""
    return _cr("exp", x)


def exp2(x):
    """fl32(2**x)."""
    return _cr("exp2", x)


def expm1(x):
    """fl32(e**x - 1)."""
    return _cr("expm1", x)


def log(x):
    """fl32(ln x)."""
    return _cr("log", x)


def log2(x):
    """fl32(log2 x)."""
    return _cr("log2", x)


def log10(x):
    """fl32(log10 x)."""
    return _cr("log10", x)


def log1p(x):
    """fl32(ln(1 + x))."""
    return _cr("log1p", x)


def sqrt(x):
    """fl32(sqrt x): exact by construction (IEEE sqrt in float64, rounded)."""
    return _exact.sqrt32(x)


def rsqrt(x):
    """fl32(1 / sqrt x)."""
    return _cr("rsqrt", x)


def reciprocal(x):
    """fl32(1 / x): exact by construction (IEEE division in float64, rounded)."""
    return _exact.round32(1.0 / _f64(x))


def sin(x):
    """fl32(sin x), x in radians."""
    return _cr("sin", x)


def cos(x):
    """fl32(cos x), x in radians."""
    return _cr("cos", x)


def softplus(x):
    """fl32(ln(1 + e**x)): softplus with beta = 1 and any threshold >= 15 (default 20)."""
    return _cr("softplus", x)


def silu(x):
    """fl32(x / (1 + e**-x)), one rounding; -0 at -inf."""
    return _cr("silu", x)


def silu_and_sigmoid(x):
    """(silu(x), sigmoid(x)): the pair silu's recorded forward saves."""
    return silu(x), sigmoid(x)


def mish(x):
    """fl32(x tanh(ln(1 + e**x))), one rounding; -0 at -inf."""
    return _cr("mish", x)


def elu(x):
    """x for x > 0, else fl32(e**x - 1): elu and celu with alpha = 1."""
    return _cr("elu", x)


def selu(x):
    """fl32(S x) for x > 0, else fl32(S A (e**x - 1)), S and A float32 (CONTRACT.md)."""
    return _cr("selu", x)


def _param32(v: float, x):
    return torch.tensor(v, dtype=torch.float32, device=x.device)


def softplus_param(x, beta: float, threshold: float):
    """The contract's sequence for float32 beta, threshold: t = fl32(beta x);
    x where t > threshold, else fl32(softplus(t) / beta)."""
    b = _param32(beta, x)
    t = _exact.mul32(x, b)
    return _exact.canonical_nan(torch.where(t > threshold, x, _exact.div32(softplus(t), b)))


def elu_param(x, alpha: float):
    """x where x > 0, else fl32(alpha expm1(x)) (float32 alpha)."""
    a = _param32(alpha, x)
    return _exact.canonical_nan(torch.where(x > 0, x, _exact.mul32(a, expm1(x))))


def celu_param(x, alpha: float):
    """x where x > 0, else fl32(alpha expm1(fl32(x / alpha))) (float32 alpha)."""
    a = _param32(alpha, x)
    return _exact.canonical_nan(torch.where(x > 0, x, _exact.mul32(a, expm1(_exact.div32(x, a)))))


def tanh(x):
    """fl32(tanh x)."""
    return _cr("tanh", x)


def sigmoid(x):
    """fl32(1 / (1 + e**-x))."""
    return _cr("sigmoid", x)


def logsigmoid(x):
    """fl32(-ln(1 + e**-x)); -0 at +inf."""
    return _cr("logsigmoid", x)


def erf(x):
    """fl32(erf x)."""
    return _cr("erf", x)


def erfc(x):
    """fl32(1 - erf x)."""
    return _cr("erfc", x)


def gelu(x):
    """fl32(x Phi(x)) = fl32((x/2) erfc(-x/sqrt 2)) (approximate='none'); -0 at -inf."""
    return _cr("gelu", x)


def gelu_tanh(x):
    """fl32((x/2)(1 + tanh(sqrt(2/pi) (x + 0.044715 x**3)))), the real
    constants (approximate='tanh'); -0 at -inf."""
    return _cr("gelu_tanh", x)


def pow_int(x, p: int):
    """x**p in the contract's order: square-and-multiply over the bits of |p|
    from the lowest, each product one float32 rounding; p < 0 ends with one
    division 1 / x**|p|; p == 0 gives 1 (NaN included)."""
    m = abs(p)
    r = torch.ones_like(x)
    b = x
    while m:
        if m & 1:
            r = _exact.mul32(r, b)
        m >>= 1
        if m:
            b = _exact.mul32(b, b)
    if p < 0:
        r = _exact.div32(torch.ones_like(r), r)
    return _exact.canonical_nan(r)



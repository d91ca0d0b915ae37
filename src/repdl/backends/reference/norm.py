"""Reference: layer and RMS normalisation of rows (CONTRACT.md section 11),
the composition of the reference's primitives that the CPU's fused kernels
(csrc/norm) reproduce."""
from . import _exact, arith, elementwise, reductions


def _n(x):
    return _exact.round32(_exact.f64(x.new_tensor(float(x.shape[1]))))


def _xhat(x, mean, rstd, centered):
    centred = arith.binary("sub", x, mean.unsqueeze(1)) if centered else x
    return arith.binary("mul", centred, rstd.unsqueeze(1))


def norm_rows(x, w, b, eps: float, centered: bool):
    """mean = seqsum(x) / n, ss = fmachain(d, d), rstd = rsqrt(ss / n + eps)
    (rms: rstd = rsqrt(fmachain(x, x) / n + eps)); y = xhat * w + b."""
    n = _n(x)
    if centered:
        mean = arith.binary("div", reductions.sum(x, (1,), False, order="sequential"), n)
        ss = reductions.sqdev(x, mean, (1,), False)
    else:
        mean = x.new_empty(0)
        ss = reductions.sumprod(x, x, (1,), False)
    rstd = elementwise.rsqrt(arith.binary_scalar("add", arith.binary("div", ss, n), eps, False))
    y = _xhat(x, mean, rstd, centered)
    if w is not None:
        y = arith.binary("mul", y, w)
    if b is not None:
        y = arith.binary("add", y, b)
    return y, mean, rstd


def norm_rows_backward(g, x, mean, rstd, w, centered: bool, need_w: bool, need_b: bool):
    """gy = g * w; dx = ((gy - seqsum(gy) / n) - xhat * (fmachain(gy, xhat) / n)) * rstd
    (rms: without the first term); dw = seqsum over rows of g * xhat; db = seqsum of g."""
    n = _n(x)
    h = _xhat(x, mean, rstd, centered)
    gy = g if w is None else arith.binary("mul", g, w)
    m2 = arith.binary("div", reductions.sumprod(gy, h, (1,), True), n)
    if centered:
        m1 = arith.binary("div", reductions.sum(gy, (1,), True, order="sequential"), n)
        gy = arith.binary("sub", gy, m1)
    dx = arith.binary("mul", arith.binary("sub", gy, arith.binary("mul", h, m2)), rstd.unsqueeze(1))
    dw = reductions.sum(arith.binary("mul", g, h), (0,), False, order="sequential") if need_w else None
    db = reductions.sum(g, (0,), False, order="sequential") if need_b else None
    return dx, dw, db

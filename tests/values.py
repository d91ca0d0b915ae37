"""Test inputs: random values over many binades, and the adversarial values
that break careless kernels (signed zeros, subnormals, inf, NaN, values whose
products underflow or whose sums overflow); and float32 bit patterns with
the check of an elementwise function's every path against expected bits."""
import torch

import repdl
from repdl import _C
from repdl.backends import cpu, reference as ref

SUBNORMALS = [1e-45, -1e-45, 2.0 ** -149 * 3, 2.0 ** -127, -(2.0 ** -130), 1.1754942e-38]
SPECIALS = [0.0, -0.0, float("inf"), float("-inf"), float("nan"), 3.4028235e38, -3.4028235e38,
            1.1754944e-38, 1.0, -1.0] + SUBNORMALS
TINY = [1e-30, -3e-25, 2e-28]          # products of two of these underflow
HUGE = [3e38, 1e38, -2.5e38, 1.7e38]   # sums of a few of these overflow


def wide(*shape, gen, spread=8.0):
    """Normal values times 2^(spread * normal): many binades and both signs."""
    base = torch.randn(*shape, generator=gen)
    scale = torch.exp2(torch.randn(*shape, generator=gen) * spread).clamp(max=2.0 ** 60)
    return base * scale


def sprinkle(x, values, gen, fraction=0.2):
    """x with a random `fraction` of its elements replaced by `values`."""
    x = x.clone()
    flat = x.view(-1)
    n = flat.numel()
    if n == 0:
        return x
    k = max(1, int(n * fraction))
    idx = torch.randint(0, n, (k,), generator=gen)
    pick = torch.tensor(values, dtype=torch.float32)[torch.randint(0, len(values), (k,), generator=gen)]
    flat[idx] = pick
    return x


def layouts(x):
    """x in several memory layouts with the same logical values: contiguous,
    transposed storage, a strided slice of a larger buffer."""
    out = [("contiguous", x)]
    if x.dim() >= 2:
        out.append(("transposed", x.transpose(-1, -2).contiguous().transpose(-1, -2)))
    big = torch.empty(*x.shape[:-1], 2 * x.shape[-1] + 1) if x.dim() else None
    if big is not None:
        big[..., 1::2] = x
        out.append(("strided", big[..., 1::2]))
    return out


def outer_gapped(x):
    """x (at least 3-d) inside a buffer two rows longer along dim -2: its
    lines along the last dim lie end to end within each outer index, with a
    gap between outer indices, so that lines taken together across one are
    not one span of memory."""
    big = torch.zeros(*x.shape[:-2], x.shape[-2] + 2, x.shape[-1])
    big[..., 1:-1, :] = x
    return big[..., 1:-1, :]


def canonical(t):
    """t with every NaN made the canonical 0x7FC00000 (for expected values
    computed with torch, whose NaNs may carry any sign or payload)."""
    return torch.where(torch.isnan(t), torch.full_like(t, float("nan")), t)


def f32(bits_list):
    """float32 tensor of the given bit patterns (unsigned ints)."""
    return torch.tensor([b - (1 << 32) if b >= 1 << 31 else b for b in bits_list], dtype=torch.int32).view(torch.float32)


def u32(t):
    """Bit patterns of a float32 tensor, as unsigned ints."""
    return [b & 0xFFFFFFFF for b in t.contiguous().view(torch.int32).tolist()]


# The instruction-set rows this CPU can run, fastest first.
ROWS = [isa for isa in ("avx512", "avx2", "generic") if _C.isa_supported(isa)]


def check_all_paths(name, xbits, want, label):
    """Elementwise function `name` on inputs `xbits` gives the bits `want` on
    every C++ row and the reference backend."""
    x = f32(xbits)
    for isa in ROWS:
        saved = repdl.isa()
        repdl.set_isa(isa)
        try:
            got = u32(getattr(cpu, name)(x))
        finally:
            repdl.set_isa(saved)
        _report(name, xbits, got, want, f"{label}, C++ {isa}")
    _report(name, xbits, u32(getattr(ref, name)(x)), want, f"{label}, reference")


def _report(name, xbits, got, want, label):
    bad = [(hex(b), hex(g), hex(w)) for b, g, w in zip(xbits, got, want) if g != w]
    assert not bad, f"{name} ({label}): {len(bad)} of {len(xbits)} wrong; first (x, got, want): {bad[:5]}"

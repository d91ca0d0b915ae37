"""Test inputs: random values over many binades, and the adversarial values
that break careless kernels (signed zeros, subnormals, inf, NaN, values whose
products underflow or whose sums overflow)."""
import torch

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

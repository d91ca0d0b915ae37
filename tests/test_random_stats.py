"""Statistical sanity of the stream at fixed seeds.

The seeds are fixed, so these results are fixed: they never flake.  The
bounds are about four standard errors (KS: the 0.1% critical value), loose
enough for any correct stream and seed, tight enough to catch a wrong
transform (a lost bit, a biased bound, a broken Box-Muller pair)."""
import math

import torch

import repdl.random as rr
from repdl.random import _reference as ref

N = 1 << 20
KS_CRIT = 1.95  # sqrt(n) * D at the 0.1% level


def G(seed):
    return rr.Generator(seed)


def ks_statistic(x, cdf):
    """sqrt(n) * sup |F_n - F| for samples x and a float64 cdf function."""
    x = x.double().sort().values
    n = x.numel()
    f = cdf(x)
    i = torch.arange(1, n + 1, dtype=torch.float64)
    d = torch.maximum(i / n - f, f - (i - 1) / n).max().item()
    return math.sqrt(n) * d


def normal_cdf(x):
    return 0.5 * torch.special.erfc(-x / math.sqrt(2.0))


def test_word_bits_balanced():
    w = ref.words(5, 0, 1 << 16, "cpu")
    for b in range(32):
        ones = int(((w >> b) & 1).sum())
        assert abs(ones - (1 << 15)) < 4 * 128, b  # sd = sqrt(n/4) = 128


def test_rand_moments_and_ks():
    u = rr.rand(N, generator=G(101)).double()
    assert abs(u.mean().item() - 0.5) < 4 * math.sqrt(1 / 12 / N)
    assert abs(u.var().item() - 1 / 12) < 4 * math.sqrt(1 / 180 / N)
    assert ks_statistic(u, lambda x: x) < KS_CRIT
    assert u.min().item() >= 0 and u.max().item() < 1
    # 24 bits: every value a multiple of 2**-24.
    assert bool((u * 2**24 == (u * 2**24).floor()).all())


def test_randn_moments_and_ks():
    z = rr.randn(N, generator=G(202)).double()
    assert abs(z.mean().item()) < 4 / math.sqrt(N)
    assert abs(z.var().item() - 1) < 4 * math.sqrt(2 / N)
    skew = (z ** 3).mean().item()
    kurt = (z ** 4).mean().item()
    assert abs(skew) < 4 * math.sqrt(15 / N)
    assert abs(kurt - 3) < 4 * math.sqrt(96 / N)
    assert ks_statistic(z, normal_cdf) < KS_CRIT
    # |z| <= sqrt(-2 log 2**-24) = 5.77: u1 is never 0.
    assert z.abs().max().item() <= math.sqrt(-2 * math.log(2.0**-24)) + 1e-6


def test_randn_pairs_uncorrelated():
    z = rr.randn(N, generator=G(303)).double()
    for a, b in [(z[0::2], z[1::2]), (z[:-1], z[1:]), (z[:-4], z[4:])]:
        r = ((a - a.mean()) * (b - b.mean())).mean() / (a.std() * b.std())
        assert abs(r.item()) < 4 / math.sqrt(a.numel())


def test_normal_tail_frequencies():
    z = rr.randn(N, generator=G(404)).double()
    for t in (1.0, 2.0, 3.0):
        p = math.erfc(t / math.sqrt(2.0))  # P(|Z| > t)
        got = (z.abs() > t).double().mean().item()
        assert abs(got - p) < 4 * math.sqrt(p * (1 - p) / N), t


def test_randint_uniform_counts():
    for low, high in [(0, 10), (-3, 4), (0, 3_000_000_000)]:
        x = rr.randint(low, high, (200_000,), generator=G(505))
        assert int(x.min()) >= low and int(x.max()) < high
        bins = 10
        idx = ((x - low).double() * bins / (high - low)).floor().long() if high - low > bins else x - low
        counts = torch.bincount(idx, minlength=min(bins, high - low)).double()
        e = 200_000 / counts.numel()
        chi2 = ((counts - e) ** 2 / e).sum().item()
        k = counts.numel() - 1
        assert chi2 < k + 4 * math.sqrt(2 * k), (low, high, chi2)


def test_randperm_positions_uniform():
    g = G(606)
    n, reps = 8, 4000
    counts = torch.zeros(n, n)
    for _ in range(reps):
        p = rr.randperm(n, generator=g)
        counts[torch.arange(n), p] += 1
    e = reps / n
    chi2 = ((counts - e) ** 2 / e).sum().item()
    k = (n - 1) * (n - 1)
    assert chi2 < k + 4 * math.sqrt(2 * k)


def test_bernoulli_and_dropout_rates():
    for p in (0.1, 0.5, 0.9):
        b = rr.bernoulli(torch.empty(N), p, generator=G(707))
        assert abs(b.double().mean().item() - p) < 4 * math.sqrt(p * (1 - p) / N)
        keep = rr.dropout_mask(N, p, generator=G(708))
        assert abs(keep.double().mean().item() - (1 - p)) < 4 * math.sqrt(p * (1 - p) / N)
    x = rr.randn(N, generator=G(709)) + 3
    y = rr.dropout(x, 0.25, generator=G(710))
    assert abs(y.double().mean().item() - x.double().mean().item()) < 0.01  # inverted dropout keeps the mean


def test_uniform_range_and_initialisers():
    t = rr.uniform_(torch.empty(N), -2.0, 6.0, generator=G(808)).double()
    assert abs(t.mean().item() - 2.0) < 4 * 8 * math.sqrt(1 / 12 / N)
    assert ks_statistic(t, lambda x: (x + 2) / 8) < KS_CRIT
    w = rr.init.kaiming_normal_(torch.empty(1024, 1024), nonlinearity="relu", generator=G(809)).double()
    assert abs(w.std().item() / math.sqrt(2.0 / 1024) - 1) < 4 * math.sqrt(0.5 / w.numel())
    w = rr.init.xavier_uniform_(torch.empty(512, 2048), generator=G(810)).double()
    bound = math.sqrt(3.0) * math.sqrt(2.0 / 2560)
    assert ks_statistic(w.flatten(), lambda x: (x + bound) / (2 * bound)) < KS_CRIT


def test_trunc_normal_distribution():
    mean, std, a, b = 0.5, 2.0, -1.0, 4.0
    x = rr.trunc_normal_(torch.empty(N), mean, std, a, b, generator=G(909)).double()
    assert x.min().item() >= a and x.max().item() <= b
    lo, hi = (a - mean) / std, (b - mean) / std
    mass = 0.5 * (math.erf(hi / math.sqrt(2)) - math.erf(lo / math.sqrt(2)))

    def cdf(v):
        return (normal_cdf((v - mean) / std) - 0.5 * math.erfc(-lo / math.sqrt(2))) / mass

    assert ks_statistic(x, cdf) < KS_CRIT
    phi = lambda t: math.exp(-t * t / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    m_exact = mean + std * (phi(lo) - phi(hi)) / mass
    assert abs(x.mean().item() - m_exact) < 4 * std / math.sqrt(N)

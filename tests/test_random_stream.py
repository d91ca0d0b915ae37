"""The Philox stream itself: known answers, and the C++ kernels (every ISA
row) equal to the integer-op reference bit for bit on every transform.
docs/CONTRACT.md section 7."""
import pytest
import torch

import repdl
from repdl.random import _cpu, _reference as ref
from repdl.testing import assert_bitwise_equal

# Salmon et al. (Random123 kat_vectors), philox4x32_10: counter, key -> output.
KAT = [
    ((0x00000000, 0x00000000, 0x00000000, 0x00000000), (0x00000000, 0x00000000),
     (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF),
     (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
]

# Seeds and offsets that reach the corners: key halves all ones, the 32-bit
# carry of the counter, the 2**64 wrap.
STREAMS = [(0, 0), (1234, 5), (2**64 - 1, 2**64 - 3), (0xDEADBEEF_00000001, 2**32 - 2), (2**63, 2**63 - 1)]
SIZES = [0, 1, 2, 3, 4, 5, 7, 8, 13, 31, 32, 33, 127, 1021, 4099]


def _seed_base_stream(ctr, key):
    return key[0] | key[1] << 32, ctr[0] | ctr[1] << 32, ctr[2] | ctr[3] << 32


@pytest.mark.parametrize("ctr,key,out", KAT)
def test_known_answers_reference(ctr, key, out):
    c = [torch.tensor([v], dtype=torch.int64) for v in ctr]
    got = [int(w) for w in ref.philox4x32_10(*c, *key)]
    assert got == list(out)
    seed, base, stream = _seed_base_stream(ctr, key)
    assert ref.blocks_at(seed, base, torch.tensor([0]), stream)[0].tolist() == list(out)


@pytest.mark.parametrize("ctr,key,out", KAT)
def test_known_answers_cpp_scalar(ctr, key, out):
    assert list(repdl._C.philox_block(*ctr, *key)) == list(out)


@pytest.mark.parametrize("ctr,key,out", KAT)
@pytest.mark.parametrize("lane", [0, 5, 8, 13])
def test_known_answers_cpp_rows(isa, ctr, key, out, lane):
    """Each row computes blocks several at a time (AVX2: eight); put the
    known answer at different lanes and past the vector part."""
    seed, base, stream = _seed_base_stream(ctr, key)
    got = _cpu.blocks(seed, (base - lane) % 2**64, 14, stream)
    assert got[lane].tolist() == list(out)
    assert_bitwise_equal(got, ref.blocks_at(seed, (base - lane) % 2**64, torch.arange(14), stream))


def test_stream_is_blocks_in_order():
    """Word m of a draw is word m % 4 of block offset + m // 4: the first
    known answer is seed 0, offset 0."""
    assert ref.words(0, 0, 4, "cpu").tolist() == list(KAT[0][2])
    w = ref.words(77, 10, 20, "cpu").reshape(5, 4)
    for t in range(5):
        assert w[t].tolist() == list(repdl._C.philox_block((10 + t) & 0xFFFFFFFF, (10 + t) >> 32, 0, 0, 77, 0))


def test_counter_carries_and_wraps():
    # offset 2**32 - 1 then 2**32: the carry into counter word 1.
    w = ref.words(5, 2**32 - 1, 8, "cpu").reshape(2, 4)
    assert w[1].tolist() == list(repdl._C.philox_block(0, 1, 0, 0, 5, 0))
    # offset 2**64 - 1 then 0: the counter wraps modulo 2**64.
    w = ref.words(5, 2**64 - 1, 8, "cpu").reshape(2, 4)
    assert w[0].tolist() == list(repdl._C.philox_block(0xFFFFFFFF, 0xFFFFFFFF, 0, 0, 5, 0))
    assert w[1].tolist() == list(repdl._C.philox_block(0, 0, 0, 0, 5, 0))


def test_reference_mulhilo_exact():
    a = torch.tensor([0, 1, 0xFFFFFFFF, 0x80000000, 0x12345678, 0xFFFF0000], dtype=torch.int64)
    for m in (ref.M0, ref.M1, 0xFFFFFFFF, 1, 0x10000):
        hi, lo = ref.mulhilo(a, m)
        for x, h, l in zip(a.tolist(), hi.tolist(), lo.tolist()):
            assert (h, l) == ((x * m) >> 32, (x * m) & 0xFFFFFFFF)


def test_reference_bounded_exact():
    """low + floor(U * r / 2**64) with Python integers as the oracle."""
    w = ref.words(99, 0, 64, "cpu", per_element=2)
    us = [(h << 32) | l for h, l in w.tolist()]
    for low, r in [(0, 1), (0, 10), (-7, 3), (-(2**63), 2**64 - 1), (2**62, 2**62 - 1), (-5, 2**32 + 1)]:
        got = ref.bounded(w[:, 0], w[:, 1], low, r).tolist()
        assert got == [low + ((u * r) >> 64) for u in us]


@pytest.mark.parametrize("seed,offset", STREAMS)
def test_cpp_equals_reference_words_uniform_normal(isa, seed, offset):
    for n in SIZES:
        assert_bitwise_equal(_cpu.words(seed, offset, n), ref.words(seed, offset, n, "cpu"), f"words n={n}")
        assert_bitwise_equal(_cpu.uniform(seed, offset, n), ref.uniform(seed, offset, n, "cpu"), f"rand n={n}")
        assert_bitwise_equal(_cpu.uniform(seed, offset, n, None, -0.75, 2.5),
                             ref.uniform(seed, offset, n, "cpu", -0.75, 2.5), f"uniform n={n}")
        assert_bitwise_equal(_cpu.normal(seed, offset, n), ref.normal(seed, offset, n, "cpu"), f"randn n={n}")
        assert_bitwise_equal(_cpu.normal(seed, offset, n, None, 0.25, 0.0199999996),
                             ref.normal(seed, offset, n, "cpu", 0.25, 0.0199999996), f"normal n={n}")


@pytest.mark.parametrize("seed,offset", STREAMS)
def test_cpp_equals_reference_integers_masks(isa, seed, offset):
    for n in SIZES:
        for low, r in [(0, 1), (0, 10), (-3, 1000003), (-(2**63), 2**64 - 1), (2**40, 2**33 + 7)]:
            assert_bitwise_equal(_cpu.randint(seed, offset, n, low, r), ref.randint(seed, offset, n, low, r, "cpu"))
        assert_bitwise_equal(_cpu.randint(seed, offset, n, -100, 300, dtype=torch.int32),
                             ref.randint(seed, offset, n, -100, 300, "cpu", torch.int32))
        assert_bitwise_equal(_cpu.perm_keys(seed, offset, n), ref.perm_keys(seed, offset, n, "cpu"))
        for t in (0, 1, 5_000_000, 2**24 - 1, 2**24):
            assert_bitwise_equal(_cpu.bernoulli_scalar(seed, offset, n, t),
                                 ref.bernoulli_scalar(seed, offset, n, t, "cpu"))
            assert_bitwise_equal(_cpu.keep_mask(seed, offset, n, t), ref.keep_mask(seed, offset, n, t, "cpu"))
        p = ref.uniform(seed + 1, 0, n, "cpu")
        assert_bitwise_equal(_cpu.bernoulli_tensor(seed, offset, p), ref.bernoulli_tensor(seed, offset, p))


@pytest.mark.parametrize("seed,offset", STREAMS[:3])
def test_cpp_equals_reference_randperm(isa, seed, offset):
    """The C++ kernel buckets keys by their top bits; the reference sorts
    them stably: one permutation either way."""
    for n in SIZES + [16, 64, 65, 4096, 65537]:
        assert_bitwise_equal(_cpu.randperm(seed, offset, n), ref.randperm(seed, offset, n, "cpu"), f"n={n}")
    assert_bitwise_equal(_cpu.randperm(seed, offset, 999, dtype=torch.int32),
                         ref.randperm(seed, offset, 999, "cpu", torch.int32))


def test_randperm_ties_break_by_index():
    """Equal keys cannot be provoked through the stream, so check the rule
    on the reference's sort directly."""
    keys = torch.tensor([5, -3, 5, 5, -3, 0])
    assert torch.sort(keys, stable=True).indices.tolist() == [1, 4, 5, 0, 2, 3]


SPECIALS = torch.tensor([0.0, -0.0, 1.5, -2.0, float("inf"), float("-inf"), float("nan"), 1e-45, -3e38, 7.0])


@pytest.mark.parametrize("seed,offset", STREAMS)
def test_cpp_equals_reference_dropout(isa, seed, offset):
    for n in SIZES:
        x = torch.cat([SPECIALS, ref.normal(seed, 7, n, "cpu")])[:n]
        for t, s in [(0, 1.0), (2**23, 2.0), (3_355_444, 1.25), (2**24, 0.0), (1, 1.00000012)]:
            assert_bitwise_equal(_cpu.dropout(seed, offset, x, t, s), ref.dropout(seed, offset, x, t, s))


@pytest.mark.parametrize("seed,offset", STREAMS[:3])
def test_cpp_equals_reference_trunc_normal(isa, seed, offset):
    for n in (0, 1, 5, 257, 1000):
        for mean, std, a, b in [(0.0, 1.0, -2.0, 2.0), (0.5, 0.25, 0.4, 0.45), (0.0, 1.0, 1.0, float("inf")),
                                (0.0, 0.0199999996, -0.0399999991, 0.0399999991)]:
            got = _cpu.trunc_normal(seed, offset, n, None, mean, std, a, b)
            assert_bitwise_equal(got, ref.trunc_normal(seed, offset, n, "cpu", mean, std, a, b))
            assert bool(((got >= a) & (got <= b)).all())


def test_trunc_normal_uses_later_attempts():
    """A narrow interval forces many rejections: the attempt blocks (stream
    words j > 0) are exercised, and both paths agree."""
    got = _cpu.trunc_normal(3, 0, 300, None, 0.0, 1.0, 2.0, 2.5)
    assert_bitwise_equal(got, ref.trunc_normal(3, 0, 300, "cpu", 0.0, 1.0, 2.0, 2.5))
    z0 = _cpu.normal(3, 0, 4 * 300)[0::4]  # attempt 0 of element i is pair 0 of block offset + i
    first = (z0 >= 2.0) & (z0 <= 2.5)
    assert 0 < int(first.sum()) < 300
    assert_bitwise_equal(got[first], z0[first])


def _grid_words(k, other, u1_varies):
    fixed = torch.full_like(k, other)
    pairs = [k << 8, fixed] if u1_varies else [fixed, k << 8]
    return torch.stack(pairs, 1).reshape(-1)


@pytest.mark.parametrize("u1_varies", [True, False])
def test_box_muller_grid_sampled(isa, u1_varies):
    """u1 and u2 each take 2**24 values; every 61st of each, against the
    reference (the full grids: test_box_muller_grid_exhaustive)."""
    k = torch.cat([torch.arange(0, 1 << 24, 61), torch.arange((1 << 24) - 64, 1 << 24)])
    for other in (0x00000000, 0x9ABCDEF0, 0xFFFFFFFF):
        w = _grid_words(k, other, u1_varies)
        assert_bitwise_equal(_cpu.normal_from_words(w), ref.normal_from_words(w))


@pytest.mark.exhaustive
@pytest.mark.parametrize("u1_varies", [True, False])
def test_box_muller_grid_exhaustive(u1_varies):
    """Every u1 (with u2 fixed), and every u2 (with u1 fixed): each
    correctly rounded log, cos and sin result the transform can use."""
    k = torch.arange(1 << 24)
    w = _grid_words(k, 0x12345678 if u1_varies else 0x9ABCDEF0, u1_varies)
    assert_bitwise_equal(_cpu.normal_from_words(w), ref.normal_from_words(w))


def test_normal_pairs_layout():
    """Element 2k is z0 and 2k+1 is z1 of pair (w[2k], w[2k+1]); an odd n
    ends with a z0 whose z1 is dropped."""
    w = ref.words(8, 3, 10, "cpu")
    z0, z1 = ref.box_muller(w[0::2], w[1::2])
    z = _cpu.normal(8, 3, 9)
    assert_bitwise_equal(z[0::2], z0[:5])
    assert_bitwise_equal(z[1::2], z1[:4])


def test_uniform_is_top_24_bits():
    w = ref.words(4, 4, 1000, "cpu")
    u = _cpu.uniform(4, 4, 1000)
    assert_bitwise_equal(u, (w >> 8).to(torch.float64).mul(2.0**-24).to(torch.float32))
    assert float(u.min()) >= 0.0 and float(u.max()) < 1.0


def test_thread_count_invariance(isa):
    """Threads split blocks; the values cannot move (in-process check; the
    cross-process one is in test_random_env)."""
    saved = torch.get_num_threads()
    n = 3 * (1 << 16) + 5
    try:
        outs = []
        for threads in (1, 2, 3):
            torch.set_num_threads(threads)
            outs.append([_cpu.uniform(9, 1, n), _cpu.normal(9, 1, n), _cpu.randint(9, 1, n, -5, 77),
                         _cpu.randperm(9, 1, n), _cpu.dropout(9, 1, torch.ones(n), 2**22, 1.25),
                         _cpu.trunc_normal(9, 1, 20011, None, 0.0, 1.0, -1.0, 0.5)])
    finally:
        torch.set_num_threads(saved)
    for other in outs[1:]:
        for a, b in zip(outs[0], other):
            assert_bitwise_equal(a, b)

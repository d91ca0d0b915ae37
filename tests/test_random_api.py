"""repdl.random's public API: signatures, offsets, generator state, layout,
dropout, initialisers, sampler, augmentation, and bad input."""
import math
import pickle

import pytest
import torch
from torch import nn

import repdl
import repdl.random as rr
from repdl.random import _reference as ref
from repdl.testing import assert_bitwise_equal


def G(seed=11):
    return rr.Generator(seed)


# ---- the stream layout through the API ---------------------------------------------------

def test_rand_randn_signatures_agree():
    a = rr.rand(3, 5, generator=G())
    assert a.shape == (3, 5) and a.dtype == torch.float32
    for form in [((3, 5),), ([3, 5],), (torch.Size([3, 5]),)]:
        assert_bitwise_equal(rr.rand(*form, generator=G()), a)
    assert_bitwise_equal(rr.rand(size=(3, 5), generator=G()), a)
    assert rr.rand((), generator=G()).shape == ()
    assert rr.randn(0, 4, generator=G()).shape == (0, 4)
    assert rr.rand(2, generator=G(), requires_grad=True).requires_grad


@pytest.mark.parametrize("draw,per_block", [
    (lambda n, g: rr.rand(n, generator=g), 4),
    (lambda n, g: rr.randn(n, generator=g), 4),
    (lambda n, g: rr.randint(0, 7, (n,), generator=g), 2),
    (lambda n, g: rr.randperm(n, generator=g), 2),
    (lambda n, g: rr.bernoulli(torch.full((n,), 0.5), generator=g), 4),
    (lambda n, g: rr.bernoulli(torch.zeros(n), 0.25, generator=g), 4),
    (lambda n, g: rr.dropout(torch.ones(n), 0.3, generator=g), 4),
    (lambda n, g: rr.dropout_mask(n, 0.3, generator=g), 4),
    (lambda n, g: rr.uniform_(torch.empty(n), -1, 2, generator=g), 4),
    (lambda n, g: rr.normal_(torch.empty(n), 1, 3, generator=g), 4),
    (lambda n, g: rr.trunc_normal_(torch.empty(n), generator=g), 1),
    (lambda n, g: rr.random_crop(torch.zeros(n, 1, 4, 4), 3, generator=g), 1),
    (lambda n, g: rr.random_horizontal_flip(torch.zeros(n, 1, 2, 2), generator=g), 4),
])
def test_offset_advances_by_blocks(draw, per_block):
    for n in (0, 1, 3, 4, 5, 17):
        g = G()
        g.set_offset(9)
        draw(n, g)
        assert g.offset == 9 + -(-n // per_block), n


def test_successive_draws_start_at_fresh_blocks():
    """rand(3) spends a whole block: the next draw starts at block 1."""
    g = G()
    rr.rand(3, generator=g)
    assert_bitwise_equal(rr.rand(4, generator=g), rr.rand(8, generator=G())[4:])


def test_row_major_whatever_the_layout():
    t = torch.empty(6, 4).t()  # (4, 6), column-major memory
    rr.uniform_(t, generator=G())
    assert_bitwise_equal(t.contiguous(), rr.rand(4, 6, generator=G()))
    t = torch.empty(3, 4, 5).permute(2, 0, 1)
    rr.normal_(t, generator=G())
    assert_bitwise_equal(t.contiguous(), rr.randn(5, 3, 4, generator=G()))


def test_reference_backend_equals_cpu_through_the_api():
    """The public functions under repdl.backends.use('reference') (the path
    every non-CPU device takes) give the same bits."""
    def job():
        g = G(5)
        x = torch.linspace(-3, 3, 37)
        p = rr.rand(29, generator=G(99))
        return [rr.rand(37, generator=g), rr.randn(5, 7, generator=g), rr.randint(-4, 9, (33,), generator=g),
                rr.randperm(41, generator=g), rr.bernoulli(p, generator=g),
                rr.dropout(x, 0.4, generator=g), rr.uniform_(torch.empty(3, 3), -2, 5, generator=g),
                rr.trunc_normal_(torch.empty(20), 0, 2, -1, 1, generator=g),
                rr.random_crop(x.view(1, 1, 1, 37).expand(3, 2, 4, 37), (3, 30), 2, generator=g)]
    fast = job()
    with repdl.backends.use("reference"):
        slow = job()
    for a, b in zip(fast, slow):
        assert_bitwise_equal(a, b)


PINNED = {  # seed 2024, 1001 elements; sha256 via repdl.verify.tensor_hash
    "words": (lambda m: m.words(2024, 7, 1001, "cpu"),
              "bda45da3a56536e8469014b64050a5300f8bcb9ebb7c83e3f2da9977a8cbf5ff"),
    "rand": (lambda m: m.uniform(2024, 0, 1001, "cpu"),
             "fb76118ff772b08bc75e3445403c292b42a5de75ada09bae514fa3520428f66a"),
    "randn": (lambda m: m.normal(2024, 0, 1001, "cpu"),
              "f3139b2e1f58b0ff6d103ea6b45c516f5cfa9fb640bc108fac902d4cafd1b059"),
    "randint": (lambda m: m.randint(2024, 0, 1001, -50, 101, "cpu"),
                "9851da9733d38f68c911060a003c3a2da4e06a789744531f412a636ba8d03909"),
    "perm_keys": (lambda m: m.perm_keys(2024, 0, 1001, "cpu"),
                  "67be9eac1ec69acec8fd0d44c6e381252e89b9bf353403780321ca5695cc4d4e"),
}


@pytest.mark.parametrize("name", sorted(PINNED))
def test_pinned_values(isa, name):
    """Fixed seeds give fixed values forever.  These hashes were computed by
    the reference and by the C++ kernels independently (they agreed); both
    must keep matching them.  A change here is a contract change."""
    from repdl.random import _cpu
    from repdl.verify import tensor_hash
    draw, expected = PINNED[name]
    assert tensor_hash(draw(ref)) == expected
    assert tensor_hash(draw(_cpu)) == expected


# ---- generator state ---------------------------------------------------------------------

def test_generator_basics():
    g = rr.Generator(2**64 - 1)
    assert g.initial_seed() == 2**64 - 1 and g.offset == 0
    rr.randn(10, generator=g)
    assert g.get_offset() == 3
    assert g.manual_seed(4) is g and (g.initial_seed(), g.offset) == (4, 0)
    with pytest.raises(NotImplementedError, match="manual_seed"):
        g.seed()
    assert "seed=4" in repr(g)
    assert rr.Generator() == rr.Generator(0)


def test_state_roundtrip_and_clone():
    g = G()
    rr.rand(10, generator=g)
    state = g.get_state()
    assert state.dtype == torch.int64 and state.shape == (3,)
    c = g.clone()
    a = rr.randn(50, generator=g)
    assert_bitwise_equal(rr.randn(50, generator=c), a)
    h = rr.Generator(999).set_state(state)
    assert_bitwise_equal(rr.randn(50, generator=h), a)
    big = rr.Generator(2**64 - 5).set_offset(2**64 - 2)
    assert rr.Generator().set_state(big.get_state()) == big


def test_pickle_and_torch_save(tmp_path):
    g = G()
    rr.rand(5, generator=g)
    h = pickle.loads(pickle.dumps(g))
    assert h == g and h is not g
    torch.save({"gen": g, "state": g.get_state()}, tmp_path / "ck.pt")
    # The generator object needs the full unpickler; its state tensor loads
    # with weights_only=True.
    assert torch.load(tmp_path / "ck.pt", weights_only=False)["gen"] == g
    torch.save(g.get_state(), tmp_path / "st.pt")
    assert rr.Generator().set_state(torch.load(tmp_path / "st.pt", weights_only=True)) == g


def test_default_generator_and_manual_seed():
    saved = rr.get_rng_state()
    try:
        assert repdl.manual_seed(77) is rr.default_generator
        a = rr.rand(9)
        repdl.manual_seed(77)
        assert_bitwise_equal(rr.rand(9), a)
        assert_bitwise_equal(rr.rand(9, generator=rr.Generator(77)), a)
        assert rr.initial_seed() == 77
        st = rr.get_rng_state()
        b = rr.randn(5)
        rr.set_rng_state(st)
        assert_bitwise_equal(rr.randn(5), b)
    finally:
        rr.set_rng_state(saved)


def test_torch_seed_does_not_matter():
    torch.manual_seed(1)
    a = rr.randn(20, generator=G())
    torch.manual_seed(2)
    assert_bitwise_equal(rr.randn(20, generator=G()), a)


# ---- integers ---------------------------------------------------------------------------

def test_randint_forms_and_dtypes():
    a = rr.randint(0, 10, (4, 5), generator=G())
    assert a.dtype == torch.int64 and a.shape == (4, 5)
    assert_bitwise_equal(rr.randint(10, (4, 5), generator=G()), a)
    assert_bitwise_equal(rr.randint(high=10, size=(4, 5), generator=G()), a)
    assert_bitwise_equal(rr.randint(0, 10, size=(4, 5), generator=G()), a)
    b = rr.randint(0, 10, (4, 5), generator=G(), dtype=torch.int32)
    assert b.dtype == torch.int32 and torch.equal(b.to(torch.int64), a)
    full = rr.randint(-(2**63), 2**63 - 1, (1000,), generator=G())
    assert int(full.min()) < -(2**61) and int(full.max()) > 2**61
    assert set(rr.randint(-2, 1, (200,), generator=G()).tolist()) == {-2, -1, 0}


def test_randperm_is_sorted_keys():
    for n in (0, 1, 2, 10, 1001):
        p = rr.randperm(n, generator=G())
        assert sorted(p.tolist()) == list(range(n))
        keys = ref.perm_keys(11, 0, n, "cpu")
        assert p.tolist() == sorted(range(n), key=lambda i: (keys[i].item(), i))
    assert rr.randperm(5, generator=G(), dtype=torch.int32).dtype == torch.int32


# ---- bernoulli and dropout ------------------------------------------------------------------

def test_bernoulli_thresholds_exact():
    """u < p compared exactly: p = k * 2**-24 keeps exactly the words with
    (w >> 8) < k."""
    w = ref.words(11, 0, 4000, "cpu") >> 8
    for k in (0, 1, 2**23, 2**24 - 1, 2**24):
        got = rr.bernoulli(torch.empty(4000), k * 2.0**-24, generator=G())
        assert_bitwise_equal(got, (w < k).to(torch.float32))
    p = rr.rand(4000, generator=G(3))
    assert_bitwise_equal(rr.bernoulli(p, generator=G()), ((w.to(torch.float32) * 2.0**-24) < p).to(torch.float32))


def test_dropout_formula_and_mask():
    x = rr.randn(1000, generator=G(1)) * 5
    for p in (0.1, 0.5, 0.7, 1.0):
        y = rr.dropout(x, p, generator=G())
        keep = rr.dropout_mask(1000, p, generator=G())
        s = 0.0 if p == 1 else torch.tensor(1 / (1 - p), dtype=torch.float32)
        expected = torch.where(keep, x * s, x * 0.0)
        assert_bitwise_equal(y, expected)
    assert rr.dropout(x, 0.5, training=False) is x
    g = G()
    assert rr.dropout(x, 0.0, generator=g) is x and g.offset == 250


def test_dropout_nan_inf_and_signed_zero():
    x = torch.tensor([float("inf"), float("nan"), -0.0, -3.0, 2.0, float("-inf"), 1.0, -1.0])
    y = rr.dropout(x, 0.5, generator=G())
    keep = rr.dropout_mask(8, 0.5, generator=G())
    from repdl.backends.reference._exact import canonical_nan
    assert_bitwise_equal(y, canonical_nan(torch.where(keep, x * 2.0, x * 0.0)))
    assert bool(y.isnan().any()) and bool(((y.view(torch.int32) == 0x7FC00000) == y.isnan()).all())


def test_dropout_autograd():
    x = rr.randn(7, 9, generator=G(1)).requires_grad_()
    y = rr.dropout(x, 0.3, generator=G())
    g = rr.randn(7, 9, generator=G(2))
    y.backward(g)
    keep = rr.dropout_mask((7, 9), 0.3, generator=G())
    s = torch.tensor(1 / 0.7, dtype=torch.float32)
    assert_bitwise_equal(x.grad, torch.where(keep, g * s, g * 0.0))
    assert_bitwise_equal(y.detach(), torch.where(keep, x.detach() * s, x.detach() * 0.0))


def test_dropout_inplace():
    x = rr.randn(33, generator=G(1))
    y = rr.dropout(x, 0.2, generator=G())
    z = x.clone()
    assert rr.dropout(z, 0.2, inplace=True, generator=G()) is z
    assert_bitwise_equal(z, y)


# ---- uniform_, normal_, trunc_normal_ ------------------------------------------------------

def test_uniform_normal_formulas():
    u = rr.rand(999, generator=G())
    got = rr.uniform_(torch.empty(999), -0.3, 0.7, generator=G())
    a, b = torch.tensor(-0.3, dtype=torch.float32), torch.tensor(0.7, dtype=torch.float32)
    span = (b.double() - a.double()).float()
    assert_bitwise_equal(got, (span.double() * u.double() + a.double()).float())  # one rounding: exact in float64
    z = rr.randn(999, generator=G())
    got = rr.normal_(torch.empty(999), 0.5, 0.02, generator=G())
    m, s = torch.tensor(0.5, dtype=torch.float32), torch.tensor(0.02, dtype=torch.float32)
    assert_bitwise_equal(got, repdl.ops.fma32(s.expand(999), z, m.expand(999)))
    assert_bitwise_equal(rr.normal_(torch.empty(5), 3.0, 0.0, generator=G()), torch.full((5,), 3.0))


def test_uniform_stays_in_bounds():
    for a, b in [(-1.0, 1.0), (0.1, 0.1 + 1e-7), (1e-30, 2e-30), (-1.5e38, 1.5e38)]:
        t = rr.uniform_(torch.empty(4000), a, b, generator=G())
        lo, hi = torch.tensor(a, dtype=torch.float32), torch.tensor(b, dtype=torch.float32)
        assert bool(((t >= lo) & (t <= hi)).all()), (a, b)


def test_in_place_on_parameters():
    p = nn.Parameter(torch.empty(4, 4))
    v = p._version
    rr.normal_(p, generator=G())
    rr.uniform_(p, generator=G())
    assert p.requires_grad and p.grad_fn is None
    assert p._version == v + 2  # in-place writes are visible to autograd's checks


# ---- initialisers ---------------------------------------------------------------------------

def test_calculate_gain_matches_torch():
    for nl, param in [("linear", None), ("conv2d", None), ("sigmoid", None), ("tanh", None), ("relu", None),
                      ("leaky_relu", None), ("leaky_relu", 0.2), ("leaky_relu", 3), ("selu", None)]:
        assert rr.init.calculate_gain(nl, param) == pytest.approx(nn.init.calculate_gain(nl, param), rel=1e-15)


def _bound_uniform(t, bound, seed):
    return rr.uniform_(torch.empty_like(t), -bound, bound, generator=G(seed))


def test_initialiser_scalars():
    w = torch.empty(30, 20, 3)  # fan_in 60, fan_out 90
    assert_bitwise_equal(rr.init.kaiming_uniform_(w, generator=G(1)),
                         _bound_uniform(w, math.sqrt(3.0) * (math.sqrt(2.0 / (1 + 0 * 0)) / math.sqrt(60)), 1))
    assert_bitwise_equal(rr.init.kaiming_uniform_(w, a=math.sqrt(5.0), mode="fan_out", generator=G(1)),
                         _bound_uniform(w, math.sqrt(3.0) * (math.sqrt(2.0 / (1 + math.sqrt(5.0) * math.sqrt(5.0)))
                                                           / math.sqrt(90)), 1))
    assert_bitwise_equal(rr.init.xavier_uniform_(w, gain=2.0, generator=G(1)),
                         _bound_uniform(w, math.sqrt(3.0) * (2.0 * math.sqrt(2.0 / 150.0)), 1))
    assert_bitwise_equal(rr.init.kaiming_normal_(w, nonlinearity="relu", generator=G(1)),
                         rr.normal_(torch.empty_like(w), 0.0, math.sqrt(2.0) / math.sqrt(60), generator=G(1)))
    assert_bitwise_equal(rr.init.xavier_normal_(w, generator=G(1)),
                         rr.normal_(torch.empty_like(w), 0.0, 1.0 * math.sqrt(2.0 / 150.0), generator=G(1)))
    assert rr.init.kaiming_uniform_(torch.empty(0, 3), generator=G()).shape == (0, 3)


def test_reset_parameters_linear_conv_embedding():
    g = G()
    lin = nn.Linear(20, 7)
    rr.init.reset_parameters_(lin, g)
    h = G()
    w = rr.init.kaiming_uniform_(torch.empty(7, 20), a=math.sqrt(5.0), generator=h)
    b = rr.uniform_(torch.empty(7), -1 / math.sqrt(20), 1 / math.sqrt(20), generator=h)
    assert_bitwise_equal(lin.weight.detach(), w)
    assert_bitwise_equal(lin.bias.detach(), b)
    assert g == h
    emb = nn.Embedding(10, 4, padding_idx=3)
    rr.init.reset_parameters_(emb, G())
    expected = rr.randn(10, 4, generator=G())
    expected[3] = 0
    assert_bitwise_equal(emb.weight.detach(), expected)


def test_reset_parameters_model_tree():
    def model():
        torch.manual_seed(0)
        return nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU(), nn.Conv1d(2, 2, 1),
                             nn.Conv3d(1, 2, 2, bias=False), nn.GroupNorm(2, 8), nn.LayerNorm(8), nn.Flatten(),
                             nn.Linear(8, 10), nn.Embedding(5, 3), nn.TransformerEncoderLayer(8, 2, 16),
                             nn.LSTM(4, 5), nn.PReLU())
    a, b = model(), model()
    with torch.no_grad():
        a[1].running_mean.fill_(3)
        for p in a.parameters():
            p.fill_(7)
    rr.init.reset_parameters_(a, G())
    torch.manual_seed(123)  # torch's stream is irrelevant
    rr.init.reset_parameters_(b, G())
    for (name, x), y in zip(a.state_dict().items(), b.state_dict().values()):
        assert_bitwise_equal(x, y, name)
    sd = a.state_dict()
    assert bool((sd["1.running_var"] == 1).all()) and bool((sd["1.running_mean"] == 0).all())
    assert bool((sd["5.weight"] == 1).all()) and bool((sd["6.bias"] == 0).all())
    assert bool((sd["10.self_attn.in_proj_bias"] == 0).all()) and bool((sd["10.self_attn.out_proj.bias"] == 0).all())
    assert bool((sd["12.weight"] == 0.25).all())
    # Same distribution families as torch's defaults: uniform bounds are reached but not exceeded.
    bound = math.sqrt(3.0) * (math.sqrt(2.0 / 6.000000000000001) / math.sqrt(27))
    w = sd["0.weight"]
    assert float(w.abs().max()) <= bound and float(w.abs().max()) > 0.9 * bound


def test_reset_parameters_unknown_module():
    class Custom(nn.Module):
        def __init__(self):
            super().__init__()
            self.token = nn.Parameter(torch.zeros(3))
            self.lin = nn.Linear(3, 3)

    m = Custom()
    g = G()
    with pytest.raises(TypeError, match="Custom"):
        rr.init.reset_parameters_(m, g)
    assert g.offset == 0  # nothing was drawn
    rr.init.reset_parameters_(m, g, strict=False)
    assert bool((m.token == 0).all()) and g.offset > 0


@pytest.mark.filterwarnings("ignore:enable_nested_tensor")
def test_transformer_rule():
    torch.manual_seed(0)
    t = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=16)
    rr.init.reset_parameters_(t, G())
    w = t.encoder.layers[0].linear1.weight  # (16, 8): xavier bound sqrt(3) * sqrt(2 / 24)
    bound = math.sqrt(3.0) * (1.0 * math.sqrt(2.0 / 24.0))
    w = w.detach()
    assert float(w.abs().max()) <= bound and float(w.abs().max()) > 0.8 * bound


# ---- sampler -----------------------------------------------------------------------------

def test_sampler_epochs():
    s = rr.RandomSampler(list(range(50)), seed=3)
    e0 = list(s)
    assert sorted(e0) == list(range(50)) and list(s) == e0
    s.set_epoch(1)
    e1 = list(s)
    assert sorted(e1) == list(range(50)) and e1 != e0
    g = rr.Generator(3)
    assert e0 == rr.randperm(50, generator=g).tolist() and e1 == rr.randperm(50, generator=g).tolist()
    s.set_epoch(1, start=20)
    assert list(s) == e1[20:] and len(s) == 30


def test_sampler_with_dataloader():
    data = torch.arange(23.0)
    s = rr.RandomSampler(data, seed=5)
    s.set_epoch(4)
    loader = torch.utils.data.DataLoader(data, batch_size=5, sampler=s)
    assert torch.cat(list(loader)).to(torch.int64).tolist() == s.indices(4)


def test_sampler_replicas():
    n, r = 23, 4
    parts = [rr.RandomSampler(n, seed=1, num_replicas=r, rank=k) for k in range(r)]
    for p in parts:
        p.set_epoch(2)
    order = parts[0].order(2).tolist()
    padded = order + order[:24 - n]
    for k, p in enumerate(parts):
        assert list(p) == padded[k::r] and len(p) == 6
    dropped = [rr.RandomSampler(n, seed=1, num_replicas=r, rank=k, drop_last=True) for k in range(r)]
    assert all(len(d) == 5 for d in dropped)
    assert rr.RandomSampler(7, shuffle=False).indices(3) == list(range(7))


# ---- augmentation -------------------------------------------------------------------------

def test_random_crop_offsets_and_padding():
    x = torch.arange(3 * 2 * 5 * 6, dtype=torch.float32).view(3, 2, 5, 6)
    y = rr.random_crop(x, (4, 3), padding=(1, 2), generator=G())
    top, left = rr.augment.crop_offsets(3, 5 + 4 - 4 + 1, 6 + 2 - 3 + 1, generator=G())
    padded = torch.nn.functional.pad(x, (1, 1, 2, 2))
    for i in range(3):
        t, l = int(top[i]), int(left[i])
        assert_bitwise_equal(y[i], padded[i, :, t:t + 4, l:l + 3])
    u8 = torch.arange(2 * 4 * 4, dtype=torch.uint8).view(2, 1, 4, 4)
    for mode in ("reflect", "edge"):
        got = rr.random_crop(u8, 4, 2, padding_mode=mode, generator=G())
        ref_mode = "reflect" if mode == "reflect" else "replicate"
        padded = torch.nn.functional.pad(u8.float(), (2, 2, 2, 2), mode=ref_mode).to(torch.uint8)
        top, left = rr.augment.crop_offsets(2, 5, 5, generator=G())
        for i in range(2):
            t, l = int(top[i]), int(left[i])
            assert torch.equal(got[i], padded[i, :, t:t + 4, l:l + 4])


def test_random_horizontal_flip():
    x = torch.arange(40 * 3.0).view(40, 1, 1, 3)
    y = rr.random_horizontal_flip(x, generator=G())
    flip = (ref.words(11, 0, 40, "cpu") >> 8) < 2**23
    for i in range(40):
        assert torch.equal(y[i], x[i].flip(-1) if flip[i] else x[i])
    assert 5 < int(flip.sum()) < 35
    assert torch.equal(rr.random_horizontal_flip(x, 0.0, generator=G()), x)


# ---- bad input -----------------------------------------------------------------------------

@pytest.mark.parametrize("seed,exc", [(-1, ValueError), (2**64, ValueError), (1.0, TypeError), (True, TypeError),
                                      ("3", TypeError), (None, TypeError), (2.5, TypeError)])
def test_bad_seeds(seed, exc):
    with pytest.raises(exc, match="seed"):
        rr.Generator(seed)
    with pytest.raises(exc, match="seed"):
        repdl.manual_seed(seed)
    with pytest.raises(exc, match="seed"):
        rr.Generator().manual_seed(seed)
    if seed is not None:  # the sampler's seed=None means "seed 0, or generator="
        with pytest.raises(exc, match="seed"):
            rr.RandomSampler(3, seed=seed)


BAD_DTYPE_CALLS = [
    lambda g: rr.rand(3, dtype=torch.float64, generator=g),
    lambda g: rr.randn(3, dtype=torch.float16, generator=g),
    lambda g: rr.randint(0, 3, (3,), dtype=torch.float32, generator=g),
    lambda g: rr.randint(0, 3, (3,), dtype=torch.int16, generator=g),
    lambda g: rr.randperm(3, dtype=torch.uint8, generator=g),
    lambda g: rr.rand_like(torch.zeros(2, dtype=torch.float64), generator=g),
    lambda g: rr.uniform_(torch.empty(3, dtype=torch.float64), generator=g),
    lambda g: rr.normal_(torch.empty(3, dtype=torch.bfloat16), generator=g),
    lambda g: rr.trunc_normal_(torch.empty(3, dtype=torch.float64), generator=g),
    lambda g: rr.bernoulli(torch.zeros(3, dtype=torch.float64), generator=g),
    lambda g: rr.dropout(torch.zeros(3, dtype=torch.float16), generator=g),
    lambda g: rr.init.kaiming_uniform_(torch.empty(3, 3, dtype=torch.float64), generator=g),
    lambda g: rr.init.reset_parameters_(nn.Linear(2, 2).double(), g),
]


@pytest.mark.parametrize("call", BAD_DTYPE_CALLS)
def test_unsupported_dtypes_raise_type_error_before_drawing(call):
    g = G()
    with pytest.raises(TypeError, match="float32|int64"):
        call(g)
    assert g.offset == 0


BAD_VALUE_CALLS = [
    (lambda g: rr.rand(-1, generator=g), RuntimeError, "negative"),
    (lambda g: rr.rand(2.0, generator=g), TypeError, "integer"),
    (lambda g: rr.rand(True, generator=g), TypeError, "integer"),
    (lambda g: rr.rand(generator=g), TypeError, "size"),
    (lambda g: rr.rand(3, generator=torch.Generator()), TypeError, "repdl.random.Generator"),
    (lambda g: rr.randint(5, 5, (2,), generator=g), RuntimeError, "low < high"),
    (lambda g: rr.randint(0, 2**63, (2,), generator=g), RuntimeError, "does not fit"),
    (lambda g: rr.randint(0, 2**31 + 1, (2,), dtype=torch.int32, generator=g), RuntimeError, "does not fit"),
    (lambda g: rr.randint(5, 3, generator=g), TypeError, "size"),
    (lambda g: rr.randint(0.5, 3, (2,), generator=g), TypeError, "integer"),
    (lambda g: rr.randperm(-2, generator=g), RuntimeError, "negative"),
    (lambda g: rr.randperm(3, requires_grad=True, generator=g), RuntimeError, "floating point"),
    (lambda g: rr.randint(3, (2,), requires_grad=True, generator=g), RuntimeError, "floating point"),
    (lambda g: rr.bernoulli(torch.tensor([0.5, 1.5]), generator=g), RuntimeError, r"\[0, 1\]"),
    (lambda g: rr.bernoulli(torch.tensor([float("nan")]), generator=g), RuntimeError, r"\[0, 1\]"),
    (lambda g: rr.bernoulli(torch.zeros(2), -0.1, generator=g), RuntimeError, "between 0 and 1"),
    (lambda g: rr.dropout(torch.zeros(2), 1.5, generator=g), ValueError, "between 0 and 1"),
    (lambda g: rr.dropout_mask(3, -0.5, generator=g), ValueError, "between 0 and 1"),
    (lambda g: rr.uniform_(torch.empty(2), 2, 1, generator=g), RuntimeError, "a <= b"),
    (lambda g: rr.uniform_(torch.empty(2), -3e38, 3e38, generator=g), RuntimeError, "overflows"),
    (lambda g: rr.uniform_(torch.empty(2), 0, float("inf"), generator=g), ValueError, "finite"),
    (lambda g: rr.normal_(torch.empty(2), 0, -1, generator=g), RuntimeError, "std >= 0"),
    (lambda g: rr.normal_(torch.empty(2), float("nan"), 1, generator=g), ValueError, "finite"),
    (lambda g: rr.trunc_normal_(torch.empty(2), 0, 1, 1, -1, generator=g), ValueError, "a < b"),
    (lambda g: rr.trunc_normal_(torch.empty(2), 0, 0, generator=g), ValueError, "std > 0"),
    (lambda g: rr.trunc_normal_(torch.empty(2), 0, 1, 8, 9, generator=g), ValueError, "rejection"),
    (lambda g: rr.init.kaiming_uniform_(torch.empty(3), generator=g), ValueError, "fewer than 2"),
    (lambda g: rr.init.kaiming_normal_(torch.empty(3, 3), mode="fan_avg", generator=g), ValueError, "mode"),
    (lambda g: rr.init.kaiming_uniform_(torch.empty(3, 3), nonlinearity="swish", generator=g), ValueError,
     "nonlinearity"),
    (lambda g: rr.init.reset_parameters_("linear", g), TypeError, "nn.Module"),
    (lambda g: rr.init.reset_parameters_(nn.LazyLinear(3), g), ValueError, "materialized"),
    (lambda g: rr.random_crop(torch.zeros(2, 1, 4, 4), 7, 1, generator=g), ValueError, "crop size"),
    (lambda g: rr.random_crop(torch.zeros(4, 4), 2, generator=g), ValueError, "batch"),
    (lambda g: rr.random_crop(torch.zeros(2, 1, 4, 4), 2, (1, 2, 3), generator=g), ValueError, "padding"),
    (lambda g: rr.random_crop(torch.zeros(2, 1, 4, 4), 2, 1, padding_mode="wrap", generator=g), ValueError,
     "padding_mode"),
    (lambda g: rr.random_horizontal_flip(torch.zeros(2, 1, 4, 4), 2.0, generator=g), ValueError, "between"),
    (lambda g: rr.RandomSampler(object()), TypeError, "sized"),
    (lambda g: rr.RandomSampler(5, num_replicas=2, rank=2), ValueError, "rank"),
    (lambda g: rr.RandomSampler(5).set_epoch(-1), ValueError, "epoch"),
]


@pytest.mark.parametrize("call,exc,match", BAD_VALUE_CALLS)
def test_bad_values_raise_before_drawing(call, exc, match):
    g = G()
    with pytest.raises(exc, match=match):
        call(g)
    assert g.offset == 0


def test_bad_states():
    g = G()
    with pytest.raises(TypeError):
        g.set_state([1, 2, 3])
    with pytest.raises(ValueError, match="shape"):
        g.set_state(torch.zeros(4, dtype=torch.int64))
    with pytest.raises(ValueError, match="torch.Generator"):
        g.set_state(torch.get_rng_state())
    with pytest.raises(ValueError, match="tag"):
        g.set_state(torch.tensor([1, 2, 3]))
    with pytest.raises(ValueError, match="offset"):
        g.set_offset(-1)
    assert g == G()


def test_stream_end_is_an_error():
    g = rr.Generator(1).set_offset(2**64 - 3)
    rr.rand(8, generator=g)
    assert g.offset == 2**64 - 1
    assert rr.Generator().set_state(g.get_state()) == g
    with pytest.raises(OverflowError, match="stream"):
        rr.rand(1, generator=g)


# ---- data order: sampler seeds from a generator, per-sample streams ----------------------------

def _philox(c, k):
    """Philox4x32-10 on Python ints, written from the contract's text (an
    implementation independent of repdl's)."""
    c, (k0, k1) = list(c), k
    for r in range(10):
        if r:
            k0, k1 = (k0 + 0x9E3779B9) & 0xFFFFFFFF, (k1 + 0xBB67AE85) & 0xFFFFFFFF
        p0, p1 = 0xD2511F53 * c[0], 0xCD9E8D57 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k0, p1 & 0xFFFFFFFF, (p0 >> 32) ^ c[3] ^ k1, p0 & 0xFFFFFFFF]
    return c


def test_independent_philox_knows_the_contracts_answer():
    assert _philox((0, 0, 0, 0), (0, 0)) == [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]


def test_sample_generator_is_the_documented_derivation():
    seed, epoch, index = 2**40 + 5, 2**33 + 3, 2**35 + 9
    w = _philox((index & 0xFFFFFFFF, index >> 32, epoch & 0xFFFFFFFF, epoch >> 32),
                ((seed & 0xFFFFFFFF) ^ 0x53414D50, seed >> 32))
    g = rr.sample_generator(seed, epoch, index)
    assert g.initial_seed() == w[0] | (w[1] << 32) and g.offset == 0
    assert rr.sample_generator(seed, epoch, index + 1).initial_seed() != g.initial_seed()
    with pytest.raises(ValueError, match="epoch"):
        rr.sample_generator(1, -1, 0)


def test_sampler_takes_its_seed_from_a_generator():
    g = rr.Generator(77).set_offset(5)
    s = rr.RandomSampler(12, generator=g)
    w = _philox((5, 0, 0, 0), (77, 0))
    assert s.seed == w[0] | (w[1] << 32) and g.offset == 6
    assert list(s) == list(rr.RandomSampler(12, seed=s.seed))
    with pytest.raises(TypeError, match="not both"):
        rr.RandomSampler(12, seed=1, generator=rr.Generator(1))


def test_sampler_state_round_trip():
    s = rr.RandomSampler(12, seed=3)
    s.set_epoch(4, start=5)
    t = rr.RandomSampler(12)
    t.load_state_dict(s.state_dict())
    assert list(t) == list(s) and len(list(t)) == 7
    with pytest.raises(ValueError, match="12 items"):
        rr.RandomSampler(13).load_state_dict(s.state_dict())


class _Noisy(torch.utils.data.Dataset):
    """Draws in __getitem__ from the sample's own stream."""

    def __len__(self):
        return 10

    def __getitem__(self, i):
        return rr.rand(3, generator=rr.sample_generator(5, 1, i))


def test_per_sample_draws_do_not_depend_on_workers():
    sampler = rr.RandomSampler(10, seed=2)
    runs = [torch.cat(list(torch.utils.data.DataLoader(_Noisy(), batch_size=3, sampler=sampler, num_workers=w)))
            for w in (0, 2)]
    assert torch.equal(runs[0].view(torch.int32), runs[1].view(torch.int32))

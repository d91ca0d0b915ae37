"""repdl.nn: every layer is torch.nn's class with torch's constructor
arguments, parameter and buffer names, state_dict keys and repr; its
forward and backward agree with torch.nn in value (float64 reference,
stated bound) and with the reference backend in bits; state_dicts round
trip both ways; the default initialisation is RepDL's stream; bad
arguments and dtypes raise before any work."""
import math

import pytest
import torch
import torch.nn as tnn

import repdl
import repdl.nn as rnn
from repdl import backends
from repdl.testing import assert_bitwise_equal
from repdl.verify import pattern

# (class name, constructor args, input shapes (or a builder), extra forward kwargs)
IMG = (2, 4, 7, 6)
LAYERS = [
    ("Linear", (6, 5), [(3, 4, 6)]),
    ("Bilinear", (3, 4, 5), [(6, 3), (6, 4)]),
    ("Conv1d", (4, 6, 3), [(2, 4, 9)]),
    ("Conv1d", dict(in_channels=4, out_channels=4, kernel_size=3, padding="same", padding_mode="reflect", groups=2),
     [(2, 4, 9)]),
    ("Conv2d", (4, 6, 3), [IMG]),
    ("Conv2d", dict(in_channels=4, out_channels=8, kernel_size=(3, 2), stride=2, padding=(2, 1), dilation=(1, 2),
                    groups=4, bias=False), [IMG]),
    ("Conv2d", dict(in_channels=4, out_channels=4, kernel_size=3, padding=1, padding_mode="circular"), [IMG]),
    ("Conv2d", dict(in_channels=4, out_channels=4, kernel_size=3, padding="same", padding_mode="replicate"), [IMG]),
    ("Conv2d", dict(in_channels=4, out_channels=4, kernel_size=2, padding="valid"), [IMG]),
    ("Conv2d", dict(in_channels=4, out_channels=4, kernel_size=1, stride=3), [IMG]),
    ("ConvTranspose1d", (4, 3, 3, 2, 1, 1), [(2, 4, 7)]),
    ("ConvTranspose2d", (4, 6, 3), [IMG]),
    ("ConvTranspose2d", dict(in_channels=4, out_channels=2, kernel_size=3, stride=2, padding=1, output_padding=1,
                             groups=2, dilation=1), [IMG]),
    ("BatchNorm1d", (4,), [(5, 4, 3)]),
    ("BatchNorm1d", (4,), [(5, 4)]),
    ("BatchNorm2d", (4,), [IMG]),
    ("BatchNorm2d", dict(num_features=4, momentum=None), [IMG]),
    ("BatchNorm2d", dict(num_features=4, affine=False, track_running_stats=False), [IMG]),
    ("LayerNorm", ((7, 6),), [IMG]),
    ("LayerNorm", dict(normalized_shape=6, bias=False), [IMG]),
    ("GroupNorm", (2, 4), [IMG]),
    ("RMSNorm", ((6,),), [IMG]),
    ("InstanceNorm1d", (4,), [(2, 4, 9)]),
    ("InstanceNorm2d", dict(num_features=4, affine=True, track_running_stats=True), [IMG]),
    ("MaxPool1d", (3, 2, 1), [(2, 4, 9)]),
    ("MaxPool2d", (3, 2, 1), [IMG]),
    ("MaxPool2d", dict(kernel_size=2, ceil_mode=True, dilation=2), [IMG]),
    ("AvgPool1d", (3, 2, 1), [(2, 4, 9)]),
    ("AvgPool2d", dict(kernel_size=3, stride=2, padding=1, count_include_pad=False, ceil_mode=True), [IMG]),
    ("AvgPool2d", dict(kernel_size=2, divisor_override=3), [IMG]),
    ("AdaptiveAvgPool1d", (4,), [(2, 4, 9)]),
    ("AdaptiveAvgPool2d", ((3, 4),), [IMG]),
    ("AdaptiveAvgPool2d", ((None, 2),), [IMG]),
    ("AdaptiveMaxPool2d", ((3, 4),), [IMG]),
    ("Embedding", dict(num_embeddings=10, embedding_dim=4, padding_idx=2), "indices"),
    ("ReLU", (), [IMG]), ("ReLU6", (), [IMG]), ("LeakyReLU", (0.1,), [IMG]), ("PReLU", (4,), [IMG]),
    ("GELU", (), [IMG]), ("GELU", ("tanh",), [IMG]), ("SiLU", (), [IMG]), ("Tanh", (), [IMG]),
    ("Sigmoid", (), [IMG]), ("Softplus", (2.0, 3.0), [IMG]), ("Mish", (), [IMG]), ("Hardswish", (), [IMG]),
    ("Hardsigmoid", (), [IMG]), ("Hardtanh", (-0.5, 0.25), [IMG]), ("ELU", (0.5,), [IMG]), ("SELU", (), [IMG]),
    ("CELU", (2.0,), [IMG]), ("LogSigmoid", (), [IMG]), ("Softmax", (1,), [IMG]), ("LogSoftmax", (-1,), [IMG]),
    ("MultiheadAttention", dict(embed_dim=8, num_heads=2, batch_first=True), "attention"),
    ("MultiheadAttention", dict(embed_dim=8, num_heads=2, kdim=6, vdim=5, add_bias_kv=True, add_zero_attn=True),
     "attention_kv"),
]
IDS = [f"{name}-{i}" for i, (name, *_) in enumerate(LAYERS)]


def build(name, args):
    repdl.manual_seed(7)
    ours = construct(getattr(rnn, name), args)
    theirs = construct(getattr(tnn, name), args)
    theirs.load_state_dict(ours.state_dict())
    return ours, theirs


def inputs(spec):
    if spec == "indices":
        return [torch.tensor([[1, 2, 9, 2], [0, 5, 5, 3]])]
    if spec == "attention":
        x = pattern(3, 5, 8, salt=1) * 4
        return [x, x, x]
    if spec == "attention_kv":
        return [pattern(5, 3, 8, salt=1) * 4, pattern(7, 3, 6, salt=2) * 4, pattern(7, 3, 5, salt=3) * 4]
    return [pattern(*shape, salt=i + 1) * 4 for i, shape in enumerate(spec)]


def run(module, xs):
    xs = [x.detach().requires_grad_() if x.dtype == torch.float32 else x for x in xs]
    out = module(*xs)
    out = out[0] if isinstance(out, tuple) else out
    leaves = [x for x in xs if x.requires_grad] + [p for p in module.parameters()]
    weights = pattern(*out.shape, salt=99)
    grads = torch.autograd.grad(out, leaves, weights, allow_unused=True)
    return out, [torch.zeros_like(t) if g is None else g for t, g in zip(leaves, grads)]


@pytest.mark.parametrize("name,args,spec", LAYERS, ids=IDS)
def test_layer_matches_torch_and_the_reference(name, args, spec):
    ours, theirs = build(name, args)
    xs = inputs(spec)
    assert isinstance(ours, getattr(tnn, name))
    assert list(ours.state_dict()) == list(theirs.state_dict()) and repr(ours) == repr(theirs)
    out, grads = run(ours, xs)
    want, want_grads = run(theirs, xs)
    scale = want.abs().max().item() + 1e-6
    assert (out - want).abs().max().item() <= 1e-5 * scale, f"{name}: forward differs from torch.nn"
    for g, w in zip(grads, want_grads):
        assert (g - w).abs().max().item() <= 1e-4 * (w.abs().max().item() + 1e-6), f"{name}: a gradient differs"
    ours_ref, _ = build(name, args)
    with backends.use("reference"):
        ref_out, ref_grads = run(ours_ref, xs)
    assert_bitwise_equal(out, ref_out, f"{name}: forward, kernels vs reference")
    for g, r in zip(grads, ref_grads):
        assert_bitwise_equal(g, r, f"{name}: gradient, kernels vs reference")
    for (n, a), (_, b) in zip(ours.named_buffers(), ours_ref.named_buffers()):
        assert_bitwise_equal(a, b, f"{name}: buffer {n}")


def construct(module, args):
    return module(*args) if not isinstance(args, dict) else module(**args)


@pytest.mark.parametrize("name,args,spec", LAYERS, ids=IDS)
def test_state_dict_round_trips(name, args, spec):
    """repdl -> torch.nn -> repdl (a fresh layer of other weights) gives back every bit."""
    ours, _ = build(name, args)
    fresh_torch = construct(getattr(tnn, name), args)
    fresh_torch.load_state_dict(ours.state_dict())
    repdl.manual_seed(123)
    back = construct(getattr(rnn, name), args)
    back.load_state_dict(fresh_torch.state_dict())
    for (k, a), (_, b) in zip(ours.state_dict().items(), back.state_dict().items()):
        assert_bitwise_equal(a, b, f"{name}.{k}")


def test_default_initialisation_is_repdls_stream():
    repdl.manual_seed(3)
    a = rnn.Linear(20, 10)
    repdl.manual_seed(3)
    b = rnn.Linear(20, 10)
    assert_bitwise_equal(a.weight, b.weight)
    g = repdl.random.Generator(3)
    want = tnn.Linear(20, 10)
    repdl.random.init.reset_parameters_(want, generator=g)
    assert_bitwise_equal(a.weight, want.weight)
    assert_bitwise_equal(a.bias, want.bias)
    bound = 1 / math.sqrt(20)
    assert a.bias.abs().max() <= bound and a.weight.abs().max() <= bound


def test_batch_invariance_of_inference():
    """A sample's output alone equals its row inside a batch."""
    repdl.manual_seed(0)
    layers = [rnn.Linear(12, 7), rnn.Conv2d(3, 5, 3, padding=1), rnn.LayerNorm(12),
              rnn.BatchNorm2d(3).eval(), rnn.MultiheadAttention(12, 3, batch_first=True).eval()]
    batches = [pattern(9, 12, salt=1), pattern(9, 3, 6, 6, salt=2), pattern(9, 4, 12, salt=3),
               pattern(9, 3, 6, 6, salt=4), pattern(9, 4, 12, salt=5)]
    with torch.no_grad():
        for layer, x in zip(layers, batches):
            full = layer(*([x] * 3 if isinstance(layer, rnn.MultiheadAttention) else [x]))
            full = full[0] if isinstance(full, tuple) else full
            for i in (0, 4, 8):
                one = layer(*([x[i:i + 1]] * 3 if isinstance(layer, rnn.MultiheadAttention) else [x[i:i + 1]]))
                one = one[0] if isinstance(one, tuple) else one
                assert_bitwise_equal(one[0], full[i], f"{type(layer).__name__}, sample {i}")


def test_bad_arguments_raise_before_any_work():
    with pytest.raises(NotImplementedError, match="max_norm"):
        rnn.Embedding(10, 3, max_norm=1.0)
    with pytest.raises(NotImplementedError, match="padding_mode='foo'.*zeros, reflect"):
        rnn.Conv2d(2, 2, 3, 1, 0, 1, 1, True, "foo")
    with pytest.raises(NotImplementedError, match="padding_mode='reflect'.*zeros"):
        rnn.ConvTranspose2d(2, 2, 3, padding_mode="reflect")
    with pytest.raises(TypeError, match="float32"):
        rnn.Linear(3, 4, dtype=torch.float64)
    layer = rnn.Linear(3, 4)
    with pytest.raises(TypeError, match="float32"):
        layer(torch.ones(2, 3, dtype=torch.float64))
    with pytest.raises(RuntimeError, match="shape"):
        rnn.Conv2d(3, 4, 3)(torch.ones(1, 2, 5, 5))
    with pytest.raises(RuntimeError, match="groups"):
        repdl.conv2d(torch.ones(1, 4, 5, 5), torch.ones(4, 2, 3, 3), groups=3)


def test_containers_work_with_repdl_layers():
    repdl.manual_seed(1)
    net = rnn.Sequential(rnn.Conv2d(1, 2, 3), rnn.ReLU(), rnn.Flatten(), rnn.Linear(2 * 4 * 4, 3))
    out = net(pattern(2, 1, 6, 6))
    assert out.shape == (2, 3)
    assert rnn.Sequential is tnn.Sequential and rnn.ModuleList is tnn.ModuleList

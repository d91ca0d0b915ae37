"""repdl.from_torch_module (conversion keeps everything but the arithmetic)
and repdl.utils.get_hash (the documented encoding; names, shapes, dtypes,
buffers and single bits all count)."""
import hashlib
import struct

import pytest
import torch
from torch import nn

import repdl
from repdl.testing import assert_bitwise_equal
from repdl.utils import get_hash
from repdl.verify import pattern


def torch_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                         nn.Dropout(0.0), nn.Linear(4 * 3 * 3, 5), nn.LogSoftmax(dim=1))


def test_conversion_keeps_state_and_computes_like_repdl_layers():
    model = torch_model()
    keys, h = list(model.state_dict()), get_hash(model)
    seen = []
    model[6].register_forward_hook(lambda m, i, o: seen.append(o.shape))
    converted = repdl.from_torch_module(model)
    assert converted is model and isinstance(model[0], repdl.nn.Conv2d) and isinstance(model[1], repdl.nn.BatchNorm2d)
    assert type(model[4]) is nn.Flatten  # no arithmetic: left as it is
    assert list(model.state_dict()) == keys and get_hash(model) == h
    x = pattern(2, 1, 6, 6)
    native = torch.nn.Sequential(*(layer for layer in [
        repdl.nn.Conv2d(1, 4, 3, padding=1), repdl.nn.BatchNorm2d(4), repdl.nn.ReLU(), repdl.nn.MaxPool2d(2),
        repdl.nn.Flatten(), repdl.nn.Dropout(0.0), repdl.nn.Linear(36, 5), repdl.nn.LogSoftmax(dim=1)]))
    native.load_state_dict(torch_model().state_dict())
    assert_bitwise_equal(model(x), native(x))
    assert seen == [(2, 5)]  # the hook survived


def test_copy_leaves_the_original():
    model = torch_model()
    copy = repdl.from_torch_module(model, copy=True)
    assert type(model[0]) is nn.Conv2d and isinstance(copy[0], repdl.nn.Conv2d)
    assert get_hash(copy) == get_hash(model)


def test_strict_names_every_unsupported_layer_at_once():
    model = nn.Sequential(nn.Linear(2, 2), nn.LSTM(2, 2), nn.Embedding(3, 2, max_norm=1.0),
                          nn.Linear(2, 2).double(), nn.MultiheadAttention(4, 2))
    with pytest.raises(NotImplementedError) as err:
        repdl.from_torch_module(model, strict=True)
    message = str(err.value)
    assert "1 (LSTM)" in message and "2 (Embedding): max_norm" in message and "3 (Linear): weight has dtype" in message
    assert "MultiheadAttention" not in message and "out_proj" not in message
    assert type(model[0]) is nn.Linear  # nothing converted before raising
    repdl.from_torch_module(model)  # not strict: converts what it can
    assert isinstance(model[0], repdl.nn.Linear) and type(model[1]) is nn.LSTM and type(model[3]) is nn.Linear


def test_user_subclasses_keep_their_forward():
    class Doubling(nn.Linear):
        def forward(self, x):
            return 2 * super().forward(x)
    model = nn.Sequential(Doubling(2, 2))
    repdl.from_torch_module(model, strict=True)
    assert type(model[0]) is Doubling


# ---- get_hash -----------------------------------------------------------------------------------

def _field(data):
    return struct.pack("<Q", len(data)) + data


def test_hash_of_a_tensor_is_the_documented_encoding():
    t = torch.tensor([[1.0, -0.0], [2.5, float("inf")]])
    expected = hashlib.sha256(b"repdl-hash-1\0" + _field(b"") + _field(b"T") + _field(b"torch.float32") +
                              _field(struct.pack("<2q", 2, 2)) + _field(struct.pack("<4f", 1.0, -0.0, 2.5,
                                                                                    float("inf")))).hexdigest()
    assert get_hash(t) == expected
    assert get_hash(t.t().contiguous().t()) == expected  # row-major, whatever the strides
    assert get_hash({"a": 1.5, "b": [2, None]}) == hashlib.sha256(
        b"repdl-hash-1\0" + _field(b"a") + _field(b"F") + _field(struct.pack("<d", 1.5)) + _field(b"b.0") +
        _field(b"I") + _field(b"2") + _field(b"b.1") + _field(b"N") + _field(b"None")).hexdigest()


def test_hash_sees_names_shapes_dtypes_buffers_and_bits():
    base = {"w": torch.zeros(2, 3)}
    h = get_hash(base)
    assert get_hash({"v": torch.zeros(2, 3)}) != h
    assert get_hash({"w": torch.zeros(3, 2)}) != h
    assert get_hash({"w": torch.zeros(2, 3, dtype=torch.float64)}) != h
    assert get_hash({"w": torch.zeros(2, 3).index_fill_(1, torch.tensor([2]), -0.0)}) != h
    bn = repdl.nn.BatchNorm1d(3)
    before = get_hash(bn)
    bn(pattern(4, 3))  # training mode: running statistics move, parameters do not
    assert get_hash(bn) != before


def test_hash_of_modules_optimizers_and_lists():
    model = repdl.nn.Linear(2, 2)
    opt = repdl.optim.SGD(model.parameters(), lr=0.1)
    assert get_hash(model) == get_hash(model.state_dict())
    assert get_hash([model, opt]) == get_hash([model.state_dict(), opt.state_dict()])
    with pytest.raises(TypeError, match="cannot hash a object"):
        get_hash(object())

"""The drop-in mode's cost: its overhead per intercepted call, and whole
training steps of unmodified models (a tiny GPT-2 from HuggingFace
transformers, a plain torch.nn CNN) under ``repdl.reproducible`` against the
same steps in plain torch.  The models are also the drop-in tests' models
(tests/dropin_job.py)."""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

import repdl

from .timing import best_time

__all__ = ["PlainCNN", "build", "models", "overhead_cases", "per_call_overhead", "step_cases"]

VOCAB, LENGTH, IMAGE = 97, 12, 16


class PlainCNN(nn.Module):
    """A user's CNN: torch.nn layers and F calls only."""

    def __init__(self):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.drop = nn.Dropout(0.1)
        self.head = nn.Linear(16 * 4 * 4, 5)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.silu(self.conv2(x))
        return self.head(self.drop(torch.flatten(x, 1)))


def _hf(config_cls, model_cls, **config):
    import transformers
    return getattr(transformers, model_cls)(getattr(transformers, config_cls)(**config))


def _text(model):
    ids = torch.randint(0, VOCAB, (2, LENGTH))
    return model, {"input_ids": ids, "labels": ids}


def _image(model):
    return model, {"pixel_values": torch.randn(2, 3, IMAGE, IMAGE), "labels": torch.randint(0, 5, (2,))}


def build(name):
    """(model, inputs) for one model, drawn from the current stream."""
    if name == "cnn":
        return _image(PlainCNN())
    if name == "resnet18":
        import torchvision
        return _image(torchvision.models.resnet18(num_classes=5))
    small = dict(vocab_size=VOCAB)
    if name == "gpt2":
        return _text(_hf("GPT2Config", "GPT2LMHeadModel", n_positions=32, n_embd=32, n_layer=2, n_head=4,
                         bos_token_id=0, eos_token_id=0, **small))
    if name == "bert":
        return _text(_hf("BertConfig", "BertForMaskedLM", hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                         intermediate_size=64, max_position_embeddings=32, **small))
    if name == "llama":
        return _text(_hf("LlamaConfig", "LlamaForCausalLM", hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=32, **small))
    if name == "vit":
        return _image(_hf("ViTConfig", "ViTForImageClassification", image_size=IMAGE, patch_size=4, hidden_size=32,
                          num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, num_labels=5))
    if name == "resnet":
        return _image(_hf("ResNetConfig", "ResNetForImageClassification", embedding_size=8, hidden_sizes=[8, 16],
                          depths=[1, 1], layer_type="basic", num_labels=5))
    raise ValueError(f"unknown model {name!r}")


def _importable(name: str) -> bool:
    try:
        __import__(name)
    except ImportError:
        return False
    return True


def models():
    """The models this installation can build: the CNN always, the
    HuggingFace ones with transformers, ResNet-18 with torchvision."""
    names = ["cnn"]
    if _importable("transformers"):
        names += ["gpt2", "bert", "llama", "vit", "resnet"]
    if _importable("torchvision"):
        names.append("resnet18")
    return names


def overhead_cases():
    """(name, plain call, the call the mode meets): the mode's overhead is
    the difference of their times, the second measured inside a mode."""
    x, y = repdl.random.randn(8), repdl.random.randn(8)
    mask = x > 0
    xg = repdl.random.randn(8).requires_grad_()
    yield "passed down (x.t())", (lambda: x.t()), (lambda: x.t())
    yield "exact at aten (torch.where)", (lambda: torch.where(mask, x, y)), (lambda: torch.where(mask, x, y))
    yield "rerouted (x + y)", (lambda: repdl.add(x, y)), (lambda: x + y)
    yield "rerouted, autograd (xg * xg)", (lambda: repdl.mul(xg, xg)), (lambda: xg * xg)


def per_call_overhead(plain, moded, rounds: int = 3) -> tuple:
    """(plain seconds, in-mode seconds) per call, best of `rounds`."""
    t_plain = t_mode = float("inf")
    for _ in range(rounds):
        t_plain = min(t_plain, best_time(plain, 3))
        with repdl.reproducible():
            t_mode = min(t_mode, best_time(moded, 3))
    return t_plain, t_mode


def _train_step(model, inputs):
    def step():
        model.zero_grad(set_to_none=True)
        if hasattr(model, "config"):
            loss = model(**inputs).loss
        else:
            loss = F.cross_entropy(model(inputs["pixel_values"]), inputs["labels"])
        loss.backward()
        opt.step()

    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    return step


def step_cases(names=None):
    """(name, plain torch step, the step under repdl.reproducible) for
    forward, backward and a torch.optim.AdamW step of each model (by
    default the CNN and GPT-2, where installed)."""
    for name in names or [n for n in ("cnn", "gpt2") if n in models()]:
        with repdl.reproducible(seed=0):
            model, inputs = build(name)
        plain = _train_step(copy.deepcopy(model), inputs)
        inside = _train_step(model, inputs)

        def moded(inside=inside):
            with repdl.reproducible():
                inside()

        yield f"{name} training step", plain, moded

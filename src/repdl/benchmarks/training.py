"""Training-step benchmark cases: LeNet-5, small CNNs with batch norm and
with group norm and SiLU, and a small transformer, each as
(torch step, RepDL step) on the same initial weights; optimizer steps over
10M parameters; and a profile that splits a RepDL step by kernel family.
Used by bench/bench_training.py and `repdl bench`."""
import cProfile
import pstats

import torch

import repdl


def lenet(nn):
    return nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))


def _three_stage_cnn(nn, stage):
    """stage(c_in, c_out) three times on 32x32 images (CIFAR-sized), pooled
    after the second and third, then a linear head of ten classes."""
    return nn.Sequential(*stage(3, 32), *stage(32, 32), nn.MaxPool2d(2), *stage(32, 64), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(64 * 8 * 8, 10))


def batchnorm_cnn(nn):
    """Conv - BatchNorm2d - ReLU stages, the batch norms in training mode, as
    a ResNet's or VGG's layers run."""
    return _three_stage_cnn(nn, lambda c_in, c_out: [nn.Conv2d(c_in, c_out, 3, padding=1, bias=False),
                                                     nn.BatchNorm2d(c_out), nn.ReLU()])


def groupnorm_cnn(nn):
    """Conv - GroupNorm - SiLU stages, as a diffusion UNet's blocks run them
    (eight groups: four channels a group at 32)."""
    return _three_stage_cnn(nn, lambda c_in, c_out: [nn.Conv2d(c_in, c_out, 3, padding=1), nn.GroupNorm(8, c_out),
                                                     nn.SiLU()])


class Transformer(torch.nn.Module):
    """Pre-LN decoder: token and position embeddings, causal self-attention, GELU MLP."""

    def __init__(self, nn, add, vocab=1024, d=256, heads=4, layers=4, length=128):
        super().__init__()
        self.add = add
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(length, d)
        self.blocks = nn.ModuleList(nn.ModuleDict({
            "ln1": nn.LayerNorm(d), "attn": nn.MultiheadAttention(d, heads, batch_first=True),
            "ln2": nn.LayerNorm(d), "mlp": nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))})
            for _ in range(layers))
        self.ln_f, self.head = nn.LayerNorm(d), nn.Linear(d, vocab)
        self.register_buffer("causal", torch.triu(torch.ones(length, length, dtype=torch.bool), 1))

    def forward(self, idx):
        x = self.add(self.tok(idx), self.pos(torch.arange(idx.shape[1], device=idx.device)))
        for b in self.blocks:
            h = b["ln1"](x)
            x = self.add(x, b["attn"](h, h, h, attn_mask=self.causal, need_weights=False)[0])
            x = self.add(x, b["mlp"](b["ln2"](x)))
        return self.head(self.ln_f(x))


def training_step(model, opt, loss_fn, x, y):
    def step():
        opt.zero_grad(set_to_none=True)
        out = model(x)
        loss_fn(out.reshape(-1, out.shape[-1]), y.reshape(-1)).backward()
        opt.step()
    return step


def pair(make_model, make_opt, loss, x, y):
    """(torch step, repdl step) on the same initial weights."""
    repdl.manual_seed(0)
    ours = make_model("repdl")
    theirs = make_model("torch")
    theirs.load_state_dict(ours.state_dict())
    return (training_step(theirs, make_opt(torch.optim, theirs), loss[0], x, y),
            training_step(ours, make_opt(repdl.optim, ours), loss[1], x, y))


LOSSES = (torch.nn.functional.cross_entropy, repdl.nn.functional.cross_entropy)


def _image_case(seed, make_model, n, image):
    """SGD with momentum on n random images of shape `image`, ten classes."""
    g = repdl.random.Generator(seed)
    x = repdl.random.randn(n, *image, generator=g)
    y = repdl.random.randint(0, 10, (n,), generator=g)
    return pair(lambda fw: make_model(repdl.nn if fw == "repdl" else torch.nn),
                lambda optim, m: optim.SGD(m.parameters(), lr=0.01, momentum=0.9), LOSSES, x, y)


def lenet_case(quick):
    return _image_case(1, lenet, 20 if quick else 100, (1, 28, 28))


def batchnorm_cnn_case(quick):
    return _image_case(4, batchnorm_cnn, 8 if quick else 32, (3, 32, 32))


def groupnorm_cnn_case(quick):
    return _image_case(5, groupnorm_cnn, 8 if quick else 32, (3, 32, 32))


def transformer_case(quick):
    g = repdl.random.Generator(2)
    batch, length = (4, 64) if quick else (16, 128)
    tokens = repdl.random.randint(0, 1024, (batch, length + 1), generator=g)
    return pair(lambda fw: Transformer(repdl.nn, repdl.add, length=length) if fw == "repdl" else
                Transformer(torch.nn, torch.add, length=length),
                lambda optim, m: optim.AdamW(m.parameters(), lr=1e-3), LOSSES, tokens[:, :-1], tokens[:, 1:])


def optimizer_case(name, quick, **kwargs):
    """One step over 10M parameters in 40 tensors (torch: the foreach path)."""
    sizes = [250_000] * (4 if quick else 40)
    g = repdl.random.Generator(3)
    params = {fw: [torch.nn.Parameter(repdl.random.randn(s, generator=repdl.random.Generator(i)))
                   for i, s in enumerate(sizes)] for fw in ("torch", "repdl")}
    for fw in params:
        for p in params[fw]:
            p.grad = repdl.random.randn(p.shape, generator=g)
    theirs = getattr(torch.optim, name)(params["torch"], foreach=True, **kwargs)
    ours = getattr(repdl.optim, name)(params["repdl"], **kwargs)
    return theirs.step, ours.step


_FAMILIES = (("gemm", "GEMM"), ("conv_", "convolution (im2col + GEMM)"), ("cr_", "correctly rounded functions"),
             ("norm_", "normalisation"), ("batch_norm", "normalisation"), ("group_norm", "normalisation"),
             ("softmax", "softmax"), ("pool_", "pooling"), ("optim_", "optimizer"),
             ("philox_", "random"), ("index_accumulate", "scatter"), ("", "arithmetic and reductions"))


def _family(name):
    """The kernel family of a repdl._C method name."""
    return next(label for prefix, label in _FAMILIES if name.startswith(prefix))


# The C route of RepDL's primitives (csrc/common/route.cpp), whose own time
# holds the kernels its native entries call: every family's, so they are
# named apart from torch's ops (in the transformer's step they were most of
# what read as torch's).
_ROUTE = "<built-in method route>"


def profile(step):
    """One step's time split exactly (cProfile's own time of each
    function): RepDL's C++ kernels by family, those its C route calls,
    torch's ops (autograd engine, copies, views, allocation), and Python."""
    step()
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(3):
        step()
    prof.disable()
    parts = {}
    for (path, _, fn), (_, _, own, _, _) in pstats.Stats(prof).stats.items():
        if path == "~" and "repdl._C." in fn:
            key = _family(fn.split("repdl._C.")[1].rstrip(">"))
        elif path == "~" and fn == _ROUTE:
            key = "kernels called by RepDL's C route"
        elif path == "~":
            key = "torch ops and the autograd engine"
        else:
            key = "Python (RepDL's and torch's)"
        parts[key] = parts.get(key, 0.0) + own / 3
    total = sum(parts.values())
    print(f"  where RepDL's {total * 1e3:.1f} ms step goes (profiled, so slower than timed):")
    for key, t in sorted(parts.items(), key=lambda kv: -kv[1]):
        print(f"    {key:<36} {t * 1e3:8.2f} ms  {100 * t / total:5.1f}%")

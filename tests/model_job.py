"""A CNN and a pre-LN transformer block, forward and backward, once with
repdl.nn and once with the same weights in plain torch.nn; prints one JSON
object of hashes (loss, logits, every parameter gradient, BatchNorm's
running statistics); the CNN has a BatchNorm2d and a GroupNorm.  tests/test_invariance.py runs it in fresh processes
under different environments: RepDL's hashes must not move, torch's do;
tests/test_devices.py runs it with REPDL_VERIFY_DEVICE=cuda (every tensor
on that device, the reference backend), which must give the CPU's hashes."""
import json
import os

import torch

import repdl
from repdl.verify import device, pattern, state_hash, tensor_hash


def cnn(nn):
    return nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
        nn.Dropout(0.2), nn.Conv2d(8, 16, 3, padding=1, bias=False), nn.GroupNorm(4, 16), nn.ReLU(),
        nn.AdaptiveAvgPool2d(2), nn.Flatten(), nn.Linear(64, 10))


class Block(torch.nn.Module):
    """Embedding, pre-LN causal self-attention and a GELU MLP, then a head."""

    def __init__(self, nn, vocab=50, d=32, heads=4, length=12):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(length, d)
        self.ln1, self.ln2, self.ln_f = nn.LayerNorm(d), nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.head = nn.Linear(d, vocab)
        self.register_buffer("causal", torch.triu(torch.ones(length, length, dtype=torch.bool), 1))

    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=self.causal, need_weights=False)[0]
        x = x + self.mlp(self.ln2(x))
        return self.head(self.ln_f(x))


def run(model, inputs, target, loss_fn):
    model.train()
    logits = model(inputs)
    loss = loss_fn(logits.reshape(-1, logits.shape[-1]), target.reshape(-1))
    loss.backward()
    grads = [p.grad for p in model.parameters()]
    return {"loss": tensor_hash(loss), "logits": tensor_hash(logits), "grads": state_hash(grads),
            "buffers": state_hash(model.buffers())}


def job():
    images, labels, tokens, next_tokens = (v.to(device()) for v in (
        pattern(6, 1, 8, 8, salt=1) * 4,
        (pattern(6, salt=2) * 1000).to(torch.int64) % 10,
        (pattern(3, 12, salt=3) * 1000).to(torch.int64) % 50,
        (pattern(3, 12, salt=4) * 1000).to(torch.int64) % 50))
    out = {}
    for name, make, x, y, smoothing in (("cnn", cnn, images, labels, 0.0),
                                        ("transformer", Block, tokens, next_tokens, 0.1)):
        repdl.manual_seed(0)
        ours = make(repdl.nn).to(device())
        theirs = make(torch.nn).to(device())
        theirs.load_state_dict(ours.state_dict())
        torch.manual_seed(0)
        out[f"repdl_{name}"] = run(ours, x, y, lambda a, b: repdl.nn.functional.cross_entropy(
            a, b, label_smoothing=smoothing))
        out[f"torch_{name}"] = run(theirs, x, y, lambda a, b: torch.nn.functional.cross_entropy(
            a, b, label_smoothing=smoothing))
    return out


if __name__ == "__main__":
    if os.environ.get("REPDL_VERIFY_FLUSH_DENORMAL") == "1":
        torch.set_flush_denormal(True)
    print(json.dumps(job()))

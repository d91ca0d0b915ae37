"""Unmodified third-party model code under repdl.reproducible: tiny
random-initialised HuggingFace models (GPT-2, BERT, Llama with RoPE and
grouped-query attention, ViT, ResNet), a CNN written against plain
torch.nn, and torchvision's ResNet-18 when torchvision is installed.

Each model is built inside the mode (RepDL's initialisers and stream), then
one training step runs twice: inside the mode in strict mode (forward,
backward, one torch.optim.AdamW step) and, on a deep copy with the same
weights and inputs, in plain torch.  Prints one JSON object: per model the
hashes of the logits, the gradients and the updated parameters, for
"repdl" and for "torch".  tests/test_dropin.py runs it in fresh processes
under every environment variant (REPDL_VERIFY_BACKEND=reference selects
the reference backend, REPDL_VERIFY_FLUSH_DENORMAL=1 flush-to-zero)."""
import copy
import json
import os
import sys

import torch
import torch.nn.functional as F

import repdl
from repdl.benchmarks.dropin import build, models
from repdl.verify import get_hash, tensor_hash

def step(model, inputs):
    """Forward, loss, backward and one AdamW step (foreach, torch's default)."""
    model.train()
    if not hasattr(model, "config"):  # torch.nn models: logits, then the loss
        labels = inputs["labels"]
        logits = model(inputs["pixel_values"])
        loss = F.cross_entropy(logits, labels)
    else:
        out = model(**inputs)
        logits, loss = out.logits, out.loss
    loss.backward()
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01).step()
    return {"logits": tensor_hash(logits), "grads": get_hash(grads), "params": get_hash(model)}


def job(names):
    backend = os.environ.get("REPDL_VERIFY_BACKEND", "cpu")
    out = {"repdl": {}, "torch": {}}
    for name in names:
        with repdl.reproducible(seed=0):
            model, inputs = build(name)
        plain = copy.deepcopy(model)
        with repdl.backends.use(backend), repdl.reproducible(strict=True, seed=1):
            out["repdl"][name] = step(model, inputs)
        torch.manual_seed(1)
        out["torch"][name] = step(plain, inputs)
    return out


if __name__ == "__main__":
    if os.environ.get("REPDL_VERIFY_FLUSH_DENORMAL") == "1":
        torch.set_flush_denormal(True)
    print(json.dumps(job(sys.argv[1:] or models())))

"""Two whole training runs, printed as one JSON object of hashes (every
parameter and buffer, every optimizer state, the losses):

- cnn: a LeNet-style CNN (conv, BatchNorm, ReLU, max pooling, dropout,
  linear) on augmented images (per-sample random crop and flip drawn in
  Dataset.__getitem__), shuffled by RandomSampler through a DataLoader,
  trained by SGD with Nesterov momentum and weight decay under a cosine
  schedule;
- lm: a pre-LN transformer language model (embeddings, causal attention,
  GELU MLP) trained by AdamW with a linear warm-up into a cosine schedule
  (SequentialLR), gradient clipping and label smoothing.

Every input, initial weight and random draw comes from repdl.random.
tests/test_training.py runs this in fresh processes under different
environments (and with the reference backend, with DataLoader workers,
and stopped and resumed from a checkpoint mid-epoch); every RepDL hash
must agree, and must equal tests/golden.json.  REPDL_VERIFY_DEVICE=cuda
trains on that device (tests/test_devices.py): the same golden hashes.
``--torch`` trains the same models with torch.nn, torch.optim and torch's
schedulers (same initial weights, same data): the negative control, whose
hashes do move.

    python tests/training_job.py [--torch] [--backend reference] [--workers N]
                                 [--stop-after K --checkpoint PATH] [--resume PATH]
"""
import argparse
import contextlib
import json
import os

import torch

import repdl
from repdl import backends
from repdl.benchmarks.training import Transformer
from repdl.random import sample_generator

SEED = 2026
CNN_STEPS = 8      # two epochs of 4 batches: the second epoch reshuffles
LM_STEPS = 6


# ---- data ----------------------------------------------------------------------------------

class Digits(torch.utils.data.Dataset):
    """64 synthetic 12x12 images of 10 classes (a class-dependent stripe
    pattern plus noise), augmented per sample and epoch."""

    def __init__(self):
        g = repdl.random.Generator(SEED)
        self.labels = repdl.random.randint(0, 10, (64,), generator=g)
        rows = torch.arange(12, dtype=torch.float32).view(1, 12, 1)
        stripes = ((rows + self.labels.view(-1, 1, 1).to(torch.float32)) % 3 == 0).to(torch.float32)
        self.images = (stripes.expand(64, 12, 12) + 0.3 * repdl.random.randn(64, 12, 12, generator=g)).unsqueeze(1)
        self.epoch = 0

    def __len__(self):
        return 64

    def __getitem__(self, i):
        g = sample_generator(SEED, self.epoch, i)
        x = repdl.random.random_crop(self.images[i:i + 1], 12, padding=2, generator=g)
        return repdl.random.random_horizontal_flip(x, generator=g)[0], self.labels[i]


def tokens():
    g = repdl.random.Generator(SEED + 1)
    return repdl.random.randint(0, 32, (LM_STEPS, 4, 13), generator=g)


# ---- models --------------------------------------------------------------------------------

def lenet(nn):
    return nn.Sequential(
        nn.Conv2d(1, 6, 3, padding=1), nn.BatchNorm2d(6), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 8, 3), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Dropout(0.25), nn.Linear(8 * 2 * 2, 24), nn.ReLU(), nn.Linear(24, 10))


def tiny_lm(nn, add):
    """The benchmark's pre-LN decoder (repdl.benchmarks.training) at toy size."""
    return Transformer(nn, add, vocab=32, d=16, heads=2, length=12, layers=2)


# ---- the two frameworks ------------------------------------------------------------------

REPDL = dict(nn=repdl.nn, optim=repdl.optim, sched=repdl.optim.lr_scheduler, add=repdl.add,
             clip=repdl.nn.utils.clip_grad_norm_)
TORCH = dict(nn=torch.nn, optim=torch.optim, sched=torch.optim.lr_scheduler, add=torch.add,
             clip=torch.nn.utils.clip_grad_norm_)


def build(fw, name):
    """Model, optimizer, schedule; initial weights always from RepDL's stream."""
    repdl.manual_seed(SEED)
    ours = lenet(repdl.nn) if name == "cnn" else tiny_lm(repdl.nn, repdl.add)
    model = ours if fw is REPDL else (lenet(torch.nn) if name == "cnn" else tiny_lm(torch.nn, torch.add))
    model.load_state_dict(ours.state_dict())
    model.to(repdl.verify.device())
    if name == "cnn":
        opt = fw["optim"].SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=5e-4)
        sched = fw["sched"].CosineAnnealingLR(opt, T_max=CNN_STEPS)
    else:
        opt = fw["optim"].AdamW(model.parameters(), lr=3e-3, weight_decay=0.1)
        warm = fw["sched"].LinearLR(opt, start_factor=0.1, total_iters=2)
        cos = fw["sched"].CosineAnnealingLR(opt, T_max=LM_STEPS - 2)
        sched = fw["sched"].SequentialLR(opt, [warm, cos], milestones=[2])
    return model, opt, sched


def batches(name, workers, start_step):
    """(step, inputs, targets) from `start_step` on; the CNN's come from a
    DataLoader over RandomSampler, resumed mid-epoch by set_epoch(e, start)."""
    if name == "lm":
        data = tokens()
        for step in range(start_step, LM_STEPS):
            yield step, data[step, :, :-1], data[step, :, 1:]
        return
    dataset = Digits()
    sampler = repdl.random.RandomSampler(dataset, generator=repdl.random.Generator(SEED + 2))
    per_epoch = len(dataset) // 16
    step = start_step
    while step < CNN_STEPS:
        epoch, within = divmod(step, per_epoch)
        dataset.epoch = epoch
        sampler.set_epoch(epoch, start=within * 16)
        loader = torch.utils.data.DataLoader(dataset, batch_size=16, sampler=sampler, num_workers=workers)
        for x, y in loader:
            yield step, x, y
            step += 1


def train(fw, name, workers=0, stop_after=None, checkpoint=None, resume=None):
    model, opt, sched = build(fw, name)
    losses, start = [], 0
    if resume:
        progress = repdl.checkpoint.load(resume, model=model, optimizer=opt, scheduler=sched,
                                         rng=repdl.random.default_generator)["progress"]
        start, losses = progress["step"], progress["losses"]
    model.train()
    for step, x, y in batches(name, workers, start):
        if stop_after is not None and step == stop_after:
            repdl.checkpoint.save(checkpoint, model=model, optimizer=opt, scheduler=sched,
                                  rng=repdl.random.default_generator, progress={"step": step, "losses": losses})
            return None
        opt.zero_grad(set_to_none=True)
        x, y = x.to(repdl.verify.device()), y.to(repdl.verify.device())
        logits = model(x)
        loss = fw["nn"].functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1),
                                                 label_smoothing=0.1 if name == "lm" else 0.0)
        loss.backward()
        if name == "lm":
            fw["clip"](model.parameters(), 1.0)
        opt.step()
        sched.step()
        losses.append(loss.item())
    return {"model": repdl.utils.get_hash(model), "optimizer": repdl.utils.get_hash(opt),
            "losses": repdl.utils.get_hash(losses)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--torch", action="store_true")
    parser.add_argument("--backend", default=None)
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--stop-after", type=int, default=None)
    parser.add_argument("--checkpoint", default=None)
    parser.add_argument("--resume", default=None)
    args = parser.parse_args()
    if os.environ.get("REPDL_VERIFY_FLUSH_DENORMAL") == "1":
        torch.set_flush_denormal(True)
    fw = TORCH if args.torch else REPDL
    with backends.use(args.backend) if args.backend else contextlib.nullcontext():
        out = {name: train(fw, name, args.workers, args.stop_after, args.checkpoint and f"{args.checkpoint}.{name}",
                           args.resume and f"{args.resume}.{name}")
               for name in ("cnn", "lm")}
    print(json.dumps(out))


if __name__ == "__main__":
    main()

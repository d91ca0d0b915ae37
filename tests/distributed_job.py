"""Data-parallel training with repdl.distributed on gloo over loopback, or
the single-process accumulation it must equal; prints one JSON object.

    python distributed_job.py --world W --microbatches G --model cnn|transformer [--global-batch B] [--steps N]
        [--plain] [--checkpoint DIR] [--kill-after K] [--resume DIR] [--schedule gather|tree]

--world 1 runs one process with repdl.GradientAccumulator; W > 1 spawns W
processes (torch.multiprocessing, a file store, 60 s collective timeout).
--plain trains the same model with torch.nn, torch.optim and torch's
DistributedDataParallel instead (each rank one forward over its share), the
negative control.  --checkpoint saves after every step (rank 0);
--kill-after K makes rank W-1 SIGKILL itself inside step K, after that
checkpoint exists; --resume continues from the last checkpoint, with any
world size.  --mismatch gives rank 1 a different head (the wrapper must
refuse it before the first step).  tests/test_distributed.py compares the
printed hashes."""
import argparse
import datetime
import json
import os
import signal
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

import repdl
from repdl.verify import get_hash

SAMPLES, CLASSES, VOCAB, LENGTH = 72, 5, 23, 6


def data(model):
    g = repdl.random.Generator(5)
    if model == "cnn":
        return repdl.random.randn(SAMPLES, 1, 8, 8, generator=g), repdl.random.randint(0, CLASSES, (SAMPLES,), generator=g)
    tokens = repdl.random.randint(0, VOCAB, (SAMPLES, LENGTH), generator=g)
    return tokens, torch.roll(tokens, -1, 1)


class TinyLM(torch.nn.Module):
    def __init__(self, nn, d=16):
        super().__init__()
        self.tok, self.ln = nn.Embedding(VOCAB, d), nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, 2, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(d, 32), nn.GELU(), nn.Linear(32, VOCAB))

    def forward(self, x):
        h = self.tok(x)
        a = self.ln(h)
        h = h + self.attn(a, a, a, need_weights=False)[0]
        return self.mlp(h)


def build(model, nn, classes=CLASSES):
    torch.manual_seed(0)
    if model == "cnn":
        net = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(4, 8, 3),
                            nn.ReLU(), nn.Flatten(), nn.Linear(8 * 2 * 2, classes))
    else:
        net = TinyLM(nn)
    repdl.random.init.reset_parameters_(net, generator=repdl.random.Generator(1))
    return net


def loss_of(model, net, x, y, F):
    out = net(x)
    return F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1))


def train(rank, world, args, store):
    if world > 1:
        dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=world,
                                timeout=datetime.timedelta(seconds=60))
    plain = args.plain
    nn = torch.nn if plain else repdl.nn
    F = torch.nn.functional if plain else repdl.nn.functional
    net = build(args.model, nn, CLASSES + (args.mismatch and rank == 1))
    opt = (torch.optim if plain else repdl.optim).SGD(net.parameters(), lr=0.1, momentum=0.9)
    x, y = data(args.model)
    sampler = repdl.distributed.MicrobatchSampler(SAMPLES, args.global_batch, args.microbatches, seed=3,
                                                  num_replicas=world, rank=rank)
    start = 0
    if args.resume:
        start = repdl.checkpoint.load(os.path.join(args.resume, "last"), model=net, optimizer=opt)["step"]
    if plain:
        wrapped = torch.nn.parallel.DistributedDataParallel(net) if world > 1 else net
    elif world > 1:
        wrapped = repdl.distributed.DistributedDataParallel(net, args.microbatches, schedule=args.schedule)
    else:
        wrapped, acc = net, repdl.GradientAccumulator(net.parameters(), args.microbatches)
    order = sampler._order.order(0)
    for step in range(start, args.steps):
        if args.kill_after is not None and step == args.kill_after + 1 and rank == world - 1:
            os.kill(os.getpid(), signal.SIGKILL)
        opt.zero_grad(set_to_none=True)
        micro = sampler.step_microbatches(order, step)
        if plain:  # torch's way: one forward over the rank's share, DDP averages across ranks
            idx = [i for m in micro for i in m]
            loss_of(args.model, wrapped, x[idx], y[idx], F).backward()
        else:
            for m in micro:
                loss_of(args.model, wrapped, x[m], y[m], F).backward()
                if world == 1:
                    acc.accumulate()
            acc.finish() if world == 1 else wrapped.finish()
        opt.step()
        if args.checkpoint and rank == 0:
            repdl.checkpoint.save(os.path.join(args.checkpoint, "last"), model=net, optimizer=opt, step=step + 1)
    if rank == 0:
        print(json.dumps({"params": get_hash(net), "optimizer": get_hash(opt)}), flush=True)
    if world > 1:
        dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--world", type=int, default=1)
    p.add_argument("--microbatches", type=int, default=8)
    p.add_argument("--global-batch", type=int, default=24)
    p.add_argument("--model", default="cnn")
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--plain", action="store_true")
    p.add_argument("--schedule", default="auto")
    p.add_argument("--checkpoint")
    p.add_argument("--kill-after", type=int)
    p.add_argument("--resume")
    p.add_argument("--mismatch", action="store_true", help="rank 1 builds a head with one more class")
    args = p.parse_args()
    torch.set_num_threads(1)
    if args.world == 1:
        train(0, 1, args, None)
        return
    with tempfile.TemporaryDirectory() as tmp:
        mp.spawn(train, args=(args.world, args, os.path.join(tmp, "store")), nprocs=args.world, join=True)


if __name__ == "__main__":
    sys.exit(main())

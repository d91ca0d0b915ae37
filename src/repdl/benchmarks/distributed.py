"""repdl.distributed against torch.distributed on gloo over loopback, in W
spawned processes: the deterministic all-reduce of one tensor against
dist.all_reduce (each schedule), and a data-parallel training step against
torch's DistributedDataParallel with the same model.  Rank 0 reports the
best time of each over several repetitions, timed between barriers."""
import datetime
import os
import tempfile
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

import repdl

__all__ = ["allreduce", "ddp_step"]


def _best(fn, repeats):
    best = float("inf")
    for _ in range(repeats):
        dist.barrier()
        t = time.perf_counter()
        fn()
        dist.barrier()
        best = min(best, time.perf_counter() - t)
    return best


def _init(rank, world, store):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=120))


def _allreduce_worker(rank, world, store, numel, repeats, out):
    _init(rank, world, store)
    x = repdl.random.randn(numel, generator=repdl.random.Generator(rank))
    node = {(rank, rank + 1): x}
    times = {
        "torch dist.all_reduce": _best(lambda: dist.all_reduce(x.clone()), repeats),
        "repdl gather": _best(lambda: repdl.distributed.all_reduce_gather(node, world), repeats),
        "repdl tree": _best(lambda: repdl.distributed.all_reduce_tree(node, world), repeats),
    }
    if rank == 0:
        torch.save(times, out)
    dist.destroy_process_group()


def _model(width):
    return repdl.nn.Sequential(repdl.nn.Linear(width, width), repdl.nn.GELU(), repdl.nn.Linear(width, width),
                               repdl.nn.GELU(), repdl.nn.Linear(width, 10))


def _ddp_worker(rank, world, store, width, batch, repeats, out):
    _init(rank, world, store)
    g = repdl.random.Generator(1)
    x, y = repdl.random.randn(batch, width, generator=g), repdl.random.randint(0, 10, (batch,), generator=g)
    ours_net, theirs_net = _model(width), _model(width)
    theirs_net.load_state_dict(ours_net.state_dict())
    ours = repdl.distributed.DistributedDataParallel(ours_net, microbatches=world)
    theirs = torch.nn.parallel.DistributedDataParallel(theirs_net)

    def step(front, finish):
        repdl.cross_entropy(front(x), y).backward()
        finish()
        for p in front.parameters():
            p.grad = None

    times = {"torch DDP": _best(lambda: step(theirs, lambda: None), repeats),
             "repdl DDP": _best(lambda: step(ours, ours.finish), repeats)}
    if rank == 0:
        torch.save(times, out)
    dist.destroy_process_group()


def _spawn(worker, world, *args):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "times.pt")
        mp.spawn(worker, args=(world, os.path.join(tmp, "store"), *args, out), nprocs=world, join=True)
        return torch.load(out)


def allreduce(world=4, numel=10_000_000, repeats=5) -> dict:
    """{schedule: best seconds} for one all-reduce of `numel` float32."""
    return _spawn(_allreduce_worker, world, numel, repeats)


def ddp_step(world=2, width=512, batch=64, repeats=10) -> dict:
    """{'torch DDP', 'repdl DDP': best seconds} of forward, backward and the
    gradient all-reduce of one MLP (repdl.nn layers in both, so the
    difference is the data-parallel machinery), one microbatch per rank."""
    return _spawn(_ddp_worker, world, width, batch, repeats)

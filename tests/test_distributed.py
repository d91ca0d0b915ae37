"""World-size-invariant data parallelism (docs/CONTRACT.md section 19):
training on 1, 2, 3, 4, 6 or 8 gloo ranks over loopback gives the bits of
one process accumulating the same G microbatches (tests/distributed_job.py,
each run in fresh processes under a bounded time); torch's own DDP does
not.  The tree and the accumulator are checked against sum_pairwise."""
import datetime
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import torch
import torch.distributed as dist

import repdl
from repdl.distributed import tree
from repdl.testing import assert_bitwise_equal
from repdl.verify import pattern

JOB = Path(__file__).with_name("distributed_job.py")
TIMEOUT = 300


def run(*args, expect_ok=True):
    done = subprocess.run([sys.executable, str(JOB), *map(str, args)], capture_output=True, text=True,
                          timeout=TIMEOUT)
    if expect_ok:
        assert done.returncode == 0, done.stderr[-3000:]
        return json.loads(done.stdout.strip().splitlines()[-1])
    return done


RUNS = {
    "cnn G8 W1": ("--world", 1), "cnn G8 W2": ("--world", 2), "cnn G8 W4": ("--world", 4),
    "cnn G8 W8": ("--world", 8), "cnn G8 W4 gather": ("--world", 4, "--schedule", "gather"),
    "cnn G4 W1": ("--world", 1, "--microbatches", 4), "cnn G4 W4": ("--world", 4, "--microbatches", 4),
    "cnn G6 W1": ("--world", 1, "--microbatches", 6), "cnn G6 W3": ("--world", 3, "--microbatches", 6),
    "cnn G6 W2 tree": ("--world", 2, "--microbatches", 6, "--schedule", "tree"),
    "cnn G6 W3 gather": ("--world", 3, "--microbatches", 6, "--schedule", "gather"),
    "lm G8 W1": ("--world", 1, "--model", "transformer"), "lm G8 W4": ("--world", 4, "--model", "transformer"),
    "torch W1": ("--world", 1, "--plain"), "torch W2": ("--world", 2, "--plain"),
    "torch W4": ("--world", 4, "--plain"),
}


@pytest.fixture(scope="module")
def runs():
    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(RUNS, pool.map(lambda a: run(*a), RUNS.values())))


@pytest.mark.subprocess
@pytest.mark.parametrize("family", ["cnn G8", "cnn G4", "cnn G6", "lm G8"])
def test_every_world_size_gives_the_single_process_bits(runs, family):
    """Same G: one process accumulating and W ranks of G / W (power of two
    or not, either schedule) end with identical parameters and optimizer
    state."""
    results = {name: r for name, r in runs.items() if name.startswith(family + " ")}
    assert len(results) >= 2
    assert len({json.dumps(r, sort_keys=True) for r in results.values()}) == 1, results


@pytest.mark.subprocess
def test_plain_ddp_moves_with_the_world_size(runs):
    """Negative control: torch's DDP with torch.optim on the same model,
    data and steps gives differing hashes across world sizes."""
    assert len({runs[f"torch W{w}"]["params"] for w in (1, 2, 4)}) >= 2


@pytest.mark.subprocess
def test_a_killed_rank_resumed_with_another_world_size_gives_the_uninterrupted_bits(tmp_path, runs):
    killed = run("--world", 2, "--checkpoint", tmp_path, "--kill-after", 1, expect_ok=False)
    assert killed.returncode != 0 and "SIGKILL" in killed.stderr
    resumed = run("--world", 4, "--resume", tmp_path)
    assert resumed == runs["cnn G8 W1"]


@pytest.mark.subprocess
def test_mismatched_parameters_raise_before_the_first_step():
    done = run("--world", 2, "--mismatch", expect_ok=False)
    assert done.returncode != 0 and "parameters differ between ranks" in done.stderr


# ---- in one process -------------------------------------------------------------------

@pytest.mark.parametrize("total", [1, 2, 3, 5, 6, 7, 8, 12, 13, 16])
def test_rank_covers_combine_to_the_pairwise_sum(total):
    leaves = pattern(total, 33, salt=total) * 1000
    want = repdl.sum_pairwise(leaves, 0)
    for world in [w for w in range(1, total + 1) if total % w == 0]:
        per = total // world
        sums = {}
        for r in range(world):
            nodes = tree.cover(r * per, (r + 1) * per, total)
            assert len(nodes) <= 2 * max(1, total.bit_length())
            for a, b in nodes:
                sums[(a, b)] = repdl.sum_pairwise(leaves[a:b], 0)
        assert_bitwise_equal(tree.combine(sums, total, repdl.add), want, f"G={total}, W={world}")


def test_one_node_per_rank_for_power_of_two_world_sizes():
    assert [tree.cover(r * 2, r * 2 + 2, 8) for r in range(4)] == [[(0, 2)], [(2, 4)], [(4, 6)], [(6, 8)]]
    assert tree.cover(0, 3, 6) == [(0, 2), (2, 3)] and tree.cover(3, 6, 6) == [(3, 4), (4, 6)]


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_the_accumulator_is_sum_pairwise_of_the_microbatch_gradients(reduction):
    w = pattern(7, 5, salt=1).requires_grad_()
    xs = [pattern(3, 7, salt=10 + i) for i in range(6)]
    grads = []
    acc = repdl.GradientAccumulator([w], microbatches=6, reduction=reduction)
    for x in xs:
        repdl.sum(repdl.tanh(repdl.mm(x, w))).backward()
        grads.append(w.grad.clone())
        acc.accumulate()
        assert w.grad is None
    acc.finish()
    want = repdl.sum_pairwise(torch.stack(grads), 0)
    assert_bitwise_equal(w.grad, repdl.div(want, 6.0) if reduction == "mean" else want)


def test_accumulator_errors():
    w = torch.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="reduction"):
        repdl.GradientAccumulator([w], 2, reduction="max")
    with pytest.raises(ValueError, match="microbatches"):
        repdl.GradientAccumulator([w], 0)
    acc = repdl.GradientAccumulator([w], 2)
    w.grad = torch.ones(2)
    acc.accumulate()
    with pytest.raises(RuntimeError, match="1 of 2 microbatches"):
        acc.finish()


def test_uneven_batches_raise_naming_both_numbers():
    with pytest.raises(ValueError, match="24 samples does not divide into 5 microbatches"):
        repdl.distributed.MicrobatchSampler(96, 24, 5)
    with pytest.raises(ValueError, match="6 microbatches do not divide among 4 ranks"):
        repdl.distributed.MicrobatchSampler(96, 24, 6, num_replicas=4)


def test_the_sampler_gives_each_rank_its_contiguous_share_of_the_global_order():
    one = list(repdl.distributed.MicrobatchSampler(48, 12, 6, seed=4))
    shares = [list(repdl.distributed.MicrobatchSampler(48, 12, 6, seed=4, num_replicas=3, rank=r)) for r in range(3)]
    for step in range(4):
        assert sum((s[step] for s in shares), []) == one[step]
    flat = [i for step in one for m in step for i in m]
    assert sorted(flat) == list(range(48))


@pytest.fixture
def group(tmp_path):
    dist.init_process_group("gloo", init_method=f"file://{tmp_path / 'store'}", rank=0, world_size=1,
                            timeout=datetime.timedelta(seconds=30))
    yield
    dist.destroy_process_group()


def test_the_wrapper_checks_its_arguments_before_any_work(group, monkeypatch):
    net = repdl.nn.Linear(3, 2)
    with pytest.raises(ValueError, match="reduction"):
        repdl.distributed.DistributedDataParallel(net, 2, reduction="none")
    with pytest.raises(ValueError, match="schedule must be one of auto"):
        repdl.distributed.DistributedDataParallel(net, 2, schedule="ring")
    monkeypatch.setattr(dist, "get_backend", lambda group=None: "mpi")
    with pytest.raises(ValueError, match="backend 'mpi'"):
        repdl.distributed.DistributedDataParallel(net, 2)


def test_one_rank_wrapper_equals_the_accumulator(group):
    def train(wrap):
        net = repdl.nn.Linear(7, 3)
        repdl.random.init.reset_parameters_(net, generator=repdl.random.Generator(2))
        front = wrap(net)
        for i in range(4):
            repdl.mse_loss(front(pattern(5, 7, salt=i)), pattern(5, 3, salt=20 + i)).backward()
            if isinstance(front, repdl.nn.Linear):
                acc.accumulate()
        (front.finish if not isinstance(front, repdl.nn.Linear) else acc.finish)()
        return [p.grad for p in net.parameters()]

    acc = None

    def plain(net):
        nonlocal acc
        acc = repdl.GradientAccumulator(net.parameters(), 4)
        return net

    for a, b in zip(train(lambda n: repdl.distributed.DistributedDataParallel(n, 4)), train(plain)):
        assert_bitwise_equal(a, b)


def test_a_parameter_without_gradient_is_named_at_finish(group):
    net = repdl.nn.Linear(3, 2)
    ddp = repdl.distributed.DistributedDataParallel(net, 1)
    repdl.sum(repdl.mm(pattern(2, 3), net.weight.t())).backward()  # the bias takes no part
    with pytest.raises(RuntimeError, match="got no gradient"):
        ddp.finish()

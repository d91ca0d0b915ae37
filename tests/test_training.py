"""Whole training runs (tests/training_job.py: a LeNet-style CNN with SGD and
a cosine schedule, a small transformer LM with AdamW, warm-up, clipping and
label smoothing), each in fresh processes: the final parameters, buffers,
optimizer states and losses are identical under every environment, with the
reference backend, with DataLoader workers, after a stop and resume from a
checkpoint mid-epoch, and equal to the golden hashes committed in
tests/golden.json (computed by both backends).  The same runs in plain
torch move across the same environments."""
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from environments import VARIANTS, run_job

JOB = Path(__file__).with_name("training_job.py")
GOLDEN = json.loads(Path(__file__).with_name("golden.json").read_text())["training"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    checkpoint = tmp_path_factory.mktemp("checkpoint") / "ck"
    jobs = {f"env:{name}": (env, ()) for name, env in VARIANTS.items()}
    jobs.update({f"torch:{name}": (env, ("--torch",)) for name, env in VARIANTS.items() if name != "flush_denormal"})
    jobs["reference"] = ({}, ("--backend", "reference"))
    jobs["workers"] = ({}, ("--workers", "2"))
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = dict(zip(jobs, pool.map(lambda job: run_job(job[0], JOB, job[1]), jobs.values())))
    # stopped after step 5 (mid-epoch for the CNN), resumed in a new process with other settings
    run_job({}, JOB, ("--stop-after", "5", "--checkpoint", str(checkpoint)))
    results["resumed"] = run_job({"OMP_NUM_THREADS": "1", "REPDL_ISA": "generic"}, JOB, ("--resume", str(checkpoint)))
    return results


@pytest.mark.subprocess
@pytest.mark.parametrize("model", ["cnn", "lm"])
def test_every_repdl_run_has_the_golden_hashes(runs, model):
    for name, result in runs.items():
        if not name.startswith("torch:"):
            assert result[model] == GOLDEN[model], f"{model}, {name}: {result[model]} != golden {GOLDEN[model]}"


@pytest.mark.subprocess
@pytest.mark.parametrize("model", ["cnn", "lm"])
def test_plain_torch_runs_move(runs, model):
    """Negative control: the same training in torch.nn/torch.optim gives at
    least two distinct parameter hashes across the environments."""
    hashes = {r[model]["model"] for name, r in runs.items() if name.startswith("torch:")}
    assert len(hashes) >= 2, f"plain torch {model} trained to one hash in every environment"

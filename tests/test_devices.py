"""The device cells: the jobs of test_invariance.py and test_training.py with
every tensor on CUDA, where RepDL runs its reference backend, must give the
CPU's bits (docs/CONTRACT.md section 8).  Skipped where torch sees no CUDA
device; on one, these are the cross-device evidence (docs/DEVELOPING.md says
how to run them on a lent GPU machine)."""
import json
from pathlib import Path

import pytest
import torch

from environments import run_job

pytestmark = [pytest.mark.subprocess,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="torch sees no CUDA device")]

HERE = Path(__file__).parent
CUDA = {"REPDL_VERIFY_DEVICE": "cuda"}
GOLDEN = json.loads((HERE / "golden.json").read_text())["training"]


@pytest.mark.parametrize("script", ["invariance_job.py", "model_job.py"])
def test_cuda_gives_the_cpu_hashes(script):
    cpu, cuda = run_job({}, HERE / script), run_job(CUDA, HERE / script)
    ours = [k for k in cpu if k.startswith("repdl")]
    differing = {k: [op for op in cpu[k] if cuda[k][op] != cpu[k][op]] for k in ours}
    assert not any(differing.values()), f"{script}: on CUDA {differing} differ from the CPU's"


def test_cuda_training_runs_have_the_golden_hashes():
    result = run_job(CUDA, HERE / "training_job.py")
    for model in GOLDEN:
        assert result[model] == GOLDEN[model], f"{model} on CUDA: {result[model]} != golden {GOLDEN[model]}"

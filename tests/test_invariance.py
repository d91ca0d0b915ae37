"""Reproducibility the way users lose it: the same job in separate processes
under different thread counts, ATen instruction sets, MKL settings, RepDL
kernel paths and flush-to-zero must give bit-identical results."""
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from environments import VARIANTS, run_job

JOB = Path(__file__).with_name("invariance_job.py")


@pytest.fixture(scope="module")
def results():
    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(VARIANTS, pool.map(lambda env: run_job(env, JOB), VARIANTS.values())))


@pytest.mark.subprocess
def test_repdl_results_identical_across_environments(results):
    base = results["default"]["repdl"]
    for variant, res in results.items():
        differing = [op for op in base if res["repdl"][op] != base[op]]
        assert not differing, f"{variant}: {differing} differ from the default environment"


@pytest.mark.subprocess
def test_the_environments_really_differ(results):
    """Negative control: plain torch on the same job does change with these
    settings, so the variants reach the processes and the test above can fail."""
    base = results["default"]["torch"]
    moved = {v: [op for op in base if r["torch"][op] != base[op]] for v, r in results.items()}
    assert any(moved.values()), "torch gave identical bits in every environment; the variants had no effect"
    assert {"tiny_linear", "tiny_mean_var", "tiny_scaled"} & set(moved["flush_denormal"]), \
        "flush-to-zero did not change torch's subnormal results: the variant did not reach the job"


MODEL_JOB = Path(__file__).with_name("model_job.py")


@pytest.fixture(scope="module")
def model_results():
    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(VARIANTS, pool.map(lambda env: run_job(env, MODEL_JOB), VARIANTS.values())))


@pytest.mark.subprocess
@pytest.mark.parametrize("model", ["cnn", "transformer"])
def test_model_forward_and_backward_identical_across_environments(model_results, model):
    """Loss, logits, every parameter gradient and BatchNorm's running
    statistics of a CNN and a pre-LN transformer block: one hash each in
    every environment."""
    base = model_results["default"][f"repdl_{model}"]
    for variant, res in model_results.items():
        differing = [k for k in base if res[f"repdl_{model}"][k] != base[k]]
        assert not differing, f"{model}, {variant}: {differing} differ from the default environment"


@pytest.mark.subprocess
@pytest.mark.parametrize("model", ["cnn", "transformer"])
def test_plain_torch_models_move_across_environments(model_results, model):
    """Negative control: the same model in plain torch.nn gives at least two
    distinct gradient hashes across the same environments."""
    hashes = {res[f"torch_{model}"]["grads"] for res in model_results.values()}
    assert len(hashes) >= 2, f"plain torch {model} gave one gradient hash in every environment"

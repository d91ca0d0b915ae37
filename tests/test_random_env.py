"""The stream across processes: the same draws under different thread
counts, ATen instruction sets and RepDL kernel rows give the same bits, and
a generator (or sampler) saved mid-run continues in a new process exactly as
if it had never stopped.

Run as a script, this file is the job (``python test_random_env.py job``)."""
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

VARIANTS = {
    "omp1": {"OMP_NUM_THREADS": "1"},
    "omp2": {"OMP_NUM_THREADS": "2"},
    "aten_default": {"ATEN_CPU_CAPABILITY": "default"},
    "aten_avx2": {"ATEN_CPU_CAPABILITY": "avx2"},
    "repdl_generic": {"REPDL_ISA": "generic", "OMP_NUM_THREADS": "2"},
    "repdl_auto": {"REPDL_ISA": "auto", "OMP_NUM_THREADS": "2"},
}
_CLEARED = ("OMP_NUM_THREADS", "ATEN_CPU_CAPABILITY", "REPDL_ISA")


# ---- the job ---------------------------------------------------------------------------------

def job(with_reference: bool) -> dict:
    import torch
    from torch import nn

    import repdl
    import repdl.random as rr
    from repdl.verify import tensor_hash

    def draws(n):
        """n elements for the long draws: 300_007 spreads them over threads."""
        g = rr.Generator(20260401)
        x = rr.randn(n, generator=rr.Generator(1))
        xg = x[:n // 6].clone().requires_grad_()
        y = rr.dropout(xg, 0.3, generator=g)
        y.backward(rr.rand(n // 6, generator=rr.Generator(2)))
        t = torch.empty(n // 750, 703).t()
        torch.manual_seed(0)
        model = nn.Sequential(nn.Conv2d(3, 16, 3), nn.BatchNorm2d(16), nn.Flatten(), nn.Linear(64, 10),
                              nn.LayerNorm(10), nn.Embedding(100, 32))
        imgs = rr.rand(64, 3, 8, 8, generator=rr.Generator(3))
        s = rr.RandomSampler(n // 3, seed=9)
        s.set_epoch(3)
        out = {
            "rand": rr.rand(n, generator=g),
            "randn": rr.randn(n, generator=g),
            "randint": rr.randint(-1000, 10**12, (n,), generator=g),
            "randperm": rr.randperm(n // 3, generator=g),
            "bernoulli": rr.bernoulli(rr.rand(n // 3, generator=rr.Generator(4)), generator=g),
            "dropout": y,
            "dropout_grad": xg.grad,
            "uniform_strided": rr.uniform_(t, -3, 5, generator=g),
            "normal_": rr.normal_(torch.empty(n // 4), 0.5, 0.25, generator=g),
            "trunc_normal_": rr.trunc_normal_(torch.empty(n // 15), 0.0, 1.0, -0.5, 1.5, generator=g),
            "init": torch.cat([p.detach().flatten() for p in
                               rr.init.reset_parameters_(model, g).state_dict().values() if p.is_floating_point()]),
            "sampler": torch.tensor(list(s)),
            "crop_flip": rr.random_horizontal_flip(rr.random_crop(imgs, 8, 2, generator=g), generator=g),
        }
        out["offset"] = torch.tensor([g.offset])
        return {k: tensor_hash(v) for k, v in out.items()}

    torch.manual_seed(5)
    result = {"isa": repdl.isa(), "threads": repdl._C.max_threads(), "repdl": draws(300_007),
              "torch_randn": tensor_hash(torch.randn(100_003))}
    if with_reference:  # the reference is slow: a smaller job, both ways
        result["small"] = draws(3001)
        with repdl.backends.use("reference"):
            result["reference"] = draws(3001)
    return result


def resume_save(path: Path) -> dict:
    """Draw, save the state mid-run (state tensor, pickled generator, sampler
    position), then carry on: the hashes of the carrying on."""
    import pickle

    import torch

    import repdl.random as rr
    from repdl.verify import tensor_hash

    g = rr.Generator(424242)
    rr.randn(1001, generator=g)
    rr.randperm(77, generator=g)
    torch.save(g.get_state(), path / "state.pt")
    (path / "gen.pkl").write_bytes(pickle.dumps(g))
    s = rr.RandomSampler(1000, seed=6)
    s.set_epoch(2)
    it = iter(s)
    seen = [next(it) for _ in range(137)]
    (path / "sampler.json").write_text(json.dumps({"epoch": 2, "start": len(seen)}))
    return {"cont": tensor_hash(torch.cat([rr.randn(5003, generator=g), rr.rand(17, generator=g)])),
            "sampler_rest": list(it)}


def resume_load(path: Path) -> dict:
    import pickle

    import torch

    import repdl.random as rr
    from repdl.verify import tensor_hash

    g = rr.Generator(0).set_state(torch.load(path / "state.pt", weights_only=True))
    h = pickle.loads((path / "gen.pkl").read_bytes())
    assert h == g, (h, g)
    s = rr.RandomSampler(1000, seed=6)
    pos = json.loads((path / "sampler.json").read_text())
    s.set_epoch(pos["epoch"], start=pos["start"])
    return {"cont": tensor_hash(torch.cat([rr.randn(5003, generator=g), rr.rand(17, generator=g)])),
            "cont_pickled": tensor_hash(torch.cat([rr.randn(5003, generator=h), rr.rand(17, generator=h)])),
            "sampler_rest": list(s)}


# ---- the tests -------------------------------------------------------------------------------

def run(args, env_overrides=None):
    env = {k: v for k, v in os.environ.items() if k not in _CLEARED}
    env.update(env_overrides or {})
    done = subprocess.run([sys.executable, __file__, *args], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def results():
    def one(item):
        name, env = item
        return run(["job", "ref" if name == "omp2" else "noref"], env)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(VARIANTS, pool.map(one, VARIANTS.items())))


@pytest.mark.subprocess
def test_variants_took_effect(results):
    assert results["omp1"]["threads"] == 1 and results["omp2"]["threads"] == min(2, os.cpu_count())
    assert results["repdl_generic"]["isa"] == "generic"
    import repdl
    best = next((isa for isa in ("avx512", "avx2") if repdl._C.isa_supported(isa)), "generic")
    assert results["repdl_auto"]["isa"] == best


@pytest.mark.subprocess
def test_identical_across_environments(results):
    base = results["omp2"]["repdl"]
    for variant, res in results.items():
        differing = [k for k in base if res["repdl"][k] != base[k]]
        assert not differing, f"{variant}: {differing} differ from OMP_NUM_THREADS=2"


@pytest.mark.subprocess
def test_reference_equals_kernels_in_a_fresh_process(results):
    """The same job through the integer-op reference (the path of every
    non-CPU device) hashes the same."""
    res = results["omp2"]
    differing = [k for k in res["small"] if res["reference"][k] != res["small"][k]]
    assert not differing, differing


@pytest.mark.subprocess
def test_torch_randn_moves_with_aten_capability(results):
    """Negative control: torch.randn from one seed differs between ATen's
    default and AVX2 paths (its vectorised Box-Muller rounds differently),
    so the variants reach the processes."""
    import torch
    if "avx2" not in torch.backends.cpu.get_cpu_capability().lower() and \
            "avx512" not in torch.backends.cpu.get_cpu_capability().lower():
        pytest.skip("this CPU has no AVX2 for ATen to differ with")
    assert results["aten_default"]["torch_randn"] != results["aten_avx2"]["torch_randn"]


@pytest.mark.subprocess
def test_resume_in_a_new_process(tmp_path):
    saved = run(["save", str(tmp_path)])
    loaded = run(["load", str(tmp_path)], {"OMP_NUM_THREADS": "1"})
    assert loaded["cont"] == saved["cont"]
    assert loaded["cont_pickled"] == saved["cont"]
    assert loaded["sampler_rest"] == saved["sampler_rest"] and len(saved["sampler_rest"]) == 1000 - 137


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "job":
        print(json.dumps(job(sys.argv[2] == "ref")))
    elif mode == "save":
        print(json.dumps(resume_save(Path(sys.argv[2]))))
    elif mode == "load":
        print(json.dumps(resume_load(Path(sys.argv[2]))))
    else:
        raise SystemExit(f"unknown mode {mode}")

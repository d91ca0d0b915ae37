"""Recompute tests/golden.json: the hashes of the whole training runs
(tests/training_job.py), of every learning-rate schedule's bits
(tests/test_lr_scheduler.py) and of the drop-in mode's model steps
(tests/dropin_job.py, with the transformers release they were made with).

Each training and drop-in hash is computed twice, by the C++ kernels and by the
reference backend (the contract as plain PyTorch), in fresh processes; the
file is written only when both agree.  A contract change that changes bits
reruns this in the same commit and says why in `reason`:

    python tools/update_golden.py --reason "..."
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"


def _job(args, env=None):
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True, check=True, cwd=ROOT,
                          env=None if env is None else {**os.environ, **env})
    return json.loads(done.stdout.strip().splitlines()[-1])


def training(backend=None):
    return _job([str(TESTS / "training_job.py")] + (["--backend", backend] if backend else []))


def dropin(backend):
    """The drop-in job's RepDL hashes (torchvision's ResNet-18 left out: it
    runs only where torchvision is installed)."""
    models = ["cnn", "gpt2", "bert", "llama", "vit", "resnet"]
    return _job([str(TESTS / "dropin_job.py"), *models], {"REPDL_VERIFY_BACKEND": backend})["repdl"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reason", required=True, help="why the bits changed (kept in the file)")
    args = parser.parse_args()
    kernels, reference = training(), training("reference")
    if kernels != reference:
        sys.exit(f"the kernels and the reference disagree, nothing written:\n{kernels}\n{reference}")
    models, models_reference = dropin("cpu"), dropin("reference")
    if models != models_reference:
        sys.exit(f"drop-in: the kernels and the reference disagree, nothing written:\n{models}\n{models_reference}")
    import transformers
    sys.path.insert(0, str(TESTS))
    from test_lr_scheduler import schedule_bits
    golden = {"reason": args.reason, "training": kernels,
              "dropin": {"transformers": transformers.__version__, "models": models},
              "lr_schedules": hashlib.sha256(schedule_bits()).hexdigest()}
    (TESTS / "golden.json").write_text(json.dumps(golden, indent=2, sort_keys=True) + "\n")
    print(json.dumps(golden, indent=2, sort_keys=True))


if __name__ == "__main__":
    main()

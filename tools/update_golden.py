"""Recompute tests/golden.json: the hashes of the whole training runs
(tests/training_job.py) and of every learning-rate schedule's bits
(tests/test_lr_scheduler.py).

Each training hash is computed twice, by the C++ kernels and by the
reference backend (the contract as plain PyTorch), in fresh processes; the
file is written only when both agree.  A contract change that changes bits
reruns this in the same commit and says why in `reason`:

    python tools/update_golden.py --reason "..."
"""
import argparse
import hashlib
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"


def training(backend=None):
    args = [sys.executable, str(TESTS / "training_job.py")] + (["--backend", backend] if backend else [])
    done = subprocess.run(args, capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reason", required=True, help="why the bits changed (kept in the file)")
    args = parser.parse_args()
    kernels, reference = training(), training("reference")
    if kernels != reference:
        sys.exit(f"the kernels and the reference disagree, nothing written:\n{kernels}\n{reference}")
    sys.path.insert(0, str(TESTS))
    from test_lr_scheduler import schedule_bits
    golden = {"reason": args.reason, "training": kernels,
              "lr_schedules": hashlib.sha256(schedule_bits()).hexdigest()}
    (TESTS / "golden.json").write_text(json.dumps(golden, indent=2, sort_keys=True) + "\n")
    print(json.dumps(golden, indent=2, sort_keys=True))


if __name__ == "__main__":
    main()

"""The environments in which users lose reproducibility (the product's own
matrix, repdl.cli.matrix, less the reference backend and device cells,
which the tests run explicitly), and a runner that starts a job script in a
fresh process under one of them and reads the JSON object it prints last.
The scripts apply REPDL_VERIFY_FLUSH_DENORMAL themselves, at the point they
choose (invariance_job.py after its subnormal inputs exist, since torch's
own ops that build them would flush)."""
import json
import os
import subprocess
import sys

from repdl.cli import matrix

VARIANTS = {v.name: v.env for v in matrix.variants() if v.name not in ("reference", "cuda")}


def run_job(env_overrides, script, args=()):
    env = {k: v for k, v in os.environ.items() if k not in matrix.CELL_VARIABLES}
    env.update(env_overrides)
    done = subprocess.run([sys.executable, str(script), *args], env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])

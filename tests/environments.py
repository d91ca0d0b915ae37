"""The environments in which users lose reproducibility, and a runner that
starts a job script in a fresh process under one of them and reads the
JSON object it prints last."""
import json
import os
import subprocess
import sys

from repdl import _C

VARIANTS = {
    "default": {},
    "omp1": {"OMP_NUM_THREADS": "1"},
    "omp2": {"OMP_NUM_THREADS": "2"},
    "aten_default": {"ATEN_CPU_CAPABILITY": "default"},
    "aten_avx2": {"ATEN_CPU_CAPABILITY": "avx2"},
    "mkl_compatible": {"MKL_CBWR": "COMPATIBLE"},
    "mkl_auto": {"MKL_CBWR": "AUTO"},
    "repdl_generic": {"REPDL_ISA": "generic", "OMP_NUM_THREADS": "1"},
    "repdl_auto": {"REPDL_ISA": "auto", "OMP_NUM_THREADS": "3"},
    "flush_denormal": {"REPDL_JOB_FLUSH_DENORMAL": "1"},
}
if _C.isa_supported("avx2") and _C.isa_supported("avx512"):  # auto is avx512 there: run the AVX2 rows too
    VARIANTS["repdl_avx2"] = {"REPDL_ISA": "avx2"}

_SET_BY_VARIANTS = ("OMP_NUM_THREADS", "ATEN_CPU_CAPABILITY", "MKL_CBWR", "REPDL_ISA", "REPDL_JOB_FLUSH_DENORMAL")


def run_job(env_overrides, script, args=()):
    env = {k: v for k, v in os.environ.items() if k not in _SET_BY_VARIANTS}
    env.update(env_overrides)
    done = subprocess.run([sys.executable, str(script), *args], env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])

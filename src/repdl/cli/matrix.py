"""The environments in which users lose reproducibility, each a fresh process
(the settings below are read once, at start-up, by libgomp, ATen's CPU
dispatch, MKL and RepDL), and the runner of one job in one of them."""
import dataclasses
import json
import os
import platform
import subprocess
import sys
import tempfile

import torch

import repdl
from repdl import _C
from repdl.cli.task import CliError

# Variables a cell sets; inherited values are dropped first, so that a cell
# means the same on every machine.
CELL_VARIABLES = ("OMP_NUM_THREADS", "ATEN_CPU_CAPABILITY", "MKL_CBWR", "REPDL_ISA",
                  "REPDL_VERIFY_FLUSH_DENORMAL", "REPDL_VERIFY_BACKEND", "REPDL_VERIFY_DEVICE")


@dataclasses.dataclass(frozen=True)
class Variant:
    name: str
    env: dict
    what: str


def variants():
    """Every variant this machine can run, in table order."""
    cores = str(os.cpu_count() or 1)
    out = [
        Variant("default", {}, "inherited settings"),
        Variant("omp1", {"OMP_NUM_THREADS": "1"}, "1 OpenMP thread"),
        Variant("omp2", {"OMP_NUM_THREADS": "2"}, "2 OpenMP threads"),
    ]
    if int(cores) > 2:
        out.append(Variant("omp_all", {"OMP_NUM_THREADS": cores}, f"all {cores} cores"))
    out += [
        Variant("aten_default", {"ATEN_CPU_CAPABILITY": "default"}, "ATen without SIMD"),
        Variant("aten_avx2", {"ATEN_CPU_CAPABILITY": "avx2"}, "ATen AVX2 kernels"),
    ]
    if _C.isa_supported("avx512"):
        out.append(Variant("aten_avx512", {"ATEN_CPU_CAPABILITY": "avx512"}, "ATen AVX-512 kernels"))
    out += [
        Variant("mkl_compatible", {"MKL_CBWR": "COMPATIBLE"}, "MKL's compatible code path"),
        Variant("mkl_auto", {"MKL_CBWR": "AUTO"}, "MKL's automatic code path"),
        Variant("repdl_generic", {"REPDL_ISA": "generic", "OMP_NUM_THREADS": "1"}, "RepDL's portable C++ rows"),
        Variant("repdl_auto", {"REPDL_ISA": "auto", "OMP_NUM_THREADS": "3"}, "RepDL's best rows, 3 threads"),
    ]
    if _C.isa_supported("avx512"):  # auto picks AVX-512 there: run the AVX2 rows too
        out.append(Variant("repdl_avx2", {"REPDL_ISA": "avx2"}, "RepDL's AVX2 rows"))
    out += [
        Variant("flush_denormal", {"REPDL_VERIFY_FLUSH_DENORMAL": "1"}, "torch.set_flush_denormal(True)"),
        Variant("reference", {"REPDL_VERIFY_BACKEND": "reference"}, "RepDL's reference backend (the contract)"),
    ]
    if torch.cuda.is_available():
        out.append(Variant("cuda", {"REPDL_VERIFY_DEVICE": "cuda"}, torch.cuda.get_device_name(0)))
    return out


def select(names):
    """The variants named in `names` (comma-separated), or all of them."""
    known = {v.name: v for v in variants()}
    if not names:
        return list(known.values())
    chosen = [n.strip() for n in names.split(",") if n.strip()]
    unknown = [n for n in chosen if n not in known]
    if unknown:
        raise CliError(f"unknown variant {', '.join(unknown)}; this machine has: {', '.join(known)}")
    return [known[n] for n in chosen]


def cpu_description():
    model, flags = platform.processor() or platform.machine(), []
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                key = key.strip()
                if key in ("model name", "Model") and model in ("", platform.machine(), platform.processor()):
                    model = value.strip()
                elif key in ("flags", "Features") and not flags:
                    flags = value.split()
    except OSError:
        pass
    wanted = ("sse2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl", "asimd", "sve")
    return model, [f for f in wanted if f in flags]


def environment():
    """What a golden file records of the machine that computed it."""
    model, flags = cpu_description()
    env = {"cpu": model, "cpu_flags": flags, "machine": platform.machine(), "os": platform.platform(),
           "python": platform.python_version(), "torch": torch.__version__, "repdl": repdl.__version__,
           "repdl_isa": repdl.isa(), "threads": torch.get_num_threads(), "devices": ["cpu"]}
    if torch.cuda.is_available():
        env["devices"].append(f"cuda: {torch.cuda.get_device_name(0)}")
    return env


@dataclasses.dataclass
class CellResult:
    hashes: dict
    metrics: dict


def run_cell(job_args, variant: Variant, framework_args=(), timeout=1200) -> CellResult:
    """Run `python -m repdl.cli.job *job_args *framework_args` in a fresh
    process under `variant`; the hashes and metrics it reported."""
    env = {k: v for k, v in os.environ.items() if k not in CELL_VARIABLES}
    env.update(variant.env)
    with tempfile.TemporaryDirectory(prefix="repdl-verify-") as tmp:
        env["REPDL_VERIFY_REPORT"] = report = os.path.join(tmp, "report.jsonl")
        cmd = [sys.executable, "-m", "repdl.cli.job", *job_args, *framework_args]
        try:
            done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise CliError(f"the job ran past {timeout} s in variant {variant.name}") from None
        if done.returncode != 0:
            lines = [ln for ln in done.stderr.strip().splitlines() if ln.strip()]
            last = lines[-1] if lines else f"exit status {done.returncode}"
            raise CliError(f"the job failed in variant {variant.name}: {last}")
        out = CellResult({}, {})
        if os.path.exists(report):
            with open(report) as f:
                for line in f:
                    entry = json.loads(line)
                    (out.hashes if entry["kind"] == "hash" else out.metrics)[entry["name"]] = entry["value"]
    if not out.hashes:
        raise CliError(f"the job reported no hashes (in variant {variant.name}); "
                       "call repdl.verify.report(name, tensor_or_module) in it")
    return out

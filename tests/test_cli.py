"""The repdl command line, driven as a user drives it (fresh processes, small
sizes): demo, verify (matrix, user scripts, golden files recorded and
checked), experiment, bench, --version and --help, and every bad input,
which must give one line on stderr and exit status 2."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from repdl.cli import task

pytestmark = pytest.mark.subprocess

GOLDEN = Path(__file__).with_name("verify_golden.json")
COMMANDS = ("demo", "verify", "experiment", "bench")


@pytest.fixture(autouse=True)
def in_tmp_path(tmp_path, monkeypatch):
    """Every command runs in a fresh directory (verify writes its report
    into the working directory)."""
    monkeypatch.chdir(tmp_path)


def repdl_cli(*args, check_rc=None):
    done = subprocess.run([sys.executable, "-m", "repdl", *map(str, args)], capture_output=True, text=True,
                          timeout=900)
    if check_rc is not None:
        assert done.returncode == check_rc, (done.returncode, done.stdout, done.stderr)
    return done


def assert_one_line_error(done, *fragments):
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("repdl: error: "), done.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def test_version_and_help(capsys):
    import repdl
    from repdl.cli import main

    assert repdl_cli("--version", check_rc=0).stdout.strip() == f"repdl {repdl.__version__}"
    for command in ("", *COMMANDS):
        with pytest.raises(SystemExit) as exit_:
            main([*([command] if command else []), "--help"])
        out = capsys.readouterr().out
        assert exit_.value.code == 0 and "usage: repdl" in out and "``" not in out
        if not command:
            assert all(c in out for c in COMMANDS)


def test_demo_prints_hashes_the_reference_backend_confirms():
    done = repdl_cli("demo", "--epochs", "1", "--steps", "6", "--json", check_rc=0)
    assert done.stderr == ""  # no warnings, no progress bars off a terminal
    out = json.loads(done.stdout)
    ours = out["repdl"]
    assert ours["alone_equal_batch"] == task.INVARIANCE_SAMPLES
    assert 0 <= ours["test_accuracy"] <= 1  # 6 steps: far from trained (test_project checks the full demo)
    # The same training with every op on the reference backend (the
    # contract as code), in another process: the same bits.
    from repdl.cli import matrix
    reference = matrix.run_cell(task.job_args(1, 6), matrix.select("reference")[0])
    assert reference.hashes == {k: ours[k] for k in ("initial_model", "trained_model", "test_logits")}


def test_demo_text_report_and_torch_comparison():
    done = repdl_cli("demo", "--epochs", "1", "--steps", "6", "--compare-torch", check_rc=0)
    out = done.stdout
    for label in ("initial model  sha256", "trained model  sha256", "test logits    sha256", "test accuracy",
                  "batch invariance: 5 of 5", "same on every machine", "torch, 1 thread, ATen default",
                  "torch, 2 threads, ATen auto"):
        assert label in out, out
    assert done.stderr == ""


def test_verify_demo_matrix_repdl_agrees_and_torch_does_not(tmp_path):
    done = repdl_cli("verify", "--variants", "default,omp1,aten_default,repdl_generic", "--epochs", "1", check_rc=0)
    assert "Verdict: RepDL gave the same bits in every variant." in done.stdout
    report = json.loads((tmp_path / "repdl-verify.json").read_text())
    assert report["identical"] and report["distinct"]["repdl"] == 1
    # The negative control: plain PyTorch's bits move with threads and
    # ATen's instruction set on the same job.
    assert report["distinct"]["torch"] >= 2, report["cells"]
    assert {c["variant"] for c in report["cells"]} == {"default", "omp1", "aten_default", "repdl_generic"}


def user_script(tmp_path, body):
    path = tmp_path / "job.py"
    path.write_text("import sys, torch, repdl\nfrom repdl import verify\n" + body)
    return path


def test_verify_user_script_record_and_check(tmp_path):
    script = user_script(tmp_path, "x = repdl.random.randn(300, 70, generator=repdl.random.Generator(int(sys.argv[1])))\n"
                                   "verify.report('softmax', repdl.softmax(repdl.mm(x, x.T), dim=1))\n"
                                   "verify.report('exp', repdl.exp(x))\n")
    golden = tmp_path / "golden.json"
    variants = "default,repdl_generic,reference,flush_denormal"
    done = repdl_cli("verify", "--variants", variants, "--record", golden, script, "5", check_rc=0)
    assert f"Recorded in {golden}" in done.stdout
    recorded = json.loads(golden.read_text())
    assert set(recorded["hashes"]) == {"softmax", "exp"}
    assert recorded["environment"]["torch"] == torch.__version__
    check = repdl_cli("verify", "--variants", "omp1,repdl_auto", "--check", golden, script, "5",
                      check_rc=0)
    assert "Every hash equals" in check.stdout
    # A golden file whose hash is off by one bit is reported, with both
    # environments, and the exit status says so.
    recorded["hashes"]["exp"] = recorded["hashes"]["exp"][:-1] + ("0" if recorded["hashes"]["exp"][-1] != "0" else "1")
    golden.write_text(json.dumps(recorded))
    bad = repdl_cli("verify", "--variants", "default", "--check", golden, script, "5", check_rc=1)
    assert "differs from" in bad.stdout and "exp in default" in bad.stdout
    assert "golden environment:" in bad.stdout and "this environment:" in bad.stdout


def test_committed_golden_file_matches_this_machine(tmp_path):
    """tests/verify_golden.json was recorded by `repdl verify --record` over
    the whole matrix, the reference backend included; every machine that
    runs the suite checks the demo's bits against it."""
    recorded = json.loads(GOLDEN.read_text())
    done = repdl_cli("verify", "--variants", "default,reference", "--epochs", recorded["job"]["epochs"],
                     "--steps", recorded["job"]["steps"], "--check", GOLDEN)
    assert done.returncode == 0, done.stdout + done.stderr


def test_verify_reports_differing_hashes_between_variants(tmp_path):
    # A script whose result follows the thread count, as plain torch's can:
    # verify must notice and exit 1.
    script = user_script(tmp_path, "verify.report('threads', torch.tensor([float(torch.get_num_threads())]))\n")
    done = repdl_cli("verify", "--variants", "omp1,omp2", script, check_rc=1)
    assert "DIFFER" in done.stdout


def test_experiment_small(tmp_path):
    out = tmp_path / "exp"
    done = repdl_cli("experiment", "--runs", "2", "--epochs", "1", "--out", out, check_rc=0)
    assert "exactly 0" in done.stdout
    results = json.loads((out / "results.json").read_text())
    ours = results["summary"]["repdl"]
    assert ours["fixed_seed_distinct_models"] == 1
    assert ours["test_accuracy"]["fixed_std"] == 0 and ours["test_loss"]["fixed_std"] == 0
    assert len(results["runs"]) == 8
    assert (out / "distributions.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "| RepDL | test accuracy |" in (out / "report.md").read_text()


@pytest.mark.parametrize("suite,only", [("main", "mm"), ("in-cache", "exp 64K"), ("calls", "sum")])
def test_bench_quick_json(suite, only):
    done = repdl_cli("bench", "--suite", suite, "--quick", "--only", only, "--json", check_rc=0)
    results = json.loads(done.stdout)["results"]
    assert results and all(only in r["case"] and r["ratio"] > 0 for r in results)


@pytest.mark.parametrize("case", ["missing_script", "crashing_script", "silent_script", "unknown_variant",
                                  "device", "golden_missing", "golden_malformed", "golden_other_job",
                                  "bad_runs", "bad_epochs", "bench_nothing"])
def test_bad_input_is_one_line(case, tmp_path):
    if case == "missing_script":
        assert_one_line_error(repdl_cli("verify", tmp_path / "nope.py"), "no such script")
    elif case == "crashing_script":
        script = user_script(tmp_path, "raise RuntimeError('the model exploded')\n")
        assert_one_line_error(repdl_cli("verify", "--variants", "omp1", script),
                              "RuntimeError: the model exploded", "omp1")
    elif case == "silent_script":
        assert_one_line_error(repdl_cli("verify", "--variants", "default", user_script(tmp_path, "pass\n")),
                              "reported no hashes", "repdl.verify.report")
    elif case == "unknown_variant":
        assert_one_line_error(repdl_cli("verify", "--variants", "default,omp99"), "unknown variant omp99",
                              "repdl_generic")
    elif case == "device":
        device = "tpu" if torch.cuda.is_available() else "cuda"
        assert_one_line_error(repdl_cli("demo", "--device", device), f"device '{device}' is not available")
    elif case == "golden_missing":
        assert_one_line_error(repdl_cli("verify", "--check", tmp_path / "none.json"), "golden file not found")
    elif case == "golden_malformed":
        (tmp_path / "g.json").write_text("{not json")
        assert_one_line_error(repdl_cli("verify", "--check", tmp_path / "g.json"), "not valid JSON")
    elif case == "golden_other_job":
        other = json.loads(GOLDEN.read_text())
        other["job"]["epochs"] = 1000
        (tmp_path / "g.json").write_text(json.dumps(other))
        assert_one_line_error(repdl_cli("verify", "--check", tmp_path / "g.json"), "from another job")
    elif case == "bad_runs":
        assert_one_line_error(repdl_cli("experiment", "--runs", "1"), "--runs must be at least 2")
    elif case == "bad_epochs":
        assert_one_line_error(repdl_cli("demo", "--epochs", "0"), "--epochs must be at least 1")
        assert_one_line_error(repdl_cli("verify", "--steps", "0"), "--steps must be at least 1")
    else:
        assert_one_line_error(repdl_cli("bench", "--only", "no-such-case"), "no benchmark case matches")


def test_report_outside_verify_prints(capsys):
    from repdl import verify

    os.environ.pop("REPDL_VERIFY_REPORT", None)
    digest = verify.report("x", torch.zeros(2))
    assert capsys.readouterr().out.strip() == f"[repdl.verify] x: {digest}"
    with pytest.raises(ValueError, match="non-empty string"):
        verify.report("", torch.zeros(2))

"""The project's promises about itself: the README's commands and CI agree,
and the demo's printed hash is the reference backend's."""
import re
import subprocess
import sys
from pathlib import Path

import repdl
from repdl import backends
from repdl.verify import pattern, tensor_hash

ROOT = Path(__file__).resolve().parents[1]


def readme_commands():
    return re.findall(r"```bash\n(.*?)\n```", (ROOT / "README.md").read_text(), re.S)[:2]


def test_ci_runs_the_readme_test_command():
    _, test_command = readme_commands()
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert test_command.strip() in [line.strip() for line in ci]


def test_demo_hash_is_computed_two_ways():
    a, b = pattern(257, 513, salt=1), pattern(513, 129, salt=2)
    fast = tensor_hash(repdl.mm(a, b))
    with backends.use("reference"):
        slow = tensor_hash(repdl.mm(a, b))
    assert fast == slow
    out = subprocess.run([sys.executable, "-m", "repdl", "demo"], capture_output=True, text=True, check=True).stdout
    assert f"sha256 {fast}" in out


def test_readme_examples_run():
    examples = re.findall(r"```python\n(.*?)\n```", (ROOT / "README.md").read_text(), re.S)
    assert len(examples) >= 2
    for example in examples:
        exec(compile(example, "README.md", "exec"), {})

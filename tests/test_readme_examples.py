"""The README's code examples run as printed."""

import os
import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def _blocks(section: str) -> list[str]:
    text = README.read_text()
    body = text.split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", body, flags=re.S)


def test_plugin_example_registers_and_runs(tmp_path):
    (code,) = _blocks("Adding an algorithm")
    (tmp_path / "uniform_pairs.py").write_text(code)
    script = ("import duelbench; r = duelbench.simulate('uniform_pairs', 'cyclic', 500, 2, spread=2.0); "
              "print(r.regret.shape, r.params)")
    env = dict(os.environ, DUELBENCH_PLUGIN_PATH=str(tmp_path))
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "{'spread': 2.0}" in proc.stdout


def test_python_api_example_runs():
    (code,) = _blocks("Python API")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr


def test_listed_subcommands_exist():
    """Every ``duelbench SUBCOMMAND`` the README's command list shows is one this installation has."""
    from duelbench.cli import available_commands

    text = README.read_text()
    block = text.split("The `duelbench` command is for one-off use", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    listed = {line.split()[1] for line in block.splitlines() if line.startswith("duelbench ")}
    assert {"cost", "status", "bench-all"} <= listed
    assert listed <= {c.name for c in available_commands()}

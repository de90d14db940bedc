"""Packaging consistency: lock file, conda environment, pyproject, Makefile, README, CLI."""

from __future__ import annotations

import importlib
import importlib.metadata
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements.lock"
TEST_LOCK = ROOT / "requirements-test.lock"
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)")


def lock_entries(lock: Path = LOCK) -> dict[str, dict]:
    """name → {"version", "hashes"} from a lock file (requirement lines with continuations)."""
    entries: dict[str, dict] = {}
    current = None
    for raw in lock.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = PIN.match(line)
        if m:
            name = canonicalize_name(m.group(1))
            assert name not in entries, f"{name} is pinned twice in {lock.name}"
            current = entries[name] = {"version": m.group(2), "hashes": []}
        elif line.startswith("--hash="):
            assert current is not None, f"hash before any requirement: {raw!r}"
            current["hashes"].append(line.removeprefix("--hash=").rstrip(" \\"))
        else:
            pytest.fail(f"unexpected line in {lock.name} (only exact pins and hashes): {raw!r}")
    return entries


def test_the_test_runner_lock_adds_hashed_tools_outside_the_results_lock():
    """requirements-test.lock holds only what requirements.lock does not (the sha256 of
    requirements.lock keys every archived result, so a test tool must not enter it)."""
    tools, locked = lock_entries(TEST_LOCK), lock_entries()
    assert "pytest-xdist" in tools
    assert not set(tools) & set(locked), f"pinned in both lock files: {sorted(set(tools) & set(locked))}"
    for name, e in tools.items():
        Version(e["version"])
        assert e["hashes"], f"{name} has no --hash in {TEST_LOCK.name}"
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "-r $(LOCK) -r $(TEST_LOCK)" in makefile and "-n $(TEST_WORKERS)" in makefile


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def declared_requirements() -> list[Requirement]:
    meta = pyproject()
    reqs = list(meta["project"]["dependencies"])
    for extra in meta["project"].get("optional-dependencies", {}).values():
        reqs += extra
    reqs += meta["build-system"]["requires"]
    return [Requirement(r) for r in reqs]


def test_lock_pins_every_package_exactly_with_hashes():
    entries = lock_entries()
    assert len(entries) > 20, "the lock should list the whole environment, transitive dependencies included"
    for name, e in entries.items():
        Version(e["version"])  # a valid, exact version
        assert e["hashes"], f"{name} has no --hash in requirements.lock (pip needs all or none)"
        for h in e["hashes"]:
            assert re.fullmatch(r"sha256:[0-9a-f]{64}", h), f"{name}: malformed hash {h!r}"


def test_pyproject_dependencies_are_locked_at_allowed_versions():
    entries = lock_entries()
    for req in declared_requirements():
        name = canonicalize_name(req.name)
        assert name in entries, f"{req} (pyproject.toml) is missing from requirements.lock: run `make lock`"
        version = entries[name]["version"]
        assert req.specifier.contains(version, prereleases=True), (
            f"requirements.lock pins {name}=={version}, outside pyproject.toml's {req}: run `make lock`"
        )


def test_environment_yml_mirrors_the_lock():
    env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    deps = env["dependencies"]
    conda = [d for d in deps if isinstance(d, str)]
    assert "python=3.11" in conda and "pip" in conda
    pip_sections = [d["pip"] for d in deps if isinstance(d, dict) and "pip" in d]
    assert len(pip_sections) == 1, "environment.yml needs exactly one pip: section"
    pins = {}
    for item in pip_sections[0]:
        m = PIN.match(item)
        assert m and m.end() == len(item), f"environment.yml: not an exact pin: {item!r}"
        pins[canonicalize_name(m.group(1))] = m.group(2)
    locked = {name: e["version"] for name, e in lock_entries().items()}
    assert set(pins) == set(locked), (
        f"only in environment.yml: {sorted(set(pins) - set(locked))}; "
        f"only in requirements.lock: {sorted(set(locked) - set(pins))}"
    )
    differ = {n: (pins[n], locked[n]) for n in pins if pins[n] != locked[n]}
    assert not differ, f"versions differ (environment.yml, requirements.lock): {differ}"


def makefile_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    return set(re.findall(r"^([A-Za-z0-9_.-]+)\s*:(?!=)", text, flags=re.M))


def readme_section(title: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(rf"^## {re.escape(title)}\s*$(.*?)(?=^## |\Z)", text, flags=re.M | re.S)
    assert m, f"README.md has no '## {title}' section"
    return m.group(1)


def test_readme_quick_start_commands_are_make_targets():
    section = readme_section("Quick start")
    blocks = re.findall(r"```(?:sh|bash|console)?\n(.*?)```", section, flags=re.S)
    commands = [ln.split("#", 1)[0].strip() for b in blocks for ln in b.splitlines()
                if ln.strip() and not ln.strip().startswith("#")]
    assert commands == ["make figures", "make test"]
    targets = makefile_targets()
    for cmd in commands:
        assert cmd.split()[1] in targets, f"README quick start runs `{cmd}`, but the Makefile has no such target"


def test_makefile_has_the_documented_targets():
    assert {"venv", "figures", "quick", "test", "bench", "clean", "lock"} <= makefile_targets()


def test_metadata_agrees_across_files():
    import duelbench

    meta = pyproject()["project"]
    assert "version" not in meta and "version" in meta["dynamic"], "the version is written once, in duelbench"
    assert pyproject()["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "duelbench.__version__"}
    assert meta["requires-python"] == ">=3.11"
    assert meta["scripts"]["duelbench"] == "duelbench.cli:main"
    assert "duelbench.algorithms" in meta["entry-points"]
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff["cff-version"] == "1.2.0"
    assert cff["title"] == "duelbench"
    assert str(cff["version"]) == duelbench.__version__
    assert cff["license"] == meta["license"] == "MIT"
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")


def test_citation_version_is_the_package_version():
    import duelbench

    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert str(cff["version"]) == duelbench.__version__, "CITATION.cff repeats duelbench.__version__"
    assert re.fullmatch(r"\d+\.\d+\.\d+", duelbench.__version__)


def test_the_library_dependencies_leave_the_workflow_to_its_extra():
    meta = pyproject()["project"]
    core = {canonicalize_name(Requirement(r).name) for r in meta["dependencies"]}
    workflow = {canonicalize_name(Requirement(r).name) for r in meta["optional-dependencies"]["workflow"]}
    assert {"snakemake", "snakemake-executor-plugin-slurm"} <= workflow
    assert not core & workflow
    assert {"numpy", "numba", "pyyaml"} <= core


def test_installed_distribution_matches_the_checkout():
    try:
        dist = importlib.metadata.distribution("duelbench")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("duelbench is not installed (run `make venv`)")
    import duelbench

    assert dist.version == duelbench.__version__
    scripts = {ep.name: ep.value for ep in dist.entry_points if ep.group == "console_scripts"}
    assert scripts.get("duelbench") == "duelbench.cli:main"


def test_ci_script_is_valid_bash():
    script = ROOT / ".ci" / "run"
    text = script.read_text(encoding="utf-8")
    assert text.startswith("#!/usr/bin/env bash") and "set -euo pipefail" in text
    subprocess.run(["bash", "-n", str(script)], check=True)


# --------------------------------------------------------------------------- CLI
def test_cli_offers_only_commands_whose_code_exists():
    from duelbench import cli

    available = cli.available_commands()
    assert any(c.name == "list" for c in available)
    for cmd in available:
        for module, name in cmd.requires:
            assert callable(getattr(importlib.import_module(module), name)), f"{cmd.name}: {module}.{name}"
    for cmd in set(cli.COMMANDS) - set(available):
        assert not all(cli.provides(m, f) for m, f in cmd.requires)


def test_provides_reads_source_without_importing():
    from duelbench import cli

    assert cli.provides("duelbench.cli", "main")
    assert not cli.provides("duelbench.cli", "no_such_function")
    assert not cli.provides("duelbench.no_such_module", "main")
    assert "duelbench.no_such_module" not in sys.modules


def test_cli_help_and_version(capsys):
    from duelbench import cli

    with pytest.raises(SystemExit) as exc:
        cli.main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for cmd in cli.available_commands():
        assert cmd.name in out
    proc = subprocess.run(
        [sys.executable, "-m", "duelbench", "--version"], capture_output=True, text=True, check=True, timeout=120
    )
    import duelbench

    assert proc.stdout.strip() == f"duelbench {duelbench.__version__}"


def test_cli_without_command_prints_help(capsys):
    from duelbench import cli

    assert cli.main([]) == 2
    assert "usage: duelbench" in capsys.readouterr().out


def test_cli_list_names_the_registered_algorithms(capsys):
    import json

    from duelbench import cli
    from duelbench.algorithms.registry import list_algorithms

    assert cli.main(["list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [a["name"] for a in listed["algorithms"]] == list_algorithms()


def test_cli_run_rejects_a_malformed_param(capsys):
    from duelbench import cli

    if not any(c.name == "run" for c in cli.available_commands()):
        pytest.skip("`duelbench run` needs duelbench.data.registry.load_matrix")
    assert cli.main(["run", "random", "x", "-T", "10", "-p", "oops"]) == 2
    assert "NAME=VALUE" in capsys.readouterr().err


def test_cli_run_on_a_matrix_file(tmp_path, capsys):
    import numpy as np

    from duelbench import cli

    if not any(c.name == "run" for c in cli.available_commands()):
        pytest.skip("`duelbench run` needs duelbench.data.registry.load_matrix")
    P = np.array([[0.5, 0.6, 0.7], [0.4, 0.5, 0.8], [0.3, 0.2, 0.5]])
    np.save(tmp_path / "P.npy", P)
    out_file = tmp_path / "result.npz"
    assert cli.main(["run", "random", str(tmp_path / "P.npy"), "-T", "50", "-R", "3", "-o", str(out_file)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("# random on ") and "runs=3" in lines[0]
    assert lines[-2].split()[0] == "50"  # the last checkpoint is the horizon
    assert out_file.is_file()
    assert cli.main(["run", "no_such_algorithm", str(tmp_path / "P.npy"), "-T", "5"]) == 2
    assert "no_such_algorithm" in capsys.readouterr().err

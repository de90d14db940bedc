"""The workflow keeps the Snakemake workflow catalog's conventions: ``snakemake --lint`` finds
nothing, ``snakefmt --check`` (the version pinned in requirements-test.lock) would change no
rules file, and the catalog's layout is in place (workflow/rules, config/README.md,
.snakemake-workflow-catalog.yml, a conda environment for every rule); the main Snakefile stays at
the repository root, where users run `snakemake`."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from _checkout_copy import SNAKEMAKE, copy_checkout, snakemake_env

CHECKOUT = Path(__file__).resolve().parent.parent
WORKFLOW = CHECKOUT / "workflow"
SNAKEFILES = [CHECKOUT / "Snakefile", *sorted((WORKFLOW / "rules").glob("*.smk"))]


def _pinned(package: str) -> str:
    """The version of ``package`` pinned in requirements-test.lock."""
    text = (CHECKOUT / "requirements-test.lock").read_text(encoding="utf-8")
    match = re.search(rf"^{re.escape(package)}==(\S+)", text, flags=re.M)
    assert match, f"{package} is not pinned in requirements-test.lock (TEST_TOOLS in the Makefile, make lock-test)"
    return match.group(1)


def _snakefmt() -> str:
    """The snakefmt of this interpreter's environment (else the first on PATH); a missing one
    fails the test: the test lock installs it."""
    here = Path(sys.executable).parent / "snakefmt"
    found = str(here) if here.is_file() else shutil.which("snakefmt")
    if found is None:
        pytest.fail("snakefmt is not installed: it is pinned in requirements-test.lock, which `make venv` installs")
    return found


def test_snakemake_lint_finds_nothing(tmp_path):
    # in a copy of the checkout (no MSLR files, no Snakemake metadata), as a fresh clone lints
    root = copy_checkout(tmp_path / "checkout")
    proc = subprocess.run([SNAKEMAKE, "--lint"], cwd=root, capture_output=True, text=True,
                          env=snakemake_env(), timeout=600)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"snakemake --lint found something:\n{out[-8000:]}"
    assert "Congratulations, your workflow is in a good condition!" in out, out[-4000:]


def test_snakefmt_would_change_no_rules_file():
    snakefmt = _snakefmt()
    version = subprocess.run([snakefmt, "--version"], capture_output=True, text=True, check=True).stdout
    assert _pinned("snakefmt") in version, (
        f"{snakefmt} is {version.strip()}, the test lock pins snakefmt=={_pinned('snakefmt')}: run `make venv`")
    proc = subprocess.run([snakefmt, "--check", *map(str, SNAKEFILES)], cwd=CHECKOUT, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, (
        "snakefmt would reformat the workflow (run `snakefmt Snakefile workflow/rules/*.smk`):\n"
        + proc.stdout + proc.stderr)


def test_the_catalog_layout():
    # the main file at the root, where users expect it (README says what the catalog expects)
    assert (CHECKOUT / "Snakefile").is_file() and not (WORKFLOW / "Snakefile").exists()
    assert any(p.suffix == ".smk" for p in (WORKFLOW / "rules").iterdir())
    assert (CHECKOUT / "config" / "README.md").is_file()
    readme = (CHECKOUT / "README.md").read_text(encoding="utf-8").lower()
    assert "snakemake" in readme and "workflow" in readme
    usage = yaml.safe_load((CHECKOUT / ".snakemake-workflow-catalog.yml").read_text(encoding="utf-8"))["usage"]
    assert set(usage) <= {"mandatory-flags", "software-stack-deployment", "report"}
    deployment = usage["software-stack-deployment"]
    assert set(deployment) <= {"conda", "singularity", "singularity+conda"} and any(deployment.values())
    assert usage["report"] is True and usage["mandatory-flags"]["desc"].strip()


def test_every_rule_names_the_locked_conda_environment():
    envs = set()
    for smk in SNAKEFILES:
        text = smk.read_text(encoding="utf-8")
        envs.update(re.findall(r"^\s+conda:\n\s+\"([^\"]+)\"", text, flags=re.M))
    assert envs == {"../envs/duelbench.yaml"}
    env_file = WORKFLOW / "envs" / "duelbench.yaml"
    assert env_file.read_text(encoding="utf-8") == (CHECKOUT / "environment.yml").read_text(encoding="utf-8")

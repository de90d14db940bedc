"""A snapshot of this checkout in a temporary folder, for end-to-end workflow tests.

The copy is a fresh git repository (so provenance sidecars record its commit), holding the
Snakefile, the lock files (archive entries are keyed by requirements.lock; the workflow's conda
environment is environment.yml), the package, the configuration, the workflow (optionally only
some rules files) and the whole ``data`` folder without downloaded MSLR files. Its results and Snakemake metadata stay out of the working tree (the compiled cache
is shared, see :func:`snakemake_env`), and edits made there (to test reruns) touch nothing here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent
SNAKEMAKE = str(Path(sys.executable).parent / "snakemake")
_IGNORE = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc")
#: rules files every copy keeps: the functions (common.smk) and the generic jobs (jobs.smk)
ALWAYS_KEPT = ("common.smk", "jobs.smk")


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=duelbench-test", "-c", "user.email=test@example.invalid", *args],
                          cwd=root, check=True, capture_output=True, text=True).stdout.strip()


def copy_checkout(root: Path, rules: tuple[str, ...] | None = None, experiments: tuple[str, ...] | None = None) -> Path:
    """Copy the checkout into ``root`` and commit it; keep only ``rules`` (plus ALWAYS_KEPT) if
    given, and only the config sections (and fidelity overrides) of ``experiments`` if given
    (the generic rules build every configured experiment)."""
    root.mkdir(parents=True, exist_ok=True)
    for item in ("Snakefile", "pyproject.toml", "requirements.lock", "environment.yml"):
        shutil.copy2(CHECKOUT / item, root / item)
    for folder in ("workflow", "config", "src"):
        shutil.copytree(CHECKOUT / folder, root / folder, ignore=_IGNORE)
    if rules is not None:
        for smk in (root / "workflow" / "rules").glob("*.smk"):
            if smk.name not in ALWAYS_KEPT and smk.name not in rules:
                smk.unlink()
    if experiments is not None:
        _keep_experiments(root / "config" / "config.yaml", experiments)
    shutil.copytree(CHECKOUT / "data", root / "data", ignore=shutil.ignore_patterns("*.npz", "__pycache__"))
    (root / ".gitignore").write_text("results/\n.snakemake/\n.numba_cache/\ndata/mslr/*.npz\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "snapshot")
    return root


def _keep_experiments(config_file: Path, keep: tuple[str, ...]) -> None:
    import yaml

    from duelbench.experiments.contract import packages

    config = yaml.safe_load(config_file.read_text())
    drop = [name for name in packages() if name not in keep]
    for name in drop:
        config.pop(name, None)
        for fidelity in config.get("fidelities", {}).values():
            fidelity.get("overrides", {}).pop(name, None)
    config_file.write_text(yaml.safe_dump(config, sort_keys=False))


def snakemake_env(mirror: Path | None = None) -> dict:
    """The environment of a build in a copy: nothing that points back into this checkout but the
    compiled cache (``NUMBA_CACHE_DIR``), which a copy of the same code shares safely (its
    entries are keyed by import closure and file content, :mod:`duelbench.provenance.compiled_cache`)
    and which spares each copy compiling every kernel again."""
    drop = ("PYTHONPATH", "SNAKEMAKE_PROFILE", "DUELBENCH_DATA_DIR", "DUELBENCH_ROOT")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    if mirror is not None:
        env["DUELBENCH_DATA_MIRROR"] = str(mirror)
    return env


def run_snakemake(root: Path, *args: str, mirror: Path | None = None, check: bool = True,
                  profile: str = "smoke", timeout: int = 1700, env: dict | None = None) -> subprocess.CompletedProcess:
    """``snakemake --profile config/profiles/<profile> ARGS`` in ``root`` (``env``: extra variables)."""
    proc = subprocess.run([SNAKEMAKE, "--profile", f"config/profiles/{profile}", *args], cwd=root,
                          capture_output=True, text=True, env={**snakemake_env(mirror), **(env or {})}, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed:\n{proc.stdout[-6000:]}\n{proc.stderr[-6000:]}")
    return proc


def report_html(root: Path, *targets: str, mirror: Path | None = None) -> str:
    """``snakemake --report`` of ``targets`` in a built copy, as unescaped HTML text."""
    import html

    out = root / "report.html"
    run_snakemake(root, "--report", str(out), *targets, mirror=mirror, timeout=600)
    return html.unescape(out.read_text(encoding="utf-8"))


def assert_report_shows_every_item(text: str, plan) -> None:
    """Every item of ``plan`` is in the report: its title (the caption's heading) and every
    PNG/CSV file it shows."""
    missing = [item.id for item in plan.items if item.title not in text]
    missing += [p for item in plan.items for p in item.outputs
                if p.endswith((".png", ".csv")) and Path(p).name not in text]
    assert not missing, f"not in the report: {missing}"

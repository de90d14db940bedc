"""Dry runs of the Snakemake workflow: which jobs a build would run (nothing is executed).

Each test plans in its own temporary working directory (``--directory``), so no state of the
checkout (results/, .snakemake/) is read or written.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from duelbench.algorithms.registry import param_hash
from duelbench.experiments.demo import EXPERIMENT as demo

CHECKOUT = Path(__file__).resolve().parent.parent
SNAKEFILE = CHECKOUT / "Snakefile"
SNAKEMAKE = str(Path(sys.executable).parent / "snakemake")
PROFILES = CHECKOUT / "config" / "profiles"


def snakemake_env() -> dict:
    drop = ("PYTHONPATH", "SNAKEMAKE_PROFILE", "NUMBA_CACHE_DIR", "DUELBENCH_DATA_DIR", "DUELBENCH_ROOT")
    return {k: v for k, v in os.environ.items() if k not in drop}


def _without_archive(args) -> list[str]:
    """``args`` with ``--config archive=off``: these tests plan a build from scratch (the
    committed results archive would take its shards off the plan; tests/test_workflow_smoke.py
    checks that)."""
    args = list(args)
    if "--config" in args:
        args.insert(args.index("--config") + 1, "archive=off")
    else:
        args += ["--config", "archive=off"]
    return args


def snakemake(workdir: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run([SNAKEMAKE, "-s", str(SNAKEFILE), "--directory", str(workdir), *_without_archive(args)],
                          capture_output=True, text=True, env=snakemake_env(), timeout=600)
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")
    return proc


def plan(workdir: Path, *args: str) -> dict[str, tuple[str, str]]:
    """output path -> (rule, plan) from ``snakemake --summary`` (plan: "update pending", "no update")."""
    proc = snakemake(workdir, "--summary", *args)
    rows = [line.split("\t") for line in proc.stdout.splitlines() if "\t" in line]
    header, body = rows[0], rows[1:]
    i_rule, i_plan = header.index("rule"), header.index("plan")
    return {r[0]: (r[i_rule], r[i_plan]) for r in body}


def pending(p: dict, rule: str) -> set[str]:
    return {path for path, (r, how) in p.items() if r == rule and how == "update pending"}


@pytest.fixture(scope="module")
def config():
    with open(CHECKOUT / "config" / "config.yaml") as f:
        return yaml.safe_load(f)


def shard_outputs(paths):
    return set(paths) | {p + ".json" for p in paths}


@pytest.fixture(scope="module")
def demo_plan(tmp_path_factory):
    """The plan of the ``demo`` target from scratch (two tests read it; a plan writes nothing)."""
    return plan(tmp_path_factory.mktemp("demo_plan"), "demo")


def test_dry_run_lists_every_demo_shard(demo_plan, config):
    expected = [s.path for s in demo.shard_specs(config)]
    assert len(expected) == 80
    assert pending(demo_plan, "simulate_shard") == shard_outputs(expected)
    warm = pending(demo_plan, "warmup_numba")
    assert {Path(w).name.split("-")[0] for w in warm if w.endswith(".done")} == {"rucb", "rmed1", "dts", "random"}
    assert pending(demo_plan, "demo_steps") == {"figures/demo/regret.csv", "figures/demo/regret.csv.json",
                                                "figures/demo/regret.pdf", "figures/demo/regret.png",
                                                "figures/demo/regret.pdf.json", "figures/demo/regret.png.json"}


def test_dry_run_output_names_shard_jobs(tmp_path):
    proc = snakemake(tmp_path, "-n", "demo")
    out = proc.stdout + proc.stderr
    assert "simulate_shard       80" in out or any(
        line.split()[:2] == ["simulate_shard", "80"] for line in out.splitlines())
    assert "simulating rucb on arxiv, T=1000000, runs 0-10 (paper)" in out
    assert f"results/paper/sushi/dts-{param_hash('dts', {})}/T1000000/runs-90-100.npz" in out


def test_experiment_target_rules(tmp_path, demo_plan):
    everything = plan(tmp_path)
    only_demo = demo_plan
    assert set(only_demo.items()) <= set(everything.items())
    assert {rule for rule, _ in only_demo.values()} == {"warmup_numba", "simulate_shard", "simulate_bundle",
                                                        "demo_shard_list", "demo_steps"}
    targets = snakemake(tmp_path, "--list-target-rules").stdout.split()
    assert "all" in targets and "demo" in targets
    # the throughput table is a timing of this host: built by its own target, never by `all`
    assert "engine" in targets
    assert "engine_throughput" not in {rule for rule, _ in everything.values()}


@pytest.mark.parametrize("profile, fidelity, n_shards", [("quick", "quick", 16), ("smoke", "smoke", 16)])
def test_profiles_select_fidelity(tmp_path, config, profile, fidelity, n_shards):
    p = plan(tmp_path, "demo", "--profile", str(PROFILES / profile))
    shards = {s for s in pending(p, "simulate_shard") if s.endswith(".npz")}
    assert len(shards) == n_shards
    assert all(s.startswith(f"results/{fidelity}/") for s in shards)
    assert shards == set([s.path for s in demo.shard_specs(config, fidelity)])
    assert f"results/{fidelity}/figures/demo/regret.pdf" in pending(p, "demo_steps")


def test_cli_config_combines_with_profile(tmp_path):
    # the profile sets the fidelity through a config file, so --config still applies on top
    p = plan(tmp_path, "demo", "--profile", str(PROFILES / "quick"), "--config", "results=elsewhere")
    shards = {s for s in pending(p, "simulate_shard") if s.endswith(".npz")}
    assert shards and all(s.startswith("elsewhere/quick/") for s in shards)


def test_slurm_profile_parses(tmp_path):
    """The profile names only rules the workflow has (a misspelt rule in set-resources or
    groups would be ignored silently), asks for one CPU per job, and bundles shards."""
    text = (PROFILES / "slurm" / "config.yaml").read_text()
    prof = yaml.safe_load(text)
    assert prof["executor"] == "slurm"
    assert prof["default-resources"]["runtime"] > 0 and prof["default-resources"]["mem_mb"] > 0
    assert prof["cores"] == 1 and prof["default-resources"]["cpus_per_task"] == 1
    rules = set(snakemake(tmp_path, "--list-rules").stdout.split())
    named = set(prof["set-resources"]) | set(prof["groups"])
    assert named <= rules, named - rules
    assert set(prof["groups"].values()) == set(prof["group-components"]) == {"shards"}


def test_mslr_datasets_depend_on_the_data_rule(tmp_path):
    cfg = tmp_path / "mslr.yaml"
    cfg.write_text("demo:\n  datasets: [arxiv, mslr5_condorcet]\n  algorithms: [random]\n")
    args = ("--configfile", str(cfg))
    h = param_hash("random", {})
    mslr_shard = f"results/paper/mslr5_condorcet/random-{h}/T1000000/runs-0-10.npz"
    arxiv_shard = f"results/paper/arxiv/random-{h}/T1000000/runs-0-10.npz"
    with_data = plan(tmp_path, mslr_shard, *args)
    assert pending(with_data, "fetch_mslr") == {"data/mslr/MSLR_Informational_PMat.npz"}
    without = plan(tmp_path, arxiv_shard, *args)
    assert pending(without, "fetch_mslr") == set()


def test_unrequested_shard_is_refused(tmp_path):
    proc = snakemake(tmp_path, "-n", "results/paper/arxiv/random-0123456789/T5/runs-0-1.npz", check=False)
    assert proc.returncode != 0
    assert "no configured experiment requests the shard" in proc.stdout + proc.stderr

"""End-to-end build of the demo with the smoke profile, in a temporary copy of the checkout.

The copy (a fresh git repository) isolates the build from the working tree: its results,
numba cache and Snakemake metadata live in the copy, and editing an algorithm there (to check
that exactly its shards rerun) leaves the real sources alone. The first build compiles the
demo's algorithms into the copy's numba cache, then runs 16 small shards.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from _checkout_copy import SNAKEMAKE, copy_checkout, git as _git, run_snakemake, snakemake_env

FIG = Path("results/smoke/figures/demo")
ALGORITHMS = ["rucb", "rmed1", "dts", "random"]
DATASETS = ["arxiv", "sushi"]

pytestmark = [pytest.mark.timeout(900), pytest.mark.slow]


def snakemake(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    return run_snakemake(root, *args, check=check, timeout=900)


def plan(root: Path) -> dict[str, tuple[str, str]]:
    """output -> (rule, plan) of the demo's build, from ``snakemake --summary``."""
    proc = snakemake(root, "--summary", "demo")
    rows = [line.split("\t") for line in proc.stdout.splitlines() if "\t" in line]
    header = rows[0]
    return {r[0]: (r[header.index("rule")], r[header.index("plan")]) for r in rows[1:]}


def pending(p: dict, rule: str | None = None) -> set[str]:
    return {f for f, (r, how) in p.items() if how == "update pending" and (rule is None or r == rule)}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = copy_checkout(tmp_path_factory.mktemp("checkout"))
    proc = snakemake(root, "demo")
    return root, proc


def test_smoke_build_makes_the_demo_figure(built):
    root, proc = built
    for name in ("regret.csv", "regret.pdf", "regret.png"):
        path = root / FIG / name
        assert path.is_file() and path.stat().st_size > 0, name
    assert (root / FIG / "regret.pdf").read_bytes().startswith(b"%PDF")
    assert (root / FIG / "regret.png").read_bytes().startswith(b"\x89PNG")
    assert not (root / "figures").exists()  # smoke outputs never touch the paper figures


def _bundle_members(root: Path) -> set[str]:
    """The shards the bundle jobs' logs say they computed."""
    logs = (root / "results" / "logs" / "smoke" / "bundles").rglob("*.log")
    return {line.split("shard ", 1)[1].strip() for log in logs for line in log.read_text().splitlines()
            if line.startswith("bundle member ")}


def test_bundles_compute_only_the_shards_the_build_needs(built):
    """Bundles are planned over every configured experiment's shards (those of one algorithm
    and data share one); building the demo computes the demo's shards only."""
    root, _ = built
    demo_shards = {str(p.relative_to(root)) for p in (root / "results" / "smoke").rglob("runs-*.npz")}
    assert len(demo_shards) == 16
    assert _bundle_members(root) == demo_shards


def test_regret_table(built):
    root, _ = built
    table = pd.read_csv(root / FIG / "regret.csv", dtype={"param_hash": str})
    assert list(table.columns) == ["dataset", "algorithm", "param_hash", "t", "mean", "stderr", "n_runs", "kind"]
    assert set(table["dataset"]) == set(DATASETS)
    assert set(table["algorithm"]) == set(ALGORITHMS)
    assert set(table["n_runs"]) == {4}
    assert "copeland" in set(table["kind"])
    for _, g in table.groupby(["dataset", "algorithm", "kind"]):
        assert g["t"].max() == 2000
        assert np.all(np.diff(g["mean"].to_numpy()) >= -1e-12)  # cumulative regret never decreases
        assert np.all(g["stderr"].to_numpy() >= 0)
    final = table[(table["t"] == 2000) & (table["kind"] == "copeland")].set_index(["dataset", "algorithm"])["mean"]
    for d in DATASETS:  # a uniformly random pair has positive regret at every step
        assert final[(d, "random")] > 0


def _outputs(root: Path) -> list[Path]:
    out = []
    for base in (root / "results",):
        for p in base.rglob("*"):
            rel = p.relative_to(root)
            if p.is_dir() or p.suffix == ".json" or p.name.startswith(".tmp") or rel.parts[1] == "logs":
                continue
            out.append(p)
    return out


def test_every_output_has_a_sidecar(built):
    root, _ = built
    outputs = _outputs(root)
    n_shards = len(ALGORITHMS) * len(DATASETS) * 2
    assert len([p for p in outputs if p.suffix == ".npz"]) == n_shards
    assert len(outputs) == n_shards + 3 + len(ALGORITHMS)  # shards, csv/pdf/png, warm-up flags
    head = _git(root, "rev-parse", "HEAD")
    for p in outputs:
        side = Path(str(p) + ".json")
        assert side.is_file(), f"no sidecar for {p}"
        rec = json.loads(side.read_text())
        assert rec["schema"] == "duelbench.provenance/1"
        c = rec["content"]
        assert c["code"]["commit"] == head
        assert set(c["versions"]) >= {"python", "numpy", "numba", "scipy", "duelbench"}
        assert rec["run"]["wall_time_s"] is not None and rec["run"]["cpu_time_s"] is not None
        if p.suffix == ".npz":
            assert c["seeds"]["seed"] == 0 and c["config_hash"]
    csv_side = json.loads((root / FIG / "regret.csv.json").read_text())["content"]
    assert len(csv_side["inputs"]) == n_shards and all("sha256" in i for i in csv_side["inputs"])
    assert csv_side["config"]["fidelity"] == "smoke" and csv_side["config"]["horizon"] == 2000


def test_rebuild_has_nothing_to_do(built):
    root, _ = built
    assert pending(plan(root)) == set()


def test_shards_equal_one_direct_simulation(built):
    """Two shards of 2 runs give the same curves as one simulate() call of 4 runs."""
    root, _ = built
    script = (
        "import sys, json, duelbench\n"
        "r = duelbench.simulate('dts', 'sushi', 2000, 4, seed=0)\n"
        "json.dump({'t': r.checkpoints.tolist(), 'mean': r.mean().tolist()}, sys.stdout)\n"
    )
    env = snakemake_env() | {"PYTHONPATH": str(root / "src"), "NUMBA_CACHE_DIR": str(root / ".numba_cache")}
    out = subprocess.run([sys.executable, "-c", script], cwd=root, env=env, capture_output=True, text=True,
                         check=True, timeout=600)
    direct = json.loads(out.stdout)
    table = pd.read_csv(root / FIG / "regret.csv", dtype={"param_hash": str})
    curve = table[(table["dataset"] == "sushi") & (table["algorithm"] == "dts") & (table["kind"] == "copeland")]
    assert curve["t"].tolist() == direct["t"]
    np.testing.assert_allclose(curve["mean"].to_numpy(), direct["mean"], rtol=1e-10, atol=1e-12)


def _job_counts(root: Path) -> dict[str, int]:
    """rule -> number of jobs of ``snakemake -n demo`` (its job-stats table)."""
    import re

    out = snakemake(root, "-n", "demo").stdout
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)$", out, re.M) if m.group(1) != "total"}


def test_archived_shards_are_read_not_simulated_and_bad_entries_are_recomputed(built):
    """The results archive in the workflow (docs/archive.md): after the demo's shards are
    archived and deleted, the build plans no simulation and gives the same regret.csv; a
    tampered entry (bytes changed) and a stale one (its key's code hash changed) are each
    recomputed, never used, and the rebuilt outputs are byte-identical."""
    import shutil

    root, _ = built
    regret = (root / FIG / "regret.csv").read_bytes()
    shards = sorted(str(p.relative_to(root)) for p in (root / "results" / "smoke").rglob("runs-*.npz"))
    assert len(shards) == 16
    env = snakemake_env() | {"PYTHONPATH": str(root / "src"), "NUMBA_CACHE_DIR": str(root / ".numba_cache")}
    subprocess.run([sys.executable, "-m", "duelbench", "archive", "--archive", "archive", "add",
                    "--kinds", "copeland,condorcet", *shards], cwd=root, env=env, check=True,
                   capture_output=True, text=True, timeout=600)
    try:
        for shard in shards:
            (root / shard).unlink()
            (root / (shard + ".json")).unlink()
        jobs = _job_counts(root)
        assert "simulate_shard" not in jobs and "warmup_numba" not in jobs, jobs
        snakemake(root, "demo")
        assert (root / FIG / "regret.csv").read_bytes() == regret

        manifest = root / "archive" / "MANIFEST.jsonl"
        rows = [json.loads(line) for line in manifest.read_text().splitlines()]
        tampered, stale = rows[0], rows[5]
        entry = root / "archive" / tampered["path"]
        entry.write_bytes(entry.read_bytes()[:-1] + bytes([entry.read_bytes()[-1] ^ 1]))
        stale["key"]["code"] = "0" * 64
        manifest.write_text("".join(json.dumps(r, sort_keys=True, separators=(",", ":")) + "\n" for r in rows))
        assert _job_counts(root).get("simulate_shard") == 2
        bundle_logs = root / "results" / "logs" / "smoke" / "bundles"
        shutil.rmtree(bundle_logs, ignore_errors=True)
        snakemake(root, "demo")
        recomputed = set()
        for row in (tampered, stale):
            # the recomputed shards are the results files of exactly these two entries
            dataset, alg, horizon, name = row["path"].split("/")[1:]
            path = Path("results") / "smoke" / dataset / alg / horizon / name.split("-", 1)[1].replace(".entry", ".npz")
            assert (root / path).is_file()
            recomputed.add(str(path))
        # each shares a bundle with shards still valid in the archive: the bundle computes it alone
        assert _bundle_members(root) == recomputed
        assert (root / FIG / "regret.csv").read_bytes() == regret
    finally:
        shutil.rmtree(root / "archive", ignore_errors=True)
        snakemake(root, "demo")
    assert (root / FIG / "regret.csv").read_bytes() == regret
    assert pending(plan(root)) == set()


def _expected_shards(root: Path, algorithm: str | None = None) -> set[str]:
    from duelbench.experiments.demo import EXPERIMENT as demo

    with open(root / "config" / "config.yaml") as f:
        config = yaml.safe_load(f)
    paths = [s.path for s in demo.shard_specs(config, "smoke") if algorithm in (None, s.algorithm)]
    return set(paths) | {p + ".json" for p in paths}


@pytest.mark.parametrize(
    "edited, algorithms",
    [("src/duelbench/algorithms/rucb.py", ["rucb"]), ("src/duelbench/algorithms/kernels.py", ALGORITHMS)],
)
def test_editing_code_reruns_exactly_the_shards_that_use_it(built, edited, algorithms):
    root, _ = built
    source = root / edited
    original = source.read_bytes()
    try:
        # a comment or docstring does not change the code hash; code does
        source.write_bytes(original + b"\n# a comment\n")
        assert pending(plan(root)) == set()
        source.write_bytes(original + b"\n_AN_EDIT_THAT_CHANGES_THE_CODE_HASH = 1\n")
        p = plan(root)
        expected = set().union(*(_expected_shards(root, a) for a in algorithms))
        assert pending(p, "simulate_shard") == expected
        warm = {Path(f).name.split("-")[0] for f in pending(p, "warmup_numba")}
        assert warm == set(algorithms)
        assert pending(p, "demo_steps")
        dry = snakemake(root, "-n", "demo")
        assert "simulate_shard" in dry.stdout and "have changed since last execution" in dry.stdout
    finally:
        source.write_bytes(original)
    assert pending(plan(root)) == set()  # reverting the edit restores the cached state


def test_without_mslr_data_only_mslr_jobs_fail(built, tmp_path):
    """No mirror and no network: the MSLR fetch fails with the data module's message, the
    other shards are still built (keep-going). Uses the copy's workflow in another folder."""
    root, _ = built
    empty = tmp_path / "empty_mirror"
    empty.mkdir()
    cfg = tmp_path / "c.yaml"
    cfg.write_text("demo:\n  datasets: [arxiv, mslr5_condorcet]\n  algorithms: [random]\n"
                   "  horizon: 100\n  runs: 2\n  runs_per_shard: 2\n")
    env = snakemake_env() | {
        "DUELBENCH_DATA_MIRROR": str(empty),  # nothing to copy
        "https_proxy": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9",  # downloads fail at once
        "http_proxy": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9",
    }
    env.pop("no_proxy", None)
    env.pop("NO_PROXY", None)
    proc = subprocess.run(
        [SNAKEMAKE, "-s", str(root / "Snakefile"), "--cores", "2", "--keep-going", "demo",
         "--configfile", str(cfg)],
        cwd=tmp_path, capture_output=True, text=True, env=env, timeout=900,
    )
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr
    assert "MSLR_Informational_PMat.npz" in out and "is not available" in out
    from duelbench.algorithms.registry import param_hash

    h = param_hash("random", {})
    assert (tmp_path / f"results/paper/arxiv/random-{h}/T100/runs-0-2.npz").is_file()
    assert not (tmp_path / f"results/paper/mslr5_condorcet/random-{h}/T100/runs-0-2.npz").exists()
    assert not (tmp_path / "data" / "mslr" / "MSLR_Informational_PMat.npz").exists()

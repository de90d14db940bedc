"""The SLURM path run for real: the smoke build of the demo through ``config/profiles/slurm``
on a one-node cluster started on this machine (``workflow/cluster/local-slurm.sh``), compared
file by file with the same build run locally with ``--cores 2``.

What the local cluster needs, and only that, is added to the user-facing profile on the
command line: job status from ``squeue`` (the cluster has no accounting database, so ``sacct``
knows nothing), short waits before status checks and for output files (one machine, no shared
file system lag), and shard groups of 8 components instead of 10.

Compared: every output under ``results/`` (shards, warm-up flags, the regret table, PDF and
PNG). Not compared: the provenance sidecars (``*.json``: they record host, wall and CPU time
and the SLURM job's environment) and the logs. The demo has no timing table, and its PDFs
carry no creation date (``duelbench.experiments.plotting`` blanks it), so they are compared
byte for byte.

It runs in ``make test-cluster`` (marker ``cluster``; ``make test`` and CI leave it out). With
``CI=true`` a cluster that cannot be installed or started fails it; elsewhere it is skipped
when SLURM is not installed and cannot be (no root or no apt).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

from _checkout_copy import CHECKOUT, SNAKEMAKE, copy_checkout, run_snakemake, snakemake_env

pytestmark = [pytest.mark.cluster, pytest.mark.slow, pytest.mark.timeout(1500)]

SCRIPT = CHECKOUT / "workflow" / "cluster" / "local-slurm.sh"
TARGET = "demo"
#: SLURM jobs of the demo's smoke build: 4 warm-ups (one per algorithm); the 16 shards, computed
#: in 4 bundles of small shards (one per algorithm, duelbench.experiments.bundling), whose 4
#: bundle jobs and 16 linking shard jobs form 4 connected components, grouped into one job (up
#: to 10 components a job); the demo's 2 steps in its one plan job (demo_steps).
EXPECTED_JOBS = 4 + 1 + 1
LOCAL_CLUSTER_ARGS = (
    "--slurm-status-command", "squeue",
    "--slurm-init-seconds-before-status-checks", "2",
    "--latency-wait", "5",
    "--group-components", "shards=8",
)


def _in_ci() -> bool:
    return os.environ.get("CI") == "true"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _can_install() -> bool:
    return os.geteuid() == 0 and shutil.which("apt-get") is not None


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A running one-node cluster: its SLURM_CONF and its daemons' log folder; stopped at the end."""
    installed = all(shutil.which(c) for c in ("slurmctld", "slurmd", "munged", "sbatch", "squeue"))
    if not installed and not _in_ci() and not _can_install():
        pytest.skip("SLURM is not installed and cannot be installed here (needs root and apt-get); "
                    "CI installs it and runs this test")
    state = tmp_path_factory.mktemp("slurm")
    env = {**os.environ, "DUELBENCH_SLURM_DIR": str(state),
           "DUELBENCH_SLURMCTLD_PORT": str(_free_port()), "DUELBENCH_SLURMD_PORT": str(_free_port())}
    start = subprocess.run([str(SCRIPT), "start"], env=env, capture_output=True, text=True, timeout=600)
    if start.returncode != 0:
        raise AssertionError(f"the local SLURM cluster did not start:\n{start.stdout}\n{start.stderr}\n"
                             f"{_tails(sorted((state / 'log').glob('*.log')))}")
    try:
        yield {"SLURM_CONF": str(state / "slurm.conf"), "logs": state / "log"}
    finally:
        subprocess.run([str(SCRIPT), "stop"], env=env, capture_output=True, text=True, timeout=120)


def _tails(paths, chars: int = 3000) -> str:
    """The ends of log files, for a failure message (CI shows nothing else of the cluster)."""
    return "\n".join(f"--- {p}\n{p.read_text(errors='replace')[-chars:]}" for p in paths)


def _digests(root: Path) -> dict[str, str]:
    """sha256 of every output under results/ except sidecars and logs."""
    out = {}
    for p in sorted((root / "results").rglob("*")):
        rel = p.relative_to(root)
        if p.is_dir() or p.suffix == ".json" or "logs" in rel.parts or p.name.startswith(".tmp"):
            continue
        out[str(rel)] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


@pytest.fixture(scope="module")
def builds(cluster, tmp_path_factory):
    """(local copy, SLURM copy, SLURM build wall time) of the demo's smoke build."""
    local = copy_checkout(tmp_path_factory.mktemp("local"))
    run_snakemake(local, TARGET, timeout=900)
    remote = copy_checkout(tmp_path_factory.mktemp("remote"))
    started = time.monotonic()
    proc = subprocess.run(
        [SNAKEMAKE, "--profile", "config/profiles/slurm", "--configfile", "config/profiles/smoke/fidelity.yaml",
         *LOCAL_CLUSTER_ARGS, "--", TARGET],
        cwd=remote, env={**snakemake_env(), "SLURM_CONF": cluster["SLURM_CONF"]}, capture_output=True, text=True,
        timeout=1200)
    wall = time.monotonic() - started
    if proc.returncode != 0:
        job_logs = sorted((remote / ".snakemake" / "slurm_logs").rglob("*.log"))
        raise AssertionError(f"the SLURM build failed:\n{proc.stdout[-6000:]}\n{proc.stderr[-6000:]}\n"
                             f"{_tails(job_logs)}\n{_tails(sorted(cluster['logs'].glob('*.log')))}")
    return local, remote, wall


def test_the_slurm_build_equals_the_local_build(builds):
    local, remote, wall = builds
    here, there = _digests(local), _digests(remote)
    assert len(here) == 16 + 4 + 3, sorted(here)  # shards, warm-up flags, regret.csv/pdf/png
    assert sorted(there) == sorted(here)
    differ = [p for p in here if here[p] != there[p]]
    assert not differ, f"outputs that differ between the SLURM and the local build: {differ}"
    print(f"SLURM smoke build of {TARGET}: {wall:.0f} s wall")


def test_every_job_ran_through_slurm_and_completed(builds, cluster):
    """The cluster is this module's own, so every job squeue knows is the build's (squeue keeps
    finished jobs for MinJobAge): the expected number, shards and steps bundled, all COMPLETED."""
    jobs = subprocess.run(["squeue", "--states=all", "-h", "-o", "%i|%T|%k"],
                          env={**os.environ, "SLURM_CONF": cluster["SLURM_CONF"]},
                          capture_output=True, text=True, check=True).stdout.split()
    rows = [job.split("|") for job in jobs]
    assert len(rows) == EXPECTED_JOBS, rows
    assert {state for _, state, _ in rows} == {"COMPLETED"}, rows
    comments = sorted(comment for _, _, comment in rows)
    assert comments.count("rule_shards_simulate_bundle_simulate_shard") == 1, comments
    assert comments.count("rule_demo_steps") == 1, comments
    assert sum(c.startswith("rule_warmup_numba") for c in comments) == 4, comments

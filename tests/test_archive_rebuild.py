"""CI's archive check: every paper's committed checks, and the benchmark of record's committed
tables, rebuilt from the results archive alone.

For each paper with a committed ``figures/<paper>/checks.csv``, and for the benchmark when
``figures/benchmark/cells.csv`` is committed, the paper-fidelity plan's simulation shards and
sample shards are looked up in the committed archive with this code:

* when the archive holds every one of them (valid: same job, matrix, code closure and lock
  file, intact bytes), the experiment's outputs are rebuilt in a copy of the checkout; the
  build may run only the experiments' shard-list and plan jobs (``--allowed-rules``: a shard
  the archive did not serve is an error, never a simulation, sampling or numba-compile job),
  and each verified table (:data:`VERIFIED`: a paper's ``checks.csv``; the benchmark's cells,
  separations and ranking) must equal the committed one row for row (none records a time).
  The experiments are rebuilt together, in one build (one workflow parse);
* when it does not, the committed tables cannot be verified from the archive: the test is an
  expected failure naming how many shards are missing or stale (never a pass), and the stale
  entries are listed. CI never refills the archive.

A tampered entry (bytes differing from the manifest) always fails.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest
import yaml

from _checkout_copy import SNAKEMAKE, copy_checkout, snakemake_env

CHECKOUT = Path(__file__).resolve().parent.parent
#: experiment -> its committed tables a rebuild from the archive must reproduce
VERIFIED = {p.parent.name: ("checks.csv",) for p in (CHECKOUT / "figures").glob("*/checks.csv")}
if (CHECKOUT / "figures" / "benchmark" / "cells.csv").is_file():
    VERIFIED["benchmark"] = ("cells.csv", "separation.csv", "ranking.csv")
EXPERIMENTS = sorted(VERIFIED)
#: Jobs that would compute instead of reading the archive.
COMPUTING_RULES = ("simulate_shard", "simulate_bundle", "sample_shard", "warmup_numba")

pytestmark = [pytest.mark.slow, pytest.mark.timeout(2700)]


@pytest.fixture(scope="module")
def statuses(mslr_data_dir):
    """experiment -> Counter of archive statuses of its planned shards and sample shards, and the
    stale ones."""
    mp = pytest.MonkeyPatch()
    mp.setenv("DUELBENCH_DATA_DIR", str(mslr_data_dir))
    mp.setenv("DUELBENCH_ARCHIVE", str(CHECKOUT / "archive"))
    try:
        import duelbench.config as dbc
        from duelbench.engine.shard_sources import ShardSources
        from duelbench.experiments.planning import plan
        from duelbench.experiments.samples import SampleSources

        with open(CHECKOUT / "config" / "config.yaml") as fh:
            config = dbc.check_config(yaml.safe_load(fh))
        out = {}
        for experiment in EXPERIMENTS:
            p = plan(config, experiment)
            # each shard is read with the regret kinds its cell needs (the benchmark's differ by paper)
            readers = {k: ShardSources(CHECKOUT / "archive", k) for k in {p.kinds_of(s) for s in p.shards}}
            samples = SampleSources(CHECKOUT / "archive")
            found = ([(s.path, readers[p.kinds_of(s)].status(s)) for s in p.shards]
                     + [(s.path, samples.status(s)) for s in p.samples])
            out[experiment] = Counter(st for _, st in found), [path for path, st in found if st == "stale"]
        return out
    finally:
        mp.undo()


@pytest.mark.parametrize("experiment", EXPERIMENTS)
def test_no_planned_entry_is_tampered(statuses, experiment):
    counts, _ = statuses[experiment]
    assert counts["tampered"] == 0, counts


def _complete(statuses) -> list[str]:
    """The experiments whose planned shards the archive holds, every one valid."""
    return [e for e in EXPERIMENTS if set(statuses[e][0]) == {"valid"}]


@pytest.fixture(scope="module")
def rebuilt(statuses, mslr_data_dir, tmp_path_factory):
    """One build of the verified tables of every complete experiment in a copy of the checkout with
    the committed archive: (copy root, the build's finished process)."""
    experiments = _complete(statuses)
    if not experiments:
        return None, None
    root = copy_checkout(tmp_path_factory.mktemp("rebuild") / "checkout")
    shutil.copytree(CHECKOUT / "archive", root / "archive")
    (root / "data" / "mslr").mkdir(exist_ok=True)
    for f in mslr_data_dir.joinpath("mslr").iterdir():
        (root / "data" / "mslr" / f.name).symlink_to(f.resolve())
    targets = [f"figures/{e}/{table}" for e in experiments for table in VERIFIED[e]]  # each one's own plan job
    allowed = [f"{e}_{job}" for e in experiments for job in ("shard_list", "steps")]
    run = subprocess.run([SNAKEMAKE, "--cores", "2", "--keep-going", "--allowed-rules", *allowed, "--", *targets],
                         cwd=root, env=snakemake_env(), capture_output=True, text=True, timeout=2400)
    return root, run


def _job_counts(log: str) -> dict[str, int]:
    """Rule -> jobs, from the first job table a build prints (on its log, stderr)."""
    table = log.split("Job stats:", 1)[-1].split("total", 1)[0]
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)$", table, re.M)}


def test_the_rebuild_reads_the_archive_and_computes_nothing(rebuilt):
    root, run = rebuilt
    if run is None:
        pytest.xfail("no experiment's planned shards are all in the archive")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    jobs = _job_counts(run.stderr)
    assert jobs and not {r: n for r, n in jobs.items() if r in COMPUTING_RULES}, jobs


@pytest.mark.parametrize("experiment, table", [(p, t) for p in EXPERIMENTS for t in VERIFIED[p]])
def test_tables_rebuilt_from_the_archive_equal_the_committed_ones(statuses, rebuilt, experiment, table):
    counts, stale = statuses[experiment]
    if experiment not in _complete(statuses):
        listed = "".join(f"\n  stale: {p}" for p in stale[:20])
        pytest.xfail(f"{experiment}: the archive does not hold every planned shard ({dict(counts)}); the committed "
                     f"{table} is not verified from the archive{listed}")
    root, run = rebuilt
    rebuilt_table = root / "figures" / experiment / table
    assert rebuilt_table.is_file(), f"{experiment}: not rebuilt\n" + run.stdout[-3000:] + run.stderr[-3000:]
    committed = (CHECKOUT / "figures" / experiment / table).read_text().splitlines()
    assert rebuilt_table.read_text().splitlines() == committed

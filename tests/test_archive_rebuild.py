"""CI's archive check: every paper's committed checks rebuilt from the results archive alone.

For each paper with a committed ``figures/<paper>/checks.csv``, the paper-fidelity plan's
simulation shards and sample shards are looked up in the committed archive with this code:

* when the archive holds every one of them (valid: same job, matrix, code closure and lock
  file, intact bytes), the paper's checks are rebuilt in a copy of the checkout; the build must
  plan no simulation, sampling or numba-compile job, and ``checks.csv`` must equal the committed
  one row for row (it records no times);
* when it does not, the committed ``checks.csv`` cannot be verified from the archive: the test
  is an expected failure naming how many shards are missing or stale (never a pass), and the
  stale entries are listed. CI never refills the archive.

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
PAPERS = sorted(p.parent.name for p in (CHECKOUT / "figures").glob("*/checks.csv"))
#: Jobs that would compute instead of reading the archive.
COMPUTING_RULES = ("simulate_shard", "simulate_bundle", "sample_shard", "warmup_numba")

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]


@pytest.fixture(scope="module")
def statuses(mslr_data_dir):
    """paper -> Counter of archive statuses of its planned shards and sample shards, and the
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
        for paper in PAPERS:
            p = plan(config, paper)
            shards, samples = ShardSources(CHECKOUT / "archive", p.kinds), SampleSources(CHECKOUT / "archive")
            found = [(s.path, shards.status(s)) for s in p.shards] + [(s.path, samples.status(s)) for s in p.samples]
            out[paper] = Counter(st for _, st in found), [path for path, st in found if st == "stale"]
        return out
    finally:
        mp.undo()


@pytest.mark.parametrize("paper", PAPERS)
def test_no_planned_entry_is_tampered(statuses, paper):
    counts, _ = statuses[paper]
    assert counts["tampered"] == 0, counts


@pytest.mark.parametrize("paper", PAPERS)
def test_checks_rebuilt_from_the_archive_equal_the_committed_ones(statuses, paper, mslr_data_dir, tmp_path):
    counts, stale = statuses[paper]
    if set(counts) != {"valid"}:
        listed = "".join(f"\n  stale: {p}" for p in stale[:20])
        pytest.xfail(f"{paper}: the archive does not hold every planned shard ({dict(counts)}); the committed "
                     f"checks.csv is not verified from the archive{listed}")
    root = copy_checkout(tmp_path / "checkout")
    shutil.copytree(CHECKOUT / "archive", root / "archive")
    (root / "data" / "mslr").mkdir(exist_ok=True)
    for f in mslr_data_dir.joinpath("mslr").iterdir():
        (root / "data" / "mslr" / f.name).symlink_to(f.resolve())
    env = snakemake_env()
    target = f"figures/{paper}/checks.csv"  # the paper's own plan job (not its reading variants)
    dry = subprocess.run([SNAKEMAKE, "-n", "--cores", "2", target], cwd=root, env=env, capture_output=True,
                         text=True, timeout=600)
    assert dry.returncode == 0, dry.stdout[-3000:] + dry.stderr[-3000:]
    jobs = {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)$", dry.stdout, re.M)}
    assert not {r: jobs[r] for r in COMPUTING_RULES if r in jobs}, jobs
    run = subprocess.run([SNAKEMAKE, "--cores", "2", target], cwd=root, env=env, capture_output=True, text=True,
                         timeout=1100)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    rebuilt = (root / "figures" / paper / "checks.csv").read_text().splitlines()
    committed = (CHECKOUT / "figures" / paper / "checks.csv").read_text().splitlines()
    assert rebuilt == committed

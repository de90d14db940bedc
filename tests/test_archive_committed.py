"""The committed results archive (``archive/``) is intact and reproducible with this code.

* every entry's file matches the sha256 in the manifest and holds the key the manifest lists;
* entries (simulation shards and sample shards) are checked against the code of this checkout:
  stale ones (other code, another lock file, another matrix) are listed in the test output,
  never used (the archive is not refilled here);
* a few runs of a few archived simulation shards (of a family: on the run's own instance) and a few samples of archived sample shards,
  chosen at random with the commit as seed (so every commit checks others), are recomputed and
  must equal the archived numbers bit for bit.
"""

from __future__ import annotations

import hashlib
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest

import duelbench
from duelbench.archive.entry import decode
from duelbench.archive.store import STALE, VALID, Archive
from duelbench.data.registry import dataset_info, is_family
from duelbench.engine import shard_archive
from duelbench.engine.families import simulate_family
from duelbench.experiments import samples
from duelbench.experiments.contract import SampleShard

CHECKOUT = Path(__file__).resolve().parent.parent
ARCHIVE = Archive(CHECKOUT / "archive")
#: One reader of the archive's sample entries: each reader parses the manifest once.
SAMPLE_SOURCES = samples.SampleSources(ARCHIVE.root)
#: Shards recomputed per run of the suite, and the largest job (horizon x K) considered.
SPOT_CHECKS = 3
MAX_COST = 10**6 * 64


@pytest.fixture(scope="module")
def data_dir(mslr_data_dir, monkeypatch_module):
    """The data folder with the mirror's matrices, as this process's ``$DUELBENCH_DATA_DIR``."""
    monkeypatch_module.setenv("DUELBENCH_DATA_DIR", str(mslr_data_dir))
    return mslr_data_dir


@pytest.fixture(scope="module")
def monkeypatch_module():
    mp = pytest.MonkeyPatch()
    yield mp
    mp.undo()


def _commit_seed() -> int:
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=CHECKOUT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return 0
    return int(head[:12], 16)


def test_the_archive_is_committed_with_entries():
    rows = ARCHIVE.manifest()
    assert rows, "archive/MANIFEST.jsonl lists no entry"
    assert all(r["key"]["kind"] in (shard_archive.KIND, samples.KIND) for r in rows.values())


def test_every_entry_is_intact():
    bad = []
    for path, row in ARCHIVE.manifest().items():
        data = (ARCHIVE.root / path).read_bytes()
        if hashlib.sha256(data).hexdigest() != row["sha256"]:
            bad.append(f"{path}: sha256 differs from the manifest")
            continue
        key, _ = decode(data)
        if key != row["key"]:
            bad.append(f"{path}: the key inside differs from the manifest")
    assert not bad, bad


def _sample_shard(row) -> SampleShard:
    """The sample shard an archived sample entry was made for (its key names it)."""
    k = row["key"]
    a, b = k["samples"]
    return SampleShard(experiment=k["experiment"], family=k["family"], function=k["function"], job=k["job"], a=a,
                       b=b, path=row["path"], datasets=tuple(k["datasets"]), columns=tuple(k.get("columns", ())))


def _status(row) -> tuple[str, str]:
    if row["key"]["kind"] == samples.KIND:
        found = SAMPLE_SOURCES.lookup(_sample_shard(row))
    else:
        k = row["key"]
        if shard_archive.entry_path(k["dataset"], k["algorithm"], k["params"], k["horizon"], *k["runs"],
                                    k["seed"]) != row["path"]:
            # the algorithm's canonical parameters changed: this code never reads the entry
            return STALE, "its parameters name another entry under this code (unplanned: --prune drops it)"
        found = _lookup(row)[0]
    return found.status, found.reason


def test_entries_against_this_code(data_dir, capsys):
    """Stale entries are listed (they are recomputed by a fill, never used); none is tampered."""
    counts = {}
    stale = []
    for path, row in ARCHIVE.manifest().items():
        status, reason = _status(row)
        counts[status] = counts.get(status, 0) + 1
        if status == STALE:
            stale.append(f"{path}: {reason}")
    with capsys.disabled():
        print(f"\narchive: {counts}" + "".join(f"\n  stale {s}" for s in stale[:20]))
    assert set(counts) <= {VALID, STALE}, counts


def _lookup(row):
    k = row["key"]
    return shard_archive.lookup_shard(ARCHIVE, k["dataset"], k["algorithm"], k["params"], k["horizon"], *k["runs"],
                                      k["seed"], k["kinds"])


def test_spot_recomputation_is_bit_identical(data_dir):
    rows = [r for r in ARCHIVE.manifest().values() if r["key"]["kind"] == shard_archive.KIND
            and r["key"]["horizon"] * dataset_info(r["key"]["dataset"]).K <= MAX_COST]
    assert rows, "no archived shard is small enough to recompute here"
    valid = [(r, restored) for r in rows for found, restored in [_lookup(r)] if found.status == VALID]
    if not valid:
        pytest.skip(f"none of the {len(rows)} archived shards is valid under this code (all stale, listed by "
                    "test_entries_against_this_code): nothing to recompute until a fill refreshes them")
    rng = np.random.default_rng(_commit_seed())
    picks = [int(i) for i in rng.choice(len(valid), size=min(SPOT_CHECKS, len(valid)), replace=False)]
    families = [i for i, (r, _) in enumerate(valid) if is_family(r["key"]["dataset"])]
    if families and not set(picks) & set(families):
        picks.append(int(rng.choice(families)))  # the family path is checked whenever the archive has one
    for index in picks:
        row, archived = valid[index]
        k = row["key"]
        a, b = k["runs"]
        run = int(rng.integers(a, b))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # a family's run r sees the family's instance r (as the shard that archived it)
            simulate = simulate_family if is_family(k["dataset"]) else duelbench.simulate
            again = simulate(k["algorithm"], k["dataset"], k["horizon"], 1, k["seed"], run_start=run, **k["params"])
        for kind in k["kinds"]:
            assert again.regret_of(kind)[0].tobytes() == archived.regret_of(kind)[run - a].tobytes(), \
                f"{row['path']} run {run} ({kind}): recomputed regret differs from the archive"


def test_spot_recomputation_of_samples_is_bit_identical(data_dir):
    rows = [r for r in ARCHIVE.manifest().values() if r["key"]["kind"] == samples.KIND]
    sources = samples.SampleSources(ARCHIVE.root)
    valid = [(r, sh) for r in rows for sh in [_sample_shard(r)] if sources.status(sh) == VALID]
    if not valid:
        pytest.skip(f"none of the {len(rows)} archived sample shards is valid under this code: nothing to recompute")
    rng = np.random.default_rng(_commit_seed() + 1)
    for index in rng.choice(len(valid), size=min(SPOT_CHECKS, len(valid)), replace=False):
        row, shard = valid[index]
        i = int(rng.integers(shard.a, shard.b))
        again = samples.compute(SampleShard(**{**shard.__dict__, "a": i, "b": i + 1}))
        archived = sources.arrays(shard)
        for column in archived:
            assert again[column].tobytes() == archived[column][i - shard.a: i - shard.a + 1].tobytes(), \
                f"{row['path']} sample {i} ({column}): recomputed value differs from the archive"

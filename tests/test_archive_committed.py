"""The committed results archive (``archive/``) is intact and reproducible with this code.

* every entry's file matches the sha256 in the manifest and holds the key the manifest lists;
* entries are checked against the code of this checkout: stale ones (other code, another lock
  file, another matrix) are listed in the test output, never used (the archive is not refilled
  here);
* a few runs of a few archived shards, chosen at random with the commit as seed (so every commit
  checks others), are recomputed and must equal the archived numbers bit for bit.
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
from duelbench.engine import shard_archive

CHECKOUT = Path(__file__).resolve().parent.parent
ARCHIVE = Archive(CHECKOUT / "archive")
#: Shards recomputed per run of the suite, and the largest job (horizon x K) considered.
SPOT_CHECKS = 3
MAX_COST = 10**6 * 64


@pytest.fixture(scope="module")
def data_dir(mslr_mirror, tmp_path_factory, monkeypatch_module):
    """A data folder whose mslr/ holds the mirror's matrices (sampled datasets are derived from them)."""
    root = tmp_path_factory.mktemp("data")
    (root / "mslr").mkdir()
    for f in mslr_mirror.glob("*.npz"):
        (root / "mslr" / f.name).symlink_to(f)
    monkeypatch_module.setenv("DUELBENCH_DATA_DIR", str(root))
    return root


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
    assert all(r["key"]["kind"] == shard_archive.KIND for r in rows.values())


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


def test_entries_against_this_code(data_dir, capsys):
    """Stale entries are listed (they are recomputed by a fill, never used); none is tampered."""
    counts = {}
    stale = []
    for path, row in ARCHIVE.manifest().items():
        k = row["key"]
        found, _ = shard_archive.lookup_shard(ARCHIVE, k["dataset"], k["algorithm"], k["params"], k["horizon"],
                                              *k["runs"], k["seed"], k["kinds"])
        counts[found.status] = counts.get(found.status, 0) + 1
        if found.status == STALE:
            stale.append(f"{path}: {found.reason}")
    with capsys.disabled():
        print(f"\narchive: {counts}" + "".join(f"\n  stale {s}" for s in stale[:20]))
    assert set(counts) <= {VALID, STALE}, counts


def _lookup(row):
    k = row["key"]
    return shard_archive.lookup_shard(ARCHIVE, k["dataset"], k["algorithm"], k["params"], k["horizon"], *k["runs"],
                                      k["seed"], k["kinds"])


def test_spot_recomputation_is_bit_identical(data_dir):
    rows = [r for r in ARCHIVE.manifest().values()
            if r["key"]["horizon"] * duelbench.load_matrix(r["key"]["dataset"]).K <= MAX_COST]
    assert rows, "no archived shard is small enough to recompute here"
    valid = [(r, restored) for r in rows for found, restored in [_lookup(r)] if found.status == VALID]
    if not valid:
        pytest.skip(f"none of the {len(rows)} archived shards is valid under this code (all stale, listed by "
                    "test_entries_against_this_code): nothing to recompute until a fill refreshes them")
    rng = np.random.default_rng(_commit_seed())
    for index in rng.choice(len(valid), size=min(SPOT_CHECKS, len(valid)), replace=False):
        row, archived = valid[index]
        k = row["key"]
        a, b = k["runs"]
        run = int(rng.integers(a, b))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            again = duelbench.simulate(k["algorithm"], k["dataset"], k["horizon"], 1, k["seed"], run_start=run,
                                       **k["params"])
        for kind in k["kinds"]:
            assert again.regret_of(kind)[0].tobytes() == archived.regret_of(kind)[run - a].tobytes(), \
                f"{row['path']} run {run} ({kind}): recomputed regret differs from the archive"

"""Simulation shards in the results archive: restored shards equal recomputed ones bit for bit;
a shard computed under other code, another lock file or another matrix is stale, never used."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import duelbench
import duelbench.algorithms.registry
import duelbench.engine.shards
from duelbench.archive.store import MISSING, STALE, TAMPERED, VALID, Archive
from duelbench.engine import shard_archive
from duelbench.engine.shards import run_shard, shard_path


def _sim(algorithm, runs=(0, 4), horizon=3000, dataset="arxiv"):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return duelbench.simulate(algorithm, dataset, horizon, runs[1] - runs[0], seed=3, run_start=runs[0])


@pytest.mark.parametrize("algorithm", ["rucb", "copeland_savage"])
def test_restored_shard_equals_the_recomputed_one(tmp_path, algorithm):
    archive = Archive(tmp_path / "archive")
    result = _sim(algorithm, runs=(2, 6))
    row = shard_archive.archive_result(archive, result, ["copeland", "copeland_zoghi"])
    assert row["path"].startswith(f"simulation/arxiv/{algorithm}-") and row["path"].endswith("/T3000/seed3-runs-2-6.entry")
    found, restored = shard_archive.lookup_shard(archive, "arxiv", algorithm, {}, 3000, 2, 6, 3,
                                                 ["copeland_zoghi", "copeland"])
    assert found.status == VALID
    again = _sim(algorithm, runs=(2, 6))
    for kind in ("copeland", "copeland_zoghi"):
        assert restored.regret_of(kind).tobytes() == again.regret_of(kind).tobytes()
    assert np.array_equal(restored.checkpoints, again.checkpoints)
    assert list(restored.run_indices) == [2, 3, 4, 5]
    assert sorted(restored.regrets) == ["copeland", "copeland_zoghi"]  # only the kinds kept


def test_key_covers_code_lock_dataset_and_job(monkeypatch):
    base = shard_archive.shard_key("arxiv", "rucb", {}, 3000, 0, 4, 3, ["copeland"])
    assert base["dataset_sha256"] == duelbench.load_matrix("arxiv").sha256
    assert base["code"] == duelbench.algorithms.registry.source_hash("rucb", with_data=False) and len(base["lock"]) == 64
    for changed in (dict(params={"alpha": 0.6}), dict(run_start=1), dict(seed=4), dict(kinds=["condorcet"])):
        args = dict(dataset="arxiv", algorithm="rucb", params={}, horizon=3000, run_start=0, run_stop=4, seed=3,
                    kinds=["copeland"])
        args.update(changed)
        assert shard_archive.shard_key(**args) != base
    monkeypatch.setattr(shard_archive, "simulation_code_hash", lambda name: "0" * 64)
    assert shard_archive.shard_key("arxiv", "rucb", {}, 3000, 0, 4, 3, ["copeland"])["code"] != base["code"]
    monkeypatch.setattr(shard_archive, "lock_hash", lambda: "1" * 64)
    assert shard_archive.shard_key("arxiv", "rucb", {}, 3000, 0, 4, 3, ["copeland"])["lock"] != base["lock"]


def test_stale_and_tampered_shards_are_not_used(tmp_path, monkeypatch):
    archive = Archive(tmp_path / "archive")
    shard_archive.archive_result(archive, _sim("rucb"), ["copeland"])
    args = ("arxiv", "rucb", {}, 3000, 0, 4, 3, ["copeland"])
    assert shard_archive.lookup_shard(archive, *args)[0].status == VALID
    assert shard_archive.lookup_shard(archive, "arxiv", "rucb", {}, 3000, 4, 8, 3, ["copeland"])[0].status == MISSING
    # new code: the same job is found but stale, and nothing is returned
    real = shard_archive.simulation_code_hash
    monkeypatch.setattr(shard_archive, "simulation_code_hash", lambda name: "f" * 64 if name == "rucb" else real(name))
    found, result = shard_archive.lookup_shard(archive, *args)
    assert found.status == STALE and found.differs == ["code"] and result is None
    monkeypatch.undo()
    # a changed value inside the entry: sha256 check
    entry = next((archive.root / "simulation").rglob("*.entry"))
    data = bytearray(entry.read_bytes())
    data[-40] ^= 1
    entry.write_bytes(bytes(data))
    found, result = shard_archive.lookup_shard(archive, *args)
    assert found.status == TAMPERED and result is None


def test_workflow_shard_file_and_archive_agree(tmp_path):
    """A shard written by the workflow's job and the same shard archived hold the same numbers."""
    path = tmp_path / shard_path("paper", "arxiv", "dts", {}, 2000, 0, 3, root="r")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = run_shard(path, dataset="arxiv", algorithm="dts", params={}, horizon=2000, run_start=0, run_stop=3,
                           seed=0, fidelity="paper", quiet=True)
    archive = Archive(tmp_path / "archive")
    shard_archive.archive_result(archive, duelbench.engine.shards.load_shards([path]), ["copeland_wu"])
    _, restored = shard_archive.lookup_shard(archive, "arxiv", "dts", {}, 2000, 0, 3, 0, ["copeland_wu"])
    assert restored.regret_of("copeland_wu").tobytes() == result.regret_of("copeland_wu").tobytes()


def test_archive_command_adds_only_shards_computed_by_this_code(tmp_path, capsys):
    from duelbench.engine import archive_cli
    from duelbench.provenance.sidecar import sidecar_path

    path = tmp_path / shard_path("paper", "arxiv", "random", {}, 1000, 0, 2, root="r")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run_shard(path, dataset="arxiv", algorithm="random", params={}, horizon=1000, run_start=0, run_stop=2, seed=0,
                  fidelity="paper", quiet=True)
    root = tmp_path / "archive"
    assert archive_cli.main(["--archive", str(root), "add", "--kinds", "copeland", str(path)]) == 0
    assert archive_cli.main(["--archive", str(root), "status"]) == 0
    assert "1 valid" in capsys.readouterr().out
    # a shard whose sidecar shows other code is refused, with the fix in the message
    side = sidecar_path(path)
    text = open(side).read()
    open(side, "w").write(text.replace('"source_hash": "', '"source_hash": "0'))
    assert archive_cli.main(["--archive", str(root), "add", "--kinds", "copeland", str(path)]) == 2
    err = capsys.readouterr().err
    assert "computed by other code" in err and "Recompute it with this code" in err

"""The results archive's store: exact round trips, deterministic files, and entries that are
used only when their key matches and their bytes are intact."""

from __future__ import annotations

import numpy as np
import pytest

from duelbench.archive.entry import decode, encode
from duelbench.archive.store import MISSING, STALE, TAMPERED, VALID, Archive

KEY = {"kind": "simulation", "dataset": "arxiv", "algorithm": "rucb", "params": {"alpha": 0.51},
       "horizon": 1000, "runs": [0, 10], "seed": 0, "code": "a" * 64, "lock": "b" * 64}


def _arrays(seed=0):
    rng = np.random.default_rng(seed)
    regret = np.cumsum(rng.random((10, 80)) / 7.0, axis=1)
    return {"checkpoints": np.arange(1, 81, dtype=np.int64) * 12, "regret_copeland": regret,
            "regret_condorcet": np.full((10, 80), np.nan), "flags": np.array([True, False])}


def test_round_trip_is_bit_exact_and_deterministic():
    arrays = _arrays()
    data = encode(KEY, arrays)
    key, back = decode(data)
    assert key == KEY and sorted(back) == sorted(arrays)
    for name, a in arrays.items():
        assert back[name].dtype == a.dtype and back[name].shape == a.shape
        assert back[name].tobytes() == a.tobytes()
    assert encode(KEY, arrays) == data  # same content, same bytes


def test_shuffled_float64_is_smaller_than_the_plain_bytes():
    regret = _arrays()["regret_copeland"]
    assert len(encode({}, {"r": regret})) < regret.nbytes


def test_lookup_valid_stale_missing(tmp_path):
    archive = Archive(tmp_path / "archive")
    assert archive.lookup("x/runs-0-10.npz", KEY).status == MISSING
    archive.put("x/runs-0-10.npz", KEY, _arrays())
    hit = archive.lookup("x/runs-0-10.npz", KEY)
    assert hit.status == VALID and np.array_equal(hit.arrays["regret_copeland"], _arrays()["regret_copeland"])
    new_code = dict(KEY, code="c" * 64)
    stale = archive.lookup("x/runs-0-10.npz", new_code)
    assert stale.status == STALE and stale.arrays is None and stale.differs == ["code"]


@pytest.mark.parametrize("damage", ["flip_byte", "truncate", "delete", "swap_entry"])
def test_tampered_entry_is_never_used(tmp_path, damage):
    archive = Archive(tmp_path / "archive")
    archive.put("a.entry", KEY, _arrays(0))
    other_key = dict(KEY, runs=[10, 20])
    archive.put("b.entry", other_key, _arrays(1))
    path = archive.root / "a.entry"
    data = bytearray(path.read_bytes())
    if damage == "flip_byte":
        data[len(data) // 2] ^= 0xFF
        path.write_bytes(bytes(data))
    elif damage == "truncate":
        path.write_bytes(bytes(data[:100]))
    elif damage == "delete":
        path.unlink()
    else:  # another entry's (valid) file put in its place
        path.write_bytes((archive.root / "b.entry").read_bytes())
    hit = archive.lookup("a.entry", KEY)
    assert hit.status == TAMPERED and hit.arrays is None, hit
    assert archive.lookup("b.entry", other_key).status == VALID


def test_manifest_is_sorted_one_line_per_entry_and_put_replaces(tmp_path):
    archive = Archive(tmp_path / "archive")
    for p in ("z.entry", "a.entry", "m.entry"):
        archive.put(p, dict(KEY, horizon=len(p)), _arrays())
    archive.put("a.entry", dict(KEY, horizon=5), _arrays(2))
    lines = archive.manifest_path.read_text().splitlines()
    assert [line.split('"path":"')[1].split('"')[0] for line in lines] == ["a.entry", "m.entry", "z.entry"]
    assert archive.lookup("a.entry", dict(KEY, horizon=5)).status == VALID
    archive.remove(["m.entry"])
    assert archive.lookup("m.entry", dict(KEY, horizon=7)).status == MISSING
    assert not (archive.root / "m.entry").exists()


def test_paths_stay_inside_the_archive(tmp_path):
    with pytest.raises(ValueError, match="inside the archive"):
        Archive(tmp_path).put("../escape", KEY, _arrays())


def test_a_corrupt_manifest_line_names_the_file_and_the_fix(tmp_path):
    archive = Archive(tmp_path)
    archive.put("a.entry", KEY, _arrays())
    archive.manifest_path.write_text(archive.manifest_path.read_text() + "{not json\n")
    with pytest.raises(ValueError, match=r"MANIFEST.jsonl:2: not a manifest line .*git checkout"):
        archive.lookup("a.entry", KEY)


def test_readers_of_one_archive_parse_its_manifest_once_and_see_each_others_writes(tmp_path, monkeypatch):
    import json

    from duelbench.archive import store

    writer = Archive(tmp_path / "archive")
    for n in range(3):
        writer.put(f"e{n}.entry", dict(KEY, horizon=n + 1), _arrays())
    parsed = []
    monkeypatch.setattr(store, "json", type("counting", (), {
        "loads": staticmethod(lambda text: parsed.append(1) or json.loads(text)), "dumps": json.dumps}))
    store._PARSED.clear()
    readers = [Archive(tmp_path / "archive") for _ in range(5)]
    for reader in readers:
        for n in range(3):
            assert reader.lookup(f"e{n}.entry", dict(KEY, horizon=n + 1)).status == VALID
    assert len(parsed) == 3  # one parse of three lines for five readers
    writer.put("e3.entry", dict(KEY, horizon=4), _arrays())  # a write changes the file: parsed again
    assert all(r.lookup("e3.entry", dict(KEY, horizon=4)).status == VALID for r in readers)
    readers[0].manifest().pop("e0.entry")  # a caller's manifest() is its own mapping
    assert readers[1].lookup("e0.entry", dict(KEY, horizon=1)).status == VALID


def test_a_measurement_rides_on_the_manifest_line_and_not_in_the_entry(tmp_path):
    """The CPU time a job measured is kept beside the key, never inside the entry (whose bytes
    stay a function of its content); same bytes put again keep it, new bytes drop it."""
    archive = Archive(tmp_path / "archive")
    measured = {"cpu_s": 12.34, "wall_s": 13.0, "finished": "2026-01-01T00:00:00+00:00"}
    row = archive.put("a.entry", KEY, _arrays(0), measured=measured)
    assert row["measured"] == measured and archive.measured("a.entry") == measured
    assert archive.lookup("a.entry", KEY).status == VALID
    assert (archive.root / "a.entry").read_bytes() == encode(KEY, _arrays(0))
    archive.put("a.entry", KEY, _arrays(0))
    assert archive.measured("a.entry") == measured
    archive.put("a.entry", KEY, _arrays(1))
    assert archive.measured("a.entry") is None
    archive.record_measured({"a.entry": {"cpu_s": 1.0}})
    assert archive.measured("a.entry") == {"cpu_s": 1.0} and archive.lookup("a.entry", KEY).status == VALID
    with pytest.raises(KeyError, match="no entry 'b.entry'"):
        archive.record_measured({"a.entry": {"cpu_s": 2.0}, "b.entry": {"cpu_s": 1.0}})
    assert archive.measured("a.entry") == {"cpu_s": 1.0}  # nothing written

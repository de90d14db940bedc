"""``duelbench archive status`` checks every entry of the archive, sample entries included: a
sample entry that is corrupt, missing or keyed by other code is reported and the exit status is 1."""

from __future__ import annotations

import json

import numpy as np
import pytest

from duelbench import cli
from duelbench.archive.store import Archive
from duelbench.engine import archive_cli
from duelbench.experiments import samples
from duelbench.experiments.contract import SampleShard


@pytest.fixture()
def archive(tmp_path):
    """An archive holding one sample entry keyed by this code (no dataset: no data needed)."""
    shard = SampleShard(experiment="zoghi2015", family="tiny", function="appendix_c:samples", job={"seed": 1},
                        a=0, b=3, path="", columns=("gap",))
    root = tmp_path / "archive"
    row = Archive(root).put(samples.entry_path(shard), samples.sample_key(shard), {"gap": np.array([0.1, 0.2, 0.3])})
    return root, row["path"]


def _status(root, capsys, *extra):
    rc = cli.main(["archive", "--archive", str(root), "status", *extra])
    return rc, capsys.readouterr().out


def test_an_intact_sample_entry_is_valid(archive, capsys):
    root, path = archive
    rc, out = _status(root, capsys, "-v")
    assert rc == 0 and out.splitlines()[-1] == "1 valid" and path in out


@pytest.mark.parametrize("damage", ["flip_byte", "delete"])
def test_a_corrupt_or_missing_sample_entry_fails_the_status(archive, capsys, damage):
    root, path = archive
    file = root / path
    if damage == "delete":
        file.unlink()
    else:
        data = bytearray(file.read_bytes())
        data[len(data) // 2] ^= 0xFF
        file.write_bytes(bytes(data))
    rc, out = _status(root, capsys)
    assert rc == 1 and out.splitlines()[-1] == "1 tampered"
    assert out.splitlines()[0].split()[:2] == ["tampered", path]


def test_a_sample_entry_of_other_code_is_stale(archive, capsys):
    root, path = archive
    manifest = root / "MANIFEST.jsonl"
    row = json.loads(manifest.read_text())
    row["key"]["code"] = "0" * 64
    manifest.write_text(json.dumps(row) + "\n")
    rc, out = _status(root, capsys)
    assert rc == 1 and out.splitlines()[0].split(None, 2) == ["stale", path, "key differs in code"]


def test_without_a_checker_an_entry_kind_is_not_reported_valid(archive, capsys):
    """The engine's command alone cannot key sample entries: it checks their integrity and says so."""
    root, path = archive
    rc = archive_cli.main(["--archive", str(root), "status"])
    out = capsys.readouterr().out
    assert rc == 1 and out.splitlines()[0].split()[:2] == ["unchecked", path] and "1 unchecked" in out

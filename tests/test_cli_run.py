"""``duelbench run`` and ``duelbench list`` as a new user meets them: bad input gets one line
naming the option or file and the fix, before any simulation; long runs show progress."""

from __future__ import annotations

import errno
import json
import os
import time

import numpy as np
import pytest

from duelbench import cli
from duelbench.data.registry import dataset_info
from duelbench.engine.result import SimulationResult

P3 = np.array([[0.5, 0.6, 0.7], [0.4, 0.5, 0.8], [0.3, 0.2, 0.5]])


@pytest.fixture()
def no_simulation(monkeypatch):
    """Fail the test if the command gets as far as simulating."""
    real = cli._load

    def load(module, name):
        if (module, name) == cli.SIMULATE:
            raise AssertionError("simulated although the input was invalid")
        return real(module, name)

    monkeypatch.setattr(cli, "_load", load)


def _err(capsys) -> str:
    return capsys.readouterr().err


def test_missing_matrix_file_is_named(tmp_path, capsys, no_simulation):
    missing = tmp_path / "nope.npy"
    assert cli.main(["run", "random", str(missing), "-T", "10"]) == 2
    err = _err(capsys)
    assert f"matrix file {missing} not found" in err and "unknown dataset" not in err


def test_empty_npy_and_bad_csv_name_the_file_and_the_format(tmp_path, capsys, no_simulation):
    empty = tmp_path / "empty.npy"
    empty.write_bytes(b"")
    assert cli.main(["run", "random", str(empty), "-T", "10"]) == 2
    err = _err(capsys)
    assert f"cannot read a preference matrix from {empty}" in err and "numpy.save" in err
    bad = tmp_path / "bad.csv"
    bad.write_text("0.5,0.6\n0.4,zero\n")
    assert cli.main(["run", "random", str(bad), "-T", "10"]) == 2
    err = _err(capsys)
    assert f"from {bad}" in err and "comma-separated" in err


@pytest.mark.parametrize("argv, option", [
    (["--seed", "-1"], "--seed"), (["-T", "0"], "--horizon"), (["-R", "x"], "--runs"), (["--kind", "borda"], "--kind"),
    (["--points", "-1"], "--points: expected a positive integer or 'all', got -1"),
    (["--points", "0"], "--points: expected a positive integer or 'all', got 0"),
    # an option given twice is refused, not silently replaced by the later value
    (["--points", "3", "--points", "4"], "--points: given more than once"),
    (["-T", "30"], "-T/--horizon: given more than once"),
])
def test_bad_options_are_named_before_simulating(tmp_path, capsys, no_simulation, argv, option):
    np.save(tmp_path / "P.npy", P3)
    with pytest.raises(SystemExit) as exc:
        cli.main(["run", "random", str(tmp_path / "P.npy"), "-T", "10", *argv])
    assert exc.value.code == 2
    assert option in _err(capsys)


def test_out_names_the_file_written(tmp_path, capsys):
    np.save(tmp_path / "P.npy", P3)
    assert cli.main(["run", "random", str(tmp_path / "P.npy"), "-T", "20", "-R", "2", "-o", str(tmp_path / "res")]) == 0
    assert f"saved {tmp_path / 'res.npz'}" in capsys.readouterr().out
    assert (tmp_path / "res.npz").is_file() and not (tmp_path / "res").exists()


def test_long_runs_report_progress_and_large_k_warns(tmp_path, capsys, monkeypatch):

    np.save(tmp_path / "P.npy", P3)
    clock = iter(range(0, 1000, 5))
    monkeypatch.setattr(time, "perf_counter", lambda: float(next(clock)))
    monkeypatch.setattr(cli, "LARGE_K", 2)
    assert cli.main(["run", "random", str(tmp_path / "P.npy"), "-T", "20", "-R", "2"]) == 0
    err = _err(capsys)
    assert "run 1/2 done" in err and "run 2/2 done" in err
    assert "K = 3 arms" in err and "GB of memory" in err


def test_list_shows_k_per_dataset(capsys):


    assert cli.main(["list", "--json"]) == 0
    datasets = json.loads(capsys.readouterr().out)["datasets"]
    assert datasets and all(d["K"] == dataset_info(d["name"]).K for d in datasets)
    assert cli.main(["list"]) == 0
    assert "K=5" in capsys.readouterr().out  # e.g. the printed 5-arm matrices


def test_a_parameter_given_twice_is_refused(tmp_path, capsys, no_simulation):
    np.save(tmp_path / "P.npy", P3)
    assert cli.main(["run", "rucb", str(tmp_path / "P.npy"), "-T", "10", "-p", "alpha=0.5", "-p", "alpha=0.6"]) == 2
    assert "--param alpha is given twice (alpha=0.5, alpha=0.6); give it once" in _err(capsys)


def test_points_all_prints_every_checkpoint(tmp_path, capsys):
    np.save(tmp_path / "P.npy", P3)
    assert cli.main(["run", "random", str(tmp_path / "P.npy"), "-T", "20", "-R", "2", "--points", "all"]) == 0
    every = capsys.readouterr().out.splitlines()
    assert cli.main(["run", "random", str(tmp_path / "P.npy"), "-T", "20", "-R", "2", "--points", "2"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 2 + 2 < len(every)


# --------------------------------------------------------------------------- -o PATH
def test_unwritable_out_folder_is_named_before_simulating(tmp_path, capsys, monkeypatch, no_simulation):

    np.save(tmp_path / "P.npy", P3)
    folder = tmp_path / "readonly"
    folder.mkdir()
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if str(p) == str(folder) else real_access(p, mode))
    assert cli.main(["run", "random", str(tmp_path / "P.npy"), "-T", "10", "-o", str(folder / "res")]) == 2
    err = _err(capsys).splitlines()
    assert len(err) == 1 and f"{folder / 'res.npz'}" in err[0] and "not writable" in err[0]
    assert "writable folder" in err[0]  # the fix


@pytest.mark.parametrize("where, message", [
    (lambda tmp: tmp / "a_file" / "sub" / "res", "is a file, not a folder"),
    (lambda tmp: tmp / "a_folder.npz", "is a folder; name a file in it"),
])
def test_out_that_cannot_be_a_file_is_named_before_simulating(tmp_path, capsys, no_simulation, where, message):
    np.save(tmp_path / "P.npy", P3)
    (tmp_path / "a_file").write_text("x")
    (tmp_path / "a_folder.npz").mkdir()
    assert cli.main(["run", "random", str(tmp_path / "P.npy"), "-T", "10", "-o", str(where(tmp_path))]) == 2
    err = _err(capsys).splitlines()
    assert len(err) == 1 and message in err[0] and "Traceback" not in err[0]


def test_out_in_a_new_folder_is_created(tmp_path, capsys):
    np.save(tmp_path / "P.npy", P3)
    out = tmp_path / "new" / "sub" / "res.npz"
    assert cli.main(["run", "random", str(tmp_path / "P.npy"), "-T", "20", "-R", "2", "-o", str(out)]) == 0
    assert f"saved {out}" in capsys.readouterr().out and out.is_file()


def test_out_replacing_a_file_says_so(tmp_path, capsys):

    np.save(tmp_path / "P.npy", P3)
    out = tmp_path / "res.npz"
    out.write_bytes(b"an older result")
    assert cli.main(["run", "random", str(tmp_path / "P.npy"), "-T", "20", "-R", "2", "-o", str(out)]) == 0
    assert f"saved {out} (replaced the file that was there)" in capsys.readouterr().out
    assert SimulationResult.from_npz(out).horizon == 20
    assert cli.main(["run", "random", str(tmp_path / "P.npy"), "-T", "20", "-R", "2", "-o", str(tmp_path / "other")]) == 0
    assert "replaced" not in capsys.readouterr().out


def test_a_failed_write_leaves_the_old_file_and_no_partial_one(tmp_path, capsys, monkeypatch):


    def disk_full(self, fh):
        fh.write(b"PK\x03\x04 half a result")
        raise OSError(errno.ENOSPC, "No space left on device")

    np.save(tmp_path / "P.npy", P3)
    out = tmp_path / "res.npz"
    out.write_bytes(b"an older result")
    monkeypatch.setattr(SimulationResult, "to_npz", disk_full)
    assert cli.main(["run", "random", str(tmp_path / "P.npy"), "-T", "20", "-R", "2", "-o", str(out)]) == 2
    err = _err(capsys).splitlines()
    assert len(err) == 1 and f"cannot write {out}: No space left on device" in err[0]
    assert out.read_bytes() == b"an older result"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["P.npy", "res.npz"]  # no temporary file left

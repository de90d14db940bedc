"""Provenance sidecars (duelbench.provenance.sidecar)."""

from __future__ import annotations

import hashlib
import json
import os
import stat

import numpy as np
import pytest

from duelbench.provenance import sidecar as prov


def test_sidecar_fields(tmp_path):
    out = tmp_path / "table.csv"
    out.write_text("a,b\n1,2\n")
    inp = tmp_path / "in.npz"
    inp.write_bytes(b"\x00\x01\x02")
    path = prov.write_sidecar(
        out, inputs=[inp], config={"runs": 4, "kinds": ("copeland",)}, seeds={"seed": np.int64(3)},
        extra={"n": np.float64(2.5)}, wall_time=1.5, cpu_time=1.25,
    )
    assert path == str(out) + ".json"
    rec = json.loads(open(path).read())
    assert rec["schema"] == prov.SCHEMA
    c = rec["content"]
    assert c["output_sha256"] == hashlib.sha256(out.read_bytes()).hexdigest()
    assert c["config_hash"] == prov.config_hash({"kinds": ["copeland"], "runs": 4})
    assert c["seeds"] == {"seed": 3}
    assert c["extra"] == {"n": 2.5}
    assert c["inputs"] == [{"path": str(inp), "bytes": 3, "sha256": hashlib.sha256(b"\x00\x01\x02").hexdigest()}]
    assert set(c["versions"]) >= {"python", "numpy", "numba", "scipy", "duelbench"}
    assert set(c["code"]) == {"commit", "dirty"}
    assert c["code"]["commit"] == "unknown" or len(c["code"]["commit"]) == 40
    r = rec["run"]
    assert r["wall_time_s"] == 1.5 and r["cpu_time_s"] == 1.25
    assert r["finished"].endswith("+00:00")
    # no host or user names anywhere

    def keys(obj):
        if isinstance(obj, dict):
            for k, v in obj.items():
                yield k
                yield from keys(v)
        elif isinstance(obj, list):
            for v in obj:
                yield from keys(v)

    assert not {"host", "hostname", "node", "user", "username"} & set(keys(rec))


def test_content_hash_is_host_and_time_independent(tmp_path):
    out = tmp_path / "x.txt"
    out.write_text("x")
    a = prov.build_record(out, config={"b": 1, "a": [1, 2]}, seeds=0, wall_time=1.0, started="2020-01-01T00:00:00+00:00")
    b = prov.build_record(out, config={"a": [1, 2], "b": 1}, seeds=0, wall_time=99.0, run_info={"host_speed": 3})
    assert a["content_hash"] == b["content_hash"]
    assert a["run"] != b["run"]
    c = prov.build_record(out, config={"a": [1, 2], "b": 2}, seeds=0)
    assert c["content_hash"] != a["content_hash"]


def test_config_hash_canonical():
    assert prov.config_hash({"a": 1, "b": {"c": 2}}) == prov.config_hash({"b": {"c": 2}, "a": 1})
    assert prov.config_hash({"a": 1}) != prov.config_hash({"a": 2})
    assert prov.canonical_json({"x": float("nan")}) == '{"x":"nan"}'


def test_atomic_write_leaves_no_temporary_files(tmp_path):
    out = tmp_path / "sub" / "fig.pdf"
    out.parent.mkdir()
    out.write_bytes(b"%PDF")
    prov.write_sidecar(out)
    prov.write_sidecar(out)  # overwrite in place
    assert sorted(os.listdir(out.parent)) == ["fig.pdf", "fig.pdf.json"]
    assert prov.read_sidecar(out)["content"]["inputs"] == []


def test_atomic_write_failure_keeps_old_file(tmp_path, monkeypatch):
    target = tmp_path / "a.json"
    target.write_text("old")

    def boom(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(prov.os, "replace", boom)
    with pytest.raises(OSError):
        prov.atomic_write_text(target, "new")
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["a.json"]


def test_written_outputs_get_the_mode_open_gives(tmp_path):
    """The temporary file an output is written through is owner-only (``mkstemp``); the output
    itself must be as readable as a file ``open`` creates (a shared project folder)."""
    import matplotlib.pyplot as plt
    import pandas as pd

    from duelbench.experiments.aggregate import write_table
    from duelbench.experiments.plotting import save_figure

    by_open = tmp_path / "by_open.txt"
    by_open.write_text("x")
    prov.atomic_write_text(tmp_path / "a.md", "y")
    write_table(pd.DataFrame({"a": [1.5]}), str(tmp_path / "t.csv"))
    save_figure(plt.figure(), [str(tmp_path / "f.png"), str(tmp_path / "f.pdf")])
    want = stat.S_IMODE(by_open.stat().st_mode)
    assert want == prov.FILE_MODE
    names = ("a.md", "t.csv", "f.png", "f.pdf")
    assert {n: stat.S_IMODE((tmp_path / n).stat().st_mode) for n in names} == dict.fromkeys(names, want)
    assert (tmp_path / "t.csv").read_bytes() == b"a\n1.5\n"


def test_missing_input_is_recorded(tmp_path):
    out = tmp_path / "o"
    out.write_text("")
    rec = prov.build_record(out, inputs=[tmp_path / "nope"])
    assert rec["content"]["inputs"][0]["missing"] is True


def test_timer():
    with prov.Timer() as t:
        sum(range(10000))
    kw = t.as_kwargs()
    assert kw["wall_time"] >= 0 and kw["cpu_time"] >= 0 and kw["started"]


def test_dirty_ignores_rewritten_outputs_but_not_source_edits(tmp_path):
    """A build rewriting committed figures is not a dirty checkout; an edited source file is."""
    import shutil

    from _checkout_copy import git as _git

    if shutil.which("git") is None:
        pytest.skip("git not installed")
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "figures" / "paper").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "mod.py").write_text("x = 1\n")
    (tmp_path / "figures" / "paper" / "table.csv").write_text("a\n1\n")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "init")
    pkg = str(tmp_path / "src" / "pkg")
    commit, dirty = prov._git_state(pkg)
    assert len(commit) == 40 and dirty is False
    (tmp_path / "figures" / "paper" / "table.csv").write_text("a\n2\n")  # an output rewritten
    (tmp_path / "untracked.txt").write_text("new\n")                     # untracked: ignored
    assert prov._git_state(pkg) == (commit, False)
    (tmp_path / "src" / "pkg" / "mod.py").write_text("x = 2\n")          # a source edit
    assert prov._git_state(pkg) == (commit, True)


def test_code_mismatches_names_each_field_that_differs():
    content = {"extra": {"source_hash": "abc", "lock_hash": "L1"}}
    assert prov.code_mismatches(content, "source_hash", "abc", "L1") == []
    assert prov.code_mismatches(content, "source_hash", "abd", "L1") == ["source_hash"]
    assert prov.code_mismatches(content, "source_hash", "abc", "L2") == ["lock_hash"]
    # a sidecar recording neither field matches no code
    assert prov.code_mismatches({}, "code_hash", "abc", "L1") == ["code_hash", "lock_hash"]

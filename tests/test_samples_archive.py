"""Sample shards in the results archive (duelbench.experiments.samples), on a tiny Appendix-C family:

* a shard computed by the ``sample_shard`` job is archived with only its family's declared
  columns, and read back from the archive equal to its results file (same columns, same bits);
* the key holds the job, the sample range, the matrix's sha256, the kept columns, the code and
  the lock, so changing any of them makes the entry stale; a tampered entry is not used;
* a shard computed by other code is refused by the archiver.
"""

from __future__ import annotations

import json
import os
from types import SimpleNamespace

import numpy as np
import pytest

from duelbench.archive.store import STALE, TAMPERED, VALID
from duelbench.experiments import samples
from duelbench.experiments.zoghi2015.config import ARCHIVED_COLUMNS
from duelbench.experiments.zoghi2015 import appendix_c as ac
from duelbench.provenance.integrity import REJECTED, ResultsFileError


@pytest.fixture()
def shard(tmp_path, mslr_mirror, monkeypatch):
    monkeypatch.setenv("DUELBENCH_DATA_MIRROR", str(mslr_mirror))
    monkeypatch.setenv("DUELBENCH_DATA_DIR", str(tmp_path / "data"))
    job = ac.family_job("mslr_navigational", seed=3, k_values=[2, 9], samples_per_k=3, support_tol=1e-9)
    planned = samples.plan_samples(experiment="zoghi2015", family="mslr_navigational", function="appendix_c:samples",
                                   job=job, n=6, per_shard=4, fidelity="smoke", root=str(tmp_path / "results"),
                                   datasets=("mslr_navigational",), columns=ARCHIVED_COLUMNS)
    assert [(s.a, s.b) for s in planned] == [(0, 4), (4, 6)]
    first = planned[0]
    samples.run_sample_shard(first.path, first.job_params())
    return first, tmp_path / "archive"


def test_archived_columns_are_what_the_tables_read():
    cols = ac.compute_samples(np.full((ac.N_ARMS, ac.N_ARMS), 0.5) + np.triu(np.full((ac.N_ARMS,) * 2, 0.01), 1)
                              - np.tril(np.full((ac.N_ARMS,) * 2, 0.01), -1), "mslr_informational", 0, [(3, 0)])
    assert set(ARCHIVED_COLUMNS) < set(cols)
    assert set(cols) - set(ARCHIVED_COLUMNS) == set(ac.set_columns("subset"))


def test_sample_shard_round_trip_stale_and_tampered(shard):
    first, root = shard
    with np.load(first.path) as z:
        computed = {k: z[k] for k in z.files}
    samples.archive_sample_shards(root, [first])
    src = samples.SampleSources(root)
    assert src.status(first) == VALID and src.source(first).endswith(".entry")
    got = src.arrays(first)
    assert sorted(got) == sorted(ARCHIVED_COLUMNS)
    for k in ARCHIVED_COLUMNS:
        assert got[k].dtype == computed[k].dtype and got[k].tobytes() == computed[k].tobytes(), k

    key = samples.sample_key(first)
    assert key["columns"] == sorted(ARCHIVED_COLUMNS) and set(key["datasets"]) == {"mslr_navigational"}
    for changed in (dict(columns=("k",)), dict(b=3), dict(job={**first.job, "seed": 4})):
        other = type(first)(**{**first.__dict__, **changed})
        assert samples.sample_key(other) != key
    # another code hash: the same entry is found but stale
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(samples, "function_code_hash", lambda experiment, function: "0" * 64)
        assert samples.SampleSources(root).status(first) == STALE
    # tampered bytes: not used, the results file is read instead
    manifest = [json.loads(line) for line in (root / "MANIFEST.jsonl").read_text().splitlines()]
    entry = root / manifest[0]["path"]
    data = bytearray(entry.read_bytes())
    data[len(data) // 2] ^= 0xFF
    entry.write_bytes(bytes(data))
    fresh = samples.SampleSources(root)
    assert fresh.status(first) == TAMPERED and fresh.source(first) == first.path
    assert sorted(fresh.arrays(first)) == sorted(ARCHIVED_COLUMNS)


def test_a_stale_entry_whose_shard_was_never_computed_is_named_with_the_fix(shard):
    """A step run outside the workflow (by hand, in a test) against an archive whose entry this
    code does not accept, with no results file: the error names the file, why the entry is not
    used and the fix, instead of asking to delete a file that does not exist."""
    first, root = shard
    samples.archive_sample_shards(root, [first])
    os.unlink(first.path)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(samples, "function_code_hash", lambda experiment, function: "0" * 64)
        with pytest.raises(ResultsFileError) as err:
            samples.SampleSources(root).arrays(first)
    message = str(err.value)
    assert message.startswith(f"{first.path}: not computed") and "stale" in message and ".entry" in message
    assert "compute it with the workflow" in message and "delete it" not in message


def test_archiver_refuses_a_shard_of_other_code(shard):
    first, root = shard
    side = first.path + ".json"
    record = json.loads(open(side).read())
    record["content"]["extra"]["code_hash"] = "f" * 64
    open(side, "w").write(json.dumps(record))
    with pytest.raises(ValueError, match="other code"):
        samples.archive_sample_shards(root, [first])
    assert "other code" in samples.refusal(first)


def test_a_results_shard_of_other_code_is_set_aside_and_recomputed(shard, capsys):
    """The workflow's sample jobs are keyed by their parameters, not by the function's code: a
    shard left in results/ by other code is moved aside when the plan is made (and reported), so
    the workflow computes it again instead of reading it."""
    first, root = shard
    kept = samples.SampleSources(root)
    assert kept.planned_source(first) == first.path and not kept.rejected(first) and os.path.isfile(first.path)
    side = first.path + ".json"
    record = json.loads(open(side).read())
    record["content"]["extra"]["code_hash"] = "0" * 64
    open(side, "w").write(json.dumps(record))
    src = samples.SampleSources(root)
    assert src.planned_source(first) == first.path
    assert not os.path.exists(first.path) and os.path.isfile(first.path + REJECTED)
    assert src.rejected(first) and "computed by other code (code_hash" in src.fallbacks[first.path].rejected
    assert f"{first.path}: computed by other code" in capsys.readouterr().err


def test_the_periodic_archiver_skips_refused_shards_and_archives_the_others(tmp_path, monkeypatch, capsys):
    """archive_finished lists a shard a running build has yet to recompute and archives the
    rest; the command exits 1 and names it."""
    from duelbench.experiments import archiving

    a, b = SimpleNamespace(path="a"), SimpleNamespace(path="b")
    monkeypatch.setattr(archiving, "planned", lambda config: ({}, {}, [a, b]))
    monkeypatch.setattr(archiving.os.path, "isfile", lambda path: True)
    monkeypatch.setattr(archiving, "SampleSources", lambda root: type("S", (), {"status": lambda self, s: "absent"})())
    archived = []

    def archive_sample_shards(root, shards):
        if a in shards:
            raise ValueError(f"{a.path}: computed by other code")
        archived.extend(shards)

    monkeypatch.setattr(archiving, "archive_sample_shards", archive_sample_shards)
    assert archiving.archive_finished({}, tmp_path) == (0, 1, ["a: computed by other code"])
    assert archived == [b]
    monkeypatch.setattr(archiving, "checkout_config", lambda path, fidelity=None: {})
    assert archiving.main(["--archive", str(tmp_path)]) == 1
    assert "not archived: a: computed by other code" in capsys.readouterr().err


def _sample_functions() -> set[tuple[str, str]]:
    """(experiment, function) of every sample family the committed archive holds."""
    from pathlib import Path

    from duelbench.archive.store import Archive

    rows = Archive(Path(__file__).resolve().parent.parent / "archive").manifest().values()
    return {(r["key"]["experiment"], r["key"]["function"]) for r in rows if r["key"]["kind"] == samples.KIND}


@pytest.mark.parametrize("experiment,function", sorted(_sample_functions()))
def test_the_code_key_of_samples_leaves_out_the_framework(experiment, function):
    """A sample entry's code key hashes its function's import closure. That closure holds the code
    computing the samples; the sample framework, the archive, the report and the other modules of
    the experiments package stay out, or editing them would make every archived sample stale."""
    from duelbench.provenance import codehash

    closure = [codehash.module_name(f) for f in codehash.import_closure(samples._module_file(experiment, function),
                                                                        exclude=codehash.PROVENANCE)]
    own = (f"duelbench.experiments.{experiment}.", "duelbench.experiments.job_identity")
    framework = [m for m in closure
                 if m == "duelbench.experiments" or m.startswith(("duelbench.archive", "duelbench.report"))
                 or (m.startswith("duelbench.experiments.") and not m.startswith(own))]
    assert closure and not framework, f"{experiment}:{function} imports {framework}"


def test_the_archive_report_names_an_experiment_without_simulation_shards():
    """``--report`` prints no size per run where none can be known: a sample-only experiment
    (Chen et al.) and one whose simulation shards are all still to compute."""
    from duelbench.experiments.archiving import report_line

    nan = float("nan")
    samples_only = {"experiment": "chen2020", "status": {"samples valid": 3}, "simulation_MB": 0.0,
                    "sample_MB": 0.5, "bytes_per_run": nan, "planned_runs": 0, "projected_simulation_MB": nan}
    line = report_line(samples_only, "paper")
    assert line.startswith("chen2020 (paper): no simulation shards planned, 0.500 MB samples")
    none_yet = dict(samples_only, experiment="wu2016", status={"absent": 2}, planned_runs=20)
    assert "no simulation shard archived yet (20 runs planned)" in report_line(none_yet, "quick")
    archived = dict(none_yet, simulation_MB=0.002, bytes_per_run=228.0, projected_simulation_MB=0.00456)
    assert "0.002 MB simulation (228 bytes per run, 20 runs planned: 0.00 MB when complete)" in report_line(archived, "quick")
    assert "nan" not in line + report_line(none_yet, "quick")

"""Results shards are checked against their provenance sidecars before they are read.

* a simulation or sample shard whose bytes differ from its sidecar's ``output_sha256``, or that
  has no sidecar, is refused by its reader with one error naming the file and the fix;
* an undecodable shard or one holding other runs is named likewise (not a bare zip or
  concatenation error);
* when the workflow is planned, such a file is set aside (``*.rejected``, one warning line
  naming it) so the workflow recomputes it, and the shards the build computes instead of reading
  them from the archive are reported per reason with their estimated CPU time.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import warnings
from types import SimpleNamespace

import numpy as np
import pytest

from duelbench.algorithms.registry import param_hash
from duelbench.archive import fallbacks
from duelbench.archive.store import Lookup, MISSING, TAMPERED
from duelbench.engine.jobs import ShardSpec
from duelbench.engine.result import SimulationResult
from duelbench.engine.shard_sources import ShardSources
from duelbench.engine.shards import run_shard, shard_path
from duelbench.experiments import samples
from duelbench.experiments.aggregate import load_group
from duelbench.experiments.contract import SampleShard
from duelbench.provenance.integrity import REJECTED, ResultsFileError
from duelbench.provenance.sidecar import file_sha256, write_sidecar

HORIZON = 300


def _spec(root, a, b) -> ShardSpec:
    path = shard_path("smoke", "arxiv", "rucb", {}, HORIZON, a, b, root=str(root))
    return ShardSpec(fidelity="smoke", dataset="arxiv", algorithm="rucb", params={},
                     param_hash=param_hash("rucb", {}), horizon=HORIZON, run_start=a, run_stop=b, seed=1, path=path)


@pytest.fixture()
def specs(tmp_path, monkeypatch):
    """Two tiny shards of one job (runs 0-2 and 2-4), computed by the workflow's job; no archive."""
    monkeypatch.setenv("DUELBENCH_ARCHIVE", "off")
    out = [_spec(tmp_path / "results", 0, 2), _spec(tmp_path / "results", 2, 4)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for s in out:
            run_shard(s.path, dataset=s.dataset, algorithm=s.algorithm, params={}, horizon=s.horizon,
                      run_start=s.run_start, run_stop=s.run_stop, seed=s.seed, fidelity="smoke", quiet=True)
    return out


def _doubled(path) -> None:
    """Overwrite a shard with a valid npz whose regrets are doubled (its sidecar left as it was)."""
    r = SimulationResult.from_npz(path)
    r = dataclasses.replace(r, regrets={k: 2 * v for k, v in r.regrets.items()})
    with open(path, "wb") as fh:
        r.to_npz(fh)


def _reseal(path) -> None:
    """Record the file's current sha256 in its sidecar (a file whose sidecar agrees with it)."""
    side = str(path) + ".json"
    doc = json.loads(open(side).read())
    doc["content"]["output_sha256"] = file_sha256(path)
    open(side, "w").write(json.dumps(doc))


def test_intact_shards_are_read(specs):
    r = load_group(specs, ["copeland"])
    assert list(r.run_indices) == [0, 1, 2, 3] and np.isfinite(r.regret).all()


def test_a_shard_altered_after_its_sidecar_is_refused_naming_it(specs):
    _doubled(specs[1].path)
    with pytest.raises(ResultsFileError) as err:
        load_group(specs, ["copeland"])
    message = str(err.value)
    assert specs[1].path in message and "output_sha256" in message and "delete it" in message
    assert "\n" not in message


def test_a_shard_without_sidecar_is_refused_naming_it(specs):

    os.unlink(specs[0].path + ".json")
    with pytest.raises(ResultsFileError, match="no provenance sidecar") as err:
        load_group(specs, ["copeland"])
    assert specs[0].path in str(err.value)


def test_an_undecodable_shard_names_the_file(specs):
    """Bytes damaged inside a member (a zip CRC error) with a sidecar that agrees with them."""
    path = specs[1].path
    data = bytearray(open(path, "rb").read())
    at = data.rindex(b"regret_copeland.npy") - 200  # inside the data of an earlier member
    data[at] ^= 0xFF
    open(path, "wb").write(bytes(data))
    _reseal(path)
    with pytest.raises(ResultsFileError) as err:
        load_group(specs, ["copeland"])
    assert path in str(err.value) and "unreadable" in str(err.value) and "delete it" in str(err.value)


def test_a_shard_neither_computed_nor_archived_is_named_with_the_fix(specs):
    os.unlink(specs[1].path)
    with pytest.raises(ResultsFileError) as err:
        ShardSources(None, ["copeland"]).load(specs)
    message = str(err.value)
    assert message.startswith(f"{specs[1].path}: not computed") and "archive off" in message
    assert "compute it with the workflow" in message and "delete it" not in message


def test_a_shard_holding_other_runs_names_the_file(specs):
    shutil.copyfile(specs[0].path, specs[1].path)
    _reseal(specs[1].path)
    with pytest.raises(ResultsFileError) as err:
        load_group(specs, ["copeland"])
    assert specs[1].path in str(err.value) and "expected runs 2…3" in str(err.value)


def _sample_shard(tmp_path) -> SampleShard:
    path = str(tmp_path / "samples-0-3.npz")
    np.savez_compressed(path, k=np.arange(3), gap=np.array([0.1, 0.2, 0.3]))
    write_sidecar(path, config={}, extra={"samples": 3})
    return SampleShard(experiment="zoghi2015", family="f", function="appendix_c:samples", job={}, a=0, b=3,
                       path=path, columns=("gap",))


def test_a_sample_shard_altered_after_its_sidecar_is_refused_naming_it(tmp_path):
    shard = _sample_shard(tmp_path)
    reader = samples.SampleSources(None)
    assert list(reader.arrays(shard)["gap"]) == [0.1, 0.2, 0.3]
    np.savez_compressed(shard.path, k=np.arange(3), gap=np.array([1.0, 2.0, 3.0]))
    with pytest.raises(ResultsFileError) as err:
        reader.arrays(shard)
    assert shard.path in str(err.value) and "delete it" in str(err.value)


def test_planning_sets_a_bad_shard_aside_so_the_workflow_recomputes_it(specs, capsys):
    good, bad = specs
    _doubled(bad.path)
    reader = ShardSources(None, ["copeland"])
    assert reader.planned_source(good) == good.path and reader.planned_source(bad) == bad.path
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and bad.path in err and "recomputes it" in err

    assert not os.path.exists(bad.path) and not os.path.exists(bad.path + ".json")
    assert os.path.isfile(bad.path + REJECTED) and os.path.isfile(bad.path + ".json" + REJECTED)
    assert os.path.isfile(good.path)
    # only the shard the workflow now computes is reported, with the rejected file's reason
    assert list(reader.fallbacks) == [bad.path]
    assert "output_sha256" in reader.fallbacks[bad.path].rejected


def test_the_recompute_report_counts_names_and_estimates(tmp_path):
    folder = tmp_path / "T1000"
    folder.mkdir()
    # a timed shard of the same job: 2 runs x 1000 steps in 4 CPU seconds
    (folder / "runs-0-2.npz.json").write_text(json.dumps({"run": {"cpu_time_s": 4.0},
                                                          "content": {"extra": {"steps": 2000}}}))
    item = SimpleNamespace(path=str(folder / "runs-2-6.npz"), horizon=1000, run_start=2, run_stop=6)
    untimed = SimpleNamespace(path=str(tmp_path / "other" / "runs-0-1.npz"), horizon=10, run_start=0, run_stop=1)
    corrupt = fallbacks.Fallback(item, fallbacks.reason_of(Lookup(TAMPERED, reason="sha256 differs")))
    lines = fallbacks.report([corrupt, fallbacks.Fallback(untimed, fallbacks.reason_of(Lookup(MISSING)))])
    text = "\n".join(lines)
    assert lines[0].startswith("duelbench: computing 2 shard(s)") and "1 not estimated" in lines[0]
    assert "corrupt: 1 (4,000 steps; estimated 0.00222 CPU-h)" in text  # 8 s
    assert f"{item.path} (sha256 differs)" in text
    assert "missing: 1 (10 steps; CPU time unknown" in text and untimed.path in text
    assert fallbacks.report([]) == []

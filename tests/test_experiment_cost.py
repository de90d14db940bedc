"""``duelbench cost``: CPU time per panel from the shards' provenance sidecars.

The sidecars are written by the real writer (:func:`write_sidecar`) with the fields the shard
jobs record (``extra.source_hash``, ``extra.lock_hash``, ``run.cpu_time_s``), on dummy outputs:
what is tested is the reading, grouping and extrapolation, not a simulation.
"""

from __future__ import annotations

import math
import os

import pytest

from duelbench.algorithms.registry import source_hash
from duelbench.config.files import checkout_config
from duelbench.experiments.planning import plans
from duelbench.experiments.cost import cost_rows, main, totals
from duelbench.provenance.codehash import lock_hash
from duelbench.provenance.sidecar import write_sidecar


@pytest.fixture(scope="module")
def config():
    return checkout_config(fidelity="smoke")


def _timed_shard(root, spec, cpu: float, code: str | None = None) -> None:
    out = os.path.join(root, spec.path)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "wb") as fh:
        fh.write(b"not a shard")
    write_sidecar(out, extra={"source_hash": code or source_hash(spec.algorithm), "lock_hash": lock_hash()},
                  cpu_time=cpu)


def test_cost_extrapolates_from_this_codes_shards_only(tmp_path, config):
    declared, _ = plans(config, "demo")
    group = [s for s in declared.shards if (s.dataset, s.algorithm) == ("arxiv", "rucb")]
    assert len(group) >= 2
    _timed_shard(tmp_path, group[0], 3.0)
    _timed_shard(tmp_path, group[1], 99.0, code="0" * 64)  # other code: its time says nothing
    rows = cost_rows(config, "demo", [str(tmp_path)])
    row = next(r for r in rows if (r["panel"], r["algorithm"]) == ("arxiv", "rucb"))
    assert (row["shards"], row["timed"], row["cpu_s"]) == (len(group), 1, 3.0)
    assert row["cpu_h"] == pytest.approx(3.0 * len(group) / 3600)
    assert (row["todo"], row["todo_cpu_h"]) == (len(group) - 1, pytest.approx(3.0 * (len(group) - 1) / 3600))
    untimed = [r for r in rows if r["timed"] == 0]
    assert untimed and all(math.isnan(r["cpu_h"]) and r["todo"] == r["shards"] for r in untimed)
    # a panel sums its timed groups only and counts the others
    panel = next(t for t in totals(rows) if t["panel"] == "arxiv")
    assert panel["cpu_h"] == pytest.approx(row["cpu_h"])
    assert panel["untimed_groups"] == sum(1 for r in rows if r["panel"] == "arxiv" and r is not row)
    # per algorithm: the same sums over the algorithm's groups
    algo = next(t for t in totals(rows, "algorithm") if t["algorithm"] == "rucb")
    assert algo["cpu_h"] == pytest.approx(row["cpu_h"])
    assert algo["shards"] == sum(r["shards"] for r in rows if r["algorithm"] == "rucb")


def test_cost_counts_a_valid_archive_entry_as_done(tmp_path, config):
    """A shard computed for real, then archived: done (not to do) whether or not its sidecar is read."""
    from duelbench.archive.store import Archive
    from duelbench.engine import shard_archive
    from duelbench.engine.shards import run_shard

    declared, _ = plans(config, "demo")
    group = [s for s in declared.shards if (s.dataset, s.algorithm) == ("arxiv", "random")]
    spec = group[0]
    result = run_shard(tmp_path / "co" / spec.path, dataset=spec.dataset, algorithm=spec.algorithm,
                       params=spec.params, horizon=spec.horizon, run_start=spec.run_start, run_stop=spec.run_stop,
                       seed=spec.seed, fidelity=spec.fidelity, quiet=True)
    shard_archive.archive_result(Archive(tmp_path / "archive"), result, declared.kinds)

    def row(roots):
        rows = cost_rows(config, "demo", roots, archive=tmp_path / "archive")
        return next(r for r in rows if (r["panel"], r["algorithm"]) == ("arxiv", "random"))

    assert (row([])["timed"], row([])["todo"]) == (0, len(group) - 1)
    timed = row([str(tmp_path / "co")])
    assert (timed["timed"], timed["todo"], timed["todo_cpu_h"] > 0) == (1, len(group) - 1, len(group) > 1)
    assert cost_rows(config, "demo", [])[0]["todo"] == cost_rows(config, "demo", [])[0]["shards"]


def test_cost_times_an_archived_shard_by_its_recorded_measurement(tmp_path, config):
    """A shard computed on another machine (no sidecar here) is timed by the CPU time its job
    measured, which the periodic archiver put on its manifest line, and only while valid."""
    from duelbench.archive.store import Archive
    from duelbench.engine import shard_archive
    from duelbench.engine.shards import run_shard
    from duelbench.experiments import archiving

    declared, _ = plans(config, "demo")
    spec = next(s for s in declared.shards if (s.dataset, s.algorithm) == ("arxiv", "random"))
    out = tmp_path / "co" / spec.path
    result = run_shard(out, dataset=spec.dataset, algorithm=spec.algorithm, params=spec.params,
                       horizon=spec.horizon, run_start=spec.run_start, run_stop=spec.run_stop, seed=spec.seed,
                       fidelity=spec.fidelity, quiet=True)
    archive = Archive(tmp_path / "archive")
    row = shard_archive.archive_result(archive, result, declared.kinds)  # archived without a measurement
    assert "measured" not in row
    # the periodic archiver's backfill
    archive.record_measured({row["path"]: archiving._measurement_for(archive, row["path"], str(out), lambda: None)})
    cpu = archive.measured(row["path"])["cpu_s"]
    assert cpu > 0 and archive.lookup(row["path"], row["key"]).status == "valid"

    def arxiv_random(archive_root):
        rows = cost_rows(config, "demo", [], archive=archive_root)
        return next(r for r in rows if (r["panel"], r["algorithm"]) == ("arxiv", "random"))

    timed = arxiv_random(tmp_path / "archive")
    assert (timed["timed"], timed["cpu_s"]) == (1, cpu)
    # an entry of other code is stale: its time says nothing about this code
    archive.put(row["path"], {**row["key"], "code": "0" * 64}, shard_archive.to_arrays(result, declared.kinds),
                measured={"cpu_s": 5.0})
    assert arxiv_random(tmp_path / "archive")["timed"] == 0


def test_time_missing_times_spread_shards_of_each_group_with_too_few(tmp_path, config, monkeypatch):
    """``--time-missing`` computes shards of every group with fewer than ``per_group`` timed ones
    (first and last for 2), each as a one-thread job process, and only what is missing:
    afterwards every group is costed. (Two of the demo's panels, to keep the test short.)"""
    from duelbench.experiments import cost

    every = cost._groups
    monkeypatch.setattr(cost, "_groups", lambda *a: [g for g in every(*a) if g[2] in ("sushi", "multisol")])
    declared, _ = plans(config, "demo")
    group = [s for s in declared.shards if (s.dataset, s.algorithm) == ("sushi", "dts")]
    assert len(group) >= 2
    _timed_shard(tmp_path, group[0], 7.0)
    written = cost.time_untimed(config, "demo", [str(tmp_path)], per_group=2)
    assert str(tmp_path / group[0].path) not in written and str(tmp_path / group[-1].path) in written
    sizes = {}
    for s in declared.shards:
        if s.dataset in ("sushi", "multisol"):
            sizes[(s.dataset, s.algorithm, s.horizon)] = sizes.get((s.dataset, s.algorithm, s.horizon), 0) + 1
    assert len(written) == sum(min(2, n) for n in sizes.values()) - 1
    rows = cost.cost_rows(config, "demo", [str(tmp_path)])
    assert rows and all(r["timed"] == min(2, r["shards"]) for r in rows)
    assert cost.time_untimed(config, "demo", [str(tmp_path)], per_group=2) == []


def test_a_job_environment_runs_one_thread():
    from duelbench.provenance.jobenv import ONE_THREAD_VARIABLES, job_environment

    env = job_environment({"PATH": "/bin", "OPENBLAS_NUM_THREADS": "8"})
    assert env["PATH"] == "/bin" and all(env[v] == "1" for v in ONE_THREAD_VARIABLES)
    assert "OPENBLAS_NUM_THREADS" in ONE_THREAD_VARIABLES


def test_cost_reads_the_first_root_with_this_codes_sidecar(tmp_path, config):
    declared, _ = plans(config, "demo")
    spec = next(s for s in declared.shards if (s.dataset, s.algorithm) == ("sushi", "dts"))
    _timed_shard(tmp_path / "a", spec, 5.0, code="1" * 64)
    _timed_shard(tmp_path / "b", spec, 7.0)
    rows = cost_rows(config, "demo", [str(tmp_path / "a"), str(tmp_path / "b")])
    row = next(r for r in rows if (r["panel"], r["algorithm"]) == ("sushi", "dts"))
    assert (row["timed"], row["cpu_s"]) == (1, 7.0)


def test_cost_variants_list_only_the_shards_they_add(config):
    """Simulation shards (the sample shards of Wu & Liu's traced runs have rows of their own)."""
    declared, variants = plans(config, "wu2016")
    rows = [r for r in cost_rows(config, "wu2016", [], readings=True) if r.get("kind", "simulation") == "simulation"]
    assert sum(r["shards"] for r in rows if r["reading"] == "declared") == len(declared.shards)
    paths = {s.path for s in declared.shards}
    for reading, p in sorted(variants.items()):
        added = {s.path for s in p.shards} - paths
        assert sum(r["shards"] for r in rows if r["reading"] == reading) == len(added), reading
        paths |= added


def test_cost_cli_names_an_unknown_experiment(capsys):
    assert main(["no_such_paper"]) == 2
    err = capsys.readouterr().err
    assert "no_such_paper" in err and "wu2016" in err


def test_cost_cli_writes_its_table(tmp_path, capsys, config):
    n = len(plans(config, "demo")[0].shards)
    out = tmp_path / "cost.csv"
    assert main(["demo", "--fidelity", "smoke", "--results", str(tmp_path), "--archive", "off",
                 "--csv", str(out)]) == 0
    text = out.read_text().splitlines()
    assert text[0] == "reading,kind,panel,algorithm,horizon,shards,timed,cpu_s,cpu_h,todo,todo_cpu_h"
    assert f"total 0.000 CPU-h, to do {n} shards, 0.000 CPU-h, at smoke fidelity" in capsys.readouterr().out

"""Simulating a family of per-run instances: run r of every algorithm on instance r; shards of a
family are independent of the shard layout; their archive key hashes the instances of exactly
their runs (stale when the family's seed changes)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import textwrap
import warnings

import numpy as np
import pytest

import duelbench
from duelbench.algorithms.registry import NOT_SIMULATION_CODE, get_algorithm, list_algorithms
from duelbench.archive.store import STALE, VALID, Archive
from duelbench.data import generated, registry
from duelbench.data.generated import FamilyDatasetError
from duelbench.engine import families, shard_archive
from duelbench.engine.families import family_sha256, simulate_family
from duelbench.engine.result import RECORDED_KINDS, SimulationResult
from duelbench.engine.shards import load_shards, run_shard, shard_path
from duelbench.provenance.codehash import import_closure, module_file
from duelbench.provenance.sidecar import read_sidecar

FAMILY = "agarwal_syn_btl"
T = 1500


def _same(a: SimulationResult, b: SimulationResult, kinds=RECORDED_KINDS) -> bool:
    """Bit-identical regrets (NaN included), checkpoints and run indices."""
    return (np.array_equal(a.checkpoints, b.checkpoints) and np.array_equal(a.run_indices, b.run_indices)
            and all(a.regret_of(k).tobytes() == b.regret_of(k).tobytes() for k in kinds))


def _clear():
    generated.recipes.cache_clear()
    registry.clear_cache()
    families.family_sha256.cache_clear()
    shard_archive.matrix_sha256.cache_clear()


@pytest.fixture
def tiny_family(tmp_path, monkeypatch):
    """A 5-arm BTL family ``fam`` in a temporary recipe folder; ``write(seed)`` (re)declares it."""
    folder = tmp_path / "generated"
    folder.mkdir()
    monkeypatch.setattr(generated, "generated_dir", lambda: folder)
    monkeypatch.setattr(registry, "DATASETS", dict(registry.DATASETS))

    def write(seed):
        (folder / "tiny.yaml").write_text(textwrap.dedent(f"""
            datasets:
              fam: {{generator: random_btl, params: {{K: 5}}, per_run_seed: {seed}}}
        """))
        _clear()
        registry._register_generated()

    write(7)
    yield write
    monkeypatch.undo()
    _clear()


# ------------------------------------------------------------------------------ simulate_family
@pytest.mark.parametrize("algorithm", ["rucb", "condorcet_savage"])  # step kernels; needs_horizon
def test_runs_are_single_instance_runs_whatever_the_shard_layout(algorithm):
    fam = simulate_family(algorithm, FAMILY, T, 4, seed=3, run_start=2)
    assert fam.dataset == FAMILY and fam.algorithm == algorithm and list(fam.run_indices) == [2, 3, 4, 5]
    singles = [duelbench.simulate(algorithm, registry.load_instance(FAMILY, r), T, 1, 3, run_start=r)
               for r in range(2, 6)]
    assert all(s.dataset == f"{FAMILY}.run{r}" for s, r in zip(singles, range(2, 6)))
    stacked = SimulationResult.concatenate([dataclasses.replace(s, dataset=FAMILY) for s in singles])
    assert _same(fam, stacked)
    shards = [simulate_family(algorithm, FAMILY, T, 2, seed=3, run_start=2),
              simulate_family(algorithm, FAMILY, T, 2, seed=3, run_start=4)]
    assert _same(fam, SimulationResult.concatenate(shards))
    # an instance by its registry name reproduces its run
    by_name = duelbench.simulate(algorithm, f"{FAMILY}.run3", T, 1, 3, run_start=3)
    assert all(by_name.regret_of(k).tobytes() == fam.regret_of(k)[1:2].tobytes() for k in RECORDED_KINDS)


def test_pairs_and_progress():
    calls = []
    fam = simulate_family("rucb", "agarwal_syn_cd", 400, 3, seed=1, record_pairs=True,
                          progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 3), (2, 3), (3, 3)]
    assert fam.pairs.shape == (3, 400, 2)
    for r in range(3):
        one = duelbench.simulate("rucb", registry.load_instance("agarwal_syn_cd", r), 400, 1, 1, run_start=r,
                                 record_pairs=True)
        assert np.array_equal(fam.pairs[r], one.pairs[0])


def test_instances_do_not_depend_on_the_algorithm(monkeypatch):
    seen = {}
    real = registry.load_instance

    def spy(family, run):
        P = real(family, run)
        seen.setdefault(current, []).append((family, run, P.sha256))
        return P

    monkeypatch.setattr(registry, "load_instance", spy)
    for current in ("rucb", "random"):
        simulate_family(current, "agarwal_syn_cd", 300, 3, seed=0, run_start=1)
    assert seen["rucb"] == seen["random"]
    assert [run for _, run, _ in seen["rucb"]] == [1, 2, 3] and len({h for *_, h in seen["rucb"]}) == 3


def test_errors_name_the_family():
    with pytest.raises(ValueError, match="not a family of per-run instances"):
        simulate_family("rucb", "sushi", 100, 1)
    with pytest.raises(ValueError, match="runs must be"):
        simulate_family("rucb", FAMILY, 100, 0)
    with pytest.raises(FamilyDatasetError, match="load_instance"):
        duelbench.simulate("rucb", FAMILY, 100, 1)
    with pytest.raises(ValueError, match=f"'{FAMILY}' is a family.*family_sha256"):
        shard_archive.matrix_sha256(FAMILY)
    with pytest.raises(ValueError, match="run_start < run_stop"):
        family_sha256(FAMILY, 3, 3)


# ------------------------------------------------------------------------------ archive key
def test_key_hashes_the_instances_of_exactly_the_shard_runs():
    key = shard_archive.shard_key(FAMILY, "rucb", {}, T, 2, 5, 0, ["copeland"])
    text = "".join(registry.load_instance(FAMILY, r).sha256 for r in (2, 3, 4))
    assert key["dataset_sha256"] == hashlib.sha256(text.encode("ascii")).hexdigest() == family_sha256(FAMILY, 2, 5)
    assert key["dataset"] == FAMILY
    for a, b in ((2, 4), (3, 5), (2, 6)):
        assert shard_archive.shard_key(FAMILY, "rucb", {}, T, a, b, 0, ["copeland"])["dataset_sha256"] != \
            key["dataset_sha256"]
    # plain datasets keep the sha256 of their matrix
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert shard_archive.shard_key("arxiv", "rucb", {}, T, 2, 5, 0, ["copeland"])["dataset_sha256"] == \
            duelbench.load_matrix("arxiv").sha256


def test_family_shard_archived_is_valid_and_stale_after_a_seed_change(tiny_family, tmp_path, capsys):
    from duelbench.engine import archive_cli

    path = tmp_path / shard_path("paper", "fam", "rucb", {}, 800, 0, 3, root="r")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = run_shard(path, dataset="fam", algorithm="rucb", params={}, horizon=800, run_start=0, run_stop=3,
                           seed=0, fidelity="paper", quiet=True)
    assert result.dataset == "fam" and _same(result, simulate_family("rucb", "fam", 800, 3, 0))
    side = read_sidecar(str(path))["content"]
    assert side["extra"]["dataset_sha256"] == family_sha256("fam", 0, 3)
    root = tmp_path / "archive"
    archive = Archive(root)
    shard_archive.archive_result(archive, load_shards([path]), ["copeland", "condorcet"])
    args = ("fam", "rucb", {}, 800, 0, 3, 0, ["copeland", "condorcet"])
    found, restored = shard_archive.lookup_shard(archive, *args)
    assert found.status == VALID and _same(restored, result, ["copeland", "condorcet"])
    # the archive command accepts the family shard and checks it
    assert archive_cli.main(["--archive", str(tmp_path / "archive2"), "add", "--kinds", "copeland", str(path)]) == 0
    assert archive_cli.main(["--archive", str(tmp_path / "archive2"), "status"]) == 0
    assert "1 valid" in capsys.readouterr().out
    # another per_run_seed: other instances, the entry is found but stale
    tiny_family(8)
    found, restored = shard_archive.lookup_shard(archive, *args)
    assert found.status == STALE and found.differs == ["dataset_sha256"] and restored is None
    tiny_family(7)
    assert shard_archive.lookup_shard(archive, *args)[0].status == VALID


# ------------------------------------------------------------------------------ other entry points
def test_cli_run_simulates_a_family(capsys):
    from duelbench import cli

    assert cli.main(["run", "random", "agarwal_syn_cd", "-T", "200", "-R", "2", "--points", "2"]) == 0
    out = capsys.readouterr().out
    fam = simulate_family("random", "agarwal_syn_cd", 200, 2)
    assert "# random on agarwal_syn_cd: T=200, runs=2" in out and f"{fam.mean()[-1]:.4f}" in out


def test_bench_times_a_family_on_its_instance_0():
    from duelbench import bench

    assert bench.timed_instance(FAMILY) == f"{FAMILY}.run0" and bench.timed_instance("sushi") == "sushi"
    out = bench.run(["random"], [FAMILY], horizon=200, repeat=1, max_seconds=0.2)
    assert out["K"] == {FAMILY: 100} and out["cases"]["random"][FAMILY]["steps_per_second"] > 0
    json.dumps(out)


def test_family_support_is_outside_the_simulation_code_hash():
    """The archive keys' code hash (source_hash without the data loaders) of every algorithm does
    not cover the family support, so adding it leaves every archived shard valid."""
    outside = {module_file(m) for m in ("duelbench.engine.families", "duelbench.engine.shards",
                                        "duelbench.engine.shard_archive", "duelbench.bench", "duelbench.cli")}
    for name in list_algorithms():
        closure = set(import_closure(get_algorithm(name).module_file, module_file("duelbench.engine.simulate"),
                                     exclude=NOT_SIMULATION_CODE + ("duelbench.data",)))
        assert not closure & outside, name

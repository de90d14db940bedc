"""Bundles of small shards (duelbench.experiments.bundling, duelbench.engine.jobs.run_bundle_job).

* a bundle job writes each shard byte for byte as the shard's own job would, with the same
  sidecar content;
* the plan is declared: the same shards give the same bundles in any order, each bundle's
  estimate stays within the declared size, shards costed above it or without a cost run alone,
  and only shards of one (fidelity, algorithm) that read the same downloaded data share a
  bundle (a target never needs data its own shards do not read);
* costs come from the cost pass (its cell, else the nearest number of arms; a plug-in at the
  slowest timed algorithm).
"""

from __future__ import annotations

import json
import os
import warnings

import pytest

from duelbench.algorithms.registry import param_hash
from duelbench.engine.jobs import ShardSpec, run_bundle_job, run_shard_job
from duelbench.engine.shards import shard_path
from duelbench.experiments import bundling
from duelbench.provenance.sidecar import read_sidecar, sidecar_path

COST_PASS_ROWS = [
    # dataset, K, algorithm, marginal steps per CPU-second
    ("cyclic", 4, "random", 1e7),
    ("cyclic", 4, "rucb", 1e6),
    ("sushi", 16, "rucb", 5e5),
    ("sushi", 16, "dts", 1e5),
]


@pytest.fixture()
def cost_pass(tmp_path):
    path = tmp_path / "cost_pass.csv"
    lines = ["paper,panel,dataset,K,algorithm,marginal_steps_per_s"]
    lines += [f"p,x,{d},{k},{a},{r}" for d, k, a, r in COST_PASS_ROWS]
    path.write_text("\n".join(lines) + "\n")
    return path


def _spec(algorithm, dataset, horizon, a, b, fidelity="smoke", root="results", seed=3) -> ShardSpec:
    return ShardSpec(fidelity=fidelity, dataset=dataset, algorithm=algorithm, params={},
                     param_hash=param_hash(algorithm, {}), horizon=horizon, run_start=a, run_stop=b, seed=seed,
                     path=os.path.normpath(shard_path(fidelity, dataset, algorithm, {}, horizon, a, b, root=root)))


def test_rates_cell_then_nearest_arms_then_slowest(cost_pass):
    assert bundling.steps_per_second("rucb", "cyclic", cost_pass) == 1e6
    # arxiv (K = 6) is nearest to K = 4 in log scale (|log 6/4| < |log 16/6|)
    assert bundling.steps_per_second("rucb", "arxiv", cost_pass) == 1e6
    # an algorithm the cost pass did not time: the slowest timed one at that number of arms
    assert bundling.steps_per_second("toy_plugin", "sushi", cost_pass) == 1e5
    assert bundling.steps_per_second("rucb", "no_such_dataset", cost_pass) is None
    assert bundling.steps_per_second("rucb", "cyclic", cost_pass.parent / "missing.csv") is None


def test_plan_packs_small_shards_of_one_algorithm(cost_pass):
    # random on cyclic: 1e6 steps per shard at 1e7 steps/s = 0.1 s each
    small = [_spec("random", "cyclic", 100_000, a, a + 10) for a in range(0, 3000, 10)]
    # rucb on sushi: 1e7 steps at 5e5 steps/s = 20 s, above the bundle size: alone
    big = [_spec("rucb", "sushi", 1_000_000, a, a + 10) for a in range(0, 30, 10)]
    # a quick-fidelity shard of the same algorithm never joins a smoke bundle
    other = [_spec("random", "cyclic", 100_000, a, a + 10, fidelity="quick") for a in range(0, 40, 10)]
    bundles = bundling.plan_bundles(small + big + other, cost_pass)
    assert bundles == bundling.plan_bundles(list(reversed(small + other + big)), cost_pass)
    members = [s for b in bundles for s in b.shards]
    assert len(members) == len(set(members)) == len(small) + len(other)
    for b in bundles:
        assert {(s.fidelity, s.algorithm) for s in b.shards} == {(b.fidelity, b.algorithm)}
        assert 2 <= len(b.shards) <= bundling.MAX_SHARDS
        estimate = sum(bundling.estimated_cpu_s(s, cost_pass) for s in b.shards)
        assert estimate < 2 * bundling.BUNDLE_CPU_S
        assert list(b.shards) == sorted(b.shards, key=lambda s: s.path)
    # 300 shards of 0.1 s: full bundles of 64 (6.4 s < 13.5 s), then the rest
    assert [len(b.shards) for b in bundles if b.fidelity == "smoke"] == [64, 64, 64, 64, 44]
    assert len({b.name for b in bundles}) == len(bundles)
    assert len({b.folder("results") for b in bundles}) == len(bundles)


def test_shards_reading_other_data_never_share_a_bundle(cost_pass):
    printed = [_spec("random", "cyclic", 100_000, a, a + 10) for a in range(0, 40, 10)]
    mslr = [_spec("random", "mslr5_condorcet", 100_000, a, a + 10) for a in range(0, 40, 10)]
    bundles = bundling.plan_bundles(printed + mslr, cost_pass)
    assert sorted(len(b.shards) for b in bundles) == [4, 4]
    assert all(len({s.dataset for s in b.shards}) == 1 for b in bundles)
    assert bundling.data_files("cyclic") == ()
    assert bundling.data_files("mslr5_condorcet") == ("MSLR_Informational_PMat.npz",)


def test_plan_closes_a_bundle_at_its_declared_cost(cost_pass):
    # dts on sushi: 2e5 steps at 1e5 steps/s = 2 s each: 7 shards reach 13.5 s
    shards = [_spec("dts", "sushi", 20_000, a, a + 10) for a in range(0, 200, 10)]
    sizes = [len(b.shards) for b in bundling.plan_bundles(shards, cost_pass)]
    assert sizes == [7, 7, 6]
    # a lone leftover shard is not a bundle
    assert [len(b.shards) for b in bundling.plan_bundles(shards[:8], cost_pass)] == [7]


def test_bundle_job_writes_what_the_shard_jobs_write(tmp_path, monkeypatch, cost_pass):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DUELBENCH_ARCHIVE", "off")
    specs = [_spec("rucb", "cyclic", 500, a, a + 2) for a in (0, 2, 4)]
    alone = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for s in specs:
            run_shard_job(s.path, s.job_params())
            alone[s.path] = (open(s.path, "rb").read(), read_sidecar(s.path))
            os.remove(s.path)
            os.remove(sidecar_path(s.path))
        (bundle,) = bundling.plan_bundles(specs, cost_pass)
        assert bundle.shards == tuple(specs)
        run_bundle_job(bundle.folder("results"), bundle.job_params())
    for s in specs:
        staged = bundle.staged("results", s.path)
        assert not os.path.exists(s.path)  # left in the bundle's folder for the shard's job to link
        assert open(staged, "rb").read() == alone[s.path][0]
        assert read_sidecar(staged)["content"] == alone[s.path][1]["content"]
    assert sorted(os.listdir(bundle.folder("results"))) == sorted(
        n for s in specs for n in (os.path.basename(bundle.staged("results", s.path)),
                                   os.path.basename(sidecar_path(bundle.staged("results", s.path)))))
    assert json.loads(bundle.job_params())[0]["out"] == specs[0].path


def test_bundle_job_computes_only_the_shards_the_build_writes(tmp_path, monkeypatch, cost_pass):
    from duelbench.engine.jobs import BUILD_SHARDS_ENV

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DUELBENCH_ARCHIVE", "off")
    specs = [_spec("rucb", "cyclic", 500, a, a + 2) for a in (0, 2, 4)]
    (bundle,) = bundling.plan_bundles(specs, cost_pass)
    listing = tmp_path / "build-shards.txt"
    listing.write_text(f"{specs[0].path}\n./{specs[2].path}\n")
    monkeypatch.setenv(BUILD_SHARDS_ENV, str(listing))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run_bundle_job(bundle.folder("results"), bundle.job_params())
    staged = {n for n in os.listdir(bundle.folder("results")) if n.endswith(".npz")}
    assert staged == {os.path.basename(bundle.staged("results", s.path)) for s in (specs[0], specs[2])}
    # no listing (a job run outside a build, or the build's file gone): every member
    listing.unlink()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run_bundle_job(str(tmp_path / "all"), bundle.job_params())
    assert len([n for n in os.listdir(tmp_path / "all") if n.endswith(".npz")]) == 3

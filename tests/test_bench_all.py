"""``bench_all``: a toy plug-in on every regret instance of the papers, at smoke fidelity, in a
temporary copy of the checkout (duelbench.experiments.bench_all)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pandas as pd
import pytest

from _checkout_copy import copy_checkout, run_snakemake

pytestmark = [pytest.mark.timeout(1200), pytest.mark.slow]

PLUGIN = textwrap.dedent('''
    """Toy plug-in: a uniformly random ordered pair of distinct arms ({name})."""
    from duelbench.algorithms.registry import AlgorithmSpec


    class Uniform:
        def __init__(self, K, horizon, rng):
            self.K, self.rng = K, rng

        def select(self, t):
            i = int(self.rng.integers(self.K))
            j = int(self.rng.integers(self.K - 1))
            return i, j + (j >= i)

        def update(self, i, j, i_won, t):
            pass


    ALGORITHM = AlgorithmSpec(name="{name}", title="{name}", reference="test plug-in", defaults={{}}, policy=Uniform)
''')

#: the benchmark's instances at smoke fidelity (config/config.yaml, fidelities.smoke: the regret
#: panels of Komiyama et al. and Wu & Liu)
INSTANCES = {("komiyama2016", d) for d in ("kom_mslr16_noncondorcet", "gap", "cyclic")} | {
    ("wu2016", d) for d in ("mslr5_condorcet", "mslr5_noncondorcet")}
OUT = Path("results/bench_all/toy_a/smoke")


def _bench(root: Path, plugins: Path, mirror: Path, name: str, *args: str):
    return run_snakemake(root, "bench_all", *args, "--config", f"bench_all={name}", mirror=mirror,
                         env={"DUELBENCH_PLUGIN_PATH": str(plugins)}, timeout=1200)


@pytest.fixture(scope="module")
def built(tmp_path_factory, mslr_mirror):
    root = copy_checkout(tmp_path_factory.mktemp("checkout"))
    plugins = tmp_path_factory.mktemp("plugins")
    for name in ("toy_a", "toy_b"):
        (plugins / f"{name}.py").write_text(PLUGIN.format(name=name))
    _bench(root, plugins, mslr_mirror, "toy_a")
    return root, plugins, mslr_mirror


def test_leaderboard_ranks_the_plugin_on_every_instance(built):
    root, _, _ = built
    board = pd.read_csv(root / OUT / "leaderboard.csv")
    assert set(zip(board["paper"], board["dataset"])) == INSTANCES
    assert (board["algorithm"] == "toy_a").all()
    assert (board["ratio"] > 0).all() and (board["rank"] >= 1).all()
    assert (board["rank_lower"] <= board["rank"]).all() and (board["rank"] <= board["rank_upper"]).all()
    assert "toy_a" in (root / OUT / "leaderboard.md").read_text()


def test_the_plugin_is_a_column_of_the_benchmark_table(built):
    """Its cells sit beside every other algorithm's, on every instance, under the paper's protocol."""
    root, _, _ = built
    cells = pd.read_csv(root / OUT / "benchmark" / "cells.csv", dtype={"param_hash": str})
    board = pd.read_csv(root / OUT / "leaderboard.csv").set_index("instance")
    declared = ["random", "rucb", "dts", "pcomp"]        # fidelities.smoke.overrides.benchmark.algorithms
    for instance, g in cells.groupby("instance"):
        assert sorted(g["algorithm"]) == sorted([*declared, "toy_a"]), instance
        mine = g[g["algorithm"] == "toy_a"].iloc[0]
        best = g[g["best"]].iloc[0]
        assert mine["source"] == "benchmark" and mine["runs"] == best["runs"]
        assert board.loc[instance, "ratio"] == pytest.approx(mine["mean"] / best["mean"])
    for name in ("heatmap.png", "ranking.png"):
        assert (root / OUT / "benchmark" / name).read_bytes().startswith(b"\x89PNG"), name


def test_the_plugin_is_an_extra_series_of_each_paper_with_the_papers_settings(built):
    root, _, _ = built
    kom = pd.read_csv(root / OUT / "komiyama2016" / "regret.csv", dtype={"param_hash": str})
    zog = pd.read_csv(root / OUT / "zoghi2015" / "regret.csv", dtype={"param_hash": str})
    for table, baseline in ((kom, "ecw_rmed"), (zog, "ccb")):
        for dataset, g in table.groupby("dataset"):
            if baseline in set(g["algorithm"]):
                assert "toy_a" in set(g["algorithm"]), dataset
                assert g[g["algorithm"] == "toy_a"]["t"].max() == g[g["algorithm"] == baseline]["t"].max()
    for name in ("komiyama2016/figure1.png", "komiyama2016/figure2.png", "zoghi2015/figure1.png",
                 "zoghi2015/figure2.png"):
        assert (root / OUT / name).read_bytes().startswith(b"\x89PNG"), name
    assert not (root / "figures").exists()  # never into the committed outputs


def test_a_second_plugin_reuses_every_baseline(built):
    """Only the new algorithm's shards are planned: the baselines (from the results cache here,
    from the archive at paper fidelity, through the same source resolution) are not recomputed."""
    root, plugins, mirror = built
    rows = [line.split("\t") for line in _bench(root, plugins, mirror, "toy_b", "--summary").stdout.splitlines()
            if "\t" in line]
    header = rows[0]
    pending = [r[0] for r in rows[1:] if r[header.index("rule")] == "simulate_shard"
               and r[header.index("plan")] == "update pending"]
    assert pending and all("/toy_b-" in p for p in pending), [p for p in pending if "/toy_b-" not in p][:5]

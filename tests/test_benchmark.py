"""The benchmark of record (duelbench.experiments.benchmark): its cells reuse the papers' shards
without re-keying them, and its statistics decide what they claim to."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from duelbench.config import ConfigError
from duelbench.config.files import checkout_config
from duelbench.experiments.archiving import planned
from duelbench.experiments.benchmark.cells import cells, horizon_text
from duelbench.experiments.benchmark.table import bootstrap_means, instance_tables
from duelbench.experiments.contract import declaration
from duelbench.experiments.instances import RegretInstance

PAPERS = ("komiyama2016", "zoghi2015", "wu2016", "agarwal2022")


@pytest.fixture(scope="module")
def config():
    return checkout_config()


@pytest.mark.parametrize("fidelity", ["paper", "quick", "smoke"])
def test_a_cell_the_paper_runs_is_the_papers_own_shards(config, fidelity):
    s = declaration("benchmark").settings(config, fidelity)
    own = {p: {sp.path for sp in declaration(p).shard_specs(config, fidelity)} for p in s["papers"]}
    all_cells = cells(s)
    assert {c.instance.paper for c in all_cells} == set(s["papers"])
    for c in all_cells:
        paths = {sp.path for sp in c.shards(s["fidelity"], s["results"])}
        if c.source == "paper":
            assert paths <= own[c.instance.paper], (c.instance.id, c.algorithm)
            assert c.entry.param_hash == c.instance.paper_entry(c.algorithm).param_hash
        else:
            assert c.instance.tag or c.instance.paper_entry(c.algorithm) is None
            assert not paths & own[c.instance.paper], (c.instance.id, c.algorithm)


def test_every_algorithm_on_every_instance_once(config):
    s = declaration("benchmark").settings(config, "paper")
    all_cells = cells(s)
    keys = [(c.instance.id, c.algorithm) for c in all_cells]
    assert len(keys) == len(set(keys)) == len(s["instances"]) * len(s["algorithms"])
    # the papers' own curves: Komiyama 6 x 10 panels, Zoghi 4 + 3 + 2, Wu 11 x 2, Agarwal 6 x 4
    assert sum(c.source == "paper" for c in all_cells) == 60 + 9 + 22 + 24


@pytest.mark.parametrize("fidelity", ["paper", "quick"])
def test_the_benchmark_adds_no_regret_kind_to_a_papers_shard(config, fidelity):
    """An archive entry is keyed with the union of the kinds its readers need: the benchmark
    reads each paper's shards with that paper's kinds, so no paper-fidelity entry is re-keyed;
    a kind is added only to a shard two papers' instances share (the same dataset, horizon and
    runs), which each reads with its own paper's kind."""
    cfg = copy.deepcopy(dict(config))
    cfg["fidelity"] = fidelity
    with_benchmark = planned(cfg)[1]
    without = copy.deepcopy(cfg)
    del without["benchmark"]
    alone = planned(without)[1]
    s = declaration("benchmark").settings(cfg, fidelity)
    readers: dict[str, set] = {}
    for c in cells(s):
        for sp in c.shards(s["fidelity"], s["results"]):
            readers.setdefault(sp.path, set()).add(c.instance.paper)
    changed = [path for path, kinds in alone.items() if with_benchmark[path] != kinds]
    assert all(len(readers[p]) > 1 for p in changed), changed[:3]
    if fidelity == "paper":
        assert changed == []


def test_a_reduction_names_an_instance_and_algorithm(config):
    bad = copy.deepcopy(dict(config))
    bad["benchmark"]["reduced"] = [{"dataset": "no_such_panel", "algorithms": ["dts"], "runs": 2, "reason": "x"}]
    with pytest.raises(ConfigError, match=r"benchmark\.reduced\[0\]: no instance"):
        declaration("benchmark").settings(bad, "paper")
    bad["benchmark"]["reduced"] = [{"dataset": "zoghi_copeland500", "algorithms": ["dts"], "reason": "x"}]
    with pytest.raises(ConfigError, match="give runs or horizon"):
        declaration("benchmark").settings(bad, "paper")


def test_a_reduced_cell_keeps_the_first_runs_and_a_shorter_horizon_is_not_ranked(config):
    cfg = copy.deepcopy(dict(config))
    cfg["benchmark"]["reduced"] = [
        {"dataset": "zoghi_copeland500", "algorithms": ["dts"], "runs": 3, "reason": "cost"},
        {"dataset": "zoghi_copeland500", "algorithms": ["dts_plus"], "horizon": 1000000, "reason": "cost"}]
    s = declaration("benchmark").settings(cfg, "paper")
    by = {(c.instance.dataset, c.algorithm): c for c in cells(s) if not c.instance.tag}
    dts, plus = by[("zoghi_copeland500", "dts")], by[("zoghi_copeland500", "dts_plus")]
    assert (dts.runs, dts.ranked, dts.reduction) == (3, True, "cost")
    assert [(sp.run_start, sp.run_stop) for sp in dts.shards("paper", "results")] == [(0, 1), (1, 2), (2, 3)]
    assert (plus.horizon, plus.ranked) == (1000000, False)
    assert by[("zoghi_copeland500", "rucb")].reduction == ""


# ------------------------------------------------------------------------------------ statistics
def _Cell(inst, name, runs, horizon=None):
    """A cell of ``name`` (no parameters) on ``inst``."""
    from duelbench.config import AlgorithmEntry
    from duelbench.experiments.benchmark.cells import Cell

    return Cell(inst, AlgorithmEntry(name, {}, name), "benchmark", runs, horizon or inst.horizon)


def _tables(dataset, samples, horizons=None):
    inst = RegretInstance("p", "Figure 1", dataset, 1000, 50, 10, 0, "copeland")
    cs = [_Cell(inst, n, len(x), (horizons or {}).get(n)) for n, x in samples.items()]
    runs = {(c.algorithm, c.algorithm, c.horizon): np.asarray(samples[c.algorithm], dtype=float) for c in cs if c.runs}
    return instance_tables(cs, runs, {"resamples": 400, "seed": 7})


def test_separation_and_ranks_follow_the_data():
    rng = np.random.default_rng(0)
    rows, pairs, reps = _tables("sushi", {"a": 100 + rng.normal(0, 5, 50), "b": 102 + rng.normal(0, 5, 50),
                                          "c": 300 + rng.normal(0, 5, 50)})
    by = {r["algorithm"]: r for r in rows}
    assert by["a"]["best"] and by["a"]["rank"] == 1 and by["c"]["rank"] == 3
    assert by["b"]["tied_with_best"] and not by["c"]["tied_with_best"]
    sep = {(p["a"], p["b"]): p for p in pairs}
    assert not sep[("a", "b")]["separated"] and sep[("a", "b")]["runs_to_separate"] > 50
    assert sep[("a", "c")]["separated"] and sep[("b", "c")]["separated"]
    assert sep[("a", "c")]["p_holm"] >= sep[("a", "c")]["p"]
    assert by["c"]["ratio_lower"] < by["c"]["ratio_to_best"] < by["c"]["ratio_upper"]
    assert abs(by["c"]["ratio_to_best"] - 3.0) < 0.1
    # the rank interval of the clear loser is the point; a and b share ranks 1-2
    assert (by["c"]["rank_lower"], by["c"]["rank_upper"]) == (3.0, 3.0)
    assert by["a"]["rank_lower"] == 1.0 and by["a"]["rank_upper"] == 2.0


def test_a_cell_at_a_shorter_horizon_is_shown_not_ranked():
    rng = np.random.default_rng(1)
    rows, pairs, _ = _tables("sushi", {"a": 10 + rng.normal(0, 1, 20), "b": 1 + rng.normal(0, 0.1, 20),
                                       "c": 20 + rng.normal(0, 1, 20)}, horizons={"b": 100})
    by = {r["algorithm"]: r for r in rows}
    assert by["a"]["best"] and not by["b"]["ranked"] and np.isnan(by["b"]["rank"])
    assert all("b" not in (p["a"], p["b"]) for p in pairs)


def test_horizons_are_printed_as_the_papers_print_them():
    assert [horizon_text(t) for t in (10**5, 10**6, 2 * 10**7, 3 * 10**4)] == ["10^5", "10^6", "2·10^7", "3·10^4"]
    assert [horizon_text(t) for t in (500, 15_000, 123_456)] == ["500", "15,000", "123,456"]


def test_a_cell_declared_not_run_is_listed_without_numbers():
    rng = np.random.default_rng(2)
    rows, pairs, _ = _tables("sushi", {"a": 10 + rng.normal(0, 1, 20), "b": [], "c": 20 + rng.normal(0, 1, 20)})
    by = {r["algorithm"]: r for r in rows}
    assert by["b"]["runs"] == 0 and not by["b"]["ranked"] and np.isnan(by["b"]["mean"])
    assert [(p["a"], p["b"]) for p in pairs] == [("a", "c")]


def test_bootstrap_is_seeded_and_pairs_runs_of_a_family():
    x = [np.arange(10.0), np.arange(10.0) * 2]
    a = bootstrap_means(x, True, 50, 3, "k")
    assert np.array_equal(a, bootstrap_means(x, True, 50, 3, "k"))
    assert np.array_equal(a[:, 1], 2 * a[:, 0])        # one resampling of the run indices for all cells
    b = bootstrap_means(x, False, 50, 3, "k")
    assert not np.array_equal(b[:, 1], 2 * b[:, 0])


# ------------------------------------------------------------------------------------ cost pass
def test_cost_pass_times_short_cells_whole_and_extrapolates_long_ones(config):
    from duelbench.experiments.benchmark.cost import cost_pass, markdown, run_seconds

    whole = run_seconds("random", "sushi", {}, 4000, max_seconds=60.0)
    assert whole["timed_steps"] == 4000 and whole["run_seconds"] == whole["seconds_timed"]
    long = run_seconds("random", "sushi", {}, 10**9, max_seconds=0.05)
    assert long["timed_steps"] < 10**9 and long["run_seconds"] > long["seconds_timed"]
    assert long["run_seconds"] == pytest.approx(long["seconds_timed"] + (10**9 - long["timed_steps"])
                                                / long["marginal_steps_per_s"])
    s = declaration("benchmark").settings(config, "smoke")
    table = cost_pass([c for c in cells(s) if c.algorithm == "random"][:2], 0.05, 0.05, progress=lambda m: None)
    assert len(table) == 2 and (table["cpu_h"] > 0).all()
    assert "cells the benchmark adds" in markdown(table, "smoke", 30.0)


def test_the_report_shows_the_benchmark_once_all_builds_it(config, tmp_path):
    from duelbench.experiments import reporting
    from duelbench.report.markdown import suite_section

    p = declaration("benchmark").plan(config, "paper")
    # `all` builds it (its cells are archived), so REPORT.md shows it after the papers
    [(title, _, items)] = reporting.suite_sections(config)
    assert title == "The benchmark of record" and [i.id for i in items] == [i.id for i in p.items]
    lines = suite_section("The benchmark of record", "intro", p.items, "figures")
    text = "\n".join(lines)
    assert "![" in text and "benchmark/heatmap.png" in text and "benchmark/table.md" in text
    assert all(item.caption in text for item in p.items)

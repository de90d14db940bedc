"""Komiyama et al. (2016) experiment: configuration, plan, bound tables, Table-1 sampling, statistics.

The statistics are computed on synthetic tables (no simulation): each check must pass, fail or
be inconclusive where it should. The end-to-end smoke build is in test_komiyama2016_workflow.py.
"""

from __future__ import annotations

import dataclasses
import math
import re

import numpy as np
import pandas as pd
import pytest
import yaml

from duelbench.experiments import planning
from duelbench.config import ConfigError, effective_config
from duelbench.config import data_file
from duelbench.experiments.komiyama2016 import EXPERIMENT as experiment
from duelbench.experiments.komiyama2016 import config as kom
from duelbench.experiments.komiyama2016 import bounds as kb
from duelbench.experiments.komiyama2016 import checks as kc
from duelbench.experiments.komiyama2016 import robustness as kr
from duelbench.experiments.komiyama2016 import sampling
from duelbench.experiments.komiyama2016 import table1 as kt
from duelbench.experiments.komiyama2016.tables import Tables
from duelbench.experiments.tables import read_rows
from duelbench.report.checks import load_registry

PRINTED = ["cyclic", "sushi", "gap", "multisol", "arxiv", "mslr5_condorcet_printed", "mslr5_noncondorcet_printed"]


@pytest.fixture(scope="module")
def base_config(checkout):
    with open(checkout / "config" / "config.yaml") as f:
        return yaml.safe_load(f)


def offline_config(base, **section):
    """The smoke configuration with printed matrices only (no MSLR data needed)."""
    cfg = effective_config(base, "smoke")
    cfg["fidelities"]["smoke"]["overrides"] = {}  # already applied; the edits below must stick
    s = cfg["komiyama2016"]
    s.update(figure1=["gap", "multisol"], figure2=["cyclic"],
             robustness={"horizon": 100, "runs": 2, "datasets": []},
             table1={**s["table1"], "parent": "sushi", "K": 6, "samples": 10, "samples_per_shard": 4})
    s.update(section)
    cfg["results"] = "results"
    return cfg


# --------------------------------------------------------------------------------------------
# configuration
# --------------------------------------------------------------------------------------------
def test_settings_of_every_fidelity(base_config):
    for fid in ("paper", "quick", "smoke"):
        s = experiment.settings(base_config, fid)
        assert s["fidelity"] == fid
        assert s["figures"] == ("figures/komiyama2016" if fid == "paper" else f"results/{fid}/figures/komiyama2016")
        assert [c.label for c in kom.curves(s) if c.variant] == ["ECW-RMED (beta = 0)"]
    paper = experiment.settings(base_config, "paper")
    assert kom.panels(paper)[:3] == ["kom_mslr16_condorcet", "kom_mslr16_noncondorcet", "kom_mslr64_noncondorcet"]
    assert len(experiment.samples(paper)) == 10


@pytest.mark.parametrize("key, value, message", [
    ("figure1", ["gap", "no_such_matrix"], "komiyama2016.figure1[1]: unknown dataset 'no_such_matrix'"),
    ("algorithms", ["random", "rucbb"], "komiyama2016.algorithms[1]: unknown algorithm 'rucbb'"),
    ("algorithms", ["random", {"name": "rucb", "params": {"alpha": 0.51}}, {"name": "rucb", "params": {"alpha": 2}}],
     "'rucb' is listed twice"),
    ("variants", [{"name": "ecw_rmed", "params": {}, "label": "same as main"}], "already in komiyama2016.algorithms"),
    ("variants", [{"name": "ecw_rmed", "params": {"beta": -1}, "label": "x"}], "komiyama2016.variants[0]"),
    ("bounds", {"ccb_main_variant": "ccb_nonsense", "matrices": ["gap"]}, "unknown variant 'ccb_nonsense'"),
])
def test_bad_settings_name_the_key(base_config, key, value, message):
    cfg = offline_config(base_config, **{key: value})
    cfg["komiyama2016"].setdefault("algorithms", ["random", "ecw_rmed"])
    with pytest.raises(ConfigError, match=re.escape(message)):
        experiment.settings(cfg)


def test_table1_size_is_checked(base_config):
    cfg = offline_config(base_config)
    cfg["komiyama2016"]["table1"]["K"] = 17
    with pytest.raises(ConfigError, match=r"komiyama2016.table1.K: must be between 2 and 16"):
        experiment.settings(cfg)


def test_shard_plan(base_config):
    s = experiment.settings(base_config, "paper")
    specs = experiment.shard_specs(base_config, "paper")
    assert len({sp.path for sp in specs}) == len(specs)
    n_curves, n_main = len(kom.curves(s)), len(kom.curves(s, variants=False))
    assert n_curves == n_main + 1
    assert len(kom.panel_specs(s)) == len(kom.panels(s)) * n_curves * 10
    assert len(kom.robustness_specs(s)) == 15 * n_main * 2
    # the beta = 0 variant runs on the panels only
    beta0 = [c for c in kom.curves(s) if c.variant][0]
    assert {sp.dataset for sp in specs if sp.param_hash == beta0.param_hash} == set(kom.panels(s))
    # the demo and this experiment share the shards they both need (same seed, same paths)
    from duelbench.experiments.demo import EXPERIMENT as demo

    shared = set(sp.path for sp in specs) & set([s.path for s in demo.shard_specs(base_config, "paper")])
    assert any("/sushi/rucb-" in p for p in shared)


def test_outputs_are_under_the_fidelity_figures_dir(base_config):
    out = experiment.outputs(base_config, "quick")
    assert set(out) == set(experiment.output_files)
    assert all(p.startswith("results/quick/figures/komiyama2016/") for p in out.values())


def test_plan_declares_steps_items_and_samples(base_config):
    p = planning.plan(effective_config(base_config, "quick"), kom.NAME)
    # the package's steps, then the contract's reading-sensitivity step (duelbench.experiments.readings)
    assert [s.name for s in p.steps] == ["bounds", "table1", "aggregate", "figure1", "figure2", "robustness", "checks",
                                         "readings"]
    assert sorted(p.outputs()) == sorted([*experiment.outputs(base_config, "quick").values(),
                                          *p.step("readings").outputs.values()])
    assert {path for item in p.items for path in item.outputs} == set(p.outputs())  # every output is shown
    assert {i.id for i in p.items} >= {"table1", "figure1", "figure2", "bounds", "robustness", "checks"}
    assert all(i.caption for i in p.items)
    assert p.kinds == ("copeland",)
    assert len({sp.path for sp in p.shards}) == len(p.shards) == 10 * 7 + 3 * 6  # panels x curves + draws x algorithms
    family = p.sample_family("table1")
    assert [(sh.a, sh.b) for sh in family] == [(0, 1000), (1000, 2000)]
    assert {sh.datasets for sh in family} == {("mslr_informational",)}  # the parent's sha256 keys the archive
    assert p.step("table1").samples == "table1" and p.step("aggregate").shards
    assert p.step("bounds").inputs["data"] == ["data/mslr/MSLR_Informational_PMat.npz"]
    assert str(data_file("komiyama2016")) in p.step("checks").inputs.values()


# --------------------------------------------------------------------------------------------
# bound constants
# --------------------------------------------------------------------------------------------
def test_bound_tables_equal_a_direct_recomputation(base_config, tmp_path, monkeypatch):
    from duelbench.bounds.ccb import bound_constants_row
    from duelbench.data.registry import load_matrix

    monkeypatch.chdir(tmp_path)
    cfg = offline_config(base_config, bounds={"ccb_main_variant": "ccb_rhs_def36", "matrices": PRINTED})
    out = [str(tmp_path / n) for n in ("b.csv", "w.csv", "d.csv")]
    planning.run_step(kom.NAME, "bounds", cfg, {}, dict(zip(("bounds", "winners", "datasets"), out)))
    rows = read_rows(out[0])
    assert [r["matrix"] for r in rows] == PRINTED  # panels are printed matrices here
    assert list(rows[0]) == kb.bound_columns()
    for r in rows:
        direct = bound_constants_row(load_matrix(r["matrix"]), name=r["matrix"])
        assert list(direct) == list(r)
        for k, v in direct.items():
            got = r[k]
            if isinstance(v, float):
                assert float(got) == v or (math.isnan(v) and math.isnan(float(got))), (r["matrix"], k)
            else:
                assert got == str(v), (r["matrix"], k)
    winners = read_rows(out[1])
    multisol = [w for w in winners if w["matrix"] == "multisol"]
    assert len(multisol) == 3 and len({w["lb_i1"] for w in multisol}) == 1
    ds = {r["dataset"]: r for r in read_rows(out[2])}
    assert ds["sushi"]["has_condorcet_winner"] == "true" and ds["sushi"]["stated_condorcet"] == "true"
    assert ds["gap"]["has_condorcet_winner"] == "false" and ds["gap"]["used_in"] == "bounds;figure1"
    assert ds["mslr5_noncondorcet_printed"]["n_copeland_winners"] == "3"
    for p in out:
        assert (tmp_path / (p + ".json")).is_file()


def test_eq11_rhs_by_hand():
    from duelbench.data.registry import load_matrix
    from duelbench.stats.kl import kl_to_half

    P = load_matrix("cyclic")  # L = (0, 2, 2, 2), Delta = 0.1
    expected = 3 * (1 + 2 / 3) / kl_to_half(0.6)
    assert kb.eq11_rhs(P, 0) == pytest.approx(expected, rel=1e-12)
    assert kb.eq11_rhs(load_matrix("arxiv"), 0) == math.inf  # the printed tie gives Delta = 0


# --------------------------------------------------------------------------------------------
# Table 1
# --------------------------------------------------------------------------------------------
def _table1_shards(tmp_path, base_config, per, tag):
    """The Table-1 sample family computed shard by shard (as the sample_shard jobs do)."""
    from duelbench.experiments.samples import run_sample_shard

    cfg = offline_config(base_config)
    cfg["komiyama2016"]["table1"]["samples_per_shard"] = per
    shards = []
    for sh in experiment.samples(experiment.settings(cfg)):
        sh = dataclasses.replace(sh, path=str(tmp_path / tag / sh.path))
        run_sample_shard(sh.path, sh.job_params())
        shards.append(sh)
    return shards


def _table1(tmp_path, base_config, per, tag):
    return kt.load_samples(_table1_shards(tmp_path, base_config, per, tag), 10)


def test_table1_samples_do_not_depend_on_the_shard_size(base_config, tmp_path, monkeypatch):
    monkeypatch.delenv("DUELBENCH_ARCHIVE", raising=False)  # read the shards just computed
    a = _table1(tmp_path, base_config, 4, "a")
    b = _table1(tmp_path, base_config, 7, "b")
    shards = _table1_shards(tmp_path, base_config, 1, "c")
    c = kt.load_samples(shards, 10)
    pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_frame_equal(a, c)
    assert a["sample"].tolist() == list(range(10))
    subsets = {tuple(r) for r in a[[f"index_{j}" for j in range(6)]].to_numpy()}
    assert len(subsets) > 1  # different samples draw different subsets
    with pytest.raises(ValueError, match="expected 0…9"):
        kt.load_samples(shards[1:], 10)  # a missing shard is noticed


def test_table1_sample_values_are_those_of_the_draw_code(base_config, tmp_path, monkeypatch):
    """Each row is sample i of the recipe: sampling.draw_sample (stream of (seed, i)) and its bound row."""
    from duelbench.bounds.ccb import bound_constants_row
    from duelbench.data.registry import load_matrix
    from duelbench.problems.winners import condorcet_winner

    monkeypatch.delenv("DUELBENCH_ARCHIVE", raising=False)
    df = _table1(tmp_path, base_config, 4, "a")
    job = experiment.samples(experiment.settings(offline_config(base_config)))[0].job
    assert job == {"parent": "sushi", "K": 6, "min_gap": 0.005, "condorcet": None, "seed": 2016}
    for i in (0, 5, 9):
        smp = sampling.draw_sample(load_matrix("sushi"), job, i)
        row = bound_constants_row(smp.matrix, name=str(i))
        got = df.iloc[i]
        assert [int(got[f"index_{j}"]) for j in range(6)] == list(map(int, smp.indices))
        assert [j for j in range(6) if got[f"copeland_{j}"]] == [int(w) for w in row["copeland_winners"].split(";")]
        assert int(got["tries"]) == smp.tries and int(got["K"]) == 6
        assert bool(got["has_condorcet_winner"]) == (condorcet_winner(smp.matrix) is not None)
        for k, v in row.items():
            if isinstance(v, float):
                assert got[k] == v or (math.isnan(v) and math.isnan(got[k])), (i, k)


def test_sample_stream_depends_on_seed_and_index_only():
    x = sampling.sample_rng(2016, 7).integers(0, 2**62, 4)
    assert np.array_equal(x, sampling.sample_rng(2016, 7).integers(0, 2**62, 4))
    assert not np.array_equal(x, sampling.sample_rng(2016, 8).integers(0, 2**62, 4))
    assert not np.array_equal(x, sampling.sample_rng(2017, 7).integers(0, 2**62, 4))


def test_table1_summary_and_published_values(checkout):
    rng = np.random.default_rng(1)
    n = 50
    lb = rng.uniform(100, 200, n)
    df = pd.DataFrame({"lb": lb, "ecwb": lb * 1.1, "tries": rng.integers(1, 5, n),
                       "has_condorcet_winner": rng.random(n) < 0.3, "n_copeland_winners": rng.integers(1, 4, n)})
    from duelbench.bounds.ccb import ccb_variant_names

    for v in ccb_variant_names():
        df[v] = lb * 1000
    rows = {r["quantity"]: r for r in kt.summary(df, "ccb_rhs_def36")}
    assert rows["lb"]["mean"] == pytest.approx(lb.mean())
    assert rows["lb"]["se"] == pytest.approx(lb.std(ddof=1) / math.sqrt(n))
    assert rows["ecwb_over_lb"]["mean"] == pytest.approx(1.1) and rows["ecwb_over_lb"]["se"] == pytest.approx(0, abs=1e-12)
    assert rows["acceptance_rate"]["mean"] == pytest.approx(n / df["tries"].sum())
    assert rows["condorcet_share"]["mean"] == pytest.approx(df["has_condorcet_winner"].mean())
    pub = kt.published_for(load_registry(checkout / "data" / "published" / "komiyama2016.yaml"))
    assert pub["lb"] == (670, "table1_lb_mean") and pub["ecwb"][0] == 730 and pub["ccb_rhs_def36"][0] == 880000
    assert pub["ccb_rhs_def36_over_lb"][0] == 1000 and pub["ecwb_over_lb"][0] == pytest.approx(1.0896)


# --------------------------------------------------------------------------------------------
# statistics on synthetic tables
# --------------------------------------------------------------------------------------------
ALGS = ["random", "rucb", "ccb", "ecw_rmed"]


def _synthetic(base_config, finals: dict, *, runs=20, horizon=1000, ecwb=10.0, slope=10.0):
    """Tables for panels gap (Figure 1) and cyclic (Figure 2) with the given final-regret means."""
    cfg = offline_config(base_config, algorithms=ALGS, figure1=["gap"], figure2=["cyclic"],
                         variants=[{"name": "ecw_rmed", "params": {"beta": 0.0}, "label": "beta0"}],
                         horizon=horizon, runs=runs)
    s = experiment.settings(cfg)
    t = Tables(settings=s)
    rng = np.random.default_rng(0)
    rows = []
    for c in kom.curves(s):
        for d in ("gap", "cyclic"):
            mean = finals.get((d, c.label), finals.get(c.name, 50.0))
            for r, (v, sl) in enumerate(zip(rng.normal(mean, 1.0, runs), rng.normal(slope, 0.5, runs))):
                rows.append({"dataset": d, "study": "panel", "algorithm": c.name, "label": c.label,
                             "param_hash": c.param_hash, "variant": c.variant, "horizon": horizon, "run": r,
                             "final": v, "slope": sl})
    t.finals = pd.DataFrame(rows)
    ts = np.unique(np.geomspace(1, horizon, 40).astype(int))
    ecw = [c for c in kom.curves(s) if c.name == "ecw_rmed" and not c.variant][0]
    t.regret = pd.DataFrame({"dataset": "gap", "algorithm": "ecw_rmed", "label": "ECW-RMED", "param_hash": ecw.param_hash,
                             "variant": False, "t": ts, "mean": 3.0 + slope * np.log(ts), "stderr": 0.1, "n_runs": runs})
    t.bounds = {d: {"matrix": d, "lb": "5.0", "ecwb": repr(ecwb)} for d in ("gap", "cyclic")}
    return t


def _registry(*checks):
    base = {"kind": "published", "item": "Figure 1", "description": "d", "gate": "full"}
    return {"paper": "komiyama2016", "checks": [{**base, "id": f"c{i}", **c} for i, c in enumerate(checks)]}


ORDER = {"estimator": "mean_ratio", "region": {"below": 1}, "min_runs": 10}


def test_ordering_checks_pass_fail_and_inconclusive(base_config):
    t = _synthetic(base_config, {"ecw_rmed": 10.0, "ccb": 40.0, "rucb": 40.0, "random": 100.0})
    w = ORDER
    reg = _registry({**w, "statistic": "order:gap:ecw_rmed:ccb"},  # pass
                    {**w, "statistic": "order:gap:ccb:ecw_rmed"},  # fail
                    {**w, "statistic": "order:gap:ccb:rucb"},  # inconclusive (equal means)
                    {**w, "statistic": "order:sushi:ecw_rmed:ccb"},  # not a panel here
                    {**w, "statistic": "order:gap:ecw_rmed:rmed1"},  # rmed1 not configured
                    {**w, "region": {"below": 1 / 3}, "statistic": "order:gap:ecw_rmed:best_other"},  # 10 < 40/3
                    {**w, "region": {"above": 1}, "statistic": "order:cyclic:random:ecw_rmed"})
    res = kc.evaluate_all(t, reg)
    assert [r.outcome for r in res] == ["pass", "fail", "inconclusive", "inconclusive", "inconclusive", "pass", "pass"]
    assert "not a Figure 1-2 panel at fidelity smoke" in res[3].evidence
    assert "'rmed1' is not in komiyama2016.algorithms" in res[4].evidence
    assert "best other = " in res[5].evidence
    # the reproduced value of a "c times" claim is mean A / mean B, not A / (c B)
    assert res[5].row()["estimate"] and float(res[5].row()["estimate"]) == pytest.approx(10 / 40, rel=0.05)
    assert res[2].row()["runs_to_decide"] != ""
    few = _synthetic(base_config, {"ecw_rmed": 10.0, "ccb": 40.0}, runs=4)
    r = kc.evaluate_all(few, _registry({**w, "statistic": "order:gap:ecw_rmed:ccb"}))[0]
    assert r.outcome == "inconclusive" and "only 4 runs" in r.evidence and "A = ecw_rmed, B = ccb" in r.evidence


def test_ordering_against_every_other_algorithm(base_config):
    """``order:<d>:<A>:others``: one component per other algorithm, every one must hold (combine all)."""
    third = {**ORDER, "region": {"below": 1 / 3}, "combine": "all", "statistic": "order:gap:ecw_rmed:others"}
    t = _synthetic(base_config, {"ecw_rmed": 10.0, "ccb": 40.0, "rucb": 45.0, "random": 100.0})
    m = kc.measure(t, "order:gap:ecw_rmed:others")
    assert [lab for lab, _ in m.components] == ["ecw_rmed / random", "ecw_rmed / rucb", "ecw_rmed / ccb"]
    r = kc.evaluate_all(t, _registry(third))[0]
    assert r.outcome == "pass" and float(r.row()["estimate"]) == pytest.approx(0.25, rel=0.05)  # the binding one: CCB
    close = _synthetic(base_config, {"ecw_rmed": 10.0, "ccb": 20.0, "rucb": 45.0, "random": 100.0})
    r = kc.evaluate_all(close, _registry(third))[0]
    assert r.outcome == "fail" and "ecw_rmed / ccb: 0.5" in r.evidence
    assert isinstance(kc.measure(t, "order:gap:rmed1:others"), kc.Missing)


def test_best_other_excludes_ecw_and_a(base_config):
    t = _synthetic(base_config, {"ecw_rmed": 1.0, "ccb": 30.0, "rucb": 20.0, "random": 100.0})
    assert kc.best_other(t, "gap", exclude=["ecw_rmed"])[0] == "rucb"
    assert kc.best_other(t, "gap", exclude=["rucb"])[0] == "ccb"


def test_beta0_and_slope_statistics(base_config):
    t = _synthetic(base_config, {("gap", "ECW-RMED"): 100.0, ("gap", "beta0"): 110.0}, ecwb=10.0, slope=12.0)
    m = kc.measure(t, "beta0:max_rel_diff")
    assert m.value == pytest.approx(0.1, abs=0.02)
    (label, comp), = kc.measure(t, "beta0:ratios").components
    assert label == "gap" and np.mean(comp.a) / np.mean(comp.b) == pytest.approx(1.1, abs=0.02)
    slope, ecwb, ratio = kc.slope_ratio(t, "gap")
    assert slope == pytest.approx(12.0) and ratio == pytest.approx(1.2)
    assert kc.measure(t, "slope:fraction_within_factor2").value == 1.0
    (label, comp), = kc.measure(t, "slope:ecwb_ratios").components
    assert label == "gap" and comp.value == pytest.approx(1.2, abs=0.05) and 0 < comp.se < 0.05 and comp.df == 19
    far = _synthetic(base_config, {}, ecwb=10.0, slope=25.0)
    assert kc.measure(far, "slope:fraction_within_factor2").value == 0.0
    reg = _registry({"estimator": "mean_ratio", "region": {"between": [1 / 1.2, 1.2]}, "combine": "all",
                     "statistic": "beta0:ratios"},
                    {"estimator": "normal", "region": {"between": [0.5, 2.0]}, "combine": {"at_least": 1},
                     "statistic": "slope:ecwb_ratios"})
    assert [r.outcome for r in kc.evaluate_all(t, reg)] == ["pass", "pass"]
    assert [r.outcome for r in kc.evaluate_all(far, reg)] == ["pass", "fail"]
    wide = _synthetic(base_config, {("gap", "ECW-RMED"): 100.0, ("gap", "beta0"): 130.0})
    assert kc.evaluate_all(wide, reg)[0].outcome == "fail"
    # without the variant the beta = 0 statistic is not produced; without the slope column neither is the slope
    t.settings = {**t.settings, "variants": []}
    assert kc.evaluate_all(t, reg)[0].outcome == "inconclusive"
    t.finals = t.finals.drop(columns="slope")
    assert kc.evaluate_all(t, reg)[1].outcome == "inconclusive"


def test_an_extension_is_judged_on_its_fresh_runs_only(base_config):
    """``check_runs_from``: the panel statistics read runs check_runs_from .. runs - 1 only."""
    t = _synthetic(base_config, {"ecw_rmed": 10.0, "ccb": 40.0}, runs=30)
    f = t.finals
    old = f["run"] < 10  # the first 10 runs say the opposite
    f.loc[old & (f["algorithm"] == "ecw_rmed"), "final"] = 1000.0
    t.settings = {**t.settings, "runs": 30, "check_runs_from": 10}
    a = kc.final_samples(t, "gap", "ecw_rmed")
    assert a.size == 20 and a.max() < 100
    r = kc.evaluate_all(t, _registry({**ORDER, "statistic": "order:gap:ecw_rmed:ccb"}))[0]
    assert r.outcome == "pass" and "n = 20/20" in r.evidence
    t.settings = {**t.settings, "check_runs_from": 0}
    assert kc.evaluate_all(t, _registry({**ORDER, "statistic": "order:gap:ecw_rmed:ccb"}))[0].outcome != "pass"
    with pytest.raises(ConfigError, match="check_runs_from"):
        kom.check_settings({**experiment.settings(base_config, "smoke"), "check_runs_from": 2})  # smoke runs = 2


def test_too_few_components_for_at_least_k_is_not_produced(base_config):
    t = _synthetic(base_config, {}, ecwb=10.0, slope=12.0)  # one Figure-1 panel
    reg = _registry({"estimator": "normal", "region": {"between": [0.5, 2.0]}, "combine": {"at_least": 3},
                     "statistic": "slope:ecwb_ratios"})
    r = kc.evaluate_all(t, reg)[0]
    assert r.outcome == "inconclusive" and "the claim needs at least 3" in r.evidence


def test_the_fresh_run_extension_adds_only_new_runs_of_ecw_and_ccb_on_gap(base_config):
    from duelbench.experiments import readings as rd

    r = rd.find(base_config, "komiyama2016", "gap_fresh_runs")
    s = experiment.settings(rd.reading_config(base_config, r), "paper")
    assert (s["runs"], s["check_runs_from"], s["figure1"]) == (300, 100, ["gap"])
    main = {sp.path for sp in planning.plan(base_config, "komiyama2016").shards}
    new = [sp for sp in planning.plan(base_config, "komiyama2016", "gap_fresh_runs").shards if sp.path not in main]
    assert {(sp.dataset, sp.algorithm) for sp in new} == {("gap", "ccb"), ("gap", "ecw_rmed")}
    assert min(int(sp.path.rsplit("runs-", 1)[1].split("-")[0]) for sp in new) == 100 and len(new) == 40


def test_run_slopes_fit_each_run_over_the_last_decade():
    from duelbench.experiments.komiyama2016.regret import run_slopes

    t = np.array([1, 10, 100, 1000, 2000, 5000, 10000])
    y = np.vstack([3.0 * np.log(t) + 1.0, 5.0 * np.log(t) - 2.0])
    y[:, :3] = 0.0  # points before T/10 do not count
    assert run_slopes(t, y, 10000) == pytest.approx([3.0, 5.0])
    assert np.isnan(run_slopes(t, y, 100000)).all()  # a single checkpoint in [T/10, T]
    rng = np.random.default_rng(3)
    noisy = y + rng.normal(0, 1, y.shape)
    sel = t >= 1000
    mean_curve = np.polyfit(np.log(t[sel]), noisy.mean(axis=0)[sel], 1)[0]
    assert run_slopes(t, noisy, 10000).mean() == pytest.approx(mean_curve)  # mean of slopes = slope of the mean


def test_theory_statistics(base_config):
    t = _synthetic(base_config, {})
    t.bounds = {"gap": {"lb": "11.0", "ecwb": "1252.0"}, "cyclic": {"lb": "3.0", "ecwb": "3.0"},
                "multisol": {"lb": "3.2", "ecwb": "3.2"}}
    w = lambda m, i, lb, e, rhs="1e9": {"matrix": m, "winner": str(i), "lb_i1": lb, "ecwb_i1": e, "eq11_rhs": rhs}
    t.winners = {"gap": [w("gap", 0, "11.0", "1252.0")], "cyclic": [w("cyclic", 0, "3.0", "3.0")],
                 "multisol": [w("multisol", i, "3.2", "3.2") for i in range(3)]}
    assert kc.measure(t, "theory:ecwb_ge_lb_all_panels").value is True
    assert kc.measure(t, "theory:lb_le_ecwb_all_panels").value is True
    assert kc.measure(t, "theory:ecwb_eq_lb_when_multiple_winners").value is True
    assert kc.measure(t, "bounds:multisol:three_winners_equal_lb").value is True
    assert kc.measure(t, "bounds:gap:ecwb_over_lb").value == pytest.approx(1252 / 11)
    assert isinstance(kc.measure(t, "bounds:sushi:ecwb_over_lb"), kc.Missing)
    t.winners["multisol"][1] = w("multisol", 1, "3.2", "3.3")
    assert kc.measure(t, "theory:ecwb_eq_lb_when_multiple_winners").value is False
    t.winners["cyclic"] = [w("cyclic", 0, "3.0", "2.9")]
    m = kc.measure(t, "theory:ecwb_ge_lb_all_panels")
    assert m.value is False and "cyclic i1=0" in m.evidence
    t.bounds["gap"]["ecwb"] = "10.0"
    assert kc.measure(t, "theory:lb_le_ecwb_all_panels").value is False
    # eq. (11) on bounds.matrices (PRINTED): a missing matrix is not produced, a violation fails
    assert isinstance(kc.measure(t, "theory:eq11_holds_printed"), kc.Missing)
    t.winners = {m: [w(m, 0, "1", "2", "3")] for m in PRINTED}
    assert kc.measure(t, "theory:eq11_holds_printed").value is True
    t.winners["sushi"] = [w("sushi", 0, "1", "4", "3")]
    assert kc.measure(t, "theory:eq11_holds_printed").value is False
    # no matrix with two winners: inconclusive, not a pass
    reg = _registry({"estimator": "exact", "region": {"is": True}, "kind": "theory",
                     "statistic": "theory:ecwb_eq_lb_when_multiple_winners"})
    assert kc.evaluate_all(t, reg)[0].outcome == "inconclusive"


def test_condorcet_status_and_unknown_statistics(base_config):
    t = _synthetic(base_config, {})
    t.datasets = {"gap": {"stated_condorcet": "false", "has_condorcet_winner": "false", "stated_source": "L303"}}
    reg = _registry({"estimator": "exact", "region": {"is": True}, "statistic": "datasets:condorcet_status_as_stated"},
                    {"estimator": "exact", "region": {"is": True}, "statistic": "nonsense:stat"},
                    {"estimator": "normal", "region": {"printed": 670, "half_unit": 5, "factor": 1.03},
                     "statistic": "table1:lb:mean"})
    res = kc.evaluate_all(t, reg)
    assert [r.outcome for r in res] == ["pass", "inconclusive", "inconclusive"]
    assert "unknown statistic" in res[1].evidence and "table1.csv not available" in res[2].evidence
    t.datasets["gap"]["has_condorcet_winner"] = "true"
    assert kc.evaluate_all(t, reg)[0].outcome == "fail"
    t.table1 = {"lb": {"quantity": "lb", "n": "10", "mean": "671.0", "se": "2.0", "median": "600.0"}}
    assert kc.evaluate_all(t, reg)[2].outcome == "pass"
    t.table1["lb"]["mean"] = "700.0"  # above (675 x 1.03 = 695.25) by more than the interval
    assert kc.evaluate_all(t, reg)[2].outcome == "fail"
    t.table1["lb"]["mean"] = "695.0"  # the interval crosses the region's upper end
    assert kc.evaluate_all(t, reg)[2].outcome == "inconclusive"


def test_every_registry_statistic_is_understood(checkout, base_config):
    """No statistic of the registry falls through to 'unknown statistic'."""
    reg = load_registry(checkout / "data" / "published" / "komiyama2016.yaml")
    t = Tables(settings=experiment.settings(base_config, "paper"))
    for c in reg["checks"]:
        m = kc.measure(t, c["statistic"])
        assert "unknown" not in m.evidence and "malformed" not in m.evidence, (c["id"], m.evidence)


def test_robustness_selects_the_sample_orderings_by_estimator(checkout):
    """The robustness study re-tests every ``order:`` check decided on per-run samples (not the
    Table-1, bound or theory checks), each with its own region."""
    reg = load_registry(checkout / "data" / "published" / "komiyama2016.yaml")
    claims = kr.ordering_claims(reg)
    ids = {c["id"] for c, *_ in claims}
    orders = {c["id"] for c in reg["checks"] if c["statistic"].startswith("order:")}
    assert ids == orders and len(ids) > 30
    by = {c["id"]: (c, d, a, b) for c, d, a, b in claims}
    assert by["c14_ecw_third_of_others_mslr16_ncw"][1:] == ("kom_mslr16_noncondorcet", "ecw_rmed", "others")
    assert by["c12_rucb_not_better_gap"][0]["_region"].lower == 1.0


def test_robustness_rows_use_the_declared_region(base_config):
    t = _synthetic(base_config, {"ecw_rmed": 10.0, "ccb": 40.0, "rucb": 45.0, "random": 100.0})
    t.finals = t.finals.assign(study="robustness", dataset=t.finals["dataset"].map({"gap": "gap_r1", "cyclic": "x"}))
    t.settings = {**t.settings, "robustness": {"horizon": 1000, "runs": 20, "datasets": ["gap_r1"]}}
    reg = _registry({**ORDER, "statistic": "order:gap:ecw_rmed:ccb"},
                    {**ORDER, "region": {"below": 1 / 3}, "combine": "all", "statistic": "order:gap:ecw_rmed:others"})

    kr_panel = kr.robustness_panel_of
    try:
        kr.robustness_panel_of = lambda ds, claims: ["gap"] if ds == "gap_r1" else []
        rows = kr.robustness_rows(t, reg)
    finally:
        kr.robustness_panel_of = kr_panel
    assert [(r["claim_id"], r["region"], r["outcome"]) for r in rows] == [("c0", "< 1.000", "pass"),
                                                                         ("c1", "< 0.3333", "pass")]
    assert rows[1]["algorithm_b"] == "ccb" and rows[1]["estimate"] == pytest.approx(0.25, rel=0.05)
    md = kr.robustness_markdown(rows, t.settings)
    assert "| c1 | ecw_rmed / others < 0.3333 | pass (B = ccb) | 1 / 0 / 0 |" in md


def test_robustness_datasets_map_to_the_panel_of_their_recipe():
    claims = ["kom_mslr16_condorcet", "kom_mslr16_noncondorcet", "kom_mslr64_noncondorcet", "sushi"]
    assert kr.robustness_panel_of("kom_mslr16_condorcet_r3", claims) == ["kom_mslr16_condorcet"]
    assert kr.robustness_panel_of("kom_mslr64_noncondorcet_r1", claims) == ["kom_mslr64_noncondorcet"]
    assert kr.robustness_panel_of("sushi", claims) == []


# --------------------------------------------------------------------------------------------
# replication status
# --------------------------------------------------------------------------------------------
def test_replication_status_from_checks_csv(tmp_path):
    from duelbench.report.checks import Measurement, evaluate, write_checks_csv
    from duelbench.report.status import read_csv_rows, write_replication_status

    def chk(i, item, kind="published"):
        return {"id": f"k{i}", "kind": kind, "item": item, "description": "d", "statistic": "s", "estimator": "exact",
                "region": {"is": True}, "gate": "full"}

    results = [evaluate(chk(0, "Table 1"), Measurement(True), "paper"),
               evaluate(chk(1, "Table 1"), Measurement(False), "paper"),
               evaluate(chk(2, "Figure 1"), Measurement(None, evidence="panel missing"), "paper"),
               evaluate(chk(3, "Figure 2"), Measurement(True), "paper"),
               evaluate(chk(4, "Theorem 6", "theory"), Measurement(True), "paper")]
    path = tmp_path / "figures" / "paperx" / "checks.csv"
    write_checks_csv(results, path)
    out = tmp_path / "figures" / "replication_status.csv"
    write_replication_status([str(path)], str(out), fidelity="paper")
    rows = {r["item"]: r for r in read_csv_rows(out)}
    assert set(rows) == {"Table 1", "Figure 1", "Figure 2"}  # theory items are not published items
    assert rows["Table 1"]["paper"] == "paperx" and rows["Table 1"]["status"] == "partly_replicated"
    assert "failed: k1" in rows["Table 1"]["note"]
    assert rows["Figure 1"]["status"] == "inconclusive" and "inconclusive: k2" in rows["Figure 1"]["note"]
    assert rows["Figure 2"]["status"] == "replicated" and rows["Figure 2"]["note"] == ""
    assert (tmp_path / "figures" / "replication_status.csv.json").is_file()
    write_replication_status([str(path)], str(out), fidelity="quick")
    assert read_csv_rows(out)[0]["note"].startswith("fidelity quick")

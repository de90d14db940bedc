"""Wu & Liu (2016): the experiment's settings, shards and statistics, without simulating.

The statistics are computed on small hand-made tables whose answers are known; the matrix facts
and Assumptions 1-2 on the panels' matrices of the configuration (W1)."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest
import yaml

from duelbench.config import ConfigError, effective_config
from duelbench.experiments.wu2016 import EXPERIMENT as experiment
from duelbench.experiments.wu2016 import config as w
from duelbench.experiments.wu2016 import checks, figure2

from _checkout_copy import CHECKOUT

pytestmark = pytest.mark.filterwarnings("ignore::duelbench.problems.matrix.TiedPairWarning")


@pytest.fixture(scope="module")
def config():
    with open(CHECKOUT / "config" / "config.yaml") as fh:
        return yaml.safe_load(fh)


def settings(config, fidelity="paper", **section):
    cfg = copy.deepcopy(config)
    cfg["wu2016"].update(section)
    return experiment.settings(effective_config(dict(cfg, fidelity=fidelity)))


def test_declared_panels_runs_and_savage_per_panel(config):
    s = settings(config)
    assert int(s["runs"]) == 500  # L898
    assert {p: (s["panels"][p]["dataset"], int(s["panels"][p]["horizon"])) for p in w.PANELS} == {
        "condorcet": ("mslr5_condorcet", 10**6), "noncondorcet": ("mslr5_noncondorcet", 10**7)}
    names = {p: [e.name for e in w.panel_curves(s, p)] for p in w.PANELS}
    assert "condorcet_savage" in names["condorcet"] and "copeland_savage" not in names["condorcet"]
    assert "copeland_savage" in names["noncondorcet"] and "condorcet_savage" not in names["noncondorcet"]
    assert all(len(n) == 11 for n in names.values())  # D-TS, D-TS+ and nine baselines (L892-L893)
    assert w.figure2_time(s) == 10**6


def test_every_curve_is_split_into_shards_of_its_panel(config):
    s = settings(config, "smoke")
    specs = experiment.shards(s)
    per = {(sp.dataset, sp.algorithm): sp.horizon for sp in specs}
    assert len(per) == 22
    assert {h for (d, _), h in per.items() if d == s["panels"]["noncondorcet"]["dataset"]} == {4000}
    assert len({sp.path for sp in specs}) == len(specs)


def test_settings_errors_name_the_key(config):
    with pytest.raises(ConfigError, match="wu2016.panels.condorcet.skip"):
        settings(config, panels={**config["wu2016"]["panels"],
                                 "condorcet": {"dataset": "mslr5_condorcet", "horizon": 10, "skip": ["nope"]}})
    with pytest.raises(ConfigError, match="skip all but one SAVAGE"):
        settings(config, panels={**config["wu2016"]["panels"],
                                 "condorcet": {"dataset": "mslr5_condorcet", "horizon": 10}})
    with pytest.raises(ConfigError, match="figure2.shown"):
        settings(config, figure2={"t": 10, "shown": ["random"]})


def test_matrix_facts_and_assumptions_on_the_declared_matrices(config, mslr_mirror):
    s = settings(config)
    three = checks.facts(s, "noncondorcet", "three_winners_zeta_3_4")
    assert three.value is True, three.evidence
    assert checks.facts(s, "condorcet", "has_condorcet_winner").value is True
    assert checks.facts(s, "noncondorcet", "has_condorcet_winner").value is False
    a = checks.assumptions(s)
    assert a.value is True and "L_C = 1" in a.evidence and "L_C = 0" in a.evidence


def test_assumption_flags_on_hand_made_matrices():
    ok = np.array([[0.5, 0.6, 0.7], [0.4, 0.5, 0.8], [0.3, 0.2, 0.5]])
    assert checks.assumption_flags(ok) == (True, True, 0)
    tie = ok.copy()
    tie[0, 1], tie[1, 0] = 0.5, 0.5  # p_01 = 1/2: Assumption 1 fails
    assert checks.assumption_flags(tie)[0] is False
    # arm 3 (not a winner, L_C = 0): its superiors 0, 1, 2 with p_03 = 0.9 > p_13 = p_23 = 0.8 holds;
    # arm 2 with p_02 = p_12 = 0.7 at the top ties the first and second superiors: Assumption 2 fails
    P = np.array([[0.5, 0.6, 0.7, 0.9], [0.4, 0.5, 0.7, 0.8], [0.3, 0.3, 0.5, 0.8], [0.1, 0.2, 0.2, 0.5]])
    a1, a2, lc = checks.assumption_flags(P)
    assert (a1, a2, lc) == (True, False, 0)
    P[1, 2], P[2, 1] = 0.65, 0.35
    assert checks.assumption_flags(P) == (True, True, 0)


def _slopes(curves: pd.DataFrame, runs: int = 30) -> pd.DataFrame:
    """run_slopes.csv of the mean curves ``curves`` (every run on its curve's mean)."""
    from duelbench.experiments.wu2016 import curves as cv

    rows = []
    for (p, a), cur in curves.groupby(["panel", "algorithm"]):
        cur = cur.sort_values("t")
        y = np.tile(cur["mean"].to_numpy(float), (runs, 1))
        key = {"panel": p, "dataset": "x", "algorithm": a, "label": a, "param_hash": "0"}
        rows += cv.run_slopes(key, cur["t"].to_numpy(float), y, range(runs))
    return pd.DataFrame(rows, columns=cv.SLOPE_COLUMNS)


def _traces(s, runs: int = 12) -> pd.DataFrame:
    """traces.csv: on (b) D-TS spreads a(1) evenly over the winners 0, 1, 2 and spends 60 % of its
    regret there; D-TS+ puts a(1) on winner 0; the RUCB bounds remove a candidate in 1 % of steps."""
    rows = []
    for p in w.PANELS:
        for a in ("dts", "dts_plus"):
            for run in range(runs):
                steps = [300.0, 300.0, 300.0, 50.0, 50.0] if a == "dts" else [800.0, 50.0, 50.0, 50.0, 50.0]
                regret = [20.0 + run, 20.0, 20.0, 20.0, 20.0 - run]
                row = {"panel": p, "dataset": "x", "algorithm": a, "label": a, "param_hash": "0", "run": run,
                       "horizon": 1000, "regret": sum(regret), "regret_simulated": sum(regret),
                       "eliminated_steps": 10.0}
                for k in range(5):
                    row[f"first_steps_{k}"], row[f"first_regret_{k}"] = steps[k], regret[k]
                rows.append(row)
    return pd.DataFrame(rows)


def _tables(s):
    """Final regret: D-TS 10 ± small, D-TS+ 10.5, RCS 20, ECW-RMED 14; curves a ln t."""
    rows, curves = [], []
    rng = np.random.default_rng(0)
    means = {"dts": 10.0, "dts_plus": 10.5, "rcs": 20.0, "ecw_rmed": 14.0, "rmed1": 15.0, "rucb": 30.0, "ccb": 31.0,
             "condorcet_savage": 50.0}
    for p in w.PANELS:
        for a, m in means.items():
            for run in range(30):
                for at, t in (("T", 1000), ("figure2", 1000)):
                    rows.append({"panel": p, "dataset": "x", "algorithm": a, "label": a, "param_hash": "0",
                                 "at": at, "t": t, "run": run, "regret": m + rng.normal(0, 0.1)})
            for t in (10, 100, 1000):
                curves.append({"panel": p, "dataset": "x", "algorithm": a, "label": a, "param_hash": "0", "t": t,
                               "mean": m / np.log(1000) * np.log(t), "stderr": 0.1, "n_runs": 30})
    curves = pd.DataFrame(curves)
    return checks.Tables(s, curves, pd.DataFrame(rows), _slopes(curves), _traces(s))


def test_statistics_on_known_tables(config, mslr_mirror):
    from duelbench.report.checks import evaluate

    s = settings(config, "smoke")
    t = _tables(s)
    m = checks.measure(t, "order:condorcet:dts:rcs")
    assert np.mean(m.a) < np.mean(m.b) and "A = dts, B = rcs" in m.evidence
    assert checks.measure(t, "order:condorcet:savage:dts").evidence.endswith("A = condorcet_savage, B = dts")
    rd = checks.measure(t, "reldiff:condorcet:dts_plus:dts")
    assert rd.value == pytest.approx(0.05, abs=0.01) and len(rd.replicates) == 20000 and rd.runs == 30
    sr = checks.measure(t, "slope_ratio:condorcet:dts:rcs")  # per-run slopes, mean ratio 0.5
    assert np.mean(sr.a) / np.mean(sr.b) == pytest.approx(0.5, rel=1e-9)
    lf = checks.measure(t, "log_flatness:condorcet:dts")  # R/ln t flat: paired ratio 1
    assert np.mean(lf.a) / np.mean(lf.b) == pytest.approx(1.0, rel=1e-9) and len(lf.a) == 30
    cl = checks.measure(t, "clusters:condorcet")
    assert len(cl.components) == 12 and all(np.mean(c.a) < np.mean(c.b) for _, c in cl.components)
    lo = checks.measure(t, "label_order:noncondorcet")  # consecutive pairs, lower label over upper
    assert [lab for lab, _ in lo.components] == ["dts/ccb", "ecw_rmed/dts", "dts_plus/ecw_rmed"]
    check = {"id": "x", "kind": "published", "item": "Figure 1", "description": "d", "statistic": "s",
             "gate": "full", "estimator": "mean_ratio", "region": {"below": 1}, "combine": "all"}
    assert evaluate(check, lo, "paper").outcome == "fail"  # ECW-RMED 14 > D-TS 10 here
    so = checks.measure(t, "std_over_ecw:noncondorcet:dts")
    assert so.value == pytest.approx(0.1 / 14, rel=0.5) and len(so.replicates) == 20000
    own = checks.measure(t, "std_over_ecw:noncondorcet:ecw_rmed")
    assert own.value == pytest.approx(np.std(t.samples("noncondorcet", "ecw_rmed", "figure2"), ddof=1) / 14, rel=0.01)
    assert len(checks.measure(t, "std_order:noncondorcet").components) == 2
    el = checks.measure(t, "rucb_elimination")
    assert [lab for lab, _ in el.components] == ["dts condorcet", "dts_plus condorcet", "dts noncondorcet",
                                                  "dts_plus noncondorcet"]
    assert all(c.value == pytest.approx(0.01) for _, c in el.components)
    assert checks.measure(t, "winner_first_min_share:noncondorcet:dts").value == pytest.approx(0.3)
    assert checks.measure(t, "winner_first_min_share:noncondorcet:dts_plus").value == pytest.approx(0.05)
    assert checks.measure(t, "winner_first_regret_share:noncondorcet:dts").value == pytest.approx((60 + 5.5) / 100)
    assert isinstance(checks.measure(t, "order:noncondorcet:sparring:dts"), checks.Missing)
    assert isinstance(checks.measure(t, "order:condorcet:dts"), checks.Missing)  # malformed
    assert isinstance(checks.measure(t, "nonsense:x"), checks.Missing)


def test_bootstrap_replicates_are_seeded_by_the_statistic(config):
    s = settings(config, "smoke")
    a, b = _tables(s), _tables(s)
    x = checks.measure(a, "std_ratio:noncondorcet:dts:ecw_rmed").replicates
    assert np.array_equal(x, checks.measure(b, "std_ratio:noncondorcet:dts:ecw_rmed").replicates)
    assert not np.array_equal(x, checks.measure(a, "std_ratio:noncondorcet:dts_plus:ecw_rmed").replicates)


def test_without_traced_runs_the_traced_statistics_say_why(config):
    s = settings(config, "paper", traces={"runs": 0, "runs_per_shard": 1, "curves": ["dts", "dts_plus"]})
    t = _tables(s)
    t.traces = t.traces.iloc[0:0]
    m = checks.measure(t, "rucb_elimination")
    assert isinstance(m, checks.Missing) and "traces.runs = 0" in m.evidence
    assert not experiment.samples(s)


def test_the_mean_of_run_slopes_is_the_slope_of_the_mean_curve():
    from duelbench.experiments.wu2016 import curves as cv

    rng = np.random.default_rng(1)
    t = np.array([1, 10, 100, 1000, 2000, 5000, 10000, 20000], dtype=float)
    y = np.cumsum(rng.uniform(0, 5, size=(7, t.size)), axis=1)
    rows = cv.run_slopes({"panel": "p"}, t, y, range(7))
    sel, k0 = cv.slope_window(t)
    assert t[k0] == 2000 and sel.tolist() == [False] * 4 + [True] * 4
    mean_slope = np.polyfit(np.log(t[sel]), y.mean(axis=0)[sel], 1)[0]
    assert np.mean([r["slope"] for r in rows]) == pytest.approx(mean_slope, rel=1e-12)


def test_a_traced_run_replays_the_simulated_run(mslr_mirror):
    from duelbench.engine.simulate import simulate
    from duelbench.experiments.wu2016 import traces

    for algorithm in ("dts", "dts_plus"):
        tr = traces.trace_run("mslr5_noncondorcet", algorithm, {}, 3000, 0, 7)
        sim = simulate(algorithm, "mslr5_noncondorcet", 3000, 1, seed=0, run_start=7)
        assert tr["regret"] == sim.regrets["copeland"][0, -1]
        assert sum(tr[f"first_steps_{k}"] for k in range(5)) == 3000
        assert sum(tr[f"first_regret_{k}"] for k in range(5)) == pytest.approx(tr["regret"])
        assert 0 <= tr["eliminated_steps"] <= 3000


def test_registry_kinds_and_regions(config):
    """No legacy test keys; t1 are the suite's theory checks; Figure 2's bars are printed values
    with a relative factor; the label order and the traced claims are declared."""
    from duelbench.report.checks import load_registry

    raw = yaml.safe_load((CHECKOUT / "data" / "published" / "wu2016.yaml").read_text())["checks"]
    assert not [c["id"] for c in raw if set(c) & {"test", "tolerance", "threshold", "factor", "alpha"}]
    reg = {c["id"]: c for c in load_registry(CHECKOUT / "data" / "published" / "wu2016.yaml")["checks"]}
    assert {i for i, c in reg.items() if i.startswith("t1_")} == {i for i, c in reg.items()
                                                                  if i.startswith("t1_") and c["kind"] == "theory"}
    bars = [c for c in reg.values() if c["statistic"].startswith("std_over_ecw") and c.get("published")]
    assert len(bars) == 6 and all(set(c["region"]) == {"printed", "half_unit", "factor"} for c in bars)
    assert reg["n5_label_order_noncondorcet"]["combine"] == "all"
    assert {"f1_rucb_elimination_seldom", "n3_dts_explores_all_winners",
            "n3_dts_regret_while_exploring_winners"} <= set(reg)


def test_every_registry_statistic_is_computed_on_complete_tables(config):
    """Every statistic of the registry is a known name, computed (not Missing) when the tables
    hold every algorithm it needs."""
    from duelbench.report.checks import load_registry

    reg = load_registry(CHECKOUT / "data" / "published" / "wu2016.yaml")
    s = settings(config, "smoke")
    names = {e.name for p in w.PANELS for e in w.panel_curves(s, p)}
    rows, curves = [], []
    for p in w.PANELS:
        for k, a in enumerate(sorted(names)):
            for run in range(3):
                for at in ("T", "figure2"):
                    rows.append({"panel": p, "algorithm": a, "at": at, "run": run, "regret": 10.0 + k + run})
            curves += [{"panel": p, "algorithm": a, "t": t, "mean": (1 + k) * np.log(t)} for t in (10, 100, 1000)]
    curves = pd.DataFrame(curves)
    t = checks.Tables(s, curves, pd.DataFrame(rows), _slopes(curves, runs=3), _traces(s, runs=3))
    missing = {c["statistic"]: m.evidence for c in reg["checks"]
               if isinstance(m := checks.measure(t, c["statistic"]), checks.Missing)}
    assert not missing


def test_figure2_table_reads_the_published_bars_and_both_normalisations(config):
    from duelbench.report.checks import load_registry

    s = settings(config, "smoke")
    t = _tables(s)
    table = figure2.std_table(t.final, s, load_registry(CHECKOUT / "data" / "published" / "wu2016.yaml"))
    row = table[(table["panel"] == "noncondorcet") & (table["algorithm"] == "dts_plus")].iloc[0]
    assert row["published_std_over_ecw"] == pytest.approx(0.1316)
    assert row["std_over_own"] == pytest.approx(row["std"] / row["mean"])
    assert row["std_over_ecw"] == pytest.approx(row["std"] / 14.0, rel=0.01)
    assert row["std_over_ecw_low"] < row["std_over_ecw"] < row["std_over_ecw_high"]
    assert len(table) == 2 * len(s["figure2"]["shown"])

"""The steps of the Chen et al. 2020 studies (duelbench.experiments.chen2020: toy, studies, runtime)
on tiny sample families built in a temporary folder, without snakemake."""

from __future__ import annotations

import copy
import csv
import importlib
import math

import numpy as np
import pytest

from duelbench.experiments.contract import Files, run_harnessed, StepContext
from duelbench.experiments.fits import clopper_pearson, loglog_fit
from duelbench.report.numerics import ols_slope

chen = importlib.import_module("duelbench.experiments.chen2020").EXPERIMENT
studies = importlib.import_module("duelbench.experiments.chen2020.studies")
cells_mod = importlib.import_module("duelbench.experiments.chen2020.cells")

#: The chen2020 section shrunk to one or two cells per study and two runs per cell.
SECTION = {
    "description": "test",
    "seed": 2020,
    "instance_seed": 20200,
    "runs_per_shard": 2,
    "instances": {
        "toy": {"family": "toy"},
        "k32_s05": {"family": "linear_utility", "n": 3, "ell": 2, "s": 0.5},
        "p21": {"family": "planted_condorcet", "n": 2, "ell": 1, "margin": 0.4},
        "lb21": {"family": "linear_utility", "n": 2, "ell": 1, "s": 0.1},
        "p22": {"family": "planted_condorcet", "n": 2, "ell": 2, "margin": 0.1},
    },
    "borda": {"radius_count": "K", "self_duel": "coin", "max_samples": 2_000_000},
    "car": {"oracle": "lp", "schedule": "geometric", "ratio": 1.1, "max_rounds": 1_000_000},
    "pac": {"instances": ["toy"], "eps": [0.1], "delta": [0.1], "runs": 2,
            "biased": {"delta": [0.1], "eps": [0.1]}, "radius_m": {"delta": [], "eps": []},
            "self_duel_half": {"delta": [0.1], "eps": [0.1]}},
    "hardness": {"pac": {"instances": ["toy"], "eps": [0.2, 0.1], "delta": 0.05, "runs": 2},
                 "exact": {"graphs": [[4, 2]], "s": [0.4, 0.5], "draws": 1, "delta": 0.05, "runs": 2,
                           "variant": "V2"}},
    "epochs": {"cells": [{"instance": "toy", "runs": 2}], "variants": ["V0", "V2"], "delta": [0.1]},
    "lower_bounds": {"borda": {"instances": ["lb21"], "delta": [0.05], "runs": 2, "variant": "V2"},
                     "condorcet": {"instances": ["p22"], "delta": [0.05], "runs": 2}},
    "oracles": {"sizes": [[3, 2]], "cases": 2, "exhaustive_limit": 720, "fptas": [[5, 20]], "fptas_max_n": 6},
    "lemma9": {"cells": [{"size": [3, 2], "eps": [3.2, 1.6], "cases": 2}]},
    "car_cond": {"instances": ["p21"], "delta": [0.1, 0.01], "runs": 2,
                 "every_round": {"instances": ["p21"], "delta": [0.1]},
                 "fptas": {"instance": "p21", "delta": 0.1, "runs": 1, "outer": 5, "fw": 20}},
    "parallel": {"instances": ["p21"], "delta": [0.001, 0.000001], "runs": 2,
                 "calibration": {"delta": [0.001, 0.000001], "runs": 1},
                 "out_of_sample": {"instances": [], "delta": [], "runs": 1}},
    "runtime": {"borda_graphs": [[3, 2]], "car_graphs": [[3, 2]], "rounds": 3},
}

COLUMNS = {
    "toy_csv": ["statistic", "value", "evidence", "prediction", "agrees"],
    "instances": ["name", "family", "n", "ell", "m", "K", "matchings", "borda_winner", "delta_min", "H_B", "width",
                  "q_star", "condorcet_winner", "H_ver", "prediction", "agrees"],
    "pac_csv": ["cell", "instance", "label", "eps", "delta", "sampler", "radius_count", "self_duel", "runs", "misses",
                "miss_rate", "cp_low", "cp_high", "exact_rate", "capped", "mean_samples", "se_samples",
                "median_samples", "q25_samples", "q75_samples", "mean_self_duels", "H_eps", "N1", "N1_prime",
                "runs_above_N1", "runs_above_N1_prime", "cp_low_above_N1", "cp_low_above_N1_prime",
                "mean_over_N1", "prediction", "agrees"],
    "hardness_csv": ["part", "cell", "instance", "n", "ell", "s", "draw", "eps", "delta", "runs", "mean_samples",
                     "se_samples", "median_samples", "capped", "exact_rate", "H_B", "H_eps", "x", "prediction",
                     "agrees"],
    "hardness_fits": ["part", "group", "regressor", "method", "slope", "points", "runs", "censored_runs", "excluded",
                      "predicted_low", "predicted_high", "prediction", "agrees"],
    "epochs_csv": ["cell", "instance", "variant", "delta", "runs", "q_star", "N2", "mean_epochs", "max_epochs",
                   "runs_beyond_qstar", "cp_low_beyond_qstar", "capped", "returned", "errors", "cp_low_error",
                   "mean_samples", "median_samples", "mean_samples_through_qstar", "runs_above_N2",
                   "cp_low_above_N2", "prediction", "agrees"],
    "lower_bounds_csv": ["cell", "instance", "theorem", "algorithm", "delta", "runs", "errors", "capped",
                         "mean_samples", "se_samples", "gamma_low", "gamma", "bound", "mean_over_bound", "H_B",
                         "condorcet_outside_term", "prediction", "agrees"],
    "lemma9_csv": ["n", "ell", "m", "K", "eps", "T", "eta", "cases", "matchings", "mean_error", "max_error",
                   "zero_error_cases", "max_error_over_eps", "bound_2lK_over_sqrtT", "max_error_over_bound",
                   "prediction", "agrees"],
    "oracles_csv": ["n", "ell", "m", "K", "oracle", "cases", "compared", "mean_error", "max_error", "max_above_opt",
                    "mean_calls", "within_0.1", "within_0.05", "paper_calls_eps_0.1", "prediction", "agrees"],
    "car_cond_csv": ["cell", "instance", "label", "delta", "runs", "errors", "cp_low_error", "capped",
                     "mean_samples", "se_samples", "median_samples", "mean_rounds", "mean_checks",
                     "mean_oracle_calls", "max_calls_per_check", "m", "N4", "runs_above_N4", "cp_low_above_N4",
                     "H4", "prediction", "agrees"],
    "car_cond_fits": ["slope", "se", "intercept", "points", "predicted_low", "predicted_high", "prediction", "agrees"],
    "parallel_csv": ["cell", "instance", "algorithm", "delta", "runs", "calibration_runs", "fresh_runs", "errors",
                     "mean_samples", "se_samples", "median_samples", "mean_fresh", "mean_calibration", "H_ver",
                     "pair_term", "prediction", "agrees"],
    "parallel_fits": ["instance", "algorithm", "runs_used", "slope", "points", "predicted", "prediction", "agrees"],
    "runtime_csv": ["kind", "oracle", "n", "ell", "m", "K", "matchings", "seconds", "repeats", "calls", "prediction",
                    "agrees"],
}


def _config(tmp):
    return {"fidelity": "smoke", "results": str(tmp / "results"),
            "fidelities": {"smoke": {"figures": str(tmp / "figures"), "overrides": {}}},
            "chen2020": copy.deepcopy(SECTION)}


def _context(plan, config, step) -> StepContext:
    samples = [sh.path for family in step.families for sh in plan.sample_family(family)]
    return StepContext(plan=plan, config=config, step=step, input=Files({"samples": samples}),
                       output=Files(dict(step.outputs)))


def _run(plan, config, name):
    step = plan.step(name)
    run_harnessed(step.function, _context(plan, config, step))
    return step


def _rows(path):
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        return reader.fieldnames, list(reader)


STEPS = ("toy", "pac", "hardness", "epochs", "lower_bounds", "oracles", "lemma9", "car_cond", "parallel", "runtime")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Every sample shard computed as the ``sample_shard`` jobs do, then every step but checks."""
    from duelbench.experiments.samples import run_sample_shard

    mp = pytest.MonkeyPatch()
    mp.delenv("DUELBENCH_ARCHIVE", raising=False)  # read the shards just computed
    tmp = tmp_path_factory.mktemp("chen2020")
    config = _config(tmp)
    plan = chen.plan(config)
    for sh in plan.samples:
        run_sample_shard(sh.path, sh.job_params())
    for name in STEPS:
        _run(plan, config, name)
    step = plan.step("checks")
    run_harnessed(step.function, StepContext(plan=plan, config=config, step=step, input=Files(dict(step.inputs)),
                                             output=Files(dict(step.outputs))))
    yield plan, config
    mp.undo()


def test_checks_cover_the_registry_and_compute_every_statistic(built):
    """Every check of the registry is in checks.csv, each statistic computed or missing with a
    stated reason, and the facts that need no sampling hold at any size."""
    from duelbench.report.checks import load_registry

    plan, _ = built
    _, rows = _rows(plan.step("checks").outputs["csv"])
    rows = {r["claim_id"]: r for r in rows}
    registry = load_registry("data/published/chen2020.yaml")
    assert sorted(rows) == sorted(c["id"] for c in registry["checks"])
    assert not [cid for cid, r in rows.items() if "' not computed" in r["evidence"]]
    for cid in ("x0_toy_recovered_uniquely", "x0_toy_figure5_matching", "x0_toy_gprime_copies",
                "x0_toy_winners_differ", "x0_width_example", "x5_lp_equals_enumeration", "x5_fptas_never_above_opt",
                "x6_car_oracle_calls_per_check", "x1_h_eps_limit", "x5_l229", "x4_theorem3_conditions",
                "x4_theorem6_conditions", "x7_hver_below_sum", "x5_lemma9_at_paper_T", "x5_lemma9_rate"):
        assert rows[cid]["outcome"] == "pass", (cid, rows[cid]["evidence"])
    for cid in ("x0_toy_gprime_one_to_n_printed", "x1_h_eps_limit_printed", "x5_l229_printed",
                "x5_lemma7_lipschitz_printed"):  # the printed statements the errata correct
        assert rows[cid]["outcome"] == "fail", (cid, rows[cid]["evidence"])
    for cid in ("x7_parallel_tighter", "x7_prediction_sign", "x7_constant_parallel", "x2_pac_hardness_slope",
                "x6_car_hardness_slope"):  # computed from the runs, with bootstrap intervals
        assert rows[cid]["ci_low"] != "" and "bootstrap" in rows[cid]["method"], (cid, rows[cid]["evidence"])


def test_every_item_shows_outputs_of_the_plan(built):
    plan, _ = built
    outs = set(plan.outputs())
    assert all(set(item.outputs) <= outs for item in plan.items)
    assert {i.id for i in plan.items if i.in_paper} == {"toy", "pac", "hardness", "epochs", "lower_bounds", "oracles",
                                                         "lemma9", "car_cond", "parallel"}


def test_every_output_and_sidecar_exists_with_its_columns(built):
    plan, _ = built
    for name in STEPS:
        step = plan.step(name)
        for key, path in step.outputs.items():
            with open(path, "rb") as fh:
                assert fh.read(8), path
            with open(path + ".json", encoding="utf-8") as fh:
                assert fh.read(1) == "{", path
    for key, cols in COLUMNS.items():
        path = chen.outputs(built[1])[key]
        names, rows = _rows(path)
        assert [c for c in cols if c not in names] == [], key
        assert rows, key
        assert all(r["agrees"] in ("true", "false", "") for r in rows), key


def test_toy_facts(built):
    _, rows = _rows(chen.outputs(built[1])["toy_csv"])
    v = {r["statistic"]: r["value"] for r in rows}
    assert v["toy:unique_assignment"] == "true"
    assert v["toy:assignments_with_printed_scores"] == "1"
    assert v["toy:e1e5_maximum_matching"] == "true"
    assert v["toy:gprime_multiplicity"] == "2"
    assert v["toy:gprime_multiplicity_is_factorial"] == "true"
    assert v["toy:winners_differ"] == "true"
    assert v["toy:borda_winner"] == "e1 e5" and v["toy:condorcet_winner"] == "e2 e5"
    assert v["width_example:width"] == "4"
    assert v["toy:matchings"] == "5"
    scores = dict(p.split(": ") for p in v["toy:borda_scores"].split("; "))
    assert float(scores["e1 e5"]) == pytest.approx(0.64, abs=1e-12)
    assert float(scores["e2 e5"]) == pytest.approx(0.615, abs=1e-12)
    _, inst = _rows(chen.outputs(built[1])["instances"])
    by = {r["name"]: r for r in inst}
    # the named instances and the hardness.exact draws
    assert set(by) == {"toy", "k32_s05", "p21", "lb21", "p22", "k42_s0p4_draw0", "k42_s0p5_draw0"}
    assert by["toy"]["borda_winner"] == "e1 e5" and by["toy"]["condorcet_winner"] == "e2 e5"
    assert by["toy"]["m"] == "5" and by["toy"]["K"] == "4" and by["toy"]["matchings"] == "5"
    assert by["p21"]["borda_winner"] == "" and by["p21"]["H_B"] == "" and by["p21"]["H_ver"] != ""
    assert by["k42_s0p4_draw0"]["matchings"] == "12" and by["k42_s0p4_draw0"]["width"] == "4"


def test_tables_hold_one_row_per_cell_and_labels(built):
    _, config = built
    out = chen.outputs(config)
    s = chen.settings(config)
    _, pac = _rows(out["pac_csv"])
    assert [r["cell"] for r in pac] == [c.name for c in cells_mod.cells(s) if c.study == "pac"]
    assert {r["label"] for r in pac} == {"declared", "biased sampler", "self-duel X = 1/2"}
    for r in pac:
        runs, misses = int(r["runs"]), int(r["misses"])
        assert runs == 2 and float(r["miss_rate"]) == misses / runs
        lo, hi = clopper_pearson(misses, runs)
        assert float(r["cp_low"]) == lo and float(r["cp_high"]) == hi
        assert float(r["N1"]) > float(r["H_eps"]) > 0
    _, car = _rows(out["car_cond_csv"])
    assert {r["label"] for r in car} == {"declared", "every round", "FPTAS oracle"}
    assert all(float(r["max_calls_per_check"]) <= 4 * int(r["m"]) for r in car)  # 4|U| calls per check
    _, fits = _rows(out["hardness_fits"])
    main = [f for f in fits if f["group"].startswith("all")]
    assert [f["part"] for f in main] == ["pac", "exact"]
    assert [(f["predicted_low"], f["predicted_high"]) for f in main] == [("0.6", "1.4"), ("1.5", "2.6")]
    assert {f["group"] for f in fits if f["part"] == "pac"} >= {"toy"}
    _, orc = _rows(out["oracles_csv"])
    assert [r["oracle"] for r in orc] == ["lp_vs_exhaustive", "fptas_5_20_paper", "fptas_5_20_diameter"]
    assert orc[0]["compared"] == "2" and float(orc[0]["max_error"]) < 1e-7 and orc[0]["agrees"] == "true"
    assert all(float(r["max_above_opt"]) < 1e-7 for r in orc[1:])
    assert len({r["paper_calls_eps_0.1"] for r in orc}) == 1
    _, pf = _rows(out["parallel_fits"])
    assert [(f["instance"], f["algorithm"], f["runs_used"]) for f in pf] == [
        ("p21", "car_cond", "calibration"), ("p21", "car_parallel", "calibration"), ("p21", "comparison", "calibration"),
        ("p21", "car_cond", "fresh"), ("p21", "car_parallel", "fresh"), ("p21", "comparison", "fresh")]
    _, par = _rows(out["parallel_csv"])
    assert all((int(r["calibration_runs"]), int(r["fresh_runs"])) == (1, 1) for r in par)
    _, lb = _rows(out["lower_bounds_csv"])
    assert [r["theorem"] for r in lb] == ["Theorem 3", "Theorem 6"]
    assert all(float(r["mean_over_bound"]) > 1 and r["agrees"] == "true" for r in lb)
    _, l9 = _rows(out["lemma9_csv"])
    assert [(r["eps"], r["T"]) for r in l9] == [("3.2", "225"), ("1.6", "900")]
    assert all(r["agrees"] == "true" for r in l9)
    _, ep = _rows(out["epochs_csv"])
    for r in ep:
        assert int(r["returned"]) + int(r["capped"]) == int(r["runs"])


def test_rerun_is_byte_identical(built):
    plan, config = built
    for name in STEPS:
        if name == "runtime":  # host-dependent timings
            continue
        step = plan.step(name)
        before = {p: open(p, "rb").read() for p in step.outputs.values()}
        _run(plan, config, name)
        for p, data in before.items():
            assert open(p, "rb").read() == data, p


def test_clopper_pearson_by_hand():
    from scipy.stats import binom

    a = 0.05  # the contract's 95 % interval
    lo, hi = clopper_pearson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(1 - (a / 2) ** (1 / 10), rel=1e-12)
    lo, hi = clopper_pearson(10, 10)
    assert hi == 1.0 and lo == pytest.approx((a / 2) ** (1 / 10), rel=1e-12)
    lo, hi = clopper_pearson(3, 20)
    assert binom.sf(2, 20, lo) == pytest.approx(a / 2, rel=1e-9)   # P(X >= 3 | p = low) = 2.5%
    assert binom.cdf(3, 20, hi) == pytest.approx(a / 2, rel=1e-9)  # P(X <= 3 | p = high) = 2.5%
    l2, h2 = clopper_pearson(17, 20)
    assert (l2, h2) == pytest.approx((1 - hi, 1 - lo), rel=1e-12)
    assert all(math.isnan(v) for v in clopper_pearson(0, 0))


def test_fits_recover_a_known_slope():
    x = np.geomspace(1.0, 1e4, 9)
    fit = loglog_fit(x, 3.0 * x ** 1.7)
    assert fit["slope"] == pytest.approx(1.7, abs=1e-12) and fit["intercept"] == pytest.approx(math.log(3.0))
    assert fit["points"] == 9 and fit["se"] < 1e-10
    rng = np.random.default_rng(5)
    noisy = loglog_fit(x, 3.0 * x ** 1.7 * np.exp(rng.normal(0, 0.1, x.size)))
    assert abs(noisy["slope"] - 1.7) < 4 * noisy["se"] and noisy["se"] > 0
    assert ols_slope([1.0, 2.0, 3.0, 4.0], [5.0, 7.0, 9.0, 11.0]) == pytest.approx(2.0)
    assert math.isnan(ols_slope([2.0, 2.0], [1.0, 3.0]))  # no two distinct x: no slope
    assert math.isnan(loglog_fit([1.0, 2.0], [1.0, 2.0])["se"])  # two points: no standard error
    assert math.isnan(loglog_fit([1.0], [1.0])["slope"])


def test_hardness_fit_on_synthetic_cells_censors_capped_runs():
    """Cells whose runs take c * H_eps ln(H_eps/delta) samples give slope 1 within the instance; a
    capped run is a censored observation (its cell stays in the fit)."""
    s = chen.settings(_config_path_free())
    base = [c for c in cells_mod.cells(s) if c.study == "hardness" and c.job["algorithm"] == "pac"][0]
    loaded = []
    for k, eps in enumerate([0.2, 0.1, 0.05, 0.025, 0.0125]):
        job = {**base.job, "eps": eps}
        cell = cells_mod.Cell("hardness", f"pac_toy_eps{eps}", job, 3)
        loaded.append((cell, None))
    rows0, _ = studies.hardness_table(s, [(c, _fake(3, 1.0, 0)) for c, _ in loaded])
    xs = [r["x"] for r in rows0]
    fake = [(c, _fake(3, 7.0 * x, 0)) for c, x in zip([c for c, _ in loaded], xs)]
    rows, fits = studies.hardness_table(s, fake)
    (fit,) = [f for f in fits if f["part"] == "pac" and f["group"].startswith("all")]
    assert fit["slope"] == pytest.approx(1.0, abs=1e-9) and fit["points"] == 5 and fit["censored_runs"] == 0
    assert fit["agrees"] is True and "OLS" in fit["method"]
    cap = float(s["borda"]["max_samples"])
    capped = fake[:4] + [(fake[4][0], {**fake[4][1], "samples": np.array([cap, 7.0 * xs[4], 7.0 * xs[4]]),
                                       "capped": np.array([1.0, 0.0, 0.0])})]
    rows, fits = studies.hardness_table(s, capped)
    (fit,) = [f for f in fits if f["part"] == "pac" and f["group"].startswith("all")]
    assert fit["censored_runs"] == 1 and fit["points"] == 5 and "censored" in fit["method"]
    assert rows[4]["capped"] == 1 and "censored in the fit" in rows[4]["prediction"]


def _fake(runs, samples, capped):
    return {"samples": np.full(runs, float(samples)), "capped": np.array([capped] + [0] * (runs - 1), float),
            "exact": np.ones(runs), "eps_optimal": np.ones(runs), "sample": np.arange(runs)}


def _config_path_free():
    from pathlib import Path

    return _config(Path("/nonexistent-chen2020-test"))

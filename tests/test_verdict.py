"""The statistics contract (duelbench.report.verdict) on synthetic data: the interval decides
(inside passes, outside fails, across is inconclusive from either side), for every estimator;
regions; Holm's adjustment; the runs that would decide; combined claims; determinism."""

from __future__ import annotations

import math

import numpy as np
import pytest

from duelbench.report import verdict as V
from duelbench.report.checks import Measurement, RegistryError, adjust, evaluate, load_registry, status_rows


def _check(**kw):
    base = {"id": "x", "kind": "published", "item": "Figure 1", "description": "d", "statistic": "s", "gate": "full",
            "quote": "q", "lines": "L1"}
    return {**base, **kw}


# ---------------------------------------------------------------------------- one boundary
@pytest.mark.parametrize("region", [{"below": 1.0}, {"above": 1.0}])
def test_normal_interval_inside_outside_and_across_from_both_sides(region):
    r = V.parse_region(region)
    inside, outside = (0.8, 1.2) if "below" in region else (1.2, 0.8)
    assert V.decide(V.normal_estimate(inside, 0.05), r).verdict == "pass"
    assert V.decide(V.normal_estimate(outside, 0.05), r).verdict == "fail"
    # the point on either side of the boundary, the interval across it: inconclusive both times
    for point in (0.97, 1.03):
        d = V.decide(V.normal_estimate(point, 0.05), r)
        assert d.verdict == "inconclusive", point
        assert d.estimate.lower < 1.0 < d.estimate.upper


def test_between_region_decides_on_both_boundaries():
    r = V.parse_region({"between": [0.5, 2.0]})
    assert V.decide(V.normal_estimate(1.0, 0.1), r).verdict == "pass"
    assert V.decide(V.normal_estimate(3.0, 0.1), r).verdict == "fail"
    assert V.decide(V.normal_estimate(0.1, 0.1), r).verdict == "fail"
    assert V.decide(V.normal_estimate(1.9, 0.1), r).verdict == "inconclusive"
    assert V.decide(V.normal_estimate(0.55, 0.1), r).verdict == "inconclusive"


def test_printed_number_region_is_its_rounding_interval_widened_by_a_factor():
    r = V.parse_region({"printed": 670, "half_unit": 5, "factor": 1.1})
    assert math.isclose(r.lower, 665 / 1.1) and math.isclose(r.upper, 675 * 1.1)
    exact = V.parse_region({"printed": 0.29, "half_unit": 0.005, "factor": 1.0})
    assert V.decide(V.normal_estimate(0.2949, None), exact).verdict == "pass"
    assert V.decide(V.normal_estimate(0.2951, None), exact).verdict == "fail"
    for bad in ({"printed": 1}, {"printed": 1, "half_unit": 0.1, "factor": 0.9}, {"near": 1}, {"between": [2, 1]},
                {"is": "yes"}, {"below": "x"}):
        with pytest.raises(V.ContractError):
            V.parse_region(bad)


def test_equality_and_truth_regions():
    assert V.decide(V.normal_estimate(4.0, None), V.parse_region({"equals": 4})).verdict == "pass"
    assert V.decide(V.normal_estimate(4.5, None), V.parse_region({"equals": 4})).verdict == "fail"
    assert V.decide(V.normal_estimate(1.0, None), V.parse_region({"is": True})).verdict == "pass"
    assert V.decide(V.normal_estimate(1.0, None), V.parse_region({"is": False})).verdict == "fail"


# ---------------------------------------------------------------------------- estimators
def test_mean_ratio_interval_covers_and_decides():
    rng = np.random.default_rng(3)
    below = V.parse_region({"below": 1.0})
    a, b = rng.gamma(4, 25, 400), rng.gamma(4, 30, 400)  # true ratio 0.833
    e = V.mean_ratio(a, b)
    assert e.lower < a.mean() / b.mean() < e.upper and e.upper < 1
    assert V.decide(e, below).verdict == "pass"
    assert V.decide(V.mean_ratio(b, a), below).verdict == "fail"
    # a small sample of a small effect: the interval crosses 1 from either side
    for x, y in ((a[:8], b[:8] * 0.9), (b[:8] * 0.9, a[:8])):
        d = V.decide(V.mean_ratio(x, y), below)
        assert d.estimate.lower < 1 < d.estimate.upper and d.verdict == "inconclusive"


def test_coverage_of_the_mean_ratio_interval_is_near_its_level():
    rng = np.random.default_rng(11)
    hits = 0
    for _ in range(400):
        e = V.mean_ratio(rng.gamma(2, 50, 60), rng.gamma(2, 50, 60))
        hits += e.lower < 1 < e.upper
    assert 0.91 <= hits / 400 <= 0.985


def test_paired_estimators_use_the_pairing():
    rng = np.random.default_rng(1)
    inst = rng.lognormal(5, 1, 40)
    a, b = inst, inst * 1.02 + rng.normal(0, 0.01, 40)
    r = V.parse_region({"below": 1.0})
    assert V.decide(V.mean_ratio(a, b, paired=True), r).verdict == "pass"
    assert V.decide(V.mean_ratio(a, b), r).verdict == "inconclusive"
    assert V.decide(V.mean_difference(a, b, paired=True), V.parse_region({"below": 0.0})).verdict == "pass"
    with pytest.raises(V.ContractError, match="unequal length"):
        V.mean_ratio(a, b[:-1], paired=True)
    with pytest.raises(V.ContractError, match="positive means"):
        V.mean_ratio(-a, b)


def test_proportion_uses_the_exact_interval():
    e = V.proportion(0, 100)
    assert e.lower == 0 and 0.03 < e.upper < 0.04  # the rule of three
    assert V.decide(e, V.parse_region({"below": 0.05})).verdict == "pass"
    assert V.decide(V.proportion(3, 10), V.parse_region({"below": 0.05})).verdict == "fail"
    assert V.decide(V.proportion(1, 20), V.parse_region({"below": 0.05})).verdict == "inconclusive"
    assert V.proportion(1, 20).p_below(0.05) > V.ALPHA_ONE_SIDED


def test_bootstrap_is_seeded_by_seed_and_key_and_decides_on_its_percentiles():
    rng = np.random.default_rng(5)
    x = rng.normal(10, 2, 400)
    reps = V.bootstrap([x], np.mean, seed=0, key="c1", replicates=4000)
    assert np.array_equal(reps, V.bootstrap([x], np.mean, seed=0, key="c1", replicates=4000))
    assert not np.array_equal(reps, V.bootstrap([x], np.mean, seed=0, key="c2", replicates=4000))
    e = V.bootstrap_estimate(float(x.mean()), reps, runs=400)
    se = x.std(ddof=1) / 20
    assert e.lower == pytest.approx(x.mean() - 1.96 * se, abs=0.2 * se)
    assert e.upper == pytest.approx(x.mean() + 1.96 * se, abs=0.2 * se)
    m = float(x.mean())
    assert V.decide(e, V.parse_region({"between": [m - 1, m + 1]})).verdict == "pass"
    assert V.decide(e, V.parse_region({"below": m})).verdict == "inconclusive"
    assert V.decide(e, V.parse_region({"above": m})).verdict == "inconclusive"
    assert V.decide(e, V.parse_region({"above": m + 1})).verdict == "fail"


def test_p_values_agree_with_the_interval():
    rng = np.random.default_rng(7)
    r = V.parse_region({"below": 1.0})
    for shift in (0.7, 0.9, 0.97, 1.0, 1.05, 1.2):
        d = V.decide(V.mean_ratio(rng.gamma(3, 10 * shift, 80), rng.gamma(3, 10, 80)), r)
        assert (d.verdict == "pass") == (d.p_pass < V.ALPHA_ONE_SIDED)
        assert (d.verdict == "fail") == (d.p_fail < V.ALPHA_ONE_SIDED)


# ---------------------------------------------------------------------------- multiplicity
def test_holm_matches_its_definition():
    assert V.holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert V.holm([0.5, 0.001]) == pytest.approx([0.5, 0.002])
    assert V.holm([]) == []


def test_adjusted_verdict_is_never_more_decided_than_the_raw_one():
    """Twenty claims each decided at p = 0.01 one-sided: each passes alone, none after Holm."""
    e = V.normal_estimate(0.0, 1.0)
    d = V.decide(e, V.parse_region({"below": V._t_quantile(0.99, None)}))
    assert d.verdict == "pass" and d.p_pass == pytest.approx(0.01)
    adj = V.adjusted_verdicts([d] * 20)
    assert {v for v, _, _ in adj} == {"inconclusive"}
    assert V.adjusted_verdicts([d])[0][0] == "pass"


def test_the_status_follows_the_adjusted_verdict_and_only_published_checks():
    se = 0.05 / V._t_quantile(0.99, None)  # one-sided p = 0.01 against the boundary 1
    checks = [_check(id=f"o{k}", estimator="normal", region={"below": 1}) for k in range(30)]
    res = adjust([evaluate(c, Measurement(value=0.95, se=se), "paper") for c in checks])
    assert {r.outcome for r in res} == {"pass"}
    assert {r.adjusted for r in res} == {"inconclusive"}
    assert status_rows("p", res)[0]["status"] == "inconclusive"
    # a failing theory, erratum or shown check moves no status
    base = [evaluate(_check(id="ok", estimator="exact", region={"is": True}), Measurement(True), "paper")]
    others = [evaluate(_check(id=f"k{kind}", kind=kind, estimator="exact", region={"is": True}, erratum="E1"),
                       Measurement(False), "paper") for kind in ("theory", "erratum")]
    assert status_rows("p", adjust(base)) == status_rows("p", adjust(base + others))


# ---------------------------------------------------------------------------- power
def test_runs_to_decide_scales_with_the_squared_standard_error():
    r = V.parse_region({"below": 1.0})
    e = V.normal_estimate(0.95, 0.05)
    e.runs = 100
    q = V._t_quantile(1 - V.ALPHA_ONE_SIDED, None) + V._t_quantile(V.POWER, None)
    assert V.runs_to_decide(e, r) == math.ceil(100 * (q * 0.05 / 0.05) ** 2)
    assert V.runs_to_decide(V.normal_estimate(0.95, None), r) is None  # exact: nothing to decide


def test_runs_to_decide_is_about_right_in_simulation():
    """At the stated runs, a claim whose true ratio is the measured one is decided about 80 % of the time."""
    rng = np.random.default_rng(9)
    r = V.parse_region({"below": 1.0})
    while True:  # the first inconclusive draw of a small effect
        d = V.decide(V.mean_ratio(rng.gamma(4, 24.5, 50), rng.gamma(4, 25, 50)), r)
        if d.verdict == "inconclusive" and d.estimate.value < 0.97:
            break
    ratio = d.estimate.value
    n = d.runs_to_decide
    assert n and n > 50
    decided = sum(V.decide(V.mean_ratio(rng.gamma(4, 25 * ratio, n), rng.gamma(4, 25, n)), r).verdict != "inconclusive"
                  for _ in range(60))
    assert 0.6 <= decided / 60 <= 0.97


# ---------------------------------------------------------------------------- combined claims
def test_combined_claims_all_and_at_least():
    r = V.parse_region({"below": 1.0})
    yes, no, maybe = (V.decide(V.normal_estimate(x, 0.02), r) for x in (0.9, 1.1, 0.99))
    assert V.combine([("a", yes), ("b", yes)], "all").verdict == "pass"
    assert V.combine([("a", yes), ("b", no)], "all").verdict == "fail"
    assert V.combine([("a", yes), ("b", maybe)], "all").verdict == "inconclusive"
    three = [("p1", yes), ("p2", yes), ("p3", yes), ("p4", no)]
    assert V.combine(three, {"at_least": 3}).verdict == "pass"
    assert V.combine(three[:2] + [("p3", no), ("p4", no)], {"at_least": 3}).verdict == "fail"
    assert V.combine(three[:2] + [("p3", maybe), ("p4", no)], {"at_least": 3}).verdict == "inconclusive"
    with pytest.raises(V.ContractError):
        V.combine(three, {"at_least": 5})


def test_a_combined_measurement_through_the_registry():
    rng = np.random.default_rng(4)
    lo, hi = rng.normal(10, 1, 50), rng.normal(12, 1, 50)
    c = _check(estimator="mean_ratio", region={"below": 1}, combine="all")
    res = evaluate(c, Measurement(components=[("x", Measurement(a=lo, b=hi)), ("y", Measurement(a=hi, b=lo))]),
                   "paper")
    assert res.outcome == "fail" and "x: " in res.evidence and "y: " in res.evidence


# ---------------------------------------------------------------------------- robust summaries, determinism
def test_heavy_tails_bring_the_median_and_trimmed_ratio():
    rng = np.random.default_rng(6)
    heavy = np.concatenate([rng.normal(100, 5, 90), rng.normal(5000, 100, 10)])
    assert heavy.std() / heavy.mean() > 1
    notes = V.mean_ratio(heavy, rng.normal(200, 5, 100)).notes
    assert notes and "median ratio" in notes[0] and "trimmed" in notes[0]
    assert not V.mean_ratio(rng.normal(100, 5, 50), rng.normal(200, 5, 50)).notes


def test_a_written_verdict_does_not_depend_on_the_order_of_runs():
    rng = np.random.default_rng(8)
    a, b = rng.lognormal(3, 1.5, 500), rng.lognormal(3.2, 1.5, 500)
    c = _check(estimator="mean_ratio", region={"below": 1})
    rows = []
    for seed in range(4):
        p = np.random.default_rng(seed).permutation(500)
        rows.append(evaluate(c, Measurement(a=a[p], b=b[p[::-1]]), "paper").row())
    assert all(r == rows[0] for r in rows)


def test_numbers_for_people_and_for_machines():
    assert V.sig(8.929488379674934) == "8.93" and V.sig(0.0022088863889372667) == "0.00221"
    assert V.sig(678040.6290872383) == "678,000" and V.sig(123456.7, 4) == "123,500" and V.sig(12345678.9) == "1.23e7" and V.sig(True) == "true"
    assert V.machine_number(0.08129962166699116) == "0.081299621667"


def test_runs_to_decide_a_proportion_on_the_binomial_law():
    """No success in n runs shows a rate below delta once 1 - (alpha/2)^(1/n) < delta, i.e.
    n > ln(alpha/2)/ln(1 - delta) (the normal approximation is off by orders of magnitude here);
    with successes, the count decides with probability 0.8 at the estimate, and a tenth fewer
    runs would not."""
    below = V.parse_region({"below": 0.01})
    need = math.log(V.ALPHA_ONE_SIDED) / math.log(1 - 0.01)
    n = V.decide(V.proportion(0, 120), below).runs_to_decide
    assert math.ceil(need) <= n <= math.ceil(need) * 1.001
    assert V.decide(V.proportion(0, n), below).verdict == "pass"
    tiny = V.decide(V.proportion(0, 120), V.parse_region({"below": 1e-5})).runs_to_decide
    assert abs(tiny / (math.log(V.ALPHA_ONE_SIDED) / math.log(1 - 1e-5)) - 1) < 0.002
    n = V.decide(V.proportion(5, 1000), below).runs_to_decide
    assert V._binomial_decides(n, 0.005, below) >= V.POWER > V._binomial_decides(int(0.9 * n), 0.005, below)
    assert V.decide(V.proportion(10, 100), V.parse_region({"below": 0.1})).runs_to_decide is None  # on the boundary


# ---------------------------------------------------------------------------- registry
def test_registry_kinds(tmp_path):
    def write(extra):
        p = tmp_path / "r.yaml"
        p.write_text("paper: p\nerrata:\n  - {id: E1, lines: L1, printed: a, used: b, evidence: c}\nchecks:\n"
                     "  - {id: a, item: T, description: d, statistic: s, gate: full, estimator: exact, "
                     f"region: {{is: true}}, {extra}}}\n")
        return p

    erratum = write("kind: erratum, erratum: E1")
    with pytest.raises(RegistryError, match="its fail confirms the correction.*declare gate none"):
        load_registry(erratum)
    assert load_registry(_rewrite(erratum, "gate: full", "gate: none"))["checks"][0]["_region"].truth is True
    with pytest.raises(RegistryError, match="erratum names its entry"):
        load_registry(_rewrite(write("kind: erratum, erratum: E9"), "gate: full", "gate: none"))
    with pytest.raises(RegistryError, match="'regression' is retired"):
        load_registry(write("kind: regression"))
    with pytest.raises(RegistryError, match="estimator must be one of"):
        load_registry(_rewrite(write("kind: theory"), "estimator: exact", "estimator: guess"))


def _rewrite(path, old, new):
    path.write_text(path.read_text().replace(old, new))
    return path


def test_an_estimate_without_sampling_error_on_the_boundary_fails_an_open_region():
    """Two identical runs give mean A / mean B = 1 exactly: "A < B" fails, and the p-values agree."""
    x = np.array([3.0, 5.0, 7.0])
    d = V.decide(V.mean_ratio(x, x, paired=True), V.parse_region({"below": 1.0}))
    assert d.verdict == "fail" and d.p_fail == 0.0 and d.p_pass == 1.0
    assert V.adjusted_verdicts([d, d])[0][0] == "fail"


@pytest.mark.parametrize("paired", [False, True])
def test_row_wise_bootstrap_gives_the_replicates_of_the_one_by_one_bootstrap(paired, monkeypatch):
    """Same draws in the same order, the same bits per replicate, whatever the batch size."""
    from duelbench.report.numerics import div_or_nan, fmean_last, fstd_last

    rng = np.random.default_rng(3)
    xs = [rng.lognormal(3, 1, 37), rng.lognormal(3, 1, 37 if paired else 23)]

    def stat(u, v):
        return div_or_nan(fstd_last(u), fmean_last(v))

    one = V.bootstrap(xs, stat, seed=4, key="k", replicates=900, paired=paired)
    rows = V.bootstrap(xs, stat, seed=4, key="k", replicates=900, paired=paired, rows=True)
    assert one.tobytes() == rows.tobytes()
    monkeypatch.setattr(V, "BOOTSTRAP_BATCH_TERMS", 100)  # batches of 1-2 replicates
    assert V.bootstrap(xs, stat, seed=4, key="k", replicates=900, paired=paired, rows=True).tobytes() == one.tobytes()

"""Chen et al. 2020 on the experiment contract: cells, seeded runs and the registry's statistics."""

from __future__ import annotations

import numpy as np
import pytest

from duelbench.experiments.chen2020 import EXPERIMENT
from duelbench.experiments.chen2020 import cells as C
from duelbench.experiments.chen2020 import checks as K
from duelbench.experiments.chen2020 import runs as R
from duelbench.config.files import checkout_config
from duelbench.report.checks import load_registry


@pytest.fixture(scope="module")
def smoke():
    return EXPERIMENT.settings(checkout_config(fidelity="smoke"))


@pytest.mark.parametrize("fidelity", ["smoke", "quick", "paper"])
def test_plan_declares_every_study_and_each_cell_once(fidelity):
    p = EXPERIMENT.plan(checkout_config(fidelity=fidelity))
    steps = [s.name for s in p.steps]
    assert steps[:1] == ["toy"] and steps[-2:] == ["runtime", "checks"]
    assert set(C.STUDIES) <= set(steps)
    families = {s.family for s in p.samples}
    assert families == {c.family for c in C.cells(p.settings)}
    assert len({s.path for s in p.samples}) == len(p.samples)


def test_every_registry_statistic_is_one_the_checks_compute():
    """A statistic the package never computes would be inconclusive for ever: refuse it here."""
    registry = load_registry("data/published/chen2020.yaml")
    computed = set(K.measurements({}, EXPERIMENT.settings(checkout_config(fidelity="paper"))))
    toy = {"toy:unique_assignment", "toy:e1e5_maximum_matching", "toy:gprime_multiplicity_is_factorial",
           "toy:gprime_multiplicity", "toy:winners_differ", "width_example:width", "errata:h_eps_limit_over_h_b",
           "errata:h_eps_limit_over_width2_h_b", "errata:l229_unnormalised_max_score",
           "errata:l229_normalised_max_score", "errata:lemma7_gradient_over_k_k21"}
    missing = [c["statistic"] for c in registry["checks"] if c["statistic"] not in computed | toy]
    assert not missing


def test_the_toy_computes_every_toy_statistic_of_the_registry():
    from duelbench.experiments.chen2020.toy import toy_rows

    registry = load_registry("data/published/chen2020.yaml")
    stats = {r["statistic"] for r in toy_rows()}
    wanted = {c["statistic"] for c in registry["checks"] if c["statistic"].split(":")[0] in ("toy", "width_example",
                                                                                             "errata")}
    assert wanted <= stats


def test_checks_of_the_paper_use_the_contract_and_quote_the_paper():
    registry = load_registry("data/published/chen2020.yaml")
    kinds = {c["kind"] for c in registry["checks"]}
    assert kinds <= {"published", "theory", "erratum", "shown"}
    for c in registry["checks"]:
        assert "test" not in c, c["id"]
        if c["kind"] == "published":
            assert c["quote"] and c["lines"].startswith("L"), c["id"]
    # the delta of every proportion claim is its region's boundary
    for c in registry["checks"]:
        if c["_estimator"] == "proportion" and c["kind"] != "shown" and ":d" in c["statistic"]:
            delta = c["statistic"].rsplit(":d", 1)[1].replace("p", ".").replace("em", "e-")
            assert c["_region"].upper == pytest.approx(float(delta)), c["id"]


def test_runs_do_not_depend_on_how_a_cell_is_split_and_differ_between_runs(smoke):
    cell = next(c for c in C.cells(smoke) if c.study == "pac")
    whole = R.run_cell(cell.job, 0, 2)
    parts = [R.run_cell(cell.job, 0, 1), R.run_cell(cell.job, 1, 2)]
    for k, v in whole.items():
        assert np.array_equal(v, np.concatenate([p[k] for p in parts]), equal_nan=True), k
    assert R.run_seed(cell.job, 0).generate_state(2).tolist() != R.run_seed(cell.job, 1).generate_state(2).tolist()
    other = next(c for c in C.cells(smoke) if c.study == "pac" and c.job != cell.job)
    assert R.cell_key(other.job) != R.cell_key(cell.job)


def test_a_named_instance_that_is_not_declared_is_a_clear_error(smoke):
    from duelbench.config import ConfigError

    bad = dict(smoke, pac={**smoke["pac"], "instances": ["toy", "nonesuch"]})
    with pytest.raises(ConfigError, match="instance 'nonesuch' is not declared in chen2020.instances"):
        C.cells(bad)


def test_oracle_cases_are_feasible_on_both_sides(smoke):
    from duelbench.cpe.oracles import lp_value

    job = next(c.job for c in C.cells(smoke) if c.study == "oracles")
    for i in range(4):
        inst, A1, R1, A2, R2, Q = R.oracle_case(job, i)
        assert np.isfinite(lp_value(inst, A1, R1, A2, R2, Q))


def _row(**kw):
    return {k: str(v) for k, v in kw.items()}


def test_proportions_pool_the_cells_of_one_delta():
    rows = [_row(cell="a", delta=0.1, misses=1, runs=50, label="declared"),
            _row(cell="b", delta=0.1, misses=0, runs=50, label="declared"),
            _row(cell="c", delta=0.01, misses=3, runs=50, label="declared")]
    m = K._proportion(K._at(rows, 0.1), "misses", "runs", "declared")
    assert (m.successes, m.trials) == (1, 100) and "a 1/50" in m.evidence and "c " not in m.evidence
    assert K._proportion([], "misses", "runs", "declared").value is None  # Missing: inconclusive, never a pass
    assert K.dkey(0.001) == "d1em03" and K.dkey(0.2) == "d0p2"
    assert "not configured" in K.why_missing("pac:error:d0p5") and "not computed" in K.why_missing("x:y")


class _Cell:
    def __init__(self, name, job=None):
        self.name, self.job = name, job or {}


def test_delta_slope_against_32_h_eps():
    rows = [_row(cell=f"c{k}", instance="toy", eps=0.1, delta=d, H_eps=2) for k, d in enumerate((0.1, 0.01, 0.001))]
    loaded = [(_Cell(f"c{k}"), {"samples": np.array([100 + 64 * np.log(1 / d)] * 3)})
              for k, d in enumerate((0.1, 0.01, 0.001))]
    m = K._delta_slope({"seed": 1}, rows, loaded)
    assert m.value == pytest.approx(1.0)  # slope 64 = 32 * H_eps
    assert np.allclose(m.replicates, 1.0)  # no spread between runs: every replicate is the slope


def test_fixed_effect_slope_ignores_differences_between_groups_and_handles_censoring():
    from duelbench.experiments.chen2020.fits import fe_slope

    rng = np.random.default_rng(3)
    cells = []
    for g, level in (("a", 1.0), ("b", 1e3)):  # groups a thousand times apart
        for x in (2.0, 4.0, 8.0, 16.0):
            cells.append((g, x, level * x ** 2.0 * np.exp(rng.normal(0, 0.05, 40))))
    fit = fe_slope(cells)
    assert fit.slope == pytest.approx(2.0, abs=0.03) and fit.censored_runs == 0
    cap = 1e3 * 16.0 ** 2  # about half of group b's largest cell is censored
    capped = [(g, x, np.minimum(a, cap)) for g, x, a in cells]
    censored = fe_slope(capped, cap)
    assert censored.censored_runs > 0 and censored.slope == pytest.approx(2.0, abs=0.05)
    dropped = fe_slope(capped + [("c", x, np.full(5, cap * 10)) for x in (2.0, 4.0)], cap)
    assert dropped.censored_groups == ["c"] and dropped.slope == pytest.approx(censored.slope)


def test_censored_fit_is_the_likelihood_maximum_whatever_the_order_of_the_runs():
    """The censored-normal fit (Newton's method, correctly rounded sums) stops at the maximum of
    the likelihood, which a tightly converged general optimizer confirms, and permuting the runs
    of a cell changes no bit of it."""
    from scipy.optimize import minimize
    from scipy.stats import norm

    from duelbench.experiments.chen2020.fits import fe_slope

    rng = np.random.default_rng(11)
    cells = [(g, x, level * x**1.5 * rng.lognormal(0, 1.0, 30))
             for g, level in (("a", 1.0), ("b", 1e3), ("c", 5.0)) for x in (2.0, 4.0, 8.0, 16.0)]
    cap = float(np.quantile(np.concatenate([c[2] for c in cells]), 0.6))
    capped = [(g, x, np.minimum(a, cap)) for g, x, a in cells]
    fit = fe_slope(capped, cap)
    assert fit.censored_runs > 100
    shuffled = fe_slope([(g, x, rng.permutation(a)) for g, x, a in capped], cap)
    assert (shuffled.slope, shuffled.sigma) == (fit.slope, fit.sigma)

    group = np.repeat(np.arange(3), 4 * 30)
    lx = np.log(np.repeat([x for _, x, _ in capped], 30))
    y = np.log(np.concatenate([a for _, _, a in capped]))
    cens = y >= np.log(cap)

    def nll(theta):
        mean, s = theta[group] + theta[3] * lx, np.exp(theta[4])
        return -(norm.logpdf(y[~cens], mean[~cens], s).sum() + norm.logsf(y[cens], mean[cens], s).sum())

    start = np.array([0.0, 7.0, 1.6, 1.5, 0.0])
    ref = minimize(nll, start, method="BFGS", options={"gtol": 1e-10})
    assert fit.slope == pytest.approx(ref.x[3], rel=1e-7) and fit.sigma == pytest.approx(np.exp(ref.x[4]), rel=1e-6)


def test_parallel_runs_split_into_calibration_and_fresh():
    from duelbench.experiments.chen2020.studies import parallel_split

    s = {"parallel": {"instances": ["i"], "calibration": {"delta": [1e-3], "runs": 10}}}
    x = np.arange(20.0)
    cal, fresh = parallel_split(s, _Cell("c", {"instance": {"name": "i"}, "delta": 1e-3}), x)
    assert cal.tolist() == list(range(10)) and fresh.tolist() == list(range(10, 20))
    cal, fresh = parallel_split(s, _Cell("c", {"instance": {"name": "i"}, "delta": 1e-5}), x)
    assert cal.size == 0 and fresh.size == 20
    cal, fresh = parallel_split(s, _Cell("c", {"instance": {"name": "other"}, "delta": 1e-3}), x)
    assert cal.size == 0 and fresh.size == 20


def test_lemma9_exact_projection_is_the_projection():
    """The NNLS projection onto the matching polytope against a fine Frank-Wolfe with line search."""
    from duelbench.cpe.fptas import fw_project
    from duelbench.cpe.matching import enumerate_matchings
    from duelbench.experiments.chen2020.lemma9 import ExactProjection, lemma9_case

    job = {"study": "lemma9", "algorithm": "lemma9", "n": 3, "ell": 2, "eps": [1.6], "seed": 7}
    inst, Q = lemma9_case(job, 0)
    proj = ExactProjection(inst, enumerate_matchings(inst))
    rng = np.random.default_rng(0)
    for _ in range(3):
        z = rng.normal(0.4, 0.5, inst.m)
        x = proj(z)
        assert np.all(x >= -1e-12) and np.allclose([x[list(e)].sum() for e in inst.position_edges], 1.0)
        fw = fw_project(inst, z, iterations=20000, start=inst.indicator(enumerate_matchings(inst)[0])).x
        assert np.linalg.norm(z - x) <= np.linalg.norm(z - fw) + 1e-9
        assert np.linalg.norm(x - fw) < 1e-3


@pytest.mark.parametrize("n,ell", [(3, 2), (4, 3)])
def test_lemma9_projection_and_ascent_are_scipys_up_to_rounding(n, ell):
    """Decision L9-1's projection by the package's NNLS against the same problem solved by
    :func:`scipy.optimize.nnls` (and the products by BLAS), on the cases of the study's cells: the
    projections, and the best value of the ascent, agree to 1e-10 relative."""
    from scipy.optimize import nnls

    from duelbench.cpe.fptas import _LinearMinimiser, paper_budget, step_size
    from duelbench.cpe.matching import enumerate_matchings
    from duelbench.experiments.chen2020.lemma9 import ExactProjection, exact_projection_ascent, lemma9_case

    def scipy_projection(z):
        A = proj.A.copy()
        A[:-1] -= z[:, None]
        mu, _ = nnls(A, proj.b, maxiter=50 * A.shape[1])
        return proj.V @ (mu / mu.sum())

    job = {"study": "lemma9", "algorithm": "lemma9", "n": n, "ell": ell, "eps": [3.2], "seed": 7}
    rng = np.random.default_rng(n)
    for i in range(2):
        inst, Q = lemma9_case(job, i)
        proj = ExactProjection(inst, enumerate_matchings(inst))
        for _ in range(20):
            z = rng.normal(0.4, 0.5, inst.m)
            np.testing.assert_allclose(proj(z), scipy_projection(z), rtol=1e-10, atol=1e-12)
        T = paper_budget(inst.ell, inst.K, 3.2).outer
        eta = step_size(inst, T, "paper")
        lmo_x, lmo_y = _LinearMinimiser(inst, (), ()), _LinearMinimiser(inst, (), ())
        x = inst.indicator(lmo_x(np.zeros(inst.m)))
        QT = np.ascontiguousarray(Q.T) / inst.ell
        best = -np.inf
        for t in range(1, T + 2):
            w = QT @ x
            y = lmo_y(w)
            best = max(best, float(w[y].sum()))
            if t <= T:
                x = scipy_projection(x + eta * (Q[:, y].sum(axis=1) / inst.ell))
        value, _ = exact_projection_ascent(inst, Q, T, eta)
        assert value == pytest.approx(best, rel=1e-10)


def test_lemma9_case_and_bound():
    from duelbench.experiments.chen2020.lemma9 import run_case

    job = {"study": "lemma9", "algorithm": "lemma9", "n": 3, "ell": 2, "eps": [3.2, 1.6], "seed": 7}
    out = run_case(job, 0, 2)
    assert out["T_3p2"].tolist() == [225.0, 225.0] and out["T_1p6"].tolist() == [900.0, 900.0]
    assert np.all(out["error_1p6"] >= -1e-9)
    assert np.all(out["error_1p6"] * np.sqrt(900.0) <= 2 * 2 * 6)  # 2lK/sqrt(T) (proof of Lemma 9)


def test_lower_bound_instances_meet_the_theorems_conditions():
    from duelbench.experiments.chen2020.studies import lower_bound_of

    s = EXPERIMENT.settings(checkout_config(fidelity="paper"))
    for c in C.cells(s):
        if c.study == "lower_bounds":
            lb = lower_bound_of(c.job)
            assert np.isfinite(lb["bound"]) and lb["bound"] > 0 and lb["gamma"] >= lb["gamma_low"], c.name

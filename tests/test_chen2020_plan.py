"""Chen et al. 2020 on the experiment contract: cells, seeded runs and the registry's statistics."""

from __future__ import annotations

import numpy as np
import pytest

from duelbench.experiments.chen2020 import cells as C
from duelbench.experiments.chen2020 import checks as K
from duelbench.experiments.chen2020 import runs as R
from duelbench.experiments.config_check import checkout_config
from duelbench.report.checks import load_registry


@pytest.fixture(scope="module")
def smoke():
    from duelbench.experiments.chen2020 import settings

    return settings(checkout_config(fidelity="smoke"))


@pytest.mark.parametrize("fidelity", ["smoke", "quick", "paper"])
def test_plan_declares_every_study_and_each_cell_once(fidelity):
    from duelbench.experiments.chen2020 import plan

    p = plan(checkout_config(fidelity=fidelity))
    steps = [s.name for s in p.steps]
    assert steps[:1] == ["toy"] and steps[-2:] == ["runtime", "checks"]
    assert set(C.STUDIES) <= set(steps)
    families = {s.family for s in p.samples}
    assert families == {c.family for c in C.cells(p.settings)}
    assert len({s.path for s in p.samples}) == len(p.samples)


def test_every_registry_statistic_is_one_the_checks_compute():
    """A statistic the package never computes would be inconclusive for ever: refuse it here."""
    registry = load_registry("data/published/chen2020.yaml")
    computed = set(K.measurements({}, {}))
    toy = {"toy:unique_assignment", "toy:e1e5_maximum_matching", "toy:gprime_multiplicity_is_factorial",
           "toy:winners_differ", "width_example:width"}
    missing = [c["statistic"] for c in registry["checks"] if c["statistic"] not in computed | toy]
    assert not missing


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
    from duelbench.experiments import ConfigError

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


def test_counts_of_cells_above_delta_use_each_cells_own_delta():
    rows = [_row(cell="a", delta=0.1, cp99_low=0.05, label="declared"),
            _row(cell="b", delta=0.01, cp99_low=0.02, label="declared"),
            _row(cell="c", delta=0.1, cp99_low=0.3, label="biased sampler")]
    m = K._count_above([r for r in rows if r["label"] == "declared"], "cp99_low", "declared")
    assert m.value == 1 and "b" in m.evidence
    assert K._count_above([], "cp99_low", "declared").value is None  # Missing: inconclusive, never a pass


def test_delta_slope_against_32_h_eps():
    rows = [_row(instance="toy", eps=0.1, delta=d, mean_samples=100 + 64 * np.log(1 / d), H_eps=2)
            for d in (0.1, 0.01, 0.001)]
    m = K._delta_slope(rows)
    assert m.value == pytest.approx(1.0)  # slope 64 = 32 * H_eps

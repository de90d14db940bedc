"""CAR-Cond, CAR-Verify and CAR-Parallel (duelbench.cpe.condorcet) against the plain reference of
tests/reference/cpe_condorcet.py (Chen et al. 2020, Algorithms 2–4), decision for decision, on
small instances and several seeds, driven by the same random streams."""

from __future__ import annotations

import numpy as np
import pytest

from duelbench.cpe.condorcet import car_cond, car_parallel, car_verify
from duelbench.cpe.matching import best_other_than, enumerate_matchings
from duelbench.cpe.oracles import lp_value
from reference import cpe_condorcet as ref

from _cpe_random import random_instance
from test_cpe_condorcet import _instance, k22, planted


def _rng(seed):
    return np.random.default_rng(np.random.SeedSequence(seed))


def lsa_choice(inst):
    """Line 9's tie rule as the module's matching oracle resolves it (``best_other_than``)."""
    def choose(ties, w, M_hat):
        return [int(e) for e in best_other_than(inst, w, np.asarray(M_hat))]
    return choose


def _three_arms():
    return _instance(3, 1, [(0, 0), (1, 0), (2, 0)], {(0, 1): 0.1, (0, 2): 0.2, (1, 2): 0.9}, "three")


def _no_winner():
    """A 3-cycle on one position (no Condorcet matching): CAR-Cond runs to its cap."""
    return _instance(3, 1, [(0, 0), (1, 0), (2, 0)], {(0, 1): 0.8, (1, 2): 0.8, (0, 2): 0.2}, "cycle")


COND_CASES = [
    # (id, instance, delta, seed, options, outcome)
    ("planted-3x2-s0", planted(3, 2, 0.3, 0)[0], 0.1, 0, dict(schedule="geometric"), "output"),
    ("planted-3x2-s1", planted(3, 2, 0.3, 1)[0], 0.05, 1, dict(schedule="geometric", ratio=1.5), "output"),
    ("planted-3x1-geo2", planted(3, 1, 0.4, 0)[0], 0.1, 7, dict(schedule="geometric", ratio=2.0), "output"),
    ("three-every-round", _three_arms(), 0.3, 4, {}, "output"),
    ("k22-every-round", k22(0.9, 0.2), 0.2, 3, {}, "output"),
    ("random-3x2-capped", random_instance(3, 2, np.random.default_rng(5)), 0.1, 5, dict(max_rounds=6), "capped"),
    ("cycle-capped", _no_winner(), 0.1, 6, dict(schedule="geometric", ratio=1.5, max_rounds=70), "capped"),
]


def _module_cond(inst, delta, seed, options):
    opts = dict(options)
    if "schedule" in opts:
        opts["check_every"] = opts.pop("schedule")
    return car_cond(inst, delta, _rng(seed), **opts)


@pytest.mark.parametrize("case", COND_CASES, ids=[c[0] for c in COND_CASES])
def test_car_cond_equals_reference(case):
    """Algorithm 2: the same rounds, checks, oracle calls, samples, decisions and output."""
    _, inst, delta, seed, options, outcome = case
    got = _module_cond(inst, delta, seed, options)
    want = ref.car_cond(inst, delta, _rng(seed), lp_value, **options)
    assert got.samples == want["samples"] > 0
    assert (got.rounds, got.epochs, got.checks, got.oracle_calls) == \
        (want["rounds"], want["epochs"], want["checks"], want["oracle_calls"])
    assert (got.capped, got.exhausted) == (want["capped"], want["exhausted"])
    assert got.rejected == want["rejected"]
    assert got.decided_at.tolist() == want["decided_at"]
    assert (None if got.output is None else got.output.tolist()) == want["output"]
    assert (got.output is not None, got.capped) == (outcome == "output", outcome == "capped")


def _verify_cases():
    cases = []
    for seed in (1, 2):
        inst, winner = planted(3, 2, 0.4, seed)
        cases.append((f"true-{seed}", inst, 0.001, seed, winner.tolist(), False))
        wrong = [m.tolist() for m in enumerate_matchings(inst) if not np.array_equal(m, winner)]
        cases.append((f"wrong-{seed}", inst, 0.001, 10 + seed, wrong[seed], True))
    inst, winner = planted(3, 1, 0.3, 3)
    cases.append(("full-3x1", inst, 0.005, 3, None, False))
    cases.append(("full-k22", k22(0.8, 0.3), 0.002, 4, None, False))
    return cases


VERIFY_CASES = _verify_cases()


@pytest.mark.parametrize("case", VERIFY_CASES, ids=[c[0] for c in VERIFY_CASES])
def test_car_verify_equals_reference(case):
    """Algorithm 4: the same hypothesis, duels, steps and verdict (answer or error)."""
    _, inst, delta, seed, hypothesis, refuted = case
    got = car_verify(inst, delta, _rng(seed), hypothesis=hypothesis, check_every="geometric", ratio=1.5)
    want = ref.car_verify(inst, delta, _rng(seed), lp_value, hypothesis=hypothesis, choose=lsa_choice(inst),
                          schedule="geometric", ratio=1.5)
    if hypothesis is None:
        assert got.cond_samples == want["cond"]["samples"] > 0
        assert got.cond.rounds == want["cond"]["rounds"]
    assert got.hypothesis.tolist() == want["M_hat"]
    assert (got.verify_samples, got.steps, got.samples) == (want["verify"], want["steps"], want["duels"])
    assert got.error == want["error"]
    assert (None if got.output is None else got.output.tolist()) == want["output"]
    assert got.error == refuted and got.verify_samples > 0


PARALLEL_CASES = [
    ("planted-3x2", planted(3, 2, 0.4, 3)[0], 0.005, 21),
    ("three", _three_arms(), 0.001, 5),
    ("k22", k22(0.8, 0.3), 0.009, 8),
]


@pytest.mark.parametrize("case", PARALLEL_CASES, ids=[c[0] for c in PARALLEL_CASES])
def test_car_parallel_equals_reference(case):
    """Algorithm 3: the same answering instance, step, per-instance samples and retirements."""
    _, inst, delta, seed = case
    got = car_parallel(inst, delta, seed, check_every="geometric", ratio=2.0)
    want = ref.car_parallel(inst, delta, np.random.SeedSequence(seed), lp_value, choose=lsa_choice(inst),
                            schedule="geometric", ratio=2.0)
    assert (got.answered_by, got.steps) == (want["answered_by"], want["steps"])
    assert got.samples_per_instance == want["samples_per_instance"]
    assert got.samples == want["samples"]
    assert (got.errors, got.failed) == (want["errors"], want["failed"])
    assert got.output.tolist() == want["output"]

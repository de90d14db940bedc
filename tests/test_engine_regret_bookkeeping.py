"""The engine's regret bookkeeping agrees with the pairs it records, for every algorithm.

Property: for a run with recorded pairs ``(l(s), m(s))`` (original arm labels), the cumulative
pseudo-regret the engine reports at checkpoint t equals ``Σ_{s ≤ t} r(l(s), m(s))`` for every
recorded kind, where ``r`` is :func:`duelbench.problems.regret.regret_matrix` of the original
(unpermuted) matrix — Komiyama et al. (2016) L71 (``"copeland"``), Zoghi et al. (2015)
Definition 1 (``"copeland_zoghi"``), Wu & Liu (2016) eq. (1) (``"copeland_wu"``) and the
Condorcet regret ``(Δ_1a + Δ_1b)/2`` (``"condorcet"``, NaN without a Condorcet winner).

The sum is taken sequentially (``np.cumsum``), as the engine's step-by-step recorder does;
algorithms that add a block of m identical steps in closed form (``m · r``) differ from it by
rounding only, hence ``rtol = 1e-12, atol = 1e-9``.  Algorithms that need the horizon in
advance are run once per checkpoint by the engine; for them the value at checkpoint t is
compared with the pairs of a run of horizon t.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import duelbench
from duelbench.algorithms.registry import canonical_params, get_algorithm, list_algorithms, params_array
from duelbench.data.registry import load_matrix
from duelbench.engine.checkpoints import default_checkpoints, horizon_mode_checkpoints
from duelbench.engine.loop import run_algorithm
from duelbench.engine.result import RECORDED_KINDS
from duelbench.problems.matrix import PreferenceMatrix
from duelbench.problems.regret import NoCondorcetWinnerError, regret_matrix

from _engine_helpers import random_matrix

ALGORITHMS = list_algorithms()
RTOL, ATOL = 1e-12, 1e-9
HORIZON = 12000
RUNS = 2


def _instances():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            # Komiyama et al. (2016) Table 3(d): Condorcet winner and one exact tie.
            "arxiv": load_matrix("arxiv"),
            # Table 3(c): no Condorcet winner, three Copeland winners.
            "multisol": load_matrix("multisol"),
            # Table 3(f): no Condorcet winner, entries close to 1/2.
            "mslr5_noncondorcet_printed": load_matrix("mslr5_noncondorcet_printed"),
            # Table 2: a Condorcet winner above a cycle of the other three arms.
            "cyclic": load_matrix("cyclic"),
            # unnamed random matrices without ties (identity = sha256 of the values); on the
            # K = 4 one SCB's phase r = 4 stops early, so it plays a block of self-comparisons
            # with checkpoints inside it.
            "random4": PreferenceMatrix(random_matrix(4, 2)),
            "random7": PreferenceMatrix(random_matrix(7, 5)),
        }


INSTANCES = _instances()


def _dense_checkpoints(horizon: int) -> np.ndarray:
    return np.unique(np.r_[1, np.arange(97, horizon, 97), horizon]).astype(np.int64)


def _regret_stack(P: PreferenceMatrix) -> dict:
    out = {}
    for kind in RECORDED_KINDS:
        try:
            out[kind] = regret_matrix(P, kind)
        except NoCondorcetWinnerError:
            out[kind] = None
    return out


def _simulate(alg, P, horizon, checkpoints, run_start=0, runs=RUNS, seed=5):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return duelbench.simulate(alg, P, horizon, runs, seed=seed, run_start=run_start, checkpoints=checkpoints,
                                  permute=True, record_pairs=True)


def _assert_matches_pairs(res, P, k_cols, pairs, label):
    """``res`` regret at the columns ``k_cols`` equals the cumulative regret of ``pairs``."""
    R = _regret_stack(P)
    ckpts = res.checkpoints[k_cols]
    assert pairs.shape[1] >= ckpts[-1]
    assert pairs.min() >= 0 and pairs.max() < P.K, label
    for kind in RECORDED_KINDS:
        got = res.regrets[kind][:, k_cols]
        if R[kind] is None:
            assert np.all(np.isnan(got)), f"{label}: {kind} regret must be NaN without a Condorcet winner"
            continue
        per_step = R[kind][pairs[:, :, 0], pairs[:, :, 1]]
        expected = np.cumsum(per_step, axis=1)[:, ckpts - 1]
        assert np.all(np.isfinite(got)), (label, kind)
        bad = ~np.isclose(got, expected, rtol=RTOL, atol=ATOL)
        if bad.any():
            row, col = np.argwhere(bad)[0]
            pytest.fail(f"{label}: {kind} regret at t = {ckpts[col]} (row {row}) is {got[row, col]!r}, but the "
                        f"recorded pairs sum to {expected[row, col]!r}", pytrace=False)
        if ckpts[0] == 1:  # the first step on its own
            first = R[kind][pairs[:, 0, 0], pairs[:, 0, 1]]
            assert np.array_equal(got[:, 0], first), (label, kind, got[:, 0], first)


def _check(alg, P, name, horizon, checkpoints, expected_checkpoints):
    res = _simulate(alg, P, horizon, checkpoints)
    label = f"{alg} on {name} (checkpoints {'default' if checkpoints is None else 'dense'})"
    assert np.array_equal(res.checkpoints, expected_checkpoints), label
    assert res.pairs.shape == (RUNS, horizon, 2)
    if not get_algorithm(alg).needs_horizon:
        _assert_matches_pairs(res, P, np.arange(res.checkpoints.size), res.pairs, label)
        return
    # one run per checkpoint: the value at t is that of a run of horizon t
    last = res.checkpoints.size - 1
    _assert_matches_pairs(res, P, np.array([last]), res.pairs, label)
    for k, t in enumerate(res.checkpoints[:-1]):
        sub = _simulate(alg, P, int(t), [int(t)])
        for kind in RECORDED_KINDS:
            assert np.array_equal(sub.regrets[kind][:, 0], res.regrets[kind][:, k], equal_nan=True), (label, kind, t)
        _assert_matches_pairs(res, P, np.array([k]), sub.pairs, f"{label}, horizon {t}")


@pytest.mark.parametrize("name", sorted(INSTANCES))
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_recorded_regret_is_the_sum_over_recorded_pairs_default_checkpoints(algorithm, name):
    needs_horizon = get_algorithm(algorithm).needs_horizon
    expected = horizon_mode_checkpoints(HORIZON) if needs_horizon else default_checkpoints(HORIZON)
    assert needs_horizon or expected[0] == 1  # so the first step is checked on its own
    _check(algorithm, INSTANCES[name], name, HORIZON, None, expected)


@pytest.mark.parametrize("name", sorted(INSTANCES))
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_recorded_regret_is_the_sum_over_recorded_pairs_dense_checkpoints(algorithm, name):
    horizon = HORIZON if name != "random4" else 70000  # SCB's phase 4 ends at step 65 812
    dense = _dense_checkpoints(horizon)
    _check(algorithm, INSTANCES[name], name, horizon, dense, dense)


@pytest.mark.parametrize("name, horizon", [("multisol", 12000), ("arxiv", 12000), ("random4", 70000)])
@pytest.mark.parametrize("algorithm", [a for a in ALGORITHMS if get_algorithm(a).compiled])
def test_kernel_bookkeeping_with_arbitrary_regret(algorithm, name, horizon):
    """The compiled loop's recorder with a regret stack that is positive on *every* ordered pair.

    With the real regret, a block of self-comparisons of a winner (Copeland SAVAGE after it
    commits, SCB after an early stop) costs nothing, so an error in how such a block is
    recorded would be invisible; here every step has its own positive regret (asymmetric in
    (i, j), so a swapped pair is seen too), and the checkpoints are dense inside the blocks.
    """
    spec = get_algorithm(algorithm)
    P = np.array(INSTANCES[name].values, dtype=np.float64, order="C")  # writeable, as the engine's
    K = P.shape[0]
    R = np.random.default_rng(17).uniform(0.1, 1.0, size=(3, K, K))
    ckpts = _dense_checkpoints(horizon)
    pvec = params_array(algorithm, canonical_params(algorithm, {}))
    for run in range(2):
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy=11, spawn_key=(run,))))
        if spec.run is not None:
            out, pairs = spec.run(P, R, ckpts, pvec, rng, True)
        else:  # step kernels, in the engine's shared loop
            out, pairs = run_algorithm(algorithm, P, R, ckpts, pvec, rng, True)
        assert out.shape == (3, ckpts.size) and pairs.shape == (horizon, 2)
        for d in range(3):
            expected = np.cumsum(R[d][pairs[:, 0], pairs[:, 1]])[ckpts - 1]
            bad = ~np.isclose(out[d], expected, rtol=RTOL, atol=ATOL)
            assert not bad.any(), (
                f"{algorithm} on {name}, run {run}: recorded {out[d][bad][:3]} at t = {ckpts[bad][:3]}, "
                f"pairs sum to {expected[bad][:3]}")
            assert out[d, 0] == R[d, pairs[0, 0], pairs[0, 1]]


def test_instances_cover_ties_and_missing_condorcet_winners():
    assert INSTANCES["arxiv"].has_ties and INSTANCES["arxiv"].condorcet_winner() is not None
    assert INSTANCES["multisol"].condorcet_winner() is None
    assert INSTANCES["mslr5_noncondorcet_printed"].condorcet_winner() is None
    assert not INSTANCES["random7"].has_ties

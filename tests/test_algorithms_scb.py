"""SCB (Zoghi et al. 2015, Algorithms 2–4): a from-scratch reference, phases, stopping rule,
exploitation blocks, and both code paths."""

import math
import warnings

import numpy as np
import pytest

import duelbench
from duelbench.algorithms import scb
from duelbench.algorithms.registry import get_algorithm
from duelbench.stats.choice import uniform_index
from duelbench.engine.seeding import run_rng
from duelbench.engine.traces import scb_exploration_trace
from duelbench.engine.simulate import regret_stack
from duelbench.problems.generators import copeland_cycle_plus_order
from duelbench.problems.matrix import PreferenceMatrix
from duelbench.problems.winners import copeland_winners
from duelbench.stats.hoeffding import hoeffding_side
from duelbench.stats.kl import kl_bernoulli
from duelbench.stats.kl_bounds import kl_interval

from _engine_helpers import MULTISOL, random_matrix, run_without_jit

# a Condorcet winner (arm 0) above a transitive order, every gap 0.4: Algorithm 2 stops in
# phases 4 and 5
EASY_CW = copeland_cycle_plus_order(1, 4, 0.4, 0.4, 0.4).values
# three Copeland winners in a cycle above two losers, every gap 0.4
EASY_CYCLE = copeland_cycle_plus_order(3, 2, 0.4, 0.4, 0.4).values
DETERMINISTIC2 = np.array([[0.5, 1.0], [0.0, 0.5]])  # arm 0 always wins
PHASE_STARTS = [0, 4, 20, 276, 65812]  # cumulative lengths of phases 1-4 (T = 4, 16, 256, 65536)


# ----------------------------------------------------------------------------- reference
class _Budget(Exception):
    """The phase (or the horizon) has no query left."""


def reference_scb_pairs(P, horizon, rng):
    """SCB written as in the paper (L112-131, L905-920) with the declared readings, as plain
    Python; the same random draws as the kernel (one uniform draw per opponent, one per
    comparison, none for self-comparisons)."""
    P = np.asarray(P)
    K = P.shape[0]
    pairs = []
    r = 1
    while len(pairs) < horizon:
        T = 2 ** (2 ** r)
        delta = min(math.log(T) / T, 1.0)
        budget = min(T, horizon - len(pairs))
        used = [0]

        def compare(i, j):
            if used[0] == budget:
                raise _Budget
            used[0] += 1
            pairs.append((i, j))
            return rng.random() < P[i, j]

        def reward(i):
            if used[0] == budget:  # no query left: the kernel draws no opponent either
                raise _Budget
            j = uniform_index(K - 1, rng)
            j = j + 1 if j >= i else j
            n = w = 0
            while True:
                w += compare(i, j)
                n += 1
                side = hoeffding_side(w, n, math.log(4 * K * K * n * n / delta))
                if side != 0:
                    return 1 if side > 0 else 0

        def argmax_lower(B, I):
            return max(B, key=lambda i: (I[i][0], -i))

        def stop(B, I):
            a = argmax_lower(B, I)
            return len(B) == 1 or all(I[j][1] < I[a][0] + 1.0 / (K - 1) for j in B if j != a)

        arm = None
        try:
            S = [reward(i) for i in range(K)]
            I = [(0.0, 1.0)] * K
            B = list(range(K))
            t = 2
            while not stop(B, I):
                for i in B:
                    S[i] += reward(i)
                lev = math.log(4 * t * K / delta) + 2 * math.log(math.log(t))
                for i in B:
                    I[i] = kl_interval(S[i] / t, t, lev, scb.KL_TOL)
                M = max(I[i][0] for i in B)
                B = [i for i in B if not I[i][1] < M]
                t += 1
            arm = argmax_lower(B, I)
        except _Budget:
            pass
        if arm is not None:
            m = min(T - used[0], horizon - len(pairs))
            pairs.extend([(arm, arm)] * m)
        r += 1
    return np.array(pairs, dtype=np.int64)


def _engine_pairs(P, horizon, seed=0, run=0):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = duelbench.simulate("scb", P, horizon, 1, seed=seed, run_start=run, permute=False, record_pairs=True)
    return res


def _reference_rng(P, seed=0, run=0):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pm = PreferenceMatrix(P)
    return run_rng(seed, pm.identity, "scb", {}, run)


# ----------------------------------------------------------------------------- registry, constants
def test_registered_as_anytime_compiled_algorithm():
    spec = get_algorithm("scb")
    assert spec.run is scb.run and spec.defaults == {} and not spec.needs_horizon
    assert "Algorithms 2-4" in spec.reference


def test_phase_lengths_and_failure_probabilities():
    assert [scb.phase_length(r) for r in range(1, 6)] == [4, 16, 256, 65536, 2 ** 32]
    assert scb.phase_length(6) == 2 ** 62 and scb.phase_length(9) == 2 ** 62  # saturated
    for r in range(1, 6):
        T = 2 ** (2 ** r)
        assert scb.phase_log_delta(r) == pytest.approx(math.log(math.log(T) / T), rel=1e-13)
    assert math.isfinite(scb.phase_log_delta(12)) and scb.phase_log_delta(12) < -2000  # no overflow


def test_level_uses_ln_ln_t_literally():
    fl = np.array([0.0, math.log(4 * 5) + 3.0])  # ln(4K/δ) with K = 5, δ = e^-3
    assert scb.level(fl, 2) == pytest.approx(math.log(4 * 2 * 5) + 3.0 + 2 * math.log(math.log(2)))
    assert 2 * math.log(math.log(2)) < 0 < scb.level(fl, 2)


@pytest.mark.parametrize("p_hat,n,level", [(0.3, 10, 2.0), (0.998, 5000, 35.0), (0.5, 2, 5.9), (0.01, 100, 1.0)])
def test_kl_interval_brackets_the_exact_ends(p_hat, n, level):
    lo, hi = kl_interval(p_hat, n, level, 1e-10)
    assert lo <= p_hat <= hi
    for q in (lo, hi):  # outer ends: just outside (or on) the set, within the tolerance
        assert q in (0.0, 1.0) or n * kl_bernoulli(p_hat, q) >= level
    assert lo == 0.0 or n * kl_bernoulli(p_hat, lo + 1e-10) <= level
    assert hi == 1.0 or n * kl_bernoulli(p_hat, hi - 1e-10) <= level


def test_kl_interval_closed_forms_at_the_ends():
    n, level = 7, 3.0
    lo, hi = kl_interval(0.0, n, level, 1e-12)
    assert lo == 0.0 and hi == pytest.approx(1 - math.exp(-level / n), abs=2e-12)
    lo, hi = kl_interval(1.0, n, level, 1e-12)
    assert hi == 1.0 and lo == pytest.approx(math.exp(-level / n), abs=2e-12)


# ----------------------------------------------------------------------------- against the reference
@pytest.mark.parametrize("P,horizon", [
    (EASY_CW, 120_000),  # phases 4 and 5 stop; exploitation block inside the horizon, then a commit
    (EASY_CYCLE, 70_000),  # phase 4 force-terminated
    (DETERMINISTIC2, 70_000),
    (random_matrix(4, 3), 2_000),
    (MULTISOL, 3_000),
])
def test_pairs_equal_the_reference(P, horizon):
    res = _engine_pairs(P, horizon, seed=7)
    ref = reference_scb_pairs(P, horizon, _reference_rng(P, seed=7))
    assert ref.shape == (horizon, 2)
    assert np.array_equal(res.pairs[0], ref)


def test_deterministic_two_arm_case_by_hand():
    """p_01 = 1: every reward is decided after the first n with n > 2 (ln(4K²/δ) + 2 ln n).

    Phases 1-2 are force-terminated (20 comparisons would be needed); phase 3 (δ = ln 256/256)
    needs 27 per reward and stops after round t = 2 (min I_0 = e^(-level/2) > 0 and 1/(K-1) = 1):
    T_0 = 4 x 27, then (0, 0) for 256 - 108 steps; phase 4 needs 38 per reward.
    """
    res = _engine_pairs(DETERMINISTIC2, 1000)
    pairs = [tuple(p) for p in res.pairs[0]]
    assert pairs[:20] == [(0, 1)] * 20  # phases 1 and 2: reward(0) never completes
    third = pairs[20:276]
    assert third[:108] == [(0, 1)] * 27 + [(1, 0)] * 27 + [(0, 1)] * 27 + [(1, 0)] * 27
    assert third[108:] == [(0, 0)] * 148
    assert pairs[276:276 + 152] == [(0, 1)] * 38 + [(1, 0)] * 38 + [(0, 1)] * 38 + [(1, 0)] * 38
    assert pairs[276 + 152:] == [(0, 0)] * (1000 - 276 - 152)
    rows = scb_exploration_trace(DETERMINISTIC2, 1000, permute=False)
    assert [(d["r"], d["start"], d["T0"], d["status"], d["arm"]) for d in rows] == [
        (1, 0, 4, 0, 0), (2, 4, 16, 0, 0), (3, 20, 108, 1, 0), (4, 276, 152, 1, 0)]


# ----------------------------------------------------------------------------- behaviour
def test_finds_a_copeland_winner_then_exploits_easy_instance():
    """Easy 5-arm instance (a Condorcet winner, gaps 0.4): phases 4 and 5 stop with the winner,
    after which the regret is flat.  Growth ratio [R(T) - R(T/2)]/R(T/2) < 0.5 at T = 10^6.

    (At T = 10^5 the ratio is about 2 by construction: phase 5 starts at step 65,813 and
    restarts the exploration from scratch with δ = ln(2^32)/2^32, so [5·10^4, 10^5] contains
    a whole new exploration while [0, 5·10^4] contains only phases 1-4.)
    """
    ck = [25_000, 50_000, 500_000, 1_000_000]
    res = duelbench.simulate("scb", EASY_CW, 1_000_000, 10, seed=3, checkpoints=ck)
    m = res.mean("copeland")
    assert (m[3] - m[2]) / m[2] < 0.5
    # exploitation plays the Condorcet winner: zero regret after both explorations
    assert np.array_equal(res.regret[:, 3], res.regret[:, 2])
    assert np.array_equal(res.regret[:, 1], res.regret[:, 0])
    for run in range(3):
        rows = scb_exploration_trace(EASY_CW, 1_000_000, seed=3, run_index=run)
        assert [d["start"] for d in rows] == PHASE_STARTS
        assert [d["status"] for d in rows[3:]] == [1, 1] and all(d["arm"] == 0 for d in rows[3:])
        assert rows[3]["T0"] < 30_000 and rows[4]["T0"] < 60_000


@pytest.mark.parametrize("P", [MULTISOL, EASY_CYCLE], ids=["multisol", "cycle3"])
def test_stopping_rule_fires_with_tied_copeland_winners(P):
    """Three Copeland winners with equal scores: B cannot shrink to one arm, and only the
    top-level separation rule ends the exploration (in phase 5, well within 2·10^6 steps)."""
    winners = set(copeland_winners(PreferenceMatrix(P)))
    assert len(winners) == 3
    for run in range(4):
        rows = scb_exploration_trace(P, 2_000_000, seed=11, run_index=run)
        last = rows[-1]
        assert last["r"] == 5 and last["status"] == 1 and last["B"] >= 3
        assert last["arm"] in winners
        assert last["start"] + last["T0"] < 1_500_000
    res = duelbench.simulate("scb", P, 2_000_000, 4, seed=11, checkpoints=[1_500_000, 2_000_000])
    assert np.array_equal(res.regret[:, 0], res.regret[:, 1])  # exploitation of a winner


def test_exploration_of_500_arm_problem_is_cut_by_the_horizon():
    rows = scb_exploration_trace("zoghi_copeland500", 200_000, seed=0)
    assert [d["status"] for d in rows] == [0, 0, 0, 0, -1]  # phases 1-4 forced, phase 5 running
    assert [d["T0"] for d in rows[:4]] == [4, 16, 256, 65536] and rows[4]["T0"] == 200_000 - 65812


def test_block_exploitation_equals_stepwise():
    P = EASY_CW
    pm = PreferenceMatrix(P)
    R = regret_stack(pm)
    ck = np.array([100, 1000, 20_000, 30_000, 40_000, 65_812, 70_000, 100_000, 120_000], dtype=np.int64)
    out_a, pairs_a = scb.run(P, R, ck, np.zeros(0), np.random.default_rng(5), True)
    out_b, pairs_b = scb.run_stepwise(P, R, ck, np.zeros(0), np.random.default_rng(5), True)
    assert np.array_equal(pairs_a, pairs_b)
    assert np.allclose(out_a[:3], out_b[:3], rtol=1e-12, atol=0)  # Condorcet regret: NaN-free here
    assert (pairs_a[30_000:65_812] == pairs_a[65_811]).all() and pairs_a[65_811, 0] == pairs_a[65_811, 1]


def test_one_arm_kernel_plays_the_arm_against_itself():
    P = np.array([[0.5]])
    R = np.zeros((4, 1, 1))
    out, pairs = scb.run(P, R, np.array([10, 300], dtype=np.int64), np.zeros(0), np.random.default_rng(0), True)
    assert (pairs == 0).all() and (out == 0).all()


@pytest.mark.filterwarnings("ignore::duelbench.problems.matrix.TiedPairWarning")
def test_tied_pair_is_force_terminated():
    """p_01 = 1/2 exactly: reward calls never decide; every phase runs to its force-termination."""
    P = np.array([[0.5, 0.5], [0.5, 0.5]])
    rows = scb_exploration_trace(P, 70_000, permute=False)
    assert [d["status"] for d in rows] == [0, 0, 0, 0, -1]


# ----------------------------------------------------------------------------- code paths
PY_SCRIPT = r"""
import json, sys, numpy as np, warnings
warnings.simplefilter("ignore")
from duelbench import simulate
P = np.array(json.loads(sys.argv[1]))
r = simulate("scb", P, 120000, 1, seed=2, record_pairs=True, checkpoints=[1000, 50000, 65812, 100000, 120000])
print(json.dumps({"pairs": r.pairs[0].tolist(), "regret": r.regret.tolist()}))
"""


def test_python_path_with_exploitation_blocks_identical():
    """NUMBA_DISABLE_JIT=1 gives the same pairs and bit-identical sums, also through the
    exploitation block and the closing commit (tests/test_engine_paths.py covers 1,500 steps)."""
    py = run_without_jit(PY_SCRIPT, EASY_CW.tolist())
    r = duelbench.simulate("scb", EASY_CW, 120000, 1, seed=2, record_pairs=True,
                           checkpoints=[1000, 50000, 65812, 100000, 120000])
    assert np.array_equal(r.pairs[0], np.array(py["pairs"]))
    assert np.array_equal(r.regret, np.array(py["regret"]))


@pytest.mark.parametrize("rows", [1, 2, 3, 4])
def test_trace_keeps_every_phase_that_fits(rows):
    """``run_traced`` fills one row per phase reached while one is left: a trace with exactly as
    many rows as phases (4 phases by T = 1000 on DETERMINISTIC2) or fewer keeps the first ones.

    DETERMINISTIC2's exploration duels are decided (p = 1, p = 0), so the trace does not depend on
    the generator (rows as in ``test_deterministic_two_arm_case_by_hand``)."""
    def traced(n):
        trace = np.zeros((n, 7), dtype=np.int64)
        scb.run_traced(DETERMINISTIC2, np.zeros((1, 2, 2)), np.array([1000], dtype=np.int64), np.zeros(0),
                       np.random.default_rng(0), trace)
        return trace

    full = traced(8)
    assert full[:, 0].tolist() == [1, 2, 3, 4, 0, 0, 0, 0]
    assert [(r[0], r[1], r[2], r[4]) for r in full[:4].tolist()] == [
        (1, 0, 4, 0), (2, 4, 16, 0), (3, 20, 108, 1), (4, 276, 152, 1)]
    assert np.array_equal(traced(rows), full[:rows])

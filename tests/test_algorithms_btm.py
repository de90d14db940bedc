"""Beat-the-Mean (Yue & Joachims, ICML 2011): working-set elimination, exploitation of the last arm,
the opponent rule, δ = 1/(2KT), parameter validation, closed form and code paths."""

import math
import warnings

import numpy as np
import pytest

import duelbench
from duelbench.algorithms import btm
from duelbench.algorithms.registry import canonical_params, get_algorithm, params_array
from duelbench.engine.seeding import run_rng
from duelbench.engine.simulate import regret_stack
from duelbench.problems.matrix import PreferenceMatrix

from _engine_helpers import ARXIV, MULTISOL, random_matrix, run_without_jit

# A Condorcet winner (arm 2) with gaps ≥ 0.2.  Records against the mean of W = all arms (self
# included): arm 2: 0.725, arm 0: 0.575, arm 1: 0.425, arm 3: 0.275; against {0, 1, 2}:
# 0.667, 0.5, 0.333; against {0, 2}: 0.6, 0.4 — so the removals go 3, 1, 0.
EASY = np.array([
    [0.5, 0.7, 0.3, 0.8],
    [0.3, 0.5, 0.2, 0.7],
    [0.7, 0.8, 0.5, 0.9],
    [0.2, 0.3, 0.1, 0.5],
])


def _params(**kw):
    return params_array("btm", canonical_params("btm", kw))


def _rs(P):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return regret_stack(PreferenceMatrix(P))


def _run(P, T, seed, fn=btm.run, checkpoints=None, **kw):
    ck = np.array([T] if checkpoints is None else checkpoints, dtype=np.int64)
    return fn(np.ascontiguousarray(P), _rs(P), ck, _params(**kw), np.random.default_rng(seed), True)


def _replay(P, T, seed, check_every=1, **kw):
    """Drive the kernels step by step on the stream ``run`` uses; check the records against the
    per-pair counts after every removal and every ``check_every`` steps.  Returns the
    exploration pairs, the removals (step, arm) and the final working set."""
    K = P.shape[0]
    state = btm.init(K, T, _params(**kw))
    cmp, win, n, w, active = state[:5]
    rng = np.random.default_rng(seed)
    pairs, removals = [], []
    t = 0
    while t < T and active.sum() > 1:
        b, b2 = btm.select(state, rng)
        assert active[b] and active[b2]
        r = btm.update(state, b, b2, rng.random() < P[b, b2])
        t += 1
        pairs.append((b, b2))
        if r >= 0:
            removals.append((t, r))
        elif t % check_every:
            continue
        # n_b, w_b = Σ over the opponents still in W (comparisons with removed arms deleted)
        np.testing.assert_array_equal(n[active], cmp[np.ix_(active, active)].sum(axis=1))
        np.testing.assert_array_equal(w[active], win[np.ix_(active, active)].sum(axis=1))
    return np.array(pairs, dtype=np.int64).reshape(-1, 2), removals, set(np.flatnonzero(active).tolist())


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_working_set_shrinks_to_the_condorcet_winner_then_exploits(seed):
    """Yue & Joachims: the arm with the worst record against the mean is removed first, and the
    last arm of W — here the Condorcet winner — is then compared with itself until T."""
    T = 300_000
    explore, removals, final = _replay(EASY, T, seed, check_every=101)
    assert final == {2}
    assert [r for _, r in removals] == [3, 1, 0]
    E = len(explore)
    assert E == removals[-1][0] < T
    for t, r in removals:  # a removed arm is never compared again
        assert not np.any(explore[t:] == r)
    _, pairs = _run(EASY, T, seed)
    assert np.array_equal(pairs[:E], explore)
    assert np.all(pairs[E:] == 2)


def test_winner_on_a_larger_random_instance_with_a_condorcet_winner():
    """K = 8, entries from a random matrix with arm 5 made a Condorcet winner by a margin ≥ 0.3."""
    P = random_matrix(8, 4)
    P[5, :], P[:, 5] = 0.85, 0.15
    P[5, 5] = 0.5
    T = 2_000_000
    for seed in (0, 1):
        _, pairs = _run(P, T, seed, confidence_factor=1.0)
        assert tuple(pairs[-1]) == (5, 5)


def test_each_arm_is_first_candidate_once_per_round_before_a_removal():
    """b = argmin n_b: before any removal, every block of K steps has each arm as b once."""
    K = 6
    explore, removals, _ = _replay(random_matrix(K, 1), 3000, 0)
    first_removal = removals[0][0] if removals else len(explore)
    blocks = first_removal // K
    assert blocks > 100
    for k in range(blocks):
        assert sorted(explore[k * K:(k + 1) * K, 0].tolist()) == list(range(K))


def test_opponent_is_uniform_on_W_including_b_by_default():
    """Wu & Liu's code and Yue & Joachims draw b′ from all of W: in the first phase (|W| = K)
    b′ = b in about 1/K of the steps, and every arm is an opponent about equally often."""
    K = 5
    explore, removals, _ = _replay(MULTISOL, 20_000, 3)
    phase = explore[: removals[0][0] - 1] if removals else explore
    assert len(phase) > 2000
    assert abs(np.mean(phase[:, 0] == phase[:, 1]) - 1 / K) < 0.03
    assert np.all(np.abs(np.bincount(phase[:, 1], minlength=K) / len(phase) - 1 / K) < 0.03)


@pytest.mark.parametrize("P", [EASY, MULTISOL, ARXIV, random_matrix(7, 2)])
def test_no_self_comparison_during_exploration_when_the_opponent_excludes_b(P):
    explore, _, final = _replay(P, 50_000, 1, check_every=37, opponent_excludes_self=1.0, confidence_factor=0.5)
    assert len(explore) > 100
    assert not np.any(explore[:, 0] == explore[:, 1])
    _, pairs = _run(P, 50_000, 1, opponent_excludes_self=1.0, confidence_factor=0.5)
    E = len(explore)
    assert np.array_equal(pairs[:E], explore)
    if len(final) == 1:
        assert np.all(pairs[E:] == min(final))


def test_self_comparisons_count_for_the_first_candidate():
    """A self-comparison (b, b) is a fair coin and counts toward n_b (the mean of W includes b)."""
    explore, _, _ = _replay(EASY, 2000, 0)
    state = btm.init(4, 2000, _params())
    rng = np.random.default_rng(0)
    for b, b2 in explore:
        assert (b, b2) == btm.select(state, rng)
        btm.update(state, b, b2, rng.random() < EASY[b, b2])
    cmp, n = state[0], state[2]
    assert np.diag(cmp).sum() > 0
    np.testing.assert_array_equal(n, cmp.sum(axis=1))


def test_radius_and_delta():
    """c(n) = 3·γ²·sqrt(ln(1/δ)/n), δ = 1/(2KT) (Yue & Joachims; γ = 1.3, Wu & Liu L893–894)."""
    for K, T in ((2, 10), (5, 10**6), (16, 2 * 10**7), (136, 10**7)):
        assert btm.btm_log_term(K, T) == pytest.approx(math.log(1.0 / (1.0 / (2 * K * T))), rel=1e-14)
        state = btm.init(K, T, _params())
        fl = state[-1]
        assert fl[btm.LOG_TERM] == btm.btm_log_term(K, T)
        for n in (1, 10, 1000):
            c = btm.confidence_radius(fl[btm.COEF], fl[btm.LOG_TERM], float(n))
            assert c == pytest.approx(3.0 * 1.3**2 * math.sqrt(math.log(2 * K * T) / n), rel=1e-14)
    assert get_algorithm("btm").needs_horizon


def test_removal_waits_for_the_radius():
    """No removal while c(n*) > 1/2 (max − min ≥ 2c is impossible then): with the defaults on
    EASY at T = 10^5 the first removal comes after n* ≥ 4·(3γ²)²·ln(2KT)."""
    T = 100_000
    _, removals, _ = _replay(EASY, T, 0, check_every=T)
    bound = 4 * (3 * 1.3**2) ** 2 * math.log(8 * T)
    assert removals and removals[0][0] >= 4 * bound


@pytest.mark.parametrize("bad,match", [
    ({"gamma": 0.99}, "gamma"),
    ({"gamma": 0.0}, "gamma"),
    ({"confidence_factor": 0.0}, "confidence_factor"),
    ({"confidence_factor": -3.0}, "confidence_factor"),
    ({"opponent_excludes_self": 0.5}, "opponent_excludes_self"),
    ({"opponent_excludes_self": 2.0}, "opponent_excludes_self"),
])
def test_parameter_validation(bad, match):
    with pytest.raises(ValueError, match=match):
        canonical_params("btm", bad)


def test_valid_parameters_and_defaults():
    spec = get_algorithm("btm")
    assert list(spec.defaults) == ["gamma", "confidence_factor", "opponent_excludes_self"]
    assert spec.defaults == {"gamma": 1.3, "confidence_factor": 3.0, "opponent_excludes_self": 0.0}
    canonical_params("btm", {"gamma": 1.0, "confidence_factor": 1.0, "opponent_excludes_self": 1.0})


@pytest.mark.parametrize("P", [EASY, MULTISOL, ARXIV, random_matrix(6, 3)])
def test_closed_form_regret_equals_step_by_step(P):
    ck = [1000, 5000, 20_000, 100_000, 300_000]
    for seed in (0, 1):
        closed, pc = _run(P, ck[-1], seed, btm.run, ck, confidence_factor=1.0)
        stepwise, ps = _run(P, ck[-1], seed, btm.run_stepwise, ck, confidence_factor=1.0)
        assert np.array_equal(pc, ps)
        np.testing.assert_allclose(closed, stepwise, rtol=1e-12, atol=1e-9)
        R = _rs(P)
        direct = np.cumsum(R[:, ps[:, 0], ps[:, 1]], axis=1)[:, np.array(ck) - 1]
        np.testing.assert_allclose(closed, direct, rtol=1e-9, atol=1e-6)


def test_long_horizon_ends_in_exploitation():
    """T = 10^7 with the defaults: only the exploration is simulated step by step, and the
    run ends exploiting the winner (no assertion on wall-clock time)."""
    _run(EASY, 1000, 0)
    out, _ = btm.run(EASY, _rs(EASY), np.array([10_000_000], dtype=np.int64), _params(),
                     np.random.default_rng(0), False)
    assert np.isfinite(out).all()
    # the exploited pair is added in closed form: far below the regret of uniformly random play
    assert out[0, -1] < 0.01 * 10_000_000 * _rs(EASY)[0].mean()


def test_each_horizon_point_is_an_independent_run():
    """δ = 1/(2KT): each checkpoint of simulate() is a run with that horizon from the stream's start."""
    ck = [2000, 50_000]
    r = duelbench.simulate("btm", EASY, ck[-1], 1, seed=1, checkpoints=ck, permute=False)
    canon = canonical_params("btm", {})
    for k, T in enumerate(ck):
        rng = run_rng(1, PreferenceMatrix(EASY).identity, "btm", canon, 0)
        out, _ = btm.run(EASY, _rs(EASY), np.array([T], dtype=np.int64), _params(), rng, False)
        assert out[0, -1] == r.regret[0, k]


PY_SCRIPT = r"""
import json, sys, numpy as np, warnings
warnings.simplefilter("ignore")
from duelbench import simulate
P = np.array(json.loads(sys.argv[1]))
out = []
for params in ({"confidence_factor": 1.0}, {"confidence_factor": 1.0, "opponent_excludes_self": 1.0}, {}):
    r = simulate("btm", P, 20000, 2, seed=4, record_pairs=True, checkpoints=[1000, 5000, 20000], **params)
    out.append({"pairs": r.pairs.tolist(), "regret": r.regret.tolist()})
print(json.dumps(out))
"""


def test_python_path_identical_through_exploitation():
    """NUMBA_DISABLE_JIT=1 gives the same pairs and bit-identical sums, through removals and the
    closed-form exploitation (tests/test_engine_paths.py covers 1,500 steps)."""
    py = run_without_jit(PY_SCRIPT, EASY.tolist())
    for got, params in zip(py, ({"confidence_factor": 1.0}, {"confidence_factor": 1.0, "opponent_excludes_self": 1.0},
                                {})):
        r = duelbench.simulate("btm", EASY, 20000, 2, seed=4, record_pairs=True, checkpoints=[1000, 5000, 20000],
                               **params)
        assert np.array_equal(r.pairs, np.array(got["pairs"]))
        assert np.array_equal(r.regret, np.array(got["regret"]))
    for case in py[:2]:  # confidence_factor = 1 reaches exploitation within T = 20 000
        p = np.array(case["pairs"])
        assert np.all(p[:, -1000:, :] == p[:, -1:, :1])


def _hand_state(K, n, w, coef, log_term):
    """A state whose records are ``n``, ``w`` (each kept on the pair (b, b+1 mod K)) and whose
    radius is ``c(n) = coef·sqrt(log_term/n)``: dyadic values make the tests exact."""
    state = btm.init(K, 10, _params())
    cmp, win, nn, ww, active, neg, sc, fl = state
    for b in range(K):
        cmp[b, (b + 1) % K], win[b, (b + 1) % K] = n[b], w[b]
    nn[:], ww[:] = n, w
    fl[btm.COEF], fl[btm.LOG_TERM] = coef, log_term
    return state


def test_removal_test_is_inclusive_and_reports_the_arm():
    """Remove b_min when min P̂ + c* ≤ max P̂ − c* (equality included; Yue & Joachims, Algorithm 1);
    ``update`` returns the removed arm, or −1 when none is removed."""
    # after the update: n = (4, 4, 4), P̂ = (3/4, 1/2, 5/8), c(4) = 1/4·sqrt(1/4) = 1/8
    state = _hand_state(3, [4.0, 4.0, 3.0], [3.0, 2.0, 2.0], 0.25, 1.0)
    assert btm.update(state, 2, 0, True) == 1  # 1/2 + 1/8 = 3/4 − 1/8
    active, sc = state[4], state[6]
    assert active.tolist() == [True, False, True] and sc[btm.N_ACTIVE] == 2 and sc[btm.WINNER] == -1
    # one more win for arm 1's record would have kept it: 5/8 + 1/8 > 3/4 − 1/8
    state = _hand_state(3, [4.0, 4.0, 3.0], [3.0, 2.5, 2.0], 0.25, 1.0)
    assert btm.update(state, 2, 0, True) == -1
    assert state[4].all() and state[6][btm.N_ACTIVE] == 3
    # while some arm of W has no comparison (n* = 0) nothing is tested
    state = _hand_state(3, [0.0, 9.0, 0.0], [0.0, 0.0, 0.0], 1e-9, 1.0)
    assert btm.update(state, 0, 1, True) == -1 and state[4].all()


def test_removal_possible_at_radius_one_half():
    """The test is skipped only for c > 1/2: at c = 1/2 exactly, P̂ = (1, 0) still removes the loser."""
    state = _hand_state(2, [1.0, 0.0], [1.0, 0.0], 0.5, 1.0)
    assert btm.update(state, 1, 0, False) == 1  # n = (1, 1), c(1) = 1/2, 0 + 1/2 ≤ 1 − 1/2
    assert state[6][btm.WINNER] == 0 and state[6][btm.N_ACTIVE] == 1
    state = _hand_state(2, [1.0, 0.0], [1.0, 0.0], np.nextafter(0.5, 1.0), 1.0)
    assert btm.update(state, 1, 0, False) == -1  # c just above 1/2: skipped


def test_removed_arm_is_the_first_minimum_and_its_comparisons_leave_the_records():
    """Ties in P̂ go to the lowest index; the removed arm's column leaves every other record."""
    state = _hand_state(3, [4.0, 4.0, 3.0], [3.0, 1.0, 0.0], 0.25, 1.0)
    assert btm.update(state, 2, 1, True) == 1  # P̂ = (3/4, 1/4, 1/4): arms 1 and 2 tie
    n, w = state[2], state[3]
    # arm 0's 4 comparisons were all against arm 1, arm 2's against 0 (3, lost) and 1 (1, won)
    assert (n[0], w[0], n[2], w[2]) == (0.0, 0.0, 3.0, 0.0)

"""Condorcet SAVAGE: the Condorcet independence test under both readings of the registered
parameter ``assume_condorcet_winner`` (1, the default: a pair leaves W once either arm is
certainly beaten; 0: once both are), the certified winner, the exploited arm without a Condorcet
winner, δ = 1/T, closed-form exploitation, parameter validation and both code paths."""

import math
import warnings

import numpy as np
import pytest

import duelbench
from duelbench.algorithms import condorcet_savage as cs
from duelbench.algorithms import savage
from duelbench.algorithms.registry import canonical_params, get_algorithm, params_array
from duelbench.data.registry import load_matrix
from duelbench.engine.seeding import run_rng
from duelbench.engine.simulate import regret_stack
from duelbench.problems.matrix import PreferenceMatrix
from duelbench.stats.hoeffding import hoeffding_radius

from _engine_helpers import ARXIV, MULTISOL, random_matrix, run_without_jit

# Arm 2 is the Condorcet winner (beats everyone), every gap ≥ 0.2.
EASY = np.array([
    [0.5, 0.7, 0.3, 0.8],
    [0.3, 0.5, 0.2, 0.7],
    [0.7, 0.8, 0.5, 0.9],
    [0.2, 0.3, 0.1, 0.5],
])


def _cycle_under_winner(K):
    """Arm 0 beats every arm at 0.6; arms 1 … K−1 form a cycle of clear duels (0.9) and every
    other pair among them is nearly tied (0.51).  Every non-winner is beaten early (by its
    predecessor in the cycle) while no arm has many certain wins until the winner's pairs are
    resolved: the Condorcet test drops the nearly tied pairs at once, the Copeland test only when
    the winner's certified score reaches K − 2."""
    P = np.full((K, K), 0.5)
    for i in range(1, K):
        for j in range(i + 1, K):
            P[i, j], P[j, i] = 0.51, 0.49
    for i in range(1, K):
        j = 1 + i % (K - 1)
        P[i, j], P[j, i] = 0.9, 0.1
    P[0, 1:], P[1:, 0] = 0.6, 0.4
    return P


CYCLE7 = _cycle_under_winner(7)

# Arm 0 is the Condorcet winner with a narrow gap to arm 1 (0.55); arm 2 beats arm 1 clearly
# (0.95) and loses to arm 0 clearly (0.9).  Certifying arm 0 needs the narrow pair {0, 1}.
NARROW = np.array([
    [0.5, 0.55, 0.9],
    [0.45, 0.5, 0.05],
    [0.1, 0.95, 0.5],
])


def _params(**given):
    """The params array the engine gives the kernel for the canonical parameters of ``given``."""
    return params_array("condorcet_savage", canonical_params("condorcet_savage", given))


DEFAULT = _params()                             # assume_condorcet_winner = 1 (registered default)
EXACT = _params(assume_condorcet_winner=0)      # the exact independence test
READINGS = pytest.mark.parametrize("params", [DEFAULT, EXACT], ids=["assume_cw", "exact"])
COPELAND = params_array("copeland_savage", canonical_params("copeland_savage", {}))


def _rs(P):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return regret_stack(PreferenceMatrix(P))


def _run(P, T, seed, fn=cs.run, checkpoints=None, params=DEFAULT):
    ck = np.array([T] if checkpoints is None else checkpoints, dtype=np.int64)
    return fn(np.ascontiguousarray(P), _rs(P), ck, np.array(params, dtype=np.float64),
              np.random.default_rng(seed), True)


def _explored(pairs):
    """Number of exploration steps (the first self-comparison starts the exploitation)."""
    same = np.flatnonzero(pairs[:, 0] == pairs[:, 1])
    return int(same[0]) if len(same) else len(pairs)


def _replay(P, T, seed, params=DEFAULT):
    """Drive the kernels step by step; yields (state, q) after every exploration step."""
    K = P.shape[0]
    state, assume = cs.init(K, T, np.array(params, dtype=np.float64))
    rng = np.random.default_rng(seed)
    for _ in range(T):
        q = cs.next_pair(state)
        if q < 0:
            return
        cs.update(state, q, rng.random() < P[state[1][q], state[2][q]], assume)
        yield state, q


def _certain(W, log_term):
    """``beats[i, k]``: the interval of p_ik lies above 1/2 (the test of ``hoeffding_side``,
    (2w − n)² > 2n·log_term with 2w > n, evaluated for the whole matrix)."""
    N = W + W.T
    d = 2.0 * W - N
    return (N > 0) & (d > 0) & (d * d > 2.0 * N * log_term)


# ----------------------------------------------------------------------------- the algorithm
@READINGS
def test_commits_to_the_condorcet_winner_on_an_easy_instance(params):
    for seed in range(5):
        _, pairs = _run(EASY, 20_000, seed, params=params)
        start = _explored(pairs)
        assert 0 < start < 3000 and np.all(pairs[start:] == 2)
    for seed in range(3):  # arms shuffled by the engine; the winner of ArXiv is arm 0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = duelbench.simulate("condorcet_savage", ARXIV, 300_000, 1, seed=seed, record_pairs=True,
                                   checkpoints=[300_000], assume_condorcet_winner=params[0])
        assert tuple(r.pairs[0][-1]) == (0, 0)


@pytest.mark.parametrize("P", [EASY, CYCLE7, NARROW, random_matrix(6, 3)])
def test_exploration_ends_when_an_arm_has_certainly_beaten_every_other_arm(P):
    """Exact test (``assume_condorcet_winner = 0``), on instances with a Condorcet winner: after
    every step, W is empty exactly when one arm has a certain win over each other arm (the
    certified Condorcet winner), which is then the exploited arm."""
    K = P.shape[0]
    for seed in range(3):
        for state, _ in _replay(P, 200_000, seed, EXACT):
            full = np.flatnonzero(_certain(state[0], state[-1][0]).sum(axis=1) == K - 1)
            assert (cs.next_pair(state) < 0) == (len(full) == 1)
        assert cs.next_pair(state) < 0 and cs.condorcet_choice(state) == full[0]
        assert full[0] == [a for a in range(K) if all(P[a, k] > 0.5 for k in range(K) if k != a)][0]


@pytest.mark.filterwarnings("ignore::duelbench.problems.matrix.TiedPairWarning")
def test_default_reading_stops_once_every_other_arm_is_beaten():
    """The registered default (``assume_condorcet_winner = 1``), with and without a Condorcet
    winner: after every step, W is empty exactly when a single arm has no certain loss, whether
    or not that arm has beaten the others yet; that arm is the exploited one."""
    assert DEFAULT.tolist() == [1.0]
    for P in (NARROW, CYCLE7, EASY, MULTISOL, load_matrix("gap").values):
        for seed in range(3):
            for state, _ in _replay(P, 200_000, seed):
                unbeaten = ~_certain(state[0], state[-1][0]).any(axis=0)
                assert unbeaten.sum() >= 1
                assert (cs.next_pair(state) < 0) == (unbeaten.sum() == 1)
            assert cs.next_pair(state) < 0
            assert cs.condorcet_choice(state) == np.flatnonzero(unbeaten)[0]


def test_default_reading_on_an_easy_instance_stops_when_every_non_winner_is_beaten_once():
    """EASY (arm 2 beats everyone, gaps ≥ 0.2), default reading: the exploration ends at the
    very step at which the last of arms 0, 1, 3 receives its first certain loss — each
    non-winner is beaten exactly once (K − 1 = 3 resolved pairs), the other pairs leave W
    unresolved — and it is shorter than Copeland SAVAGE's on the same instance and stream."""
    T = 200_000
    for seed in range(5):
        steps, last_first_loss = 0, None
        for state, _ in _replay(EASY, T, seed):
            steps += 1
            lost = state[7]
            if last_first_loss is None and (lost[[0, 1, 3]] >= 1).all():
                last_first_loss = steps
        assert steps == last_first_loss
        assert state[7].tolist() == [1, 1, 0, 1]
        assert _certain(state[0], state[-1][0]).sum() == 3
        _, p_cond = _run(EASY, T, seed)
        _, p_cop = savage.run(EASY, _rs(EASY), np.array([T]), COPELAND, np.random.default_rng(seed), True)
        _, p_exact = _run(EASY, T, seed, params=EXACT)
        assert _explored(p_cond) == steps and tuple(p_cond[-1]) == tuple(p_cop[-1]) == (2, 2)
        assert _explored(p_cond) < _explored(p_cop), (_explored(p_cond), _explored(p_cop))
        assert _explored(p_cond) <= _explored(p_exact)


def test_explores_fewer_steps_than_copeland_savage_where_losers_are_beaten_early():
    """CYCLE7: the nearly tied pairs between beaten arms leave W at once (Condorcet test, both
    readings), but stay until the winner's certified score reaches K − 2 under the Copeland test.
    NARROW: the exact test and the Copeland test must both resolve the winner's narrow pair
    {0, 1} and run identically; the default reading (a Condorcet winner exists) stops once arms
    1 and 2 are beaten, without that pair."""
    T = 200_000
    for seed in range(4):
        _, p_cop = savage.run(CYCLE7, _rs(CYCLE7), np.array([T]), COPELAND, np.random.default_rng(seed), True)
        for params in (EXACT, DEFAULT):
            _, p_cond = _run(CYCLE7, T, seed, params=params)
            assert tuple(p_cond[-1]) == tuple(p_cop[-1]) == (0, 0)
            assert _explored(p_cond) < 0.6 * _explored(p_cop), (_explored(p_cond), _explored(p_cop))
    short = []
    for seed in range(6):
        _, p_cond = _run(NARROW, T, seed, params=EXACT)
        _, p_cop = savage.run(NARROW, _rs(NARROW), np.array([T]), COPELAND, np.random.default_rng(seed), True)
        assert np.array_equal(p_cond, p_cop)
        _, p_assume = _run(NARROW, T, seed)
        assert tuple(p_assume[-1]) == (0, 0)
        short.append(_explored(p_assume) < 0.2 * _explored(p_cond))
    assert sum(short) >= 4, short


@pytest.mark.filterwarnings("ignore::duelbench.problems.matrix.TiedPairWarning")
def test_without_a_condorcet_winner_the_arm_with_fewest_certain_losses_is_exploited():
    """Exact test: MultiSol and Gap have no Condorcet winner; every arm ends certainly beaten, W
    empties (pairs between beaten arms leave it) and the exploited arm has the fewest certain
    losses, then the most empirical wins."""
    gap = load_matrix("gap").values
    for P in (MULTISOL, gap):
        K = P.shape[0]
        for seed in range(4):
            T = 50_000
            n = 0
            for state, _ in _replay(P, T, seed, EXACT):
                n += 1
            assert n < T and cs.next_pair(state) < 0
            W, lost = state[0], state[7]
            assert (lost >= 1).all()
            wins = [sum(W[a, k] > W[k, a] for k in range(K) if k != a) for a in range(K)]
            w = cs.condorcet_choice(state)
            assert w == min(range(K), key=lambda a: (lost[a], -wins[a], a))
            _, pairs = _run(P, T, seed, params=EXACT)
            assert _explored(pairs) == n and tuple(pairs[-1]) == (w, w)


def test_condorcet_test_removes_exactly_the_pairs_of_two_beaten_arms():
    """Replay with the kernels: after every step, W is exactly the set of pairs whose interval
    contains 1/2 and that have an arm without a certain loss (exact test; under the default,
    both arms without one); the drawn pair was in W and a pair never comes back."""
    for P, params in ((MULTISOL, EXACT), (random_matrix(7, 2), EXACT), (CYCLE7, EXACT), (CYCLE7, DEFAULT),
                      (random_matrix(6, 3), DEFAULT), (MULTISOL, DEFAULT), (random_matrix(7, 2), DEFAULT)):
        gone = set()
        for state, q in _replay(P, 30_000, 0, params):
            active = state[6]
            assert q not in gone
            beats = _certain(state[0], state[-1][0])
            beaten = beats.any(axis=0)
            for r in range(len(active)):
                i, j = state[1][r], state[2][r]
                unresolved = not (beats[i, j] or beats[j, i])
                keep = (not beaten[i] and not beaten[j]) if params[0] == 1.0 else (not beaten[i] or not beaten[j])
                assert active[r] == (unresolved and keep), (r, i, j)
            gone |= set(np.flatnonzero(~active).tolist())
        assert gone


@READINGS
def test_exploration_draws_least_sampled_pair_round_robin(params):
    """First sweeps: every pair once in lexicographic order (Copeland SAVAGE's list)."""
    _, pairs = _run(MULTISOL, 20, 0, params=params)
    order = [(i, j) for i in range(5) for j in range(i + 1, 5)]
    assert [tuple(p) for p in pairs] == order + order


@READINGS
@pytest.mark.parametrize("P", [EASY, MULTISOL, ARXIV, CYCLE7])
def test_closed_form_regret_equals_step_by_step(P, params):
    ck = [1000, 5000, 20_000, 100_000, 300_000]
    for seed in (0, 1):
        closed, pc = _run(P, ck[-1], seed, cs.run, ck, params)
        stepwise, ps = _run(P, ck[-1], seed, cs.run_stepwise, ck, params)
        assert np.array_equal(pc, ps)
        np.testing.assert_allclose(closed, stepwise, rtol=1e-12, atol=1e-9)
        R = _rs(P)
        direct = np.cumsum(R[:, ps[:, 0], ps[:, 1]], axis=1)[:, np.array(ck) - 1]
        np.testing.assert_allclose(closed, direct, rtol=1e-9, atol=1e-6)


def test_long_horizon_ends_in_exploitation():
    """T = 2×10^7: only the exploration is simulated step by step, and the
    run ends exploiting the winner (no assertion on wall-clock time)."""
    _run(EASY, 1000, 0)
    out, _ = cs.run(EASY, _rs(EASY), np.array([20_000_000], dtype=np.int64), DEFAULT,
                    np.random.default_rng(0), False)
    assert np.isfinite(out).all()
    # the exploited pair is added in closed form: far below the regret of uniformly random play
    assert out[0, -1] < 0.01 * 20_000_000 * _rs(EASY)[0].mean()


# ----------------------------------------------------------------------------- δ = 1/T
@pytest.mark.parametrize("K, T", [(2, 10), (5, 1000), (6, 70_000), (16, 20_000)])
def test_delta_is_one_over_T_in_the_radius(K, T):
    """c(n) = sqrt(ln(2NT/δ)/(2n)) with N = K(K−1)/2 and δ = 1/T, as in Copeland SAVAGE."""
    state, assume = cs.init(K, T, DEFAULT)
    assert assume and not cs.init(K, T, EXACT)[1]
    assert cs.init(K, T, EXACT)[0][-1][0] == state[-1][0]
    expected = math.log(2 * (K * (K - 1) / 2) * T / (1.0 / T))
    assert state[-1][0] == pytest.approx(expected, rel=1e-13)
    assert state[-1][0] == savage.savage_log_term(K, T)
    for n in (1, 10, 1000):
        assert hoeffding_radius(n, state[-1][0]) == pytest.approx(math.sqrt(expected / (2 * n)), rel=1e-13)


@pytest.mark.parametrize("given", [{}, {"assume_condorcet_winner": 0}], ids=["default", "exact"])
def test_each_horizon_point_is_an_independent_run(given):
    """needs_horizon: every checkpoint of simulate() is a run from the start with T = checkpoint
    (the kernel given the canonical parameters' array, on the stream keyed by them)."""
    assert get_algorithm("condorcet_savage").needs_horizon
    canon = canonical_params("condorcet_savage", given)
    ck = [2000, 50_000]
    r = duelbench.simulate("condorcet_savage", EASY, ck[-1], 1, seed=1, checkpoints=ck, permute=False, **given)
    lengths = []
    for k, T in enumerate(ck):
        rng = run_rng(1, PreferenceMatrix(EASY).identity, "condorcet_savage", canon, 0)
        out, pairs = cs.run(EASY, _rs(EASY), np.array([T], dtype=np.int64), _params(**given), rng, True)
        assert out[0, -1] == r.regret[0, k]
        lengths.append(_explored(pairs))
    assert lengths[0] < lengths[1]  # a longer horizon, a smaller δ, a longer exploration


# ----------------------------------------------------------------------------- registry
def test_registry_entry_and_parameter_validation():
    """One parameter, ``assume_condorcet_winner`` ∈ {0, 1}, default 1; anything else is refused
    (naming the parameter); the two readings have different random streams."""
    spec = get_algorithm("condorcet_savage")
    assert spec.defaults == {"assume_condorcet_winner": 1.0} and spec.title == "Condorcet SAVAGE"
    assert spec.run is cs.run
    assert canonical_params("condorcet_savage", {}) == {"assume_condorcet_winner": 1.0}
    assert canonical_params("condorcet_savage", {"assume_condorcet_winner": 0}) == {"assume_condorcet_winner": 0.0}
    assert DEFAULT.tolist() == [1.0] and EXACT.tolist() == [0.0]
    for bad in (0.5, 2.0, -1.0, 0.999):
        with pytest.raises(ValueError, match="assume_condorcet_winner"):
            canonical_params("condorcet_savage", {"assume_condorcet_winner": bad})
    with pytest.raises(ValueError, match="assume_condorcet_winner"):
        duelbench.simulate("condorcet_savage", EASY, 100, 1, assume_condorcet_winner=0.5)
    for bad in ({"strict_independence": 1}, {"delta": 0.1}):
        with pytest.raises(ValueError, match="has no parameter"):
            canonical_params("condorcet_savage", bad)
    streams = [run_rng(0, "x", "condorcet_savage", canonical_params("condorcet_savage", g), 0).random()
               for g in ({}, {"assume_condorcet_winner": 1}, {"assume_condorcet_winner": 0})]
    assert streams[0] == streams[1] != streams[2]


def test_reuses_copeland_savage_building_blocks():
    """Same state, radius, round robin and recorder as Copeland SAVAGE (imported, not copied)."""
    assert cs.next_pair is savage.next_pair and cs._deactivate is savage._deactivate
    assert cs.savage_init is savage.init
    a, _ = cs.init(5, 1000, DEFAULT)
    b = savage.init(5, 1000, np.zeros(0))
    for x, y in zip(a, b):
        assert np.array_equal(x, y)


# ----------------------------------------------------------------------------- code paths
PY_SCRIPT = r"""
import json, sys, numpy as np, warnings
warnings.simplefilter("ignore")
from duelbench import simulate
from duelbench.algorithms import condorcet_savage as cs
from duelbench.algorithms.registry import canonical_params, params_array
from duelbench.engine.simulate import regret_stack
from duelbench.problems.matrix import PreferenceMatrix
exact = params_array("condorcet_savage", canonical_params("condorcet_savage", {"assume_condorcet_winner": 0}))
out = {}
for name, P in json.loads(sys.argv[1]).items():
    P = np.array(P)
    r = simulate("condorcet_savage", P, 60000, 2, seed=3, record_pairs=True, checkpoints=[1000, 20000, 60000])
    _, pa = cs.run(P, regret_stack(PreferenceMatrix(P)), np.array([60000]), exact, np.random.default_rng(9), True)
    out[name] = {"pairs": r.pairs.tolist(), "regret": r.regret.tolist(), "exact": pa.tolist()}
print(json.dumps(out))
"""


def test_python_path_identical():
    """NUMBA_DISABLE_JIT=1 gives the same pairs and bit-identical sums through the exploration,
    the exploited arm (with and without a Condorcet winner) and the closed-form commit, for the
    registered default (engine, no parameter given); the exact test's kernel is compared too."""
    cases = {"easy": EASY, "multisol": MULTISOL, "cycle7": CYCLE7}
    py = run_without_jit(PY_SCRIPT, {k: v.tolist() for k, v in cases.items()})
    for name, P in cases.items():
        r = duelbench.simulate("condorcet_savage", P, 60000, 2, seed=3, record_pairs=True,
                               checkpoints=[1000, 20000, 60000])
        assert np.array_equal(r.pairs, np.array(py[name]["pairs"]))
        assert np.array_equal(r.regret, np.array(py[name]["regret"]))
        assert (r.pairs[:, -1, 0] == r.pairs[:, -1, 1]).all()  # both runs reached the exploitation
        _, pa = cs.run(P, _rs(P), np.array([60000]), EXACT, np.random.default_rng(9), True)
        assert np.array_equal(pa, np.array(py[name]["exact"]))


def test_assume_cw_switch_is_params0_above_one_half():
    """``init``: ``assume_cw`` iff the parameter array is non-empty and ``params[0] > 1/2``
    (1/2 itself is the exact test).  An empty array is read as 0: the empty view of ``[1.0]``
    shares its buffer with that 1.0 and must not be read."""
    assert cs.init(3, 100, np.array([1.0]))[1]
    assert not cs.init(3, 100, np.array([0.0]))[1]
    assert not cs.init(3, 100, np.array([0.5]))[1]
    assert cs.init(3, 100, np.array([0.5000001]))[1]
    base = np.array([1.0])
    assert not cs.init(3, 100, base[:0])[1]


@pytest.mark.parametrize("assume_cw", [True, False])
def test_resolve_counts_one_certain_win_and_one_certain_loss(assume_cw):
    """``_resolve(q, winner, loser)``: ``won[winner]`` and ``lost[loser]`` rise by exactly one
    (the shared slots of Copeland SAVAGE, Cpld_lo and the certain losses L) and q leaves W; the
    loser's first loss removes its pair with an unbeaten arm under the default reading only."""
    state, _ = cs.init(3, 100, np.array([1.0 if assume_cw else 0.0]))
    W, pa, pb, pid, nxt, prv, active, lost, won = state[:9]
    cs._resolve(state, pid[0, 1], 0, 1, assume_cw)
    assert won.tolist() == [1, 0, 0] and lost.tolist() == [0, 1, 0]
    assert active.tolist() == [False, True, not assume_cw]  # pairs (0, 1), (0, 2), (1, 2)
    cs._resolve(state, pid[0, 2], 2, 0, assume_cw)
    assert won.tolist() == [1, 0, 1] and lost.tolist() == [1, 1, 0]
    assert active.tolist() == [False, False, not assume_cw]  # exact test: (1, 2) decides arm 2

"""RCS (Zoghi et al., WSDM 2014, as run by Wu & Liu 2016): convergence to the Condorcet winner,
the champion rule, parameter validation and the pure-Python path."""

import warnings

import numba
import numpy as np
import pytest

import duelbench
from duelbench.algorithms import rcs
from duelbench.algorithms.registry import canonical_params, get_algorithm
from duelbench.stats.beta import tail_cache_new

from _engine_helpers import MULTISOL, run_without_jit

EASY = np.array([  # a Condorcet winner (arm 2) with gaps ≥ 0.2
    [0.5, 0.7, 0.3, 0.8],
    [0.3, 0.5, 0.2, 0.7],
    [0.7, 0.8, 0.5, 0.9],
    [0.2, 0.3, 0.1, 0.5],
])


def _simulate(P, T, runs, seed, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return duelbench.simulate("rcs", P, T, runs, seed=seed, **kw)


def test_converges_to_the_condorcet_winner():
    """With clear gaps the sample's Condorcet winner is almost always the true one late in the run,
    and once every other arm's upper bound against it is below 1/2 it is compared with itself:
    in the last quarter of T = 20 000 steps arm 2 is the champion (the first arm) more than 99 % of
    the time and the pair (2, 2) is played more than 95 % of the time (arms permuted by the engine, labels original)."""
    T = 20_000
    r = _simulate(EASY, T, 4, 3, record_pairs=True)
    for pairs in r.pairs:
        late = pairs[3 * T // 4:]
        assert np.mean(late[:, 0] == 2) > 0.99
        assert np.mean((late[:, 0] == 2) & (late[:, 1] == 2)) > 0.95


def test_condorcet_regret_grows_slowly():
    """Regret over the second half of the run is a small part of that over the first half."""
    r = _simulate(EASY, 40_000, 4, 1, checkpoints=[20_000, 40_000])
    reg = r.regrets["condorcet"].mean(axis=0)
    assert reg[1] - reg[0] < 0.3 * reg[0], reg


def _forced_wins(order_pairs, K, n=1e6):
    """Counts that make each posterior sample deterministic up to ~1e-3: i beats j for (i, j) listed."""
    W = np.zeros((K, K))
    for i, j in order_pairs:
        W[i, j] = n
    return W


def test_sample_winner_and_its_absence():
    rng = np.random.default_rng(0)
    linear = _forced_wins([(1, 0), (1, 2), (1, 3), (0, 2), (0, 3), (2, 3)], 4)
    cache = tail_cache_new(4)
    assert all(rcs.sample_condorcet_winner(linear, cache, rng) == 1 for _ in range(50))
    cycle = _forced_wins([(0, 1), (1, 2), (2, 0), (0, 3), (1, 3), (2, 3)], 4)
    assert all(rcs.sample_condorcet_winner(cycle, tail_cache_new(4), rng) == -1 for _ in range(50))
    # the same through tails summed afresh (counts below FRESH_SUM_COUNT)
    small = _forced_wins([(1, 0), (1, 2), (1, 3), (0, 2), (0, 3), (2, 3)], 4, n=2000.0)
    assert all(rcs.sample_condorcet_winner(small, cache, rng) == 1 for _ in range(50))


def test_knockout_has_the_law_of_the_whole_samples_winner():
    """P(c) for every outcome c (an arm or none) of the knockout equals the law of the whole
    sample's Condorcet winner, computed exactly by enumerating the 2^6 tournaments of K = 4 with
    the pairs' P(θ_ij > 1/2); 200 000 knockouts, every cell within 5 standard errors."""
    import itertools

    from duelbench.stats.beta import half_tail

    K = 4
    W = np.array([[0, 3, 5, 1], [4, 0, 2, 6], [1, 3, 0, 2], [5, 1, 3, 0]], dtype=np.float64)
    pairs = [(i, j) for i in range(K) for j in range(i + 1, K)]
    exact = np.zeros(K + 1)  # index K: no winner
    for outcome in itertools.product((True, False), repeat=len(pairs)):
        prob, beats = 1.0, np.zeros((K, K), dtype=bool)
        for (i, j), i_wins in zip(pairs, outcome):
            p = half_tail(W[i, j], W[j, i])
            prob *= p if i_wins else 1.0 - p
            beats[i, j], beats[j, i] = i_wins, not i_wins
        winners = [c for c in range(K) if all(beats[c, j] for j in range(K) if j != c)]
        exact[winners[0] if winners else K] += prob
    n = 200_000
    got = np.bincount(_knockouts(W, n, np.random.default_rng(11)), minlength=K + 1) / n
    assert np.all(np.abs(got - exact) <= 5 * np.sqrt(exact * (1 - exact) / n) + 1e-12), (got, exact)


@numba.njit
def _knockouts(W, n, rng):
    cache = tail_cache_new(W.shape[0])
    out = np.empty(n, dtype=np.int64)
    for k in range(n):
        c = rcs.sample_condorcet_winner(W, cache, rng)
        out[k] = c if c >= 0 else W.shape[0]
    return out


def test_fallback_takes_the_least_champion_lowest_index_first():
    assert rcs.least_champion(np.array([3, 1, 1, 2], dtype=np.int64)) == 1
    assert rcs.least_champion(np.array([0, 0, 0], dtype=np.int64)) == 0
    assert rcs.least_champion(np.array([5, 4, 3, 3], dtype=np.int64)) == 2


def test_champion_counted_at_every_step_and_fallback_rotates():
    """Without a sample winner (a forced cycle) the fallback takes every arm in turn (0, 1, 2, 0, …);
    the champion count grows at every step, so it is the number of steps each arm was c."""
    K = 3
    state = rcs.init(K, np.array([0.51]))
    state[0][:] = _forced_wins([(0, 1), (1, 2), (2, 0)], K)
    rng = np.random.default_rng(1)
    firsts = [rcs.select(state, t, rng)[0] for t in range(2, 11)]
    assert firsts == [0, 1, 2] * 3
    assert list(state[2]) == [3, 3, 3]
    # with a sample winner the count grows too
    state = rcs.init(K, np.array([0.51]))
    state[0][:] = _forced_wins([(1, 0), (1, 2), (0, 2)], K)
    assert [rcs.select(state, t, rng)[0] for t in range(2, 7)] == [1] * 5
    assert list(state[2]) == [0, 5, 0]


def test_challenger_is_the_optimistic_opponent_of_the_champion():
    """d = argmax_j u_jc: an unobserved pair (u = 2, "x/0 := 1") is preferred, and d = c once every
    other arm's bound against c is below 1/2."""
    K = 3
    state = rcs.init(K, np.array([0.51]))
    state[0][:] = [[0, 5, 0], [5, 0, 5], [0, 5, 0]]  # pair {0, 2} unobserved, the others even
    rng = np.random.default_rng(2)
    seen = set()
    for _ in range(200):
        c, d = rcs.select(state, 100, rng)
        assert d == {0: 2, 2: 0}.get(c, d) and d != c, (c, d)
        seen.add((c, d))
    assert {(0, 2), (2, 0), (1, 0), (1, 2)} <= seen  # c = 1: the tie u_01 = u_21 broken at random
    state = rcs.init(K, np.array([0.51]))
    state[0][:] = _forced_wins([(1, 0), (1, 2), (0, 2), (2, 0)], K, n=1e4)
    assert rcs.select(state, 100, rng) == (1, 1)


def test_self_comparison_not_counted():
    state = rcs.init(3, np.array([0.51]))
    rcs.update(state, 1, 1, True, 5)
    assert not state[0].any()
    rcs.update(state, 0, 2, False, 6)
    assert state[0][2, 0] == 1.0 and state[0].sum() == 1.0


@pytest.mark.parametrize("alpha", [0.5, 0.3, 0.0, -1.0])
def test_alpha_at_or_below_one_half_is_rejected(alpha):
    with pytest.raises(ValueError, match=r"rcs: alpha must be > 1/2"):
        canonical_params("rcs", {"alpha": alpha})


def test_parameter_errors():
    with pytest.raises(ValueError, match="has no parameter"):
        canonical_params("rcs", {"gamma": 1.3})
    with pytest.raises(ValueError, match="must be finite"):
        canonical_params("rcs", {"alpha": float("inf")})
    with pytest.raises(ValueError, match="must be a number"):
        canonical_params("rcs", {"alpha": "high"})
    assert canonical_params("rcs", {"alpha": 0.6}) == {"alpha": 0.6}
    spec = get_algorithm("rcs")
    assert spec.defaults == {"alpha": 0.51} and spec.steps is not None and not spec.needs_horizon


PY_SCRIPT = r"""
import json, sys, numpy as np, warnings
warnings.simplefilter("ignore")
from duelbench import simulate
out = {}
for name, P in json.loads(sys.argv[1]).items():
    r = simulate("rcs", np.array(P), 4000, 2, seed=7, record_pairs=True, checkpoints=[1000, 4000])
    out[name] = {"pairs": r.pairs.tolist(), "regret": r.regret.tolist()}
print(json.dumps(out))
"""


def test_python_path_identical():
    """NUMBA_DISABLE_JIT=1 gives the same pairs and bit-identical regret sums."""
    cases = {"easy": EASY, "multisol": MULTISOL}
    py = run_without_jit(PY_SCRIPT, {k: v.tolist() for k, v in cases.items()})
    for name, P in cases.items():
        r = _simulate(P, 4000, 2, 7, record_pairs=True, checkpoints=[1000, 4000])
        assert np.array_equal(r.pairs, np.array(py[name]["pairs"])), name
        assert np.array_equal(r.regret, np.array(py[name]["regret"])), name

"""Copeland SAVAGE: a from-scratch reference, closed-form exploitation, elimination, δ = 1/T."""

import math
import warnings

import numpy as np
import pytest

import duelbench
from duelbench.algorithms import savage
from duelbench.algorithms.registry import get_algorithm
from duelbench.engine.simulate import regret_stack
from duelbench.problems.matrix import PreferenceMatrix
from duelbench.problems.winners import copeland_winners
from duelbench.stats.hoeffding import hoeffding_radius, hoeffding_side

from _engine_helpers import ARXIV, MULTISOL, random_matrix

EASY = np.array([  # a Copeland winner (arm 2, beats everyone) with gaps ≥ 0.2
    [0.5, 0.7, 0.3, 0.8],
    [0.3, 0.5, 0.2, 0.7],
    [0.7, 0.8, 0.5, 0.9],
    [0.2, 0.3, 0.1, 0.5],
])


# EASY with a nearly tied pair between two non-winners: it cannot be resolved within the
# horizon, and only the Copeland "Indep" test (both arms can no longer be Copeland winners)
# removes it from W.
EASY_TIED_LOSERS = EASY.copy()
EASY_TIED_LOSERS[1, 3], EASY_TIED_LOSERS[3, 1] = 0.505, 0.495


class ReferenceSavage:
    """SAVAGE as written in the :mod:`duelbench.algorithms.savage` docstring: the least-sampled
    pair of W, then both removal tests re-evaluated on every pair of W from scratch after each
    sample."""

    def __init__(self, K, T):
        self.K = K
        self.log_term = math.log(2 * (K * (K - 1) / 2) * T / (1.0 / T))  # ln(2NT/δ), δ = 1/T
        self.W = np.zeros((K, K))
        self.active = {(i, j) for i in range(K) for j in range(i + 1, K)}
        self.removed = set()
        self.winner = None

    def _n(self, i, j):
        return self.W[i, j] + self.W[j, i]

    def _certain(self, i, j):
        """i certainly beats j: the lower end of the interval of p_ij lies above 1/2."""
        n = self._n(i, j)
        return n > 0 and self.W[i, j] / n - hoeffding_radius(n, self.log_term) > 0.5

    def pair(self):
        if self.active:
            return min(self.active, key=lambda p: (self._n(*p), p))
        if self.winner is None:
            K = self.K
            emp = [sum(1 for k in range(K) if k != a and self._n(a, k) > 0 and self.W[a, k] / self._n(a, k) > 0.5)
                   for a in range(K)]
            lo = [sum(self._certain(a, k) for k in range(K) if k != a) for a in range(K)]
            self.winner = max(range(K), key=lambda a: (emp[a], lo[a], -a))
        return self.winner, self.winner

    def update(self, i, j, i_won):
        if i == j:
            return
        self.W[i if i_won else j, j if i_won else i] += 1.0
        K = self.K
        up = [K - 1 - sum(self._certain(k, a) for k in range(K) if k != a) for a in range(K)]
        lo = [sum(self._certain(a, k) for k in range(K) if k != a) for a in range(K)]
        for p in sorted(self.active):
            a, b = p
            resolved = self._certain(a, b) or self._certain(b, a)
            if resolved or (up[a] <= max(lo) and up[b] <= max(lo)):
                self.active.discard(p)
                self.removed.add(p)


def _rs(P):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return regret_stack(PreferenceMatrix(P))


def _run(P, T, seed, fn=savage.run, checkpoints=None):
    ck = np.array([T] if checkpoints is None else checkpoints, dtype=np.int64)
    return fn(np.ascontiguousarray(P), _rs(P), ck, np.zeros(0), np.random.default_rng(seed), True)


def _reference_pairs(P, T, seed):
    ref = ReferenceSavage(P.shape[0], T)
    rng = np.random.default_rng(seed)
    pairs = np.zeros((T, 2), dtype=np.int64)
    for t in range(T):
        i, j = ref.pair()
        ref.update(i, j, rng.random() < P[i, j])
        pairs[t] = i, j
    return pairs, ref


@pytest.mark.parametrize("name,P,T", [
    ("easy", EASY, 3000),
    ("easy_tied_losers", EASY_TIED_LOSERS, 3000),
    ("multisol", MULTISOL, 4000),
    ("arxiv", ARXIV, 4000),          # has an exact tie: exploration may never end
    ("random6", random_matrix(6, 3), 4000),
    ("random8", random_matrix(8, 11), 3000),
])
def test_compiled_savage_equals_from_scratch_reference(name, P, T):
    for seed in (0, 1):
        ref_pairs, _ = _reference_pairs(P, T, seed)
        _, pairs = _run(P, T, seed, savage.run_stepwise)
        assert np.array_equal(pairs, ref_pairs), name
        _, pairs_closed = _run(P, T, seed)  # the closed form records the same pairs
        assert np.array_equal(pairs_closed, ref_pairs), name


def test_exploration_draws_least_sampled_pair_round_robin():
    """First sweep: every pair once in lexicographic order, then again (nothing resolves with
    one or two samples at this radius)."""
    _, pairs = _run(MULTISOL, 20, 0)
    order = [(i, j) for i in range(5) for j in range(i + 1, 5)]
    assert [tuple(p) for p in pairs] == order + order


def test_commits_to_a_copeland_winner_on_an_easy_instance():
    for seed in range(5):
        _, pairs = _run(EASY, 20_000, seed)
        assert tuple(pairs[-1]) == (2, 2)
        start = int(np.argmax((pairs[:, 0] == pairs[:, 1])))
        assert 0 < start < 20_000 and np.all(pairs[start:] == 2)
    winners = set(copeland_winners(PreferenceMatrix(MULTISOL)))
    for seed in range(3):
        _, pairs = _run(MULTISOL, 200_000, seed)
        w = pairs[-1, 0]
        assert pairs[-1, 1] == w and w in winners


def test_indep_test_removes_an_unresolvable_pair_of_non_winners():
    T = 100_000
    _, pairs = _run(EASY_TIED_LOSERS, T, 0)
    end = int(np.argmax(pairs[:, 0] == pairs[:, 1]))
    assert 0 < end < 5000 and tuple(pairs[-1]) == (2, 2)
    n13 = np.sum((pairs[:end, 0] == 1) & (pairs[:end, 1] == 3))
    # resolving |p − 1/2| = 0.005 at this radius would need ~ ln(12·T²)/(2·0.005²) ≈ 5×10^5 samples
    assert n13 < end


def test_never_compares_an_eliminated_pair():
    """Replay with the compiled kernels: the drawn pair is in W, and a pair that has left W
    never comes back."""
    for P in (MULTISOL, random_matrix(7, 2), EASY):
        K = P.shape[0]
        T = 30_000
        state = savage.init(K, T, np.zeros(0))
        active = state[6]
        gone = set()
        rng = np.random.default_rng(0)
        for _ in range(T):
            q = savage.next_pair(state)
            if q < 0:
                break
            assert active[q] and q not in gone
            savage.update(state, q, rng.random() < P[state[1][q], state[2][q]])
            gone |= set(np.flatnonzero(~active).tolist())
        assert len(gone) > 0


@pytest.mark.parametrize("P", [EASY, MULTISOL, ARXIV, random_matrix(6, 3)])
def test_closed_form_regret_equals_step_by_step(P):
    ck = [1000, 5000, 20_000, 100_000, 300_000]
    for seed in (0, 1):
        closed, pc = _run(P, ck[-1], seed, savage.run, ck)
        stepwise, ps = _run(P, ck[-1], seed, savage.run_stepwise, ck)
        assert np.array_equal(pc, ps)
        np.testing.assert_allclose(closed, stepwise, rtol=1e-12, atol=1e-9)
        # and against a direct sum over the recorded pairs
        R = _rs(P)
        direct = np.cumsum(R[:, ps[:, 0], ps[:, 1]], axis=1)[:, np.array(ck) - 1]
        np.testing.assert_allclose(closed, direct, rtol=1e-9, atol=1e-6)


def test_long_horizon_ends_in_exploitation():
    """T = 2×10^7: only the exploration is simulated step by step, and the
    run ends exploiting the winner (no assertion on wall-clock time)."""
    _run(EASY, 1000, 0)
    out, _ = savage.run(EASY, _rs(EASY), np.array([20_000_000], dtype=np.int64), np.zeros(0),
                        np.random.default_rng(0), False)
    assert np.isfinite(out).all()
    # the exploited pair is added in closed form: far below the regret of uniformly random play
    assert out[0, -1] < 0.01 * 20_000_000 * _rs(EASY)[0].mean()


def test_horizon_dependence_through_delta():
    """δ = 1/T: each checkpoint of simulate() is an independent run with that horizon."""
    assert get_algorithm("copeland_savage").needs_horizon
    ck = [2000, 50_000]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = duelbench.simulate("copeland_savage", MULTISOL, ck[-1], 1, seed=1, checkpoints=ck, permute=False)
    from duelbench.engine.seeding import run_rng

    for k, T in enumerate(ck):
        rng = run_rng(1, PreferenceMatrix(MULTISOL).identity, "copeland_savage", {"strict_independence": 0.0}, 0)
        out, _ = savage.run(MULTISOL, _rs(MULTISOL), np.array([T], dtype=np.int64), np.zeros(1), rng, False)
        assert out[0, -1] == r.regret[0, k]


def test_radius_constant():
    """ln(K(K−1)T/δ) = ln(2NT/δ) with N = K(K−1)/2 and δ = 1/T, i.e. ln(K(K−1)T²)."""
    for K, T in ((2, 10), (5, 10**6), (16, 2 * 10**7)):
        N = K * (K - 1) / 2
        assert savage.savage_log_term(K, T) == pytest.approx(math.log(2 * N * T / (1.0 / T)), rel=1e-14)
        assert savage.savage_log_term(K, T) == pytest.approx(math.log(K * (K - 1) * T**2), rel=1e-14)


def test_hoeffding_side_matches_the_interval():
    L = math.log(5 * 4 * 10**6 * 10**6)
    for n in range(1, 400, 7):
        c = hoeffding_radius(n, L)
        for w in range(0, n + 1):
            mu = w / n
            expect = 1 if mu - c > 0.5 else (-1 if mu + c < 0.5 else 0)
            got = hoeffding_side(float(w), float(n), L)
            if abs(abs(mu - 0.5) - c) > 1e-12:
                assert got == expect, (w, n)
    assert hoeffding_side(0.0, 0.0, L) == 0 and hoeffding_radius(0, L) == math.inf


@pytest.mark.parametrize("K", [1, 2, 3, 5])
def test_initial_pair_list_is_the_lexicographic_chain(K):
    """``init``: W = every pair, linked in lexicographic order — ``nxt`` (N entries, the last −1)
    and ``prv`` (the first −1), the draw pointer on the first pair (−1 when K = 1, N = 0)."""
    N = K * (K - 1) // 2
    W, pa, pb, pid, nxt, prv, active, lost, won, out, newly, sc, log_term = savage.init(K, 100, np.zeros(1))
    assert [(a, b) for a, b in zip(pa.tolist(), pb.tolist())] == [(i, j) for i in range(K) for j in range(i + 1, K)]
    assert nxt.tolist() == list(range(1, N)) + [-1] * (N > 0)
    assert prv.tolist() == list(range(-1, N - 1))
    assert active.all() and active.shape == (N,)
    assert sc[savage.HEAD] == sc[savage.CUR] == (0 if N else -1)
    assert sc[savage.N_ACTIVE] == N and sc[savage.WINNER] == -1
    # the chain is walked to its end: every pair once, then −1
    seen, q = [], sc[savage.HEAD]
    while q >= 0 and len(seen) <= N:
        seen.append(int(q))
        q = nxt[q]
    assert seen == list(range(N))

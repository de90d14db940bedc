"""CCB (Zoghi et al. 2015, Algorithm 1): a from-scratch reference, invariants and regret growth.

The reference below recomputes everything from W at every step, exactly as Algorithm 1 is
printed (paper 001 L82–111): the relation from scratch (``cb_rebuild``), the scores, 9A over
every shortlist entry, 9C over every other arm, the set S of line 10 by enumeration.  It makes
the same documented choices as :mod:`duelbench.algorithms.ccb` (order of the sub-steps, which
numbers are drawn, index order of sets, Fisher–Yates subsets) and must produce the same pairs;
the module's incremental bookkeeping (9A from the last pair only, dirty shortlists in 9C, the
sets S and "unresolved partners" kept up to date from status changes) is what is under test.
"""

import math
import warnings

import numpy as np
import pytest

import duelbench
from duelbench.algorithms import ccb
from duelbench.stats.choice import uniform_index
from duelbench.engine.loop import run_algorithm
from duelbench.engine.simulate import regret_stack
from duelbench.problems.matrix import PreferenceMatrix
from duelbench.stats.bounds import ucb
from duelbench.stats.confident_beats import cb_new, cb_rebuild

from _engine_helpers import ARXIV, MULTISOL, random_matrix

ALPHA = 0.51

# Five arms, no Condorcet winner, a unique Copeland winner (arm 0, L_C = 1): 0 beats 1, 2, 3
# and loses to 4; 1 beats 2, 4; 2 beats 3, 4; 3 beats 1, 4; 4 beats only 0.
_WINS = [(0, 1, 0.30), (0, 2, 0.25), (0, 3, 0.20), (4, 0, 0.15), (1, 2, 0.20),
         (1, 4, 0.25), (3, 1, 0.15), (2, 3, 0.30), (2, 4, 0.20), (3, 4, 0.25)]
NONCONDORCET5 = np.full((5, 5), 0.5)
for _w, _l, _g in _WINS:
    NONCONDORCET5[_w, _l] = 0.5 + _g
    NONCONDORCET5[_l, _w] = 0.5 - _g


def _close_gaps(K, seed, low=0.01, high=0.12):
    """A random instance with small gaps (many expiries, resets and shortlist changes)."""
    rng = np.random.default_rng(seed)
    P = np.full((K, K), 0.5)
    for i in range(K):
        for j in range(i + 1, K):
            g = rng.uniform(low, high) * (1 if rng.random() < 0.5 else -1)
            P[i, j] = 0.5 + g
            P[j, i] = 0.5 - g
    return P


class ReferenceCCB:
    """Algorithm 1 recomputed from scratch every step (O(K²) per step), for tests only."""

    def __init__(self, K, alpha=ALPHA):
        self.K = K
        self.alpha = alpha
        self.W = np.zeros((K, K))
        self.events = {"reset": 0, "removed": 0, "trimmed": 0, "line10": 0, "fallback": 0}
        self._reset()

    def _reset(self):
        self.B = set(range(self.K))
        self.Bi = [[] for _ in range(self.K)]
        self.Lbar = self.K

    def step(self, t, rng):
        K, W, alpha = self.K, self.W, self.alpha
        log_t = math.log(t)
        cb = cb_new(K)
        cb_rebuild(cb, W, log_t, alpha)
        beats = cb[0]  # beats[i, j] = 1 ⇔ l_ij > 1/2 ⇔ u_ji < 1/2
        up = [K - 1 - int(beats[:, i].sum()) for i in range(K)]  # #{k ≠ i : u_ik ≥ 1/2}
        lo = [int(beats[i, :].sum()) for i in range(K)]  # #{k ≠ i : l_ik > 1/2}
        C = [i for i in range(K) if up[i] == max(up)]
        # 9A
        if any(beats[i, j] for i in range(K) for j in self.Bi[i]):
            self._reset()
            self.events["reset"] += 1
        # 9B
        for i in sorted(self.B):
            if up[i] < max(lo):
                self.B.discard(i)
                self.events["removed"] += 1
                if len(self.Bi[i]) != self.Lbar + 1:
                    self.Bi[i] = [k for k in range(K) if beats[k, i]]
        if not self.B:
            self._reset()
            self.events["reset"] += 1
        # 9C
        Q = [i for i in C if up[i] == lo[i]]
        if Q:
            for i in Q:
                self.B.add(i)
                self.Bi[i] = []
                self.Lbar = K - 1 - up[i]
            m = self.Lbar + 1
            for j in range(K):
                lst = self.Bi[j]
                if 0 < len(lst) < m:
                    self.Bi[j] = []
                elif len(lst) > m:
                    for r in range(m):
                        s = r + uniform_index(len(lst) - r, rng)
                        lst[r], lst[s] = lst[s], lst[r]
                    self.Bi[j] = lst[:m]
                    self.events["trimmed"] += 1
        # 10
        if rng.random() < 0.25:
            S = sorted((i, j) for i in range(K) for j in self.Bi[i] if not beats[i, j] and not beats[j, i])
            if S:
                self.events["line10"] += 1
                return S[0] if len(S) == 1 else S[uniform_index(len(S), rng)]
        # 11, 12
        cands = C
        BC = [i for i in C if i in self.B]
        if BC and rng.random() < 2.0 / 3.0:
            cands = BC
        c = cands[0] if len(cands) == 1 else cands[uniform_index(len(cands), rng)]

        # 13
        def argmax(js):
            vals = {j: ucb(W, j, c, log_t, alpha) for j in js}
            best = max(vals.values())
            ties = sorted(j for j in js if vals[j] == best)
            if len(ties) > 1 and c in ties:
                ties.remove(c)
            return ties[0] if len(ties) == 1 else ties[uniform_index(len(ties), rng)]

        if rng.random() < 0.5:
            js = [j for j in self.Bi[c] if not beats[j, c]]
            if js:
                return c, argmax(js)
            self.events["fallback"] += 1
        return c, argmax([j for j in range(K) if not beats[j, c]])

    def update(self, i, j, i_won):
        if i != j:
            self.W[i if i_won else j, j if i_won else i] += 1.0


def _reference_pairs(P, T, seed, alpha=ALPHA):
    ref = ReferenceCCB(P.shape[0], alpha)
    rng = np.random.default_rng(seed)
    pairs = np.zeros((T, 2), dtype=np.int64)
    for t in range(1, T + 1):
        c, d = ref.step(t, rng)
        ref.update(c, d, rng.random() < P[c, d])
        pairs[t - 1] = c, d
    return pairs, ref.events


def _compiled_pairs(P, T, seed, alpha=ALPHA):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ArXiv's exact tie
        R = regret_stack(PreferenceMatrix(P))
    _, pairs = run_algorithm("ccb", np.ascontiguousarray(P), R, np.array([T], dtype=np.int64), np.array([alpha]),
                             np.random.default_rng(seed), True)
    return pairs


# Stress cases: an exploration parameter far below 1/2 (outside the algorithm's admissible range,
# but the bookkeeping does not depend on it) makes confidence failures, hence resets, 9B
# removals, 9C subsets and line-10 draws frequent within a few thousand steps.
STRESS = [
    ("close6-stress", _close_gaps(6, 3), 4000, 0.15),
    ("wide6-stress", _close_gaps(6, 7, 0.05, 0.3), 3000, 0.15),
    ("random8-stress", random_matrix(8, 11), 3000, 0.15),
    ("close7-stress", _close_gaps(7, 4), 3000, 0.1),
]


@pytest.mark.parametrize("name,P,T,alpha", [
    ("multisol", MULTISOL, 3000, ALPHA),
    ("arxiv", ARXIV, 3000, ALPHA),
    ("noncondorcet5", NONCONDORCET5, 3000, ALPHA),
    ("random8", random_matrix(8, 11), 2500, ALPHA),
    ("close6", _close_gaps(6, 3), 3000, ALPHA),
    *STRESS,
])
def test_incremental_ccb_equals_from_scratch_reference(name, P, T, alpha):
    for seed in (0, 1):
        ref_pairs, events = _reference_pairs(P, T, seed, alpha)
        assert np.array_equal(_compiled_pairs(P, T, seed, alpha), ref_pairs), (name, seed, events)


def test_reference_comparison_exercises_every_branch():
    """The stress cases reach resets, 9B removals, 9C subsets, line 10 and the [K] fallback."""
    total = {}
    for name, P, T, alpha in STRESS:
        for k, v in _reference_pairs(P, T, 0, alpha)[1].items():
            total[k] = total.get(k, 0) + v
    assert all(v > 0 for v in total.values()), total


def _replay(P, T, seed, check):
    K = P.shape[0]
    state = ccb.init(K, np.array([ALPHA]))
    rng = np.random.default_rng(seed)
    for t in range(1, T + 1):
        c, d = ccb.select(state, t, rng)
        check(state, t, c, d)
        ccb.update(state, c, d, rng.random() < P[c, d], t)


def test_opponent_never_confidently_beats_the_candidate():
    """Line 13 (l_dc ≤ 1/2) and line 10 (unresolved pairs) never give l_dc > 1/2."""
    for P in (MULTISOL, NONCONDORCET5, _close_gaps(6, 3)):
        def check(state, t, c, d):
            assert state[1][0][d, c] == 0, (t, c, d)
        _replay(P, 5000, 2, check)


def test_incremental_sets_match_their_definitions():
    """After line 9: S, the unresolved partners, |B| and the shortlists agree with a recomputation,
    and no shortlist member is confidently beaten by its owner (the 9A invariant)."""
    P = _close_gaps(7, 5)
    K = P.shape[0]

    def check(state, t, c, d):
        W, cb, params, sc, BS, SL, US, DT, scratch = state
        beats = cb[0]
        fresh = cb_new(K)
        cb_rebuild(fresh, W, math.log(t), ALPHA)
        assert np.array_equal(beats, fresh[0])
        member, sl, sl_size, S_items, S_pos = SL
        unresolved = (beats == 0) & (beats.T == 0)
        np.fill_diagonal(unresolved, False)
        for i in range(K):
            lst = sl[i, :sl_size[i]]
            assert sorted(lst) == sorted(np.flatnonzero(member[i]))
            assert not any(beats[i, j] for j in lst)
            assert sorted(US[0][i, :US[2][i]]) == list(np.flatnonzero(unresolved[i]))
        S = {(e // K, e % K) for e in S_items[:sc[ccb.S_SIZE]]}
        assert S == {(i, j) for i in range(K) for j in np.flatnonzero(member[i]) if unresolved[i, j]}
        assert sorted(BS[0][:sc[ccb.NB]]) == list(np.flatnonzero(BS[1] >= 0))

    _replay(P, 3000, 0, check)


def test_two_arms_step_by_step():
    """K = 2, arm 0 beats arm 1: while the pair is unresolved both arms are optimistic Copeland
    winners and the opponent is the other arm (u ≥ 1/2 = u_cc, ties exclude c), or line 10
    draws (1, 0); once 0 ≻ 1, C_t = {0}, 9C adds 0 to B with L̄_C = 0, 9B drops 1 with
    B^1 = {0}, and the pair is (0, 0)."""
    P = np.array([[0.5, 0.8], [0.2, 0.5]])
    seen = {"resolved": 0, "open": 0}

    def check(state, t, c, d):
        W, cb, params, sc, BS, SL, US, DT, scratch = state
        if cb[0][0, 1] == 1:
            seen["resolved"] += 1
            assert (c, d) == (0, 0), t
            assert BS[1][0] >= 0 and BS[1][1] < 0 and sc[ccb.LBAR] == 0
            assert list(SL[1][1, :SL[2][1]]) == [0]
        else:
            seen["open"] += 1
            assert c != d, t
    _replay(P, 3000, 4, check)
    assert seen["resolved"] > 2000 and seen["open"] > 10


def _growth_ratio(alg, P, T=100_000, runs=10):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = duelbench.simulate(alg, P, T, runs, seed=0, checkpoints=[T // 2, T])
    half, full = r.regret.mean(axis=0)
    return (full - half) / half


@pytest.mark.parametrize("name,P", [("multisol", MULTISOL), ("noncondorcet5", NONCONDORCET5)])
def test_ccb_regret_is_sublinear_without_condorcet_winner(name, P):
    """[R(T) − R(T/2)] / R(T/2) < 0.5 at T = 10^5 (≈ 0.06 for logarithmic growth, 1 for linear);
    Random, the negative control, fails."""
    assert _growth_ratio("ccb", P) < 0.5
    assert _growth_ratio("random", P, runs=2) >= 0.5


def test_condorcet_instance_concentrates_on_the_winner():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = duelbench.simulate("ccb", ARXIV, 100_000, 1, seed=3, record_pairs=True)
    tail = r.pairs[0][-5000:]
    assert np.mean((tail[:, 0] == 0) & (tail[:, 1] == 0)) > 0.8


def test_alpha_must_exceed_one_half():
    from duelbench.algorithms.registry import canonical_params

    with pytest.raises(ValueError, match="alpha"):
        canonical_params("ccb", {"alpha": 0.5})

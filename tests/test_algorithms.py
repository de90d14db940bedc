"""Per-algorithm properties: deterministic small cases and behaviour the papers specify."""

import math
import warnings

import numpy as np

import duelbench
from duelbench.algorithms import dts, rmed, rucb
from duelbench.stats.confident_beats import cb_rebuild

from _engine_helpers import ARXIV


def _sim(alg, P, T, runs=1, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return duelbench.simulate(alg, P, T, runs, record_pairs=True, **kw)


def test_random_draws_ordered_pairs_with_replacement():
    r = _sim("random", ARXIV, 60000, permute=False)
    pairs = r.pairs[0]
    self_share = np.mean(pairs[:, 0] == pairs[:, 1])
    assert abs(self_share - 1 / 6) < 0.01
    counts = np.bincount(pairs[:, 0], minlength=6) / len(pairs)
    assert np.all(np.abs(counts - 1 / 6) < 0.01)


def test_rmed1_starts_with_each_pair_once_in_lexicographic_order():
    r = _sim("rmed1", ARXIV, 40, permute=False)
    first = [tuple(p) for p in r.pairs[0][:15]]
    assert first == [(i, j) for i in range(6) for j in range(i + 1, 6)]


def test_rmed1_initial_pair_enumeration():
    K = 7
    got = [rmed.initial_pair(k, K) for k in range(K * (K - 1) // 2)]
    assert got == [(i, j) for i in range(K) for j in range(i + 1, K)]


def test_condorcet_algorithms_concentrate_on_the_winner():
    """On ArXiv (Condorcet winner = arm 0), late rounds compare the winner with itself."""
    for alg in ("rucb", "rmed1", "dts"):
        r = _sim(alg, ARXIV, 100_000, seed=1)
        tail = r.pairs[0][-5000:]
        share = np.mean((tail[:, 0] == 0) & (tail[:, 1] == 0))
        assert share > 0.8, (alg, share)


def test_rucb_candidate_is_never_a_confident_loser():
    """c ∈ C = {c : u_cj ≥ 1/2 ∀j} whenever C ≠ ∅ (checked by replaying the state)."""
    K, alpha = 6, 0.51
    rng = np.random.default_rng(0)
    state = rucb.init(K, np.array([alpha]))
    for t in range(1, 3000):
        c, d = rucb.select(state, t, rng)
        n_lost = state[1][1]
        if np.any(n_lost == 0):
            assert n_lost[c] == 0
        rucb.update(state, c, d, rng.random() < ARXIV[c, d], t)


def test_dts_second_candidate_reads_the_column_of_the_first():
    """θ(2)_{i a(1)} ~ Beta(B_{i a(1)} + 1, B_{a(1) i} + 1): arm 1, which beat a(1) = 0 more often
    than it lost, must be preferred to arm 2, which always lost to 0 (a row reading flips this)."""
    K = 3
    state = dts.init(K, np.array([0.51]))
    B = state[0]
    B[1, 0], B[0, 1] = 6.0, 4.0   # arm 1 beat arm 0 six times out of ten
    B[2, 0], B[0, 2] = 0.0, 10.0  # arm 2 never beat arm 0
    log_t = math.log(10**6)       # wide bounds: nothing is resolved
    cb_rebuild(state[1], B, log_t, 0.51)
    rng = np.random.default_rng(1)
    picks = np.array([dts.second_candidate(state[0], state[1][0], 0, state[8], state[7], rng) for _ in range(400)])
    assert np.mean(picks == 1) > 0.6
    assert np.mean(picks == 2) < 0.01


def test_dts_excludes_arms_confidently_beating_the_first_candidate():
    K = 3
    state = dts.init(K, np.array([0.51]))
    B = state[0]
    B[1, 0] = 400.0  # arm 1 confidently beats arm 0
    cb_rebuild(state[1], B, math.log(100), 0.51)
    rng = np.random.default_rng(2)
    picks = {dts.second_candidate(state[0], state[1][0], 0, state[8], state[7], rng) for _ in range(200)}
    assert 1 not in picks


def test_multisol_copeland_regret_is_sublinear_for_dts():
    """D-TS targets Copeland winners: on MultiSol (no Condorcet winner) its regret flattens."""
    P = duelbench.load_matrix("multisol")
    r = duelbench.simulate("dts", P, 40_000, 4, checkpoints=[20_000, 40_000])
    half, full = r.regret.mean(axis=0)
    assert (full - half) / half < 0.5

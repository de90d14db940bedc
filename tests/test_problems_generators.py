"""Tests of duelbench.problems.generators."""

from __future__ import annotations

import itertools
import warnings
from pathlib import Path

import numpy as np
import pytest

from duelbench.problems import (
    PreferenceMatrix,
    SamplingError,
    TiedPairWarning,
    btl,
    condorcet_winner,
    copeland_scores,
    copeland_winners,
    cyclic,
    hard_condorcet,
    random_btl,
    random_submatrix,
    von_neumann_winner,
)

CYCLIC_T2 = [  # paper 000 Table 2 (has a 3-cycle among arms 1..3)
    [0.5, 0.6, 0.6, 0.6],
    [0.4, 0.5, 0.9, 0.1],
    [0.4, 0.1, 0.5, 0.9],
    [0.4, 0.9, 0.1, 0.5],
]
MSLR = Path("/work/shared/data/mslr/MSLR_Informational_PMat.npz")


def sst_violations(V, tol=1e-12):
    """Triples violating strong stochastic transitivity: p_ij >= 1/2, p_jk >= 1/2 => p_ik >= max."""
    K = V.shape[0]
    bad = []
    for i, j, k in itertools.permutations(range(K), 3):
        if V[i, j] >= 0.5 and V[j, k] >= 0.5 and V[i, k] < max(V[i, j], V[j, k]) - tol:
            bad.append((i, j, k))
    return bad


def sti_violations(V, tol=1e-12):
    """Stochastic triangle inequality: eps_ik <= eps_ij + eps_jk for i > j > k in strength."""
    K = V.shape[0]
    bad = []
    for i, j, k in itertools.permutations(range(K), 3):
        if V[i, j] >= 0.5 and V[j, k] >= 0.5 and V[i, k] - 0.5 > (V[i, j] - 0.5) + (V[j, k] - 0.5) + tol:
            bad.append((i, j, k))
    return bad


def assert_stored_invariants(P):
    V = P.values
    assert isinstance(P, PreferenceMatrix)
    assert not V.flags.writeable
    assert np.all(V + V.T == 1.0) and np.all(np.diagonal(V) == 0.5)
    iu = np.triu_indices(P.K, 1)
    assert np.array_equal(V.T[iu], 1.0 - V[iu])


# --------------------------------------------------------------------------- BTL
def test_btl_values():
    u = np.array([3.0, 1.0, 0.5, 2.0])
    P = btl(u)
    for i in range(4):
        for j in range(i + 1, 4):
            assert P.values[i, j] == u[i] / (u[i] + u[j])
    assert_stored_invariants(P)
    assert condorcet_winner(P) == 0


def test_btl_is_strongly_stochastically_transitive():
    for seed in range(10):
        P = random_btl(9, seed)
        assert sst_violations(P.values) == []
        assert sti_violations(P.values) == []
        np.testing.assert_array_equal(np.sort(copeland_scores(P)), np.arange(9))  # total order


def test_sst_checker_detects_violation():
    # the checker is not vacuous: Table 2 has a cycle and violates SST
    assert sst_violations(np.array(CYCLIC_T2)) != []


def test_btl_bad_input_and_ties():
    with pytest.raises(ValueError):
        btl([1.0])
    with pytest.raises(ValueError):
        btl([1.0, 0.0])
    with pytest.raises(ValueError):
        btl([1.0, np.nan])
    with pytest.warns(TiedPairWarning):
        btl([1.0, 1.0, 2.0])


def test_random_btl_reproducible_and_seeded():
    a, b, c = random_btl(20, 7), random_btl(20, np.random.default_rng(7)), random_btl(20, 8)
    assert a == b
    assert a != c
    with pytest.raises(ValueError, match="rng"):
        random_btl(5, None)
    with pytest.raises(ValueError):
        random_btl(1, 0)


def test_random_btl_utility_range():
    # p_ij = u_i/(u_i+u_j) with u in (low, high]: p_ij within the implied bounds
    P = random_btl(50, 3, low=1.0, high=2.0)
    off = P.values[~np.eye(50, dtype=bool)]
    assert off.min() >= 1.0 / 3.0 and off.max() <= 2.0 / 3.0


# --------------------------------------------------------------------------- hard Condorcet
def test_hard_condorcet_structure():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no TiedPairWarning: ties are by design
        P = hard_condorcet(10, 0.2, winner=4)
    V = P.values
    assert condorcet_winner(P) == 4
    others = [i for i in range(10) if i != 4]
    assert np.all(V[4, others] == 0.5 + 0.2)
    assert np.all(V[others, 4] == 1.0 - (0.5 + 0.2))
    sub = V[np.ix_(others, others)]
    assert np.all(sub == 0.5)
    assert len(P.tied_pairs) == 9 * 8 // 2
    assert_stored_invariants(P)
    np.testing.assert_allclose(von_neumann_winner(P), np.eye(10)[4], atol=1e-12)


def test_hard_condorcet_random_draws():
    P1, P2 = hard_condorcet(100, rng=5), hard_condorcet(100, rng=5)
    assert P1 == P2
    winners, eps = [], []
    for seed in range(200):
        P = hard_condorcet(6, rng=seed)
        w = condorcet_winner(P)
        winners.append(w)
        e = P.values[w, (w + 1) % 6] - 0.5
        eps.append(e)
        assert 0.0 < e < 0.5
    assert set(winners) == set(range(6))  # the winner is random
    assert 0.2 < np.mean(eps) < 0.3  # Uniform(0, 0.5) has mean 0.25
    with pytest.raises(ValueError, match="rng"):
        hard_condorcet(5, 0.1)  # random winner needs rng
    with pytest.raises(ValueError):
        hard_condorcet(5, 0.0, winner=0)
    with pytest.raises(ValueError):
        hard_condorcet(5, 0.6, winner=0)
    with pytest.raises(ValueError):
        hard_condorcet(5, 0.1, winner=5)


# --------------------------------------------------------------------------- cyclic
@pytest.mark.parametrize("K", [3, 5, 9])
def test_cyclic_odd(K):
    P = cyclic(K, 0.2)
    np.testing.assert_array_equal(copeland_scores(P), np.full(K, (K - 1) // 2))
    assert condorcet_winner(P) is None
    assert copeland_winners(P) == tuple(range(K))
    np.testing.assert_allclose(von_neumann_winner(P), np.full(K, 1.0 / K), atol=1e-9)
    assert set(np.unique(P.values[~np.eye(K, dtype=bool)])) == {0.7, 1.0 - 0.7}
    assert_stored_invariants(P)


@pytest.mark.parametrize("K", [4, 6, 10])
def test_cyclic_even(K):
    P = cyclic(K)
    s = copeland_scores(P)
    np.testing.assert_array_equal(s, [K // 2] * (K // 2) + [K // 2 - 1] * (K // 2))
    assert condorcet_winner(P) is None
    assert copeland_winners(P) == tuple(range(K // 2))


def test_cyclic_rock_paper_scissors():
    V = cyclic(3, 0.3).values
    assert V[0, 1] == 0.8 and V[1, 2] == 0.8 and V[2, 0] == 0.8  # 0 > 1 > 2 > 0
    assert V[1, 0] == V[2, 1] == V[0, 2] == 1.0 - 0.8


def test_cyclic_random_gaps():
    P = cyclic(7, (0.05, 0.15), rng=3)
    gaps = np.abs(P.values - 0.5)[~np.eye(7, dtype=bool)]
    assert gaps.min() >= 0.05 and gaps.max() <= 0.15 and np.unique(gaps).size > 3
    assert P == cyclic(7, (0.05, 0.15), rng=3)
    np.testing.assert_array_equal(copeland_scores(P), np.full(7, 3))
    with pytest.raises(ValueError, match="rng"):
        cyclic(7, (0.05, 0.15))
    with pytest.raises(ValueError):
        cyclic(2)
    with pytest.raises(ValueError):
        cyclic(5, 0.0)


# --------------------------------------------------------------------------- submatrices
def _parent(K=10, seed=0):
    rng = np.random.default_rng(seed)
    U = np.triu(rng.random((K, K)), 1)
    return PreferenceMatrix(U + np.tril(1.0 - U.T, -1) + 0.5 * np.eye(K), names=[f"r{k}" for k in range(K)])


def test_random_submatrix_basic():
    P = _parent()
    s = random_submatrix(P, 4, 1)
    sub, idx, tries = s
    assert list(idx) == sorted(idx) and len(set(idx)) == 4
    assert sub == P.submatrix(idx)
    assert np.array_equal(sub.values, P.values[np.ix_(idx, idx)])  # bitwise parent entries
    assert sub.names == tuple(f"r{k}" for k in idx)
    assert tries == 1
    assert s.matrix is sub and s.indices == idx and s.tries == tries
    assert random_submatrix(P, 4, 1) == s  # reproducible


def test_random_submatrix_uniform():
    P = _parent(5)
    rng = np.random.default_rng(123)
    counts = {}
    n = 10000
    for _ in range(n):
        _, idx, _ = random_submatrix(P, 2, rng)
        counts[idx] = counts.get(idx, 0) + 1
    assert set(counts) == set(itertools.combinations(range(5), 2))
    expected = n / 10
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi2 < 27.9  # 99.9% quantile of chi-square with 9 d.o.f.


def test_random_submatrix_min_gap_and_acceptance_rate():
    # pair (0, 1) has gap 0.001, every other pair 0.2: 7 of the 10 3-subsets avoid {0, 1}
    K = 5
    V = np.full((K, K), 0.5)
    iu = np.triu_indices(K, 1)
    V[iu] = 0.7
    V[0, 1] = 0.501
    V = np.triu(V, 1) + np.tril(1 - np.triu(V, 1).T, -1) + 0.5 * np.eye(K)
    P = PreferenceMatrix(V)
    rng = np.random.default_rng(9)
    tries = []
    for _ in range(4000):
        sub, idx, t = random_submatrix(P, 3, rng, min_gap=0.01)
        assert not {0, 1} <= set(idx)
        assert np.all(np.abs(sub.values - 0.5)[~np.eye(3, dtype=bool)] >= 0.01)
        tries.append(t)
    assert abs(np.mean(tries) - 10 / 7) < 0.05  # geometric, success probability 7/10


@pytest.mark.parametrize("cw", [True, False])
def test_random_submatrix_condorcet_filter(cw):
    P = _parent(12, seed=4)
    rng = np.random.default_rng(0)
    for _ in range(50):
        sub, _, _ = random_submatrix(P, 5, rng, condorcet=cw)
        assert (condorcet_winner(sub) is not None) == cw


def test_random_submatrix_impossible_raises():
    P = cyclic(3)  # the only 3-subset has no Condorcet winner
    with pytest.raises(SamplingError, match="3 tries"):
        random_submatrix(P, 3, 0, condorcet=True, max_tries=3)
    with pytest.raises(ValueError):
        random_submatrix(P, 4, 0)
    with pytest.raises(ValueError, match="rng"):
        random_submatrix(P, 2, None)
    with pytest.raises(TypeError):
        random_submatrix(P.values, 2, 0)


@pytest.mark.skipif(not MSLR.exists(), reason="MSLR mirror not available")
def test_random_submatrix_mslr_gap_filter():
    P = PreferenceMatrix(np.load(MSLR)["PMat"], name="mslr_informational")
    rng = np.random.default_rng(2016)
    for _ in range(5):
        sub, idx, tries = random_submatrix(P, 16, rng, min_gap=0.005)
        assert sub.K == 16 and tries >= 1
        assert np.all(np.abs(sub.values - 0.5)[~np.eye(16, dtype=bool)] >= 0.005)
        assert sub.identity.startswith("sha256:")

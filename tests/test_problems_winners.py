"""Tests of duelbench.problems.winners on the papers' matrices and constructed cases."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from duelbench.problems import PreferenceMatrix, TiedPairWarning, random_btl, winners
from duelbench.problems.winners import (
    borda_scores,
    borda_winners,
    condorcet_winner,
    copeland_scores,
    copeland_winners,
    losses,
    normalized_copeland_scores,
    random_walk_stationary,
    random_walk_transition_matrix,
    random_walk_winners,
    von_neumann_support,
    von_neumann_winner,
)

# Matrices typed from paper 000 Tables 2 and 3 (L139-L143, L389-L445).
CYCLIC = [  # Table 2, L139-143
    [0.5, 0.6, 0.6, 0.6],
    [0.4, 0.5, 0.9, 0.1],
    [0.4, 0.1, 0.5, 0.9],
    [0.4, 0.9, 0.1, 0.5],
]
MULTISOL = [  # Table 3(c), L416-420
    [0.5, 0.2, 0.8, 0.8, 0.8],
    [0.8, 0.5, 0.2, 0.8, 0.8],
    [0.2, 0.8, 0.5, 0.8, 0.8],
    [0.2, 0.2, 0.2, 0.5, 0.6],
    [0.2, 0.2, 0.2, 0.4, 0.5],
]
GAP = [  # Table 3(b), L408-412
    [0.5, 0.8, 0.8, 0.51, 0.2],
    [0.2, 0.5, 0.8, 0.2, 0.8],
    [0.2, 0.2, 0.5, 0.8, 0.8],
    [0.49, 0.8, 0.2, 0.5, 0.2],
    [0.8, 0.2, 0.2, 0.8, 0.5],
]
ARXIV = [  # Table 3(d), L424-429 (contains the tie p_46 = 0.50)
    [0.50, 0.55, 0.55, 0.54, 0.61, 0.61],
    [0.45, 0.50, 0.55, 0.55, 0.58, 0.60],
    [0.45, 0.45, 0.50, 0.54, 0.51, 0.56],
    [0.46, 0.45, 0.46, 0.50, 0.54, 0.50],
    [0.39, 0.42, 0.49, 0.46, 0.50, 0.51],
    [0.39, 0.40, 0.44, 0.50, 0.49, 0.50],
]
MSLR5_CONDORCET = [  # Table 3(e), L433-437, with p_42 = 0.273 (printed 0.276; p_24 = 0.727)
    [0.5, 0.535, 0.613, 0.757, 0.765],
    [0.465, 0.5, 0.580, 0.727, 0.738],
    [0.387, 0.420, 0.5, 0.659, 0.669],
    [0.243, 0.273, 0.341, 0.5, 0.510],
    [0.235, 0.262, 0.331, 0.490, 0.5],
]
MSLR5_NONCONDORCET = [  # Table 3(f), L441-445
    [0.5, 0.484, 0.519, 0.529, 0.518],
    [0.516, 0.5, 0.481, 0.530, 0.539],
    [0.481, 0.519, 0.5, 0.504, 0.512],
    [0.471, 0.470, 0.496, 0.5, 0.503],
    [0.482, 0.461, 0.488, 0.497, 0.5],
]
SUSHI = [  # Table 3(a), L389-404
    [0.5, 0.512, 0.622, 0.655, 0.698, 0.726, 0.711, 0.708, 0.749, 0.8, 0.741, 0.783, 0.847, 0.817, 0.854, 0.868],
    [0.488, 0.5, 0.602, 0.683, 0.652, 0.776, 0.663, 0.683, 0.738, 0.709, 0.786, 0.802, 0.83, 0.85, 0.871, 0.873],
    [0.378, 0.398, 0.5, 0.528, 0.554, 0.533, 0.534, 0.591, 0.573, 0.593, 0.661, 0.705, 0.734, 0.672, 0.787, 0.822],
    [0.345, 0.317, 0.472, 0.5, 0.553, 0.619, 0.566, 0.641, 0.675, 0.687, 0.665, 0.696, 0.803, 0.823, 0.796, 0.844],
    [0.302, 0.348, 0.446, 0.447, 0.5, 0.513, 0.524, 0.518, 0.608, 0.538, 0.643, 0.61, 0.695, 0.672, 0.681, 0.775],
    [0.274, 0.224, 0.467, 0.381, 0.487, 0.5, 0.513, 0.559, 0.575, 0.621, 0.591, 0.701, 0.702, 0.787, 0.829, 0.811],
    [0.289, 0.337, 0.466, 0.434, 0.476, 0.487, 0.5, 0.559, 0.553, 0.613, 0.564, 0.607, 0.703, 0.735, 0.736, 0.801],
    [0.292, 0.317, 0.409, 0.359, 0.482, 0.441, 0.441, 0.5, 0.556, 0.527, 0.562, 0.58, 0.668, 0.805, 0.777, 0.767],
    [0.251, 0.262, 0.427, 0.325, 0.392, 0.425, 0.447, 0.444, 0.5, 0.512, 0.548, 0.542, 0.612, 0.786, 0.71, 0.685],
    [0.2, 0.291, 0.407, 0.313, 0.462, 0.379, 0.387, 0.473, 0.488, 0.5, 0.543, 0.579, 0.613, 0.718, 0.685, 0.747],
    [0.259, 0.214, 0.339, 0.335, 0.357, 0.409, 0.436, 0.438, 0.452, 0.457, 0.5, 0.564, 0.625, 0.618, 0.702, 0.684],
    [0.217, 0.198, 0.295, 0.304, 0.39, 0.299, 0.393, 0.42, 0.458, 0.421, 0.436, 0.5, 0.542, 0.644, 0.7, 0.733],
    [0.153, 0.17, 0.266, 0.197, 0.305, 0.298, 0.297, 0.332, 0.388, 0.387, 0.375, 0.458, 0.5, 0.577, 0.607, 0.596],
    [0.183, 0.15, 0.328, 0.177, 0.328, 0.213, 0.265, 0.195, 0.214, 0.282, 0.382, 0.356, 0.423, 0.5, 0.578, 0.637],
    [0.146, 0.129, 0.213, 0.204, 0.319, 0.171, 0.264, 0.223, 0.29, 0.315, 0.298, 0.3, 0.393, 0.422, 0.5, 0.586],
    [0.132, 0.127, 0.178, 0.156, 0.225, 0.189, 0.199, 0.233, 0.315, 0.253, 0.316, 0.267, 0.404, 0.363, 0.414, 0.5],
]


def pm(values, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TiedPairWarning)
        return PreferenceMatrix(values, **kw)


def random_matrix(K, rng):
    U = np.triu(rng.random((K, K)), 1)
    return PreferenceMatrix(U + np.tril(1.0 - U.T, -1) + 0.5 * np.eye(K))


# --------------------------------------------------------------------------- Copeland / Condorcet
def test_table2_cyclic_arm0_is_condorcet_winner():
    P = pm(CYCLIC)
    assert condorcet_winner(P) == 0  # paper 000 L137: "The Copeland (Condorcet) winner is arm 1"
    assert copeland_winners(P) == (0,)
    np.testing.assert_array_equal(copeland_scores(P), [3, 1, 1, 1])
    np.testing.assert_array_equal(losses(P), [0, 2, 2, 2])


def test_multisol_three_copeland_winners():
    P = pm(MULTISOL)
    assert copeland_winners(P) == (0, 1, 2)
    assert copeland_winners(P, by="losses") == (0, 1, 2)
    assert condorcet_winner(P) is None
    np.testing.assert_array_equal(copeland_scores(P), [3, 3, 3, 1, 0])
    np.testing.assert_array_equal(losses(P), [1, 1, 1, 3, 4])
    np.testing.assert_allclose(normalized_copeland_scores(P), [0.75, 0.75, 0.75, 0.25, 0.0])


def test_sushi_is_a_total_order():
    P = pm(SUSHI)
    np.testing.assert_array_equal(copeland_scores(P), np.arange(15, -1, -1))
    np.testing.assert_array_equal(losses(P), np.arange(16))
    assert condorcet_winner(P) == 0
    iu = np.triu_indices(16, 1)
    assert np.all(P.values[iu] > 0.5)  # i < j  =>  i beats j


@pytest.mark.parametrize(
    "values, cw, cop",
    [
        (GAP, None, (0,)),
        (ARXIV, 0, (0,)),
        (MSLR5_CONDORCET, 0, (0,)),
        (MSLR5_NONCONDORCET, None, (0, 1, 2)),
    ],
)
def test_other_paper_matrices(values, cw, cop):
    # paper 000 L303 / §5: Gap, MultiSol and MSLR non-Condorcet have no CW; MSLR (f) has 3 Copeland winners
    P = pm(values)
    assert condorcet_winner(P) == cw
    assert copeland_winners(P) == cop


def test_arxiv_tie_counts_as_neither_win_nor_loss():
    P = pm(ARXIV)
    assert P.tied_pairs == ((3, 5),)
    s, L = copeland_scores(P), losses(P)
    assert s[3] + L[3] == 4 and s[5] + L[5] == 4  # one of the 5 opponents is a tie
    assert np.all(s + L == 5 - np.isin(np.arange(6), [3, 5]))


def test_copeland_by_score_vs_by_losses_differ_with_ties():
    A = [[0.5, 0.5, 0.5], [0.5, 0.5, 0.7], [0.5, 0.3, 0.5]]
    assert copeland_winners(A) == (1,)
    assert copeland_winners(A, by="losses") == (0, 1)
    with pytest.raises(ValueError):
        copeland_winners(A, by="wins")


def test_tie_with_top_arm_prevents_condorcet_winner():
    A = [[0.5, 0.5, 0.9], [0.5, 0.5, 0.9], [0.1, 0.1, 0.5]]
    assert condorcet_winner(A) is None
    assert copeland_winners(A) == (0, 1)


def test_raw_array_and_matrix_agree_and_k1():
    P = pm(MULTISOL)
    assert copeland_winners(P.values) == copeland_winners(P)
    assert condorcet_winner([[0.5]]) == 0
    assert copeland_winners([[0.5]]) == (0,)
    with pytest.raises(ValueError):
        copeland_scores(np.zeros((2, 3)))


def test_copeland_scores_match_explicit_loop():
    rng = np.random.default_rng(5)
    for _ in range(20):
        P = random_matrix(int(rng.integers(2, 12)), rng)
        V = P.values
        K = P.K
        s = [sum(V[i, j] > 0.5 for j in range(K) if j != i) for i in range(K)]
        L = [sum(V[i, j] < 0.5 for j in range(K) if j != i) for i in range(K)]
        np.testing.assert_array_equal(copeland_scores(P), s)
        np.testing.assert_array_equal(losses(P), L)
        best = max(s)
        assert copeland_winners(P) == tuple(i for i in range(K) if s[i] == best)


# --------------------------------------------------------------------------- Borda
def test_borda_scores_and_winner_differs_from_copeland():
    # arm 0 beats everyone narrowly (Condorcet winner); arm 1 crushes arms 2, 3
    A = np.array(
        [
            [0.5, 0.51, 0.51, 0.51],
            [0.49, 0.5, 0.95, 0.95],
            [0.49, 0.05, 0.5, 0.6],
            [0.49, 0.05, 0.4, 0.5],
        ]
    )
    P = pm(A)
    np.testing.assert_allclose(borda_scores(P), [(A[i].sum() - 0.5) / 3 for i in range(4)])
    assert borda_winners(P) == (1,)
    assert condorcet_winner(P) == 0


def test_borda_winners_tolerance():
    P = pm([[0.5, 0.7, 0.3], [0.3, 0.5, 0.7], [0.7, 0.3, 0.5]])
    assert borda_winners(P) == (0, 1, 2)


# --------------------------------------------------------------------------- von Neumann
def _assert_optimal(w, V, atol=1e-9):
    assert np.all(w >= 0)
    assert abs(w.sum() - 1) < 1e-12
    assert np.all(w @ (V - 0.5) >= -atol)  # guarantees >= 1/2 against every arm


@pytest.mark.parametrize("values", [CYCLIC, SUSHI, ARXIV, MSLR5_CONDORCET])
def test_von_neumann_of_condorcet_matrix_is_pure(values):
    P = pm(values)
    cw = condorcet_winner(P)
    w = von_neumann_winner(P)
    e = np.zeros(P.K)
    e[cw] = 1.0
    np.testing.assert_allclose(w, e, atol=1e-12)
    assert von_neumann_support(P) == (cw,)
    assert von_neumann_support(P, method="solution") == (cw,)


def test_von_neumann_random_btl_is_pure_on_best():
    for seed in range(5):
        P = random_btl(12, seed)
        assert von_neumann_support(P) == (condorcet_winner(P),)


def test_von_neumann_multisol():
    P = pm(MULTISOL)
    w = von_neumann_winner(P)
    np.testing.assert_allclose(w, [1 / 3, 1 / 3, 1 / 3, 0, 0], atol=1e-9)
    assert von_neumann_support(P) == (0, 1, 2)


def test_von_neumann_optimality_on_random_matrices():
    rng = np.random.default_rng(11)
    for _ in range(30):
        P = random_matrix(int(rng.integers(2, 25)), rng)
        w = von_neumann_winner(P)
        _assert_optimal(w, P.values)
        sol = von_neumann_support(P, method="solution")
        uni = von_neumann_support(P)
        assert set(sol) <= set(uni)
        assert len(uni) % 2 == 1  # generic skew-symmetric games: unique, odd-size support
        assert sol == uni


def test_von_neumann_union_support_non_unique_optimum():
    # a 3-cycle (0 > 1 > 2 > 0) plus arm 3, an exact clone of arm 0 (tied with it):
    # every split of the cycle's first third between arms 0 and 3 is optimal.
    A = np.array(
        [
            [0.5, 0.8, 0.2, 0.5],
            [0.2, 0.5, 0.8, 0.2],
            [0.8, 0.2, 0.5, 0.8],
            [0.5, 0.8, 0.2, 0.5],
        ]
    )
    P = pm(A)
    w = von_neumann_winner(P)
    _assert_optimal(w, P.values)
    assert abs(w[0] + w[3] - 1 / 3) < 1e-9
    assert von_neumann_support(P) == (0, 1, 2, 3)
    assert set(von_neumann_support(P, method="solution")) <= {0, 1, 2, 3}


def test_von_neumann_union_excludes_dominated_arm_with_ties():
    # all-tied 3 arms plus a 4th arm that loses to everyone: union = {0, 1, 2}
    A = np.full((4, 4), 0.5)
    A[:3, 3] = 0.7
    A[3, :3] = 0.3
    P = pm(A)
    assert von_neumann_support(P) == (0, 1, 2)
    with pytest.raises(ValueError):
        von_neumann_support(P, method="bogus")
    with pytest.raises(ValueError):
        von_neumann_support(P, tol=0)


def test_von_neumann_raw_array_k1():
    np.testing.assert_array_equal(von_neumann_winner([[0.5]]), [1.0])
    assert von_neumann_support([[0.5]]) == (0,)


# --------------------------------------------------------------------------- random walks
def _explicit_transition(V, chain):
    K = V.shape[0]
    S = np.zeros((K, K))
    for i in range(K):
        for j in range(K):
            if chain == "C":
                den = sum(V[l, i] for l in range(K) if l != i)
                S[i, j] = 0.0 if i == j else V[j, i] / den
            elif chain == "A":
                S[i, j] = V[j, i] / sum(V[l, i] for l in range(K))
            else:
                S[i, j] = V[j, i] / (K - 1) if i != j else 0.0
        if chain == "B":
            S[i, i] = 1.0 - S[i].sum()
    return S


def _power_stationary(S, n=20000):
    x = np.full(S.shape[0], 1.0 / S.shape[0])
    A = 0.5 * (np.eye(S.shape[0]) + S)  # lazy version: same stationary law, aperiodic
    for _ in range(n):
        x = x @ A
    return x


@pytest.mark.parametrize("chain", ["A", "B", "C"])
def test_random_walk_transition_and_stationary(chain):
    rng = np.random.default_rng(2)
    for values in (CYCLIC, MULTISOL, GAP, random_matrix(9, rng).values):
        V = pm(values).values
        S = random_walk_transition_matrix(V, chain)
        np.testing.assert_allclose(S, _explicit_transition(V, chain), atol=1e-15)
        np.testing.assert_allclose(S.sum(axis=1), 1.0, atol=1e-14)
        pi = random_walk_stationary(V, chain)
        np.testing.assert_allclose(pi @ S, pi, atol=1e-13)
        np.testing.assert_allclose(pi, _power_stationary(S), atol=1e-9)
        assert random_walk_winners(V, chain) == tuple(np.flatnonzero(pi >= pi.max() - 1e-9))


def test_random_walk_hand_computed_3x3():
    # p01 = .6, p02 = .7, p12 = .6; chain C rows:
    # 0 -> (0, .4/.7, .3/.7); 1 -> (.6, 0, .4); 2 -> (.7/1.3, .6/1.3, 0)
    V = pm([[0.5, 0.6, 0.7], [0.4, 0.5, 0.6], [0.3, 0.4, 0.5]]).values
    S = random_walk_transition_matrix(V, "C")
    np.testing.assert_allclose(S[0], [0, 4 / 7, 3 / 7])
    np.testing.assert_allclose(S[1], [0.6, 0, 0.4])
    np.testing.assert_allclose(S[2], [7 / 13, 6 / 13, 0])
    pi = random_walk_stationary(V, "C")
    # detailed computation: solve pi S = pi by hand-free eigenvector
    vals, vecs = np.linalg.eig(S.T)
    v = np.real(vecs[:, np.argmin(np.abs(vals - 1))])
    np.testing.assert_allclose(pi, v / v.sum(), atol=1e-12)
    assert random_walk_winners(V, "C") == (0,)


def test_random_walk_reducible_deterministic_matrix():
    # 0 -> 1 -> 2 -> 0 deterministic cycle on top, everyone beats arm 3 surely
    A = np.array([[0.5, 1, 0, 1], [0, 0.5, 1, 1], [1, 0, 0.5, 1], [0, 0, 0, 0.5]], dtype=float)
    for chain in "ABC":
        pi = random_walk_stationary(A, chain)
        np.testing.assert_allclose(pi, [1 / 3, 1 / 3, 1 / 3, 0], atol=1e-12)
        assert random_walk_winners(A, chain) == (0, 1, 2)
    B = np.array([[0.5, 1, 1], [0, 0.5, 0.7], [0, 0.3, 0.5]])  # arm 0 beats all surely: absorbing
    for chain in "ABC":
        np.testing.assert_allclose(random_walk_stationary(B, chain), [1, 0, 0], atol=1e-12)


def test_random_walk_chain_names():
    V = pm(CYCLIC).values
    np.testing.assert_array_equal(random_walk_transition_matrix(V, "rw-c"), random_walk_transition_matrix(V, "C"))
    with pytest.raises(ValueError):
        random_walk_transition_matrix(V, "D")
    assert winners.RANDOM_WALK_CHAINS == ("C", "A", "B")


def test_random_walk_sushi_winner():
    assert random_walk_winners(pm(SUSHI)) == (0,)

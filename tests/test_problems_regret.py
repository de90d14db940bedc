"""Tests of duelbench.problems.regret (per-pair regret matrices)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from duelbench.problems import (
    REGRET_KINDS,
    NoCondorcetWinnerError,
    PreferenceMatrix,
    TiedPairWarning,
    copeland_winners,
    cyclic,
    hard_condorcet,
    losses,
    regret_matrix,
)

CYCLIC = [  # paper 000 Table 2
    [0.5, 0.6, 0.6, 0.6],
    [0.4, 0.5, 0.9, 0.1],
    [0.4, 0.1, 0.5, 0.9],
    [0.4, 0.9, 0.1, 0.5],
]
MULTISOL = [  # paper 000 Table 3(c)
    [0.5, 0.2, 0.8, 0.8, 0.8],
    [0.8, 0.5, 0.2, 0.8, 0.8],
    [0.2, 0.8, 0.5, 0.8, 0.8],
    [0.2, 0.2, 0.2, 0.5, 0.6],
    [0.2, 0.2, 0.2, 0.4, 0.5],
]
ARXIV = [  # paper 000 Table 3(d), tie at (3, 5)
    [0.50, 0.55, 0.55, 0.54, 0.61, 0.61],
    [0.45, 0.50, 0.55, 0.55, 0.58, 0.60],
    [0.45, 0.45, 0.50, 0.54, 0.51, 0.56],
    [0.46, 0.45, 0.46, 0.50, 0.54, 0.50],
    [0.39, 0.42, 0.49, 0.46, 0.50, 0.51],
    [0.39, 0.40, 0.44, 0.50, 0.49, 0.50],
]


def pm(values):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TiedPairWarning)
        return PreferenceMatrix(values)


def random_matrix(K, rng):
    U = np.triu(rng.random((K, K)), 1)
    return PreferenceMatrix(U + np.tril(1.0 - U.T, -1) + 0.5 * np.eye(K))


def test_kinds():
    assert REGRET_KINDS == ("copeland", "copeland_zoghi", "copeland_wu", "condorcet")
    with pytest.raises(ValueError, match="unknown regret kind"):
        regret_matrix(pm(CYCLIC), "borda")


def test_copeland_default_hand_computed_table2():
    # L = (0, 2, 2, 2), K = 4: r_ij = (L_i + L_j - 0) / 6   (paper 000 L71)
    r = regret_matrix(pm(CYCLIC))
    expected = np.array([[0, 2, 2, 2], [2, 4, 4, 4], [2, 4, 4, 4], [2, 4, 4, 4]]) / 6
    np.testing.assert_array_equal(r, expected)
    assert r.dtype == np.float64 and r.shape == (4, 4)


def test_copeland_multisol():
    r = regret_matrix(pm(MULTISOL))
    # L = (1, 1, 1, 3, 4), L_1 = 1, K - 1 = 4
    assert np.all(r[:3, :3] == 0.0)
    assert r[0, 3] == (1 + 3 - 2) / 8 and r[3, 4] == (3 + 4 - 2) / 8 and r[4, 4] == (4 + 4 - 2) / 8


def test_copeland_diagonal():
    rng = np.random.default_rng(0)
    for _ in range(20):
        P = random_matrix(int(rng.integers(2, 15)), rng)
        L = losses(P)
        r = regret_matrix(P)
        np.testing.assert_array_equal(np.diagonal(r), (L - L.min()) / (P.K - 1))


@pytest.mark.parametrize("kind", ["copeland", "copeland_zoghi", "copeland_wu"])
def test_zero_exactly_on_winner_pairs(kind):
    rng = np.random.default_rng(1)
    mats = [pm(CYCLIC), pm(MULTISOL)] + [random_matrix(int(rng.integers(2, 20)), rng) for _ in range(30)]
    for P in mats:
        r = regret_matrix(P, kind)
        win = np.zeros(P.K, dtype=bool)
        win[list(copeland_winners(P))] = True
        both = win[:, None] & win[None, :]
        assert np.all(r[both] == 0.0)
        assert np.all(r[~both] > 0.0)
        assert np.array_equal(r, r.T)
        top = 2.0 if kind == "copeland_zoghi" else 1.0
        assert r.max() <= top


def test_normalisation_identities_without_ties():
    rng = np.random.default_rng(2)
    for _ in range(40):
        P = random_matrix(int(rng.integers(2, 30)), rng)
        c = regret_matrix(P, "copeland")
        z = regret_matrix(P, "copeland_zoghi")
        w = regret_matrix(P, "copeland_wu")
        assert np.array_equal(c, w)  # paper 000 L71 == paper 004 eq. (1), bit for bit
        assert np.array_equal(z, 2.0 * w)  # paper 001 Def. 1 is twice (paper 000 footnote 1)


def test_normalisation_with_ties():
    # K = 3: arm 0 ties with both others; arm 1 beats arm 2.
    A = pm([[0.5, 0.5, 0.5], [0.5, 0.5, 0.7], [0.5, 0.3, 0.5]])
    c = regret_matrix(A, "copeland")
    w = regret_matrix(A, "copeland_wu")
    z = regret_matrix(A, "copeland_zoghi")
    assert np.array_equal(z, 2.0 * w)  # always exact
    assert not np.array_equal(c, w)  # losses- vs score-based differ with ties
    assert c[0, 0] == 0.0 and w[0, 0] > 0.0  # arm 0: no loss, but no win either
    # ArXiv has a tie but a Condorcet winner: all kinds still vanish on (0, 0)
    for kind in REGRET_KINDS:
        assert regret_matrix(pm(ARXIV), kind)[0, 0] == 0.0


def test_condorcet_regret_table2():
    r = regret_matrix(pm(CYCLIC), "condorcet")
    d = np.array([0.0, 0.6 - 0.5, 0.6 - 0.5, 0.6 - 0.5])
    np.testing.assert_array_equal(r, (d[:, None] + d[None, :]) / 2)
    assert r[0, 0] == 0.0 and np.all(r[np.triu_indices(4, 1)] > 0)


def test_condorcet_regret_raises_without_cw():
    with pytest.raises(NoCondorcetWinnerError, match="Condorcet winner"):
        regret_matrix(pm(MULTISOL), "condorcet")
    assert issubclass(NoCondorcetWinnerError, ValueError)


def test_hard_condorcet_regret_values():
    # paper 003 SYN-CD: a duel of two non-winners costs eps, a duel (l, i) costs eps/2
    eps = 0.25
    P = hard_condorcet(7, eps, winner=3)
    r = regret_matrix(P, "condorcet")
    assert r[3, 3] == 0.0
    assert r[3, 0] == eps / 2 and r[0, 1] == eps and r[5, 5] == eps


def test_cyclic_odd_copeland_regret_is_zero():
    for kind in ("copeland", "copeland_zoghi", "copeland_wu"):
        assert np.all(regret_matrix(cyclic(7), kind) == 0.0)


def test_raw_array_matches_matrix():
    P = pm(MULTISOL)
    for kind in ("copeland", "copeland_zoghi", "copeland_wu"):
        np.testing.assert_array_equal(regret_matrix(P.values, kind), P.regret_matrix(kind))
    # the result is a fresh writable array
    r = regret_matrix(P)
    r[0, 0] = 1.0
    assert regret_matrix(P)[0, 0] == 0.0

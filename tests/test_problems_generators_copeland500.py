"""The 500-arm Copeland generator of Zoghi et al. 2015, Figure 2 (paper 001 L397; reading Z2)."""

import numpy as np
import pytest

import duelbench
from duelbench.problems import condorcet_winner, copeland_scores, copeland_winners
from duelbench.problems.generators import __all__ as generator_names
from duelbench.problems.generators import copeland_cycle_plus_order


def test_paper_structure_exactly():
    """3 winners with score 498 in a cycle; the other 497 arms have scores 0..496, one each."""
    P = copeland_cycle_plus_order(3, 497, 0.1, 0.1, 0.1)
    V = P.values
    assert P.K == 500
    scores = copeland_scores(P)
    assert scores[:3].tolist() == [498, 498, 498]
    assert sorted(scores[3:].tolist()) == list(range(497))
    assert scores[3:].tolist() == list(range(496, -1, -1))  # arm 3 + m has score 496 - m
    assert list(copeland_winners(P)) == [0, 1, 2] and condorcet_winner(P) is None
    # the cycle 0 > 1 > 2 > 0, each winner loses exactly once (L_C = 1)
    assert V[0, 1] > 0.5 and V[1, 2] > 0.5 and V[2, 0] > 0.5
    assert ((V[:3, :] < 0.5).sum(axis=1) == 1).all()


def test_entries_gaps_and_storage_invariants():
    P = copeland_cycle_plus_order(3, 497, 0.1, 0.2, 0.3)
    V = P.values
    assert V[0, 1] == V[1, 2] == V[2, 0] == 0.5 + 0.1
    assert (V[:3, 3:] == 0.5 + 0.2).all()
    iu = np.triu_indices(497, 1)
    assert (V[3:, 3:][iu] == 0.5 + 0.3).all()
    assert np.array_equal(V + V.T, np.ones_like(V)) and (np.diag(V) == 0.5).all()
    assert not P.has_ties


def test_deterministic_and_registered_instances():
    a = copeland_cycle_plus_order()
    b = copeland_cycle_plus_order(3, 497, 0.1, 0.1, 0.1)
    assert np.array_equal(a.values, b.values)
    for name, g in [("zoghi_copeland500", 0.1), ("zoghi_copeland500_g02", 0.2), ("zoghi_copeland500_g04", 0.4)]:
        M = duelbench.load_matrix(name)
        assert M.name == name and M.K == 500
        assert np.array_equal(M.values, copeland_cycle_plus_order(3, 497, g, g, g).values)
    assert "copeland_cycle_plus_order" in generator_names


def test_other_sizes():
    P = copeland_cycle_plus_order(1, 4, 0.3, 0.3, 0.3)  # a single (Condorcet) winner
    assert condorcet_winner(P) == 0 and copeland_scores(P).tolist() == [4, 3, 2, 1, 0]
    Q = copeland_cycle_plus_order(5, 3, 0.1, 0.1, 0.1)  # regular tournament among 5 winners
    assert copeland_scores(Q).tolist() == [5, 5, 5, 5, 5, 2, 1, 0]
    R = copeland_cycle_plus_order(3, 0, 0.2, 0.2, 0.2)  # rock-paper-scissors
    assert copeland_scores(R).tolist() == [1, 1, 1]


@pytest.mark.parametrize("kwargs,match", [
    ({"n_winners": 2}, "n_winners must be 1 or an odd number"),
    ({"n_winners": 4}, "n_winners must be 1 or an odd number"),
    ({"n_winners": 0}, "n_winners must be 1 or an odd number"),
    ({"n_winners": 2.5}, "must be integers"),
    ({"n_others": -1}, "n_others >= 0"),
    ({"n_winners": 1, "n_others": 0}, "n_winners \\+ n_others >= 2"),
    ({"g_w": 0.0}, "g_w must lie in"),
    ({"g_wn": 0.6}, "g_wn must lie in"),
    ({"g_nn": -0.1}, "g_nn must lie in"),
])
def test_rejects_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        copeland_cycle_plus_order(**kwargs)

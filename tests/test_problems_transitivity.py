"""Tests for duelbench.problems.transitivity (SST @7511 and STI @7676 of paper 003, Agarwal et al. 2022)."""

from __future__ import annotations

import itertools
import time
import warnings

import numpy as np
import pytest

import duelbench
from duelbench.problems import btl, cyclic, hard_condorcet, random_btl
from duelbench.problems.transitivity import (
    TRIPLE_MODES,
    epsilon_min,
    gaps_to_best,
    order_inversions,
    ranking_order,
    satisfies_sst,
    satisfies_sti,
    sst_violations,
    sti_violations,
    strength_order,
    transitivity_report,
)


def load(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the ArXiv tie warning
        return duelbench.load_matrix(name)


def from_eps(eps_upper):
    """Matrix from a dict {(i, j): eps_ij} for i < j (missing pairs are ties)."""
    K = 1 + max(max(p) for p in eps_upper)
    P = np.full((K, K), 0.5)
    for (i, j), e in eps_upper.items():
        P[i, j] = 0.5 + e
        P[j, i] = 0.5 - e
    return P


def brute_force(P, order, tol=1e-12, triples="ordered"):
    """Independent loop over all position triples (decision D1 of the module)."""
    e = np.asarray(P, dtype=float) - 0.5
    sst, sti = set(), set()
    for a, b, c in itertools.combinations(range(len(order)), 3):
        i, j, k = order[a], order[b], order[c]
        if triples == "strict" and not (e[i, j] > tol and e[j, k] > tol):
            continue
        if e[i, k] < max(e[i, j], e[j, k]) - tol:
            sst.add((i, j, k))
        if e[i, k] > e[i, j] + e[j, k] + tol:
            sti.add((i, j, k))
    return sst, sti


def linear_extensions(P):
    """All orders consistent with the strict relation (small K only)."""
    a = np.asarray(P)
    K = a.shape[0]
    for perm in itertools.permutations(range(K)):
        if all(a[perm[y], perm[x]] <= 0.5 for x in range(K) for y in range(x + 1, K)):
            yield perm


def as_set(arr):
    return {tuple(int(x) for x in r) for r in arr}


# --------------------------------------------------------------------------- models that satisfy both
def test_btl_satisfies_sst_and_sti():
    u = np.array([0.3, 2.0, 1.0, 0.7, 5.0])
    P = btl(u)
    assert strength_order(P) == tuple(int(i) for i in np.argsort(-u))
    assert satisfies_sst(P) and satisfies_sti(P)
    for seed in range(5):
        R = random_btl(100, seed)
        rep = transitivity_report(R)
        assert rep.n_triples == 161_700  # C(100, 3)
        assert rep.order_consistent and rep.sst and rep.sti
        assert rep.sst_count == rep.sti_count == 0
        assert rep.order == tuple(int(i) for i in np.argsort(-R.values.sum(axis=1), kind="stable"))


def test_hard_condorcet_satisfies_both_in_every_linear_extension():
    for K, w in [(2, 1), (5, 3), (100, 42)]:
        P = hard_condorcet(K, 0.2, winner=w)
        rep = transitivity_report(P)
        assert rep.order[0] == w and rep.order_consistent and rep.sst and rep.sti
        # strict chains: the non-winners are all tied, so no triple i > j > k with two strict gaps
        assert transitivity_report(P, triples="strict").n_triples == 0
    P = hard_condorcet(5, 0.3, winner=2)
    exts = list(linear_extensions(P))
    assert len(exts) == 24  # winner first, the 4 tied arms in any order
    for o in exts:
        assert satisfies_sst(P, o) and satisfies_sti(P, o)


# --------------------------------------------------------------------------- hand-made violations
def test_three_arm_sst_violation():
    # 0 > 1 > 2 with eps_01 = eps_12 = 0.2 but eps_02 = 0.1 < max(0.2, 0.2): SST fails, STI holds
    P = from_eps({(0, 1): 0.2, (1, 2): 0.2, (0, 2): 0.1})
    assert strength_order(P) == (0, 1, 2)
    assert as_set(sst_violations(P)) == {(0, 1, 2)}
    assert as_set(sti_violations(P)) == set()
    assert not satisfies_sst(P) and satisfies_sti(P)
    rep = transitivity_report(P)
    assert rep.sst_count == 1 and rep.sst_share == 1.0 and rep.sst_examples == ((0, 1, 2),)
    assert rep.sst_max_margin == pytest.approx(0.1)


def test_three_arm_sti_violation():
    # eps_02 = 0.3 > eps_01 + eps_12 = 0.1: STI fails, SST holds
    P = from_eps({(0, 1): 0.05, (1, 2): 0.05, (0, 2): 0.3})
    assert as_set(sti_violations(P)) == {(0, 1, 2)}
    assert as_set(sst_violations(P)) == set()
    assert satisfies_sst(P) and not satisfies_sti(P)
    assert transitivity_report(P).sti_max_margin == pytest.approx(0.2)


def test_equality_cases_are_not_violations():
    # eps_02 = max(...) exactly and eps_02 = sum exactly (0.1 + 0.1 = 0.2 in binary within tol)
    P = from_eps({(0, 1): 0.1, (1, 2): 0.1, (0, 2): 0.2})
    assert satisfies_sst(P) and satisfies_sti(P)
    P = from_eps({(0, 1): 0.1, (1, 2): 0.2, (0, 2): 0.2})
    assert satisfies_sst(P) and satisfies_sti(P)


def test_cycle_has_no_consistent_order():
    P = cyclic(3, 0.1)
    assert strength_order(P) is None
    rep = transitivity_report(P)
    assert not rep.order_consistent and rep.inversions
    assert not satisfies_sst(P) and not satisfies_sti(P)
    assert rep.order == ranking_order(P)


def test_tie_order_matters_for_sst_alone():
    # arms 0 and 1 tied; eps_02 = 0.1, eps_12 = 0.05 (decision D2)
    P = from_eps({(0, 2): 0.1, (1, 2): 0.05})
    assert strength_order(P) == (0, 1, 2)  # same Copeland score, larger Borda first
    assert satisfies_sst(P) and not satisfies_sst(P, (1, 0, 2))
    # STI fails in both extensions: eps_02 = 0.1 > eps_01 + eps_12 = 0.05 resp. SST fails
    assert not satisfies_sti(P)
    assert as_set(sti_violations(P)) == {(0, 1, 2)}
    # strict chains only: no triple has two strict gaps
    assert transitivity_report(P, triples="strict").n_triples == 0


def test_given_inconsistent_order_is_reported():
    P = btl([3.0, 2.0, 1.0])
    assert order_inversions(P, (1, 0, 2)) == [(1, 0)]
    rep = transitivity_report(P, order=(1, 0, 2))
    assert not rep.order_consistent and rep.inversions == ((1, 0),)
    assert not rep.sst and not satisfies_sti(P, (1, 0, 2))
    assert order_inversions(P, (0, 1, 2)) == []


# --------------------------------------------------------------------------- vectorised == loop
@pytest.mark.parametrize("triples", TRIPLE_MODES)
def test_vectorised_equals_brute_force(triples):
    rng = np.random.default_rng(7)
    for _ in range(200):
        K = int(rng.integers(3, 9))
        up = rng.choice([0.5, 0.5, 0.55, 0.6, 0.7, 0.9, 0.45, 0.3], size=(K, K))
        P = np.triu(up, 1) + np.tril(1.0 - np.triu(up, 1).T, -1)
        np.fill_diagonal(P, 0.5)
        o = strength_order(P)
        if o is None:
            o = ranking_order(P)
        s, t = brute_force(P, o, triples=triples)
        assert as_set(sst_violations(P, o, triples=triples)) == s
        assert as_set(sti_violations(P, o, triples=triples)) == t
        rep = transitivity_report(P, o, triples=triples, max_examples=3)
        assert rep.sst_count == len(s) and rep.sti_count == len(t)
        assert set(rep.sst_examples) <= s and len(rep.sst_examples) == min(3, len(s))
        # strength_order finds a linear extension exactly when one exists
        if strength_order(P) is not None:
            assert order_inversions(P, o, tol=0.0) == []
        if K <= 6:
            assert (strength_order(P) is not None) == any(True for _ in linear_extensions(P))


# --------------------------------------------------------------------------- real matrices
def test_arxiv_facts_derived_by_hand():
    P = load("arxiv")
    # strict chain 0 > 1 > 2 > 3 > 4 > 5 except the tie p_{3,5} = 0.50 (0-based); 3 > 4 > 5
    # forces 3 before 5, so (0, ..., 5) is the only linear extension
    assert strength_order(P) == (0, 1, 2, 3, 4, 5)
    assert list(linear_extensions(P)) == [(0, 1, 2, 3, 4, 5)]
    sst = as_set(sst_violations(P))
    sti = as_set(sti_violations(P))
    assert (3, 4, 5) in sst  # eps_35 = 0 < max(eps_34, eps_45) = 0.04
    assert (0, 1, 3) in sst  # eps_03 = 0.04 < max(0.05, 0.05)
    assert (0, 2, 4) in sti  # eps_04 = 0.11 > eps_02 + eps_24 = 0.05 + 0.01
    assert not satisfies_sst(P) and not satisfies_sti(P)
    rep = transitivity_report(P)
    print(f"arxiv: {rep.n_triples} triples, SST violations {rep.sst_count}, STI violations {rep.sti_count}")


def test_sushi_facts_derived_by_hand():
    P = load("sushi")
    assert strength_order(P) == tuple(range(16))  # a total order (registry description)
    assert (0, 1, 3) in as_set(sst_violations(P))  # eps_03 = 0.155 < eps_13 = 0.183
    assert (0, 1, 2) in as_set(sti_violations(P))  # eps_02 = 0.122 > 0.012 + 0.102
    rep = transitivity_report(P)
    assert rep.n_triples == 560 and not rep.sst and not rep.sti
    print(f"sushi: {rep.n_triples} triples, SST violations {rep.sst_count}, STI violations {rep.sti_count}")


# --------------------------------------------------------------------------- gaps, errors, speed
def test_gaps_and_epsilon_min():
    P = from_eps({(0, 1): 0.2, (0, 2): 0.1, (1, 2): 0.05})
    np.testing.assert_allclose(gaps_to_best(P), [0.0, 0.2, 0.1])
    assert epsilon_min(P) == pytest.approx(0.1)
    assert epsilon_min(hard_condorcet(6, 0.3, winner=4)) == pytest.approx(0.3)
    np.testing.assert_allclose(gaps_to_best(P, best=1), [-0.2, 0.0, 0.05])
    with pytest.raises(ValueError):
        epsilon_min(np.full((3, 3), 0.5))
    with pytest.raises(ValueError):
        gaps_to_best(cyclic(3, 0.1))
    with pytest.raises(IndexError):
        gaps_to_best(P, best=3)


def test_argument_errors():
    P = btl([1.0, 2.0, 3.0])
    with pytest.raises(ValueError):
        sst_violations(P, order=(0, 1))
    with pytest.raises(ValueError):
        sst_violations(P, order=(0, 0, 1))
    with pytest.raises(ValueError):
        sti_violations(P, tol=-1.0)
    with pytest.raises(ValueError):
        transitivity_report(P, triples="weak")
    with pytest.raises(ValueError):
        transitivity_report(P, max_examples=-1)
    with pytest.raises(ValueError):
        strength_order(np.zeros((2, 3)))


def test_report_dict_and_speed():
    P = random_btl(100, 3)
    t0 = time.perf_counter()
    rep = transitivity_report(P)
    assert time.perf_counter() - t0 < 2.0
    d = rep.as_dict()
    assert d["sst"] and d["sti"] and d["n_triples"] == 161_700 and len(d["order"]) == 100

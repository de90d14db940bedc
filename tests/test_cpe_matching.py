"""Instances and maximum matchings of Chen et al. 2020 (duelbench.cpe.instance, duelbench.cpe.matching)."""

from __future__ import annotations

import itertools
from math import factorial

import numpy as np
import pytest
from scipy.stats import chisquare

from _cpe_random import random_instance as _instance
from duelbench.cpe.instance import BipartiteInstance
from duelbench.cpe.matching import (MatchingCounter, best_other_than, enumerate_matchings, g_prime,
                                    matching_weight, mwmc, to_g)


def _brute_force(n, ell, edges, forced=(), forbidden=()):
    """Every position-saturating matching by trying all injective position -> candidate maps."""
    index = {e: i for i, e in enumerate(edges)}
    out = []
    for cands in itertools.permutations(range(n), ell):
        m = [index.get((c, s)) for s, c in enumerate(cands)]
        if None in m or not set(forced) <= set(m) or set(forbidden) & set(m):
            continue
        out.append(m)
    return sorted(out)


def test_instance_structure_follows_the_paper_conventions():
    rng = np.random.default_rng(3)
    inst = _instance(4, 3, rng)
    assert inst.m == 12 and inst.K == 3 * 6  # K = Σ_j |E_j|(|E_j| − 1)/2 (L66)
    assert [tuple(map(int, p)) for p in inst.pairs][:3] == [(0, 1), (0, 2), (0, 3)]
    assert all(inst.position[i] == inst.position[j] for i, j in inst.pairs)
    M1, M2 = np.array([0, 5, 10]), np.array([1, 4, 11])
    assert inst.f(M1, M2) == pytest.approx(1 - inst.f(M2, M1))  # f(M1, M2) = 1 − f(M2, M1) (Eq. 1)
    assert inst.f(M1, M1) == pytest.approx(0.5)


@pytest.mark.parametrize("problem, match", [
    (dict(edges=[(1, 0), (0, 0)]), "ordered by position"),
    (dict(edges=[(0, 0), (0, 1)], P=[[0.5, 0.1], [0, 0.5]]), "different positions"),
    (dict(edges=[(0, 0), (1, 0)], P=[[0.5, 0.7], [0.7, 0.5]]), "1 - p"),
    (dict(edges=[(0, 0), (1, 0)], P=[[0.4, 0.5], [0.5, 0.5]]), "diagonal"),
    (dict(edges=[(0, 0)], ell=2, P=[[0.5]]), "position has no edge"),
    (dict(edges=[(0, 0), (0, 1)], P=[[0.5, 0], [0, 0.5]]), "no matching fills every position"),
    (dict(edges=[(0, 0)], P=np.eye(2)), "must be 1×1"),
])
def test_bad_instances_are_refused_with_the_rule_they_break(problem, match):
    kw = dict(n=2, ell=problem.get("ell", 2 if problem["edges"][-1][1] else 1), P=None, name="bad")
    kw.update(problem)
    if kw["P"] is None:
        kw["P"] = np.full((len(kw["edges"]), len(kw["edges"])), 0.5)
    with pytest.raises(ValueError, match=match):
        BipartiteInstance(**kw)


@pytest.mark.parametrize("n, ell, density", [(3, 2, 1.0), (4, 3, 1.0), (5, 3, 0.7), (5, 5, 0.8), (6, 4, 0.75)])
def test_enumeration_counts_and_oracle_agree_with_brute_force(n, ell, density):
    rng = np.random.default_rng(n * 10 + ell)
    inst = _instance(n, ell, rng, density)
    every = _brute_force(n, ell, inst.edges)
    table = enumerate_matchings(inst)
    assert table.tolist() == every
    counter = MatchingCounter(inst)
    assert counter.total == len(every)
    assert counter.edge_counts().tolist() == np.bincount(table.ravel(), minlength=inst.m).tolist()
    for _ in range(20):
        w = rng.normal(size=inst.m)
        forced = [int(e) for e in rng.choice(inst.m, rng.integers(0, 2), replace=False)]
        forbidden = [int(e) for e in rng.choice(inst.m, rng.integers(0, 3), replace=False) if e not in forced]
        admissible = _brute_force(n, ell, inst.edges, forced, forbidden)
        best = mwmc(inst, w, forced, forbidden)
        if not admissible:
            assert best is None and matching_weight(w, best) == -np.inf
            continue
        assert matching_weight(w, best) == pytest.approx(max(w[m].sum() for m in admissible), abs=1e-12)
        assert sorted(best.tolist()) in admissible
        assert enumerate_matchings(inst, forced, forbidden).tolist() == admissible
        other = best_other_than(inst, w, best, forced, forbidden)
        rest = [m for m in admissible if m != sorted(best.tolist())]
        if rest:
            assert matching_weight(w, other) == pytest.approx(max(w[m].sum() for m in rest), abs=1e-12)
        else:
            assert other is None


def test_enumeration_limit_is_a_clear_error():
    inst = _instance(5, 4, np.random.default_rng(0))
    with pytest.raises(ValueError, match="more than 10 maximum matchings"):
        enumerate_matchings(inst, limit=10)


def test_exact_sampler_is_uniform_on_the_maximum_matchings():
    inst = _instance(4, 3, np.random.default_rng(5))
    counter = MatchingCounter(inst)
    rng = np.random.default_rng(11)
    rows = {tuple(m): i for i, m in enumerate(enumerate_matchings(inst).tolist())}
    draws = np.bincount([rows[tuple(counter.sample(rng).tolist())] for _ in range(20_000)], minlength=len(rows))
    assert len(rows) == 24 and draws.min() > 0
    assert chisquare(draws).pvalue > 1e-3
    # a sparse graph: the sampler must weight an edge by the completions it leaves, not uniformly
    P = np.zeros((4, 4))
    P[:3, :3] = P[3, 3] = 0.5  # edges 0-2 fill position 0, edge 3 position 1: all duels even
    sparse = BipartiteInstance(3, 2, [(0, 0), (1, 0), (2, 0), (0, 1)], P, "sparse")
    seen = {tuple(MatchingCounter(sparse).sample(np.random.default_rng(k)).tolist()) for k in range(200)}
    assert seen == {(1, 3), (2, 3)}  # candidate 0 is needed at position 1


@pytest.mark.parametrize("n, ell", [(3, 2), (4, 2), (4, 3), (5, 3)])
def test_g_prime_has_n_minus_ell_factorial_copies_of_each_maximum_matching(n, ell):
    """Appendix B.2 (L572–L574): the multiplicity is (n − ℓ)!, not n (the misprint of L117)."""
    inst = _instance(n, ell, np.random.default_rng(n + ell), density=0.85)
    gp = g_prime(inst)
    images = [tuple(to_g(inst, gp, pm).tolist()) for pm in enumerate_matchings(gp)]
    counts = {tuple(m): images.count(tuple(m)) for m in enumerate_matchings(inst).tolist()}
    assert set(images) == set(counts)
    assert set(counts.values()) == {factorial(n - ell)}

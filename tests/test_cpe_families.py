"""Instance families of Chen et al. 2020 (duelbench.cpe.families).

Checks use brute-force enumerations written here (itertools over positions), the paper's
printed numbers (L83, L87, L572, L599) and replays of the generators.
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components, maximum_bipartite_matching
from scipy.stats import chisquare

from duelbench.cpe import families as fam
from duelbench.cpe.families import (TOY_EDGES, TOY_P, complete_graph, draw, linear_utility, planted_condorcet,
                                    seeded, sparse_graph, toy, width_example)
from duelbench.cpe.hardness import borda_unique, condorcet_winner, width
from duelbench.cpe.instance import BipartiteInstance
from duelbench.cpe.matching import MatchingCounter, enumerate_matchings, g_prime, to_g


# --- independent brute force --------------------------------------------------------------------
def brute_matchings(edges, ell):
    """Every maximum matching (tuples of edge indices by position), by itertools."""
    by_pos = [[i for i, (_, s) in enumerate(edges) if s == j] for j in range(ell)]
    return [combo for combo in itertools.product(*by_pos)
            if len({edges[i][0] for i in combo}) == ell]


def brute_f(P, m1, m2):
    return sum(P[a, b] for a, b in zip(m1, m2)) / len(m1)


def brute_scores(edges, P, ell):
    ms = brute_matchings(edges, ell)
    borda = {m: np.mean([brute_f(P, m, y) for y in ms]) for m in ms}
    condorcet = [m for m in ms if all(brute_f(P, m, y) > 0.5 for y in ms if y != m)]
    return ms, borda, condorcet


def union_width(edges, m1, m2):
    """Edges of the largest connected component of the union graph M1 ∪ M2 (L156)."""
    union = sorted(set(m1) | set(m2))
    cands = sorted({edges[e][0] for e in union})
    poss = sorted({edges[e][1] for e in union})
    node = {("c", c): i for i, c in enumerate(cands)}
    node.update({("s", s): len(cands) + i for i, s in enumerate(poss)})
    rows = [node[("c", edges[e][0])] for e in union]
    cols = [node[("s", edges[e][1])] for e in union]
    graph = csr_matrix((np.ones(len(union)), (rows, cols)), shape=(len(node), len(node)))
    _, labels = connected_components(graph, directed=False)
    return max(Counter(labels[r] for r in rows).values())


# --- the toy of Figures 1–4 ---------------------------------------------------------------------
def toy_assignments():
    """Every assignment of c1…c4 to e1…e5 in the paper's order: e1<e2<e3 at s1, e4<e5 at s2."""
    for s1 in itertools.combinations(range(4), 3):
        for s2 in itertools.combinations(range(4), 2):
            yield tuple((c, 0) for c in s1) + tuple((c, 1) for c in s2)


def test_toy_matrix_is_figure_2():
    inst = toy()
    assert inst.n == 4 and inst.ell == 2 and inst.m == 5 and inst.K == 4
    np.testing.assert_array_equal(inst.P, TOY_P)
    assert TOY_P[0, 2] == 1.0 and TOY_P[4, 3] == 1.0 and TOY_P[1, 0] == 0.55  # L49–L53
    assert [list(b) for b in inst.position_edges] == [[0, 1, 2], [3, 4]]


def test_toy_printed_scores_select_exactly_one_assignment():
    survivors = []
    assignments = list(toy_assignments())
    assert len(assignments) == 24
    for edges in assignments:
        ms, borda, condorcet = brute_scores(edges, TOY_P, 2)
        best = max(borda.values())
        if abs(best - 0.64) < 1e-9 and any(abs(borda[c] - 0.615) < 1e-9 for c in condorcet):  # L83, L87
            survivors.append(edges)
    assert survivors == [TOY_EDGES]
    assert toy().edges == TOY_EDGES == ((0, 0), (1, 0), (2, 0), (2, 1), (3, 1))


def test_toy_agrees_with_figures_5_to_7():
    inst = toy()
    ms = [tuple(m) for m in enumerate_matchings(inst)]
    assert (0, 4) in ms  # {e1, e5} is a maximum matching (Figure 5, L572)
    gp = g_prime(inst)
    perfect = enumerate_matchings(gp)
    images = Counter(tuple(to_g(inst, gp, p)) for p in perfect)
    assert set(images) == set(ms)
    assert set(images.values()) == {2}  # (n − ℓ)! = 2 perfect matchings of G′ each (Figures 6–7)
    assert images[(0, 4)] == 2


def test_toy_borda_and_condorcet_winners_differ():
    ms, borda, condorcet = brute_scores(TOY_EDGES, TOY_P, 2)
    borda_winner = max(borda, key=borda.get)
    assert borda_winner == (0, 4)  # {e1, e5}
    assert condorcet == [(1, 4)]  # {e2, e5}
    assert borda_winner != condorcet[0]  # L87
    np.testing.assert_array_equal(condorcet_winner(toy()), [1, 4])
    assert borda[(0, 4)] == pytest.approx(0.64) and borda[(1, 4)] == pytest.approx(0.615)


# --- the width example of Figures 8–10 -----------------------------------------------------------
def test_width_example_figures_8_to_10():
    inst = width_example()
    assert inst.edges == ((0, 0), (1, 0), (1, 1), (2, 1), (3, 2), (4, 2))
    ms = [tuple(m) for m in enumerate_matchings(inst)]
    m1, m2 = (0, 2, 5), (1, 3, 5)  # {e1, e3, e6}, {e2, e4, e6}
    assert m1 in ms and m2 in ms
    assert union_width(inst.edges, m1, m2) == 4  # G_1 = {e1, e2, e3, e4} (L597)
    brute = max(union_width(inst.edges, a, b) for a, b in itertools.combinations(ms, 2))
    assert brute == 4 == width(inst, closed_form=False)  # L599
    assert np.all(inst.P[inst.comparable_mask] == 0.5)


# --- graphs --------------------------------------------------------------------------------------
def test_complete_graph_order():
    edges = complete_graph(3, 2)
    assert edges == ((0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1))
    assert len(complete_graph(5, 4)) == 20


def has_saturating_matching(edges, n, ell):
    rows = [s for _, s in edges]
    cols = [c for c, _ in edges]
    graph = csr_matrix((np.ones(len(edges)), (rows, cols)), shape=(ell, n))
    return bool(np.all(maximum_bipartite_matching(graph, perm_type="column") >= 0))


def test_sparse_graph_counts_rejections_and_replays():
    edges, rejections = sparse_graph(5, 4, 0.35, np.random.default_rng(3))
    assert has_saturating_matching(edges, 5, 4)
    assert list(edges) == sorted(edges, key=lambda e: (e[1], e[0]))
    # replay: the same generator, each graph kept with probability 0.35
    rng, replayed = np.random.default_rng(3), 0
    while True:
        keep = rng.random((4, 5)) < 0.35
        cand = tuple((int(c), int(s)) for s, c in zip(*np.nonzero(keep)))
        if cand and has_saturating_matching(cand, 5, 4):
            break
        replayed += 1
    assert rejections == replayed and rejections > 0
    assert cand == edges
    assert sparse_graph(5, 4, 0.35, np.random.default_rng(3)) == (edges, rejections)


def test_sparse_graph_density_one_is_complete():
    assert sparse_graph(4, 2, 1.0, np.random.default_rng(0)) == (complete_graph(4, 2), 0)


# --- F1 ------------------------------------------------------------------------------------------
def test_linear_utility_formula_and_winners():
    rng = np.random.default_rng(11)
    edges, _ = sparse_graph(5, 3, 0.7, rng)
    theta = np.random.default_rng(12).random(len(edges))
    inst = linear_utility(5, 3, 0.3, rng, edges=edges, theta=theta)
    for i, j in inst.pairs:
        assert inst.P[i, j] == pytest.approx(0.5 + 0.3 * (theta[i] - theta[j]), abs=1e-15)
    ms, borda, condorcet = brute_scores(inst.edges, inst.P, 3)
    best_theta = max(ms, key=lambda m: theta[list(m)].sum())
    assert max(borda, key=borda.get) == best_theta
    assert condorcet == [best_theta]


def test_linear_utility_draws_theta_from_rng():
    a = linear_utility(4, 2, 0.25, np.random.default_rng(5))
    theta = np.random.default_rng(5).random(8)
    b = linear_utility(4, 2, 0.25, np.random.default_rng(99), theta=theta)
    np.testing.assert_array_equal(a.P, b.P)


# --- F2 ------------------------------------------------------------------------------------------
def planted_of(inst, margin):
    """Edges that beat every other edge of their position by 1/2 + margin."""
    out = []
    for block in inst.position_edges:
        sub = inst.P[np.ix_(block, block)] + np.eye(len(block)) * margin
        winners = [block[k] for k in range(len(block)) if np.allclose(sub[k], 0.5 + margin)]
        assert len(winners) == 1
        out.append(winners[0])
    return out


def test_planted_condorcet_structure():
    inst = planted_condorcet(5, 3, 0.2, np.random.default_rng(4))
    planted = planted_of(inst, 0.2)
    np.testing.assert_array_equal(condorcet_winner(inst), planted)
    off = inst.P[inst.pairs[:, 0], inst.pairs[:, 1]]
    assert np.all((off >= 0.3 - 1e-15) & (off <= 0.7 + 1e-15))
    assert len({inst.candidate[e] for e in planted}) == 3


def test_planted_condorcet_on_given_edges():
    rng = np.random.default_rng(8)
    edges, _ = sparse_graph(5, 3, 0.6, rng)
    inst = planted_condorcet(5, 3, 0.1, rng, edges=edges)
    assert inst.edges == edges
    planted = planted_of(inst, 0.1)
    assert tuple(planted) in {tuple(m) for m in enumerate_matchings(inst)}
    np.testing.assert_array_equal(condorcet_winner(inst), planted)


@pytest.mark.parametrize("given", [False, True])
def test_planted_matching_is_uniform(given):
    edges = complete_graph(3, 2)
    rng = np.random.default_rng(2024)
    counts = Counter()
    for _ in range(600):
        inst = planted_condorcet(3, 2, 0.2, rng, edges=edges if given else None)
        counts[tuple(planted_of(inst, 0.2))] += 1
    assert len(counts) == 6
    assert chisquare(list(counts.values())).pvalue > 1e-3


# --- draw / seeded -------------------------------------------------------------------------------
@pytest.mark.parametrize("family, params", [
    ("linear_utility", dict(n=5, ell=3, s=0.2)),
    ("planted_condorcet", dict(n=5, ell=3, margin=0.15, density=0.7)),
])
def test_draw_meets_requirements(family, params):
    inst, rejections = draw(family, params, np.random.default_rng(1))
    assert rejections >= 0
    assert borda_unique(inst) and condorcet_winner(inst) is not None
    assert (inst.m == 15) == ("density" not in params)


def test_draw_rejects_and_redraws_from_the_same_generator(monkeypatch):
    calls = {"n": 0}
    real = fam._meets

    def meets(inst, require):
        calls["n"] += 1
        return calls["n"] > 3 and real(inst, require)

    monkeypatch.setattr(fam, "_meets", meets)
    inst, rejections = draw("planted_condorcet", dict(n=4, ell=2, margin=0.2), np.random.default_rng(6))
    assert rejections == 3
    rng = np.random.default_rng(6)
    for _ in range(4):
        replay = planted_condorcet(4, 2, 0.2, rng)
    np.testing.assert_array_equal(inst.P, replay.P)


def test_seeded_depends_on_seed_and_index_only():
    params = dict(n=4, ell=2, s=0.3)
    a, _ = seeded("linear_utility", params, 7, 2)
    b, _ = seeded("linear_utility", params, 7, 2)
    c, _ = seeded("linear_utility", params, 7, 3)
    d, _ = draw("linear_utility", params, np.random.default_rng(np.random.SeedSequence(7, spawn_key=(2,))))
    np.testing.assert_array_equal(a.P, b.P)
    np.testing.assert_array_equal(a.P, d.P)
    assert not np.array_equal(a.P, c.P)


# --- validation ----------------------------------------------------------------------------------
@pytest.mark.parametrize("call, exc, word", [
    (lambda: complete_graph(2, 3), ValueError, "ell"),
    (lambda: complete_graph(2.0, 1), TypeError, "n"),
    (lambda: sparse_graph(3, 2, 0.0, np.random.default_rng(0)), ValueError, "density"),
    (lambda: sparse_graph(3, 2, 0.5, 0), TypeError, "rng"),
    (lambda: linear_utility(3, 2, 0.6, np.random.default_rng(0)), ValueError, "s must"),
    (lambda: linear_utility(3, 2, 0.2, np.random.default_rng(0), theta=[0.1]), ValueError, "theta"),
    (lambda: planted_condorcet(3, 2, 0.0, np.random.default_rng(0)), ValueError, "margin"),
    (lambda: draw("nope", {}, np.random.default_rng(0)), ValueError, "family"),
    (lambda: draw("linear_utility", dict(n=3, ell=2), np.random.default_rng(0)), ValueError, "'s'"),
    (lambda: draw("linear_utility", dict(n=3, ell=2, s=0.2, x=1), np.random.default_rng(0)), ValueError, "'x'"),
    (lambda: draw("linear_utility", dict(n=3, ell=2, s=0.2), np.random.default_rng(0), "all"), ValueError, "require"),
    (lambda: seeded("linear_utility", dict(n=3, ell=2, s=0.2), 1, -1), ValueError, "index"),
])
def test_validation_names_the_parameter(call, exc, word):
    with pytest.raises(exc, match=word):
        call()


def test_sparse_graph_gives_up():
    with pytest.raises(RuntimeError, match="no graph"):
        sparse_graph(6, 6, 0.05, np.random.default_rng(0), max_tries=5)


def test_counter_agrees_with_brute_force_on_family_instance():
    inst, _ = seeded("planted_condorcet", dict(n=5, ell=3, margin=0.2, density=0.8), 3, 0)
    assert MatchingCounter(inst).total == len(brute_matchings(inst.edges, 3))
    assert isinstance(inst, BipartiteInstance)

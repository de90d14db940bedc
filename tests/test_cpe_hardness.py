"""Hardness quantities and bounds of Chen et al. 2020 (duelbench.cpe.hardness).

Reference values come from enumerations written here (itertools over positions, loops over
``P``), independently of hardness.py, and from the toy of Figures 1–4 worked by hand.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from duelbench.cpe import hardness as hd
from duelbench.cpe.families import complete_graph, linear_utility, planted_condorcet, seeded, sparse_graph, toy
from duelbench.cpe.instance import BipartiteInstance
from duelbench.cpe.matching import MatchingCounter, enumerate_matchings


# --- independent brute force --------------------------------------------------------------------
def brute_matchings(inst):
    by_pos = [[i for i, (_, s) in enumerate(inst.edges) if s == j] for j in range(inst.ell)]
    return [c for c in itertools.product(*by_pos) if len({inst.edges[i][0] for i in c}) == inst.ell]


def brute_f(inst, m1, m2):
    return sum(inst.P[a, b] for a, b in zip(m1, m2)) / inst.ell


def brute_w(inst):
    """w(e) = (1/|ℳ|) Σ_M p(e, e(M, s(e))) (Eq. 4, L99), from the definition."""
    ms = brute_matchings(inst)
    return np.array([np.mean([inst.P[e, m[inst.edges[e][1]]] for m in ms]) for e in range(inst.m)])


def brute_borda_gaps(inst):
    ms = brute_matchings(inst)
    w = brute_w(inst)
    weight = {m: w[list(m)].sum() for m in ms}
    star = max(weight, key=weight.get)
    gaps = []
    for e in range(inst.m):
        pool = [weight[m] for m in ms if (e in m) != (e in star)]
        gaps.append(weight[star] - max(pool) if pool else math.inf)
    return star, np.array(gaps)


def brute_condorcet(inst):
    ms = brute_matchings(inst)
    winners = [m for m in ms if all(brute_f(inst, m, y) > 0.5 for y in ms if y != m)]
    assert len(winners) == 1
    star = winners[0]
    gaps, ver = [], []
    for e in range(inst.m):
        pool = [brute_f(inst, m, star) for m in ms if (e in m) != (e in star)]
        gaps.append(0.5 - max(pool) if pool else math.inf)
        if e in star:
            ver.append(math.nan)
            continue
        vals = [inst.ell / sum(a != b for a, b in zip(m, star)) * (0.5 - brute_f(inst, m, star))
                for m in ms if e in m]
        ver.append(min(vals) if vals else math.inf)
    return star, np.array(gaps), np.array(ver)


def brute_width(inst):
    ms = brute_matchings(inst)
    best = 0
    for m1, m2 in itertools.combinations(ms, 2):
        union = sorted(set(m1) | set(m2))
        rows = [inst.edges[e][0] for e in union]
        cols = [inst.n + inst.edges[e][1] for e in union]
        size = inst.n + inst.ell
        graph = csr_matrix((np.ones(len(union)), (rows, cols)), shape=(size, size))
        _, labels = connected_components(graph, directed=False)
        best = max(best, max(Counter(labels[r] for r in rows).values()))
    return best


def random_instances():
    """Small instances of both families on sparse graphs (deterministic seeds)."""
    out = []
    for k in range(4):
        out.append(seeded("linear_utility", dict(n=5, ell=3, s=0.3, density=0.7), 20, k)[0])
        out.append(seeded("planted_condorcet", dict(n=5, ell=3, margin=0.2, density=0.7), 21, k)[0])
    out.append(seeded("planted_condorcet", dict(n=4, ell=4, margin=0.1), 22, 0)[0])
    return out


INSTANCES = random_instances()


# --- the toy of Figures 1–4 ---------------------------------------------------------------------
TOY_MATCHINGS = [(0, 3), (0, 4), (1, 3), (1, 4), (2, 4)]


def test_toy_borda_values():
    inst = toy()
    assert brute_matchings(inst) == TOY_MATCHINGS
    truth = hd.borda_truth(inst)
    assert truth.n_matchings == 5
    np.testing.assert_array_equal(truth.edge_counts, [2, 2, 1, 2, 3])
    np.testing.assert_allclose(truth.marginals, [0.4, 0.4, 0.2, 0.4, 0.6])
    np.testing.assert_allclose(truth.w, [0.58, 0.53, 0.28, 0.20, 0.70], atol=1e-12)
    np.testing.assert_allclose(truth.w, brute_w(inst), atol=1e-12)
    scores = [np.mean([brute_f(inst, m, y) for y in TOY_MATCHINGS]) for m in TOY_MATCHINGS]
    np.testing.assert_allclose(scores, [0.39, 0.64, 0.365, 0.615, 0.49], atol=1e-12)
    np.testing.assert_allclose(hd.borda_scores(inst), scores, atol=1e-12)
    np.testing.assert_array_equal(truth.winner, [0, 4])
    np.testing.assert_allclose(truth.gaps, [0.05, 0.05, 0.30, 0.50, 0.50], atol=1e-12)
    np.testing.assert_allclose(truth.gaps, brute_borda_gaps(inst)[1], atol=1e-12)
    assert truth.delta_min == pytest.approx(0.05)
    assert truth.hardness == pytest.approx(2 / 0.05**2 + 1 / 0.3**2 + 2 / 0.5**2)  # 819.11…
    assert truth.width == 4 == brute_width(inst)
    assert truth.q_star == 6 == math.floor(math.log2(2 / 0.05)) + 1
    assert truth.score_gap == pytest.approx(0.64 - 0.615)


def test_toy_condorcet_values():
    inst = toy()
    truth = hd.condorcet_truth(inst)
    np.testing.assert_array_equal(truth.winner, [1, 4])
    assert [tuple(m) for m in truth.matchings] == TOY_MATCHINGS
    np.testing.assert_allclose(truth.f_winner, [0.775, 0.525, 0.75, 0.5, 0.525], atol=1e-12)
    np.testing.assert_allclose(truth.f_winner, [brute_f(inst, (1, 4), m) for m in TOY_MATCHINGS], atol=1e-12)
    np.testing.assert_allclose(truth.gaps, [0.025, 0.025, 0.025, 0.25, 0.25], atol=1e-12)
    np.testing.assert_allclose(truth.pair_gaps, [0.025, 0.025, 0.025, 0.25], atol=1e-12)
    np.testing.assert_allclose(truth.verification_gaps, [0.05, np.nan, 0.05, 0.275, np.nan], atol=1e-12)
    star, gaps, ver = brute_condorcet(inst)
    assert star == (1, 4)
    np.testing.assert_allclose(truth.gaps, gaps, atol=1e-12)
    np.testing.assert_allclose(truth.verification_gaps, ver, atol=1e-12)
    assert truth.h_ver == pytest.approx(2 / 0.05**2 + 1 / 0.275**2)  # 813.22…
    # the preferences reach 0 and 1: no γ for either lower bound
    assert hd.theorem3_gamma_range(inst) is None
    assert hd.theorem6_gamma_range(inst, truth) is None


# --- Borda on random instances ------------------------------------------------------------------
@pytest.mark.parametrize("inst", INSTANCES, ids=lambda i: i.name)
def test_borda_weights_both_forms_and_eq_4a(inst):
    w = hd.borda_weights(inst)
    np.testing.assert_allclose(w, brute_w(inst), atol=1e-12)
    marg = MatchingCounter(inst).marginals()
    second = [sum(inst.P[e, f] * marg[f] for f in inst.position_edges[inst.edges[e][1]]) for e in range(inst.m)]
    np.testing.assert_allclose(w, second, atol=1e-12)
    ms = enumerate_matchings(inst)
    scores = hd.borda_scores(inst, ms)
    np.testing.assert_allclose(w[ms].sum(axis=1), inst.ell * scores, atol=1e-12)  # Eq. (4a)
    some = ms[[0, len(ms) - 1]]
    np.testing.assert_allclose(hd.borda_scores(inst, some), scores[[0, len(ms) - 1]], atol=1e-12)


@pytest.mark.parametrize("inst", INSTANCES, ids=lambda i: i.name)
def test_borda_gaps_match_enumeration(inst):
    truth = hd.borda_truth(inst)
    star, gaps = brute_borda_gaps(inst)
    np.testing.assert_array_equal(truth.winner, star)
    np.testing.assert_allclose(truth.gaps, gaps, atol=1e-12)
    finite = gaps[np.isfinite(gaps)]
    assert truth.hardness == pytest.approx(np.sum(1 / finite**2))
    assert truth.delta_min == pytest.approx(gaps.min())
    assert truth.q_star == math.floor(math.log2(inst.ell / gaps.min())) + 1


@pytest.mark.parametrize("inst", INSTANCES, ids=lambda i: i.name)
def test_condorcet_gaps_match_enumeration(inst):
    truth = hd.condorcet_truth(inst)
    star, gaps, ver = brute_condorcet(inst)
    np.testing.assert_array_equal(truth.winner, star)
    np.testing.assert_allclose(truth.gaps, gaps, atol=1e-12)
    np.testing.assert_allclose(truth.verification_gaps, ver, atol=1e-12)
    out = truth.outside
    assert np.all(truth.verification_gaps[out] >= truth.gaps[out] - 1e-12)  # L1385
    for (i, j), g in zip(inst.pairs, truth.pair_gaps):
        assert g == max(truth.gaps[i], truth.gaps[j])
        assert g == pytest.approx(max(gaps[i], gaps[j]), abs=1e-12)


def test_linear_utility_condorcet_gap_is_borda_gap_over_ell():
    for k in range(3):
        inst, _ = seeded("linear_utility", dict(n=5, ell=3, s=0.25, density=0.8), 30, k)
        b, c = hd.borda_truth(inst), hd.condorcet_truth(inst)
        np.testing.assert_array_equal(b.winner, c.winner)
        np.testing.assert_allclose(c.gaps, b.gaps / inst.ell, atol=1e-12)


def test_linear_utility_gaps_scale_with_s():
    theta = np.random.default_rng(3).random(12)
    rng = np.random.default_rng(0)
    small = hd.borda_truth(linear_utility(4, 3, 0.1, rng, theta=theta))
    large = hd.borda_truth(linear_utility(4, 3, 0.4, rng, theta=theta))
    np.testing.assert_allclose(large.gaps, 4 * small.gaps, rtol=1e-9)
    inst = linear_utility(4, 3, 0.1, rng, theta=theta)
    marg = MatchingCounter(inst).marginals()
    mean_theta = [sum(theta[f] * marg[f] for f in inst.position_edges[j]) for j in range(3)]
    np.testing.assert_allclose(small.w, 0.5 + 0.1 * (theta - np.array(mean_theta)[inst.position]), atol=1e-12)


def test_borda_truth_refuses_ties():
    edges = complete_graph(2, 1)
    inst = BipartiteInstance(2, 1, edges, np.full((2, 2), 0.5))
    assert not hd.borda_unique(inst)
    with pytest.raises(ValueError, match="not unique"):
        hd.borda_truth(inst)
    assert hd.condorcet_winner(inst) is None
    with pytest.raises(ValueError, match="Condorcet"):
        hd.condorcet_truth(inst)


def test_infinite_gaps_add_nothing():
    # candidate 2 only fits position 1 and candidate 0 only position 0: two edges in every matching
    edges = ((0, 0), (1, 0), (1, 1), (2, 1))
    P = np.array([[0.5, 0.7, 0, 0], [0.3, 0.5, 0, 0], [0, 0, 0.5, 0.4], [0, 0, 0.6, 0.5]])
    inst = BipartiteInstance(3, 2, edges, P)
    ms = brute_matchings(inst)
    assert ms == [(0, 2), (0, 3), (1, 3)]
    truth = hd.borda_truth(inst)
    _, gaps = brute_borda_gaps(inst)
    np.testing.assert_allclose(truth.gaps, gaps)
    single = BipartiteInstance(2, 2, ((0, 0), (1, 1)), np.eye(2) * 0.5)
    t1 = hd.borda_truth(single)
    assert np.all(np.isinf(t1.gaps)) and t1.hardness == 0 and t1.q_star == 1 and t1.width == 0
    assert hd.h_eps(t1, 0.1) == 0


# --- width --------------------------------------------------------------------------------------
@pytest.mark.parametrize("n, ell", [(2, 1), (3, 1), (2, 2), (3, 2), (4, 2), (3, 3), (4, 3), (5, 3), (6, 4)])
def test_width_of_complete_graph_is_2ell(n, ell):
    inst = linear_utility(n, ell, 0.2, np.random.default_rng(0))
    assert hd.width(inst, closed_form=False) == 2 * ell == hd.width(inst)
    if len(enumerate_matchings(inst)) <= 60:
        assert brute_width(inst) == 2 * ell


def test_width_matches_brute_force_on_sparse_graphs():
    rng = np.random.default_rng(17)
    seen = set()
    for _ in range(12):
        edges, _ = sparse_graph(5, 3, 0.55, rng)
        inst = linear_utility(5, 3, 0.2, rng, edges=edges)
        got = hd.width(inst)
        assert got == brute_width(inst)
        seen.add(got)
    assert len(seen) > 1


# --- bounds -------------------------------------------------------------------------------------
def test_h_eps_limits():
    truth = hd.borda_truth(toy())
    tiny, huge = 1e-6, 10.0
    assert hd.h_eps(truth, tiny) == pytest.approx(truth.width**2 * truth.hardness)  # L188
    assert hd.h_eps(truth, huge) == pytest.approx(truth.m / huge**2)
    expected = sum(min(16 / g**2, 1 / 0.1**2) for g in [0.05, 0.05, 0.3, 0.5, 0.5])
    assert hd.h_eps(truth, 0.1) == pytest.approx(expected)


def test_n1_and_n1_prime():
    truth = hd.borda_truth(toy())
    eps, delta = 0.05, 0.1
    h = hd.h_eps(truth, eps)
    n1 = hd.n1(truth, eps, delta)
    assert n1 == pytest.approx(985 * h * math.log(4 * h / delta) + 2 * truth.m)
    t = hd.n1_prime(truth, eps, delta)

    def g(x):
        return 32 * h * math.log(4 * truth.K * x**3 / delta) + truth.m

    assert t == pytest.approx(g(t), rel=1e-10)  # a fixed point of Eq. (9)
    assert g(t * (1 + 1e-6)) < t * (1 + 1e-6)  # and the largest T satisfying it
    assert t <= n1  # Eq. (9) ⇒ Eq. (10)


def test_n2_sums_epochs():
    truth = hd.borda_truth(toy())
    delta = 0.05
    expected = 0.0
    for q in range(1, 7):
        h = hd.h_eps(truth, 2.0**-q)
        expected += 985 * h * math.log(4 * h * 2 * q * q / delta) + 2 * truth.m
    assert hd.n2(truth, delta) == pytest.approx(expected)


def test_theorem3_gamma_range_and_n3():
    inst = linear_utility(6, 2, 0.01, np.random.default_rng(5))
    low, high = hd.theorem3_gamma_range(inst)
    dev = np.abs(inst.P[inst.pairs[:, 0], inst.pairs[:, 1]] - 0.5).max()
    assert low == pytest.approx(dev)
    counts, total = MatchingCounter(inst).edge_counts(), MatchingCounter(inst).total
    ratio = total / (total - counts)
    assert np.all(ratio <= (1 - 4 * high) / (4 * high * inst.ell) + 1e-12)
    above = high * 1.001
    assert np.any(ratio > (1 - 4 * above) / (4 * above * inst.ell))
    truth = hd.borda_truth(inst)
    expected = 0.2 * high * (1 - high) * (4 * high * 2 / (1 - 4 * high)) ** 2 * math.log(1 / 0.05) * truth.hardness
    assert hd.n3(truth, high, 0.05) == pytest.approx(expected)
    with pytest.raises(ValueError, match="delta"):
        hd.n3(truth, high, 0.2)


def test_n4_h4_are_sums_over_unordered_pairs():
    inst = toy()
    truth = hd.condorcet_truth(inst)
    delta, K = 0.05, 4
    gaps = [0.025, 0.025, 0.025, 0.25]
    expected = sum(math.ceil(162 / g**2 * math.log(162 * K / (delta * g**2))) for g in gaps)
    assert hd.n4(truth, delta) == expected
    assert hd.n4_conditions_hold(truth, delta)
    assert hd.h4(truth, delta) == pytest.approx(sum(math.log(K / (delta * g**2)) / g**2 for g in gaps))
    assert hd.t_prime(np.inf, K, delta) == 0


def test_theorem6_two_arms_and_n6():
    gap = 0.1
    inst = BipartiteInstance(2, 1, complete_graph(2, 1), np.array([[0.5, 0.5 + gap], [0.5 - gap, 0.5]]))
    truth = hd.condorcet_truth(inst)
    np.testing.assert_allclose(truth.gaps, [gap, gap])
    low, high = hd.theorem6_gamma_range(inst, truth)
    assert low == pytest.approx(gap) and high == pytest.approx(1 / 6)
    gamma, delta = 0.15, 0.05
    assert hd.n6(truth, gamma, delta) == pytest.approx(0.4 * gamma * (1 - gamma) / gap**2 * math.log(1 / delta))
    three = planted_condorcet(3, 1, 0.05, np.random.default_rng(0))
    assert hd.theorem6_gamma_range(three, hd.condorcet_truth(three)) is None  # 𝒪(M) condition fails


def test_condorcet_winner_none_on_cycle():
    # rock–paper–scissors at one position: no Condorcet winner
    P = np.array([[0.5, 0.8, 0.2], [0.2, 0.5, 0.8], [0.8, 0.2, 0.5]])
    inst = BipartiteInstance(3, 1, complete_graph(3, 1), P)
    assert hd.condorcet_winner(inst) is None

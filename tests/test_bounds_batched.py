"""Tests for duelbench.bounds.batched (paper 003, Agarwal et al. 2022: Theorems 3.1-3.4, C.1, Lemmas 4.5/4.6)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from duelbench.bounds.batched import (
    LEMMA_4_6_SECOND_MOMENT_FIRST_K,
    delta_j,
    exact_seed_rank_moments,
    lower_bound_instance,
    lower_bound_proof_value,
    lower_bound_shape,
    pcomp_bound,
    pcomp_shape,
    pcomp_worst_case_bound,
    scomp2_shape,
    scomp_k23_shape,
    scomp_shape,
    scomp_worst_case_shape,
    seed_rank_lemma_bounds,
    seed_rank_moments,
)
from duelbench.problems import PreferenceMatrix, condorcet_winner, hard_condorcet
from duelbench.problems.transitivity import epsilon_min, satisfies_sst, satisfies_sti, transitivity_report

LN10 = math.log(10.0)


# --------------------------------------------------------------------------- the hard family
def test_delta_j_by_hand():
    # K = 4, B = 2, T = 10^4: Delta_1 = 2/48, Delta_2 = Delta_1 * T^(-1/4) = Delta_1 / 10
    assert delta_j(4, 2, 1e4, 1) == pytest.approx(1 / 24)
    assert delta_j(4, 2, 1e4, 2) == pytest.approx(1 / 240)
    for bad in [(4, 2, 1e4, 0), (4, 2, 1e4, 3), (1, 2, 1e4, 1), (4, 0, 1e4, 1), (4, 2, 1.0, 1), (4, 2, 1e4, 1.5)]:
        with pytest.raises(ValueError):
            delta_j(*bad)


def test_e_instance_by_hand():
    d = delta_j(5, 3, 1000, 2)
    P = lower_bound_instance(5, 3, 1000, 2, k=3)
    V = P.values
    assert P.name == "agarwal2022_E_j2_k3"
    assert np.all(V[3, [0, 1, 2, 4]] == 0.5 + d) and np.all(V[[0, 1, 2, 4], 3] == 1.0 - (0.5 + d))
    with pytest.warns(Warning):  # ties by design; re-validation warns about them
        np.testing.assert_array_equal(PreferenceMatrix(V).values, V)  # storage convention of .matrix
    rest = np.delete(np.delete(V, 3, 0), 3, 1)
    assert np.all(rest == 0.5)
    assert lower_bound_instance(5, 3, 1000, 2, k=3, l=3) == P  # Q_{j,k,k} := E_{j,k}
    # SYN-CD of Section 5 is E_{j,k} with a free gap
    np.testing.assert_array_equal(V, hard_condorcet(5, d, winner=3).values)


def test_q_instance_by_hand():
    d = delta_j(5, 3, 1000, 1)
    V = lower_bound_instance(5, 3, 1000, 1, k=1, l=4).values
    assert np.all(V[4, :4] == 0.5 + 2 * d)  # P_lm = 1/2 + 2 Delta_j, m != l, k included (decision B2)
    assert np.all(V[1, [0, 2, 3]] == 0.5 + d)  # P_km = 1/2 + Delta_j, m not in {l, k}
    assert V[0, 2] == V[0, 3] == V[2, 3] == 0.5  # the remaining pairs
    assert condorcet_winner(V) == 4
    with pytest.warns(Warning):  # ties by design; re-validation warns about them
        np.testing.assert_array_equal(PreferenceMatrix(V).values, V)


def test_family_satisfies_sst_sti_and_eps_min():
    K, B, T = 5, 3, 1000
    for j in range(1, B + 1):
        d = delta_j(K, B, T, j)
        for k in range(K):
            E = lower_bound_instance(K, B, T, j, k)
            assert condorcet_winner(E) == k
            assert satisfies_sst(E) and satisfies_sti(E)
            assert epsilon_min(E) == pytest.approx(d)  # eps_min(E_{j,k}) = Delta_j
            for l in range(K):
                if l == k:
                    continue
                Q = lower_bound_instance(K, B, T, j, k, l)
                rep = transitivity_report(Q)
                assert rep.order[:2] == (l, k) and rep.sst and rep.sti
                assert condorcet_winner(Q) == l
                # decision B4: the paper's eps_min (gaps to the best arm, @7274) is 2 Delta_j; the
                # smallest positive gap over all pairs is Delta_j
                assert epsilon_min(Q) == pytest.approx(2 * d)
                e = np.abs(Q.values - 0.5)
                assert e[e > 0].min() == pytest.approx(d)


def test_family_verdict_does_not_depend_on_the_tie_order():
    K, B, T = 5, 3, 1000
    for P in [lower_bound_instance(K, B, T, 1, 0), lower_bound_instance(K, B, T, 2, 0, 3)]:
        V = P.values
        n = 0
        for perm in itertools.permutations(range(K)):
            if all(V[perm[y], perm[x]] <= 0.5 for x in range(K) for y in range(x + 1, K)):
                n += 1
                assert satisfies_sst(P, perm) and satisfies_sti(P, perm)
        assert n in (6, 24)  # Q: l, k, then 3 tied arms; E: k, then 4 tied arms


def test_instance_validity_and_errors():
    # Delta_1 = sqrt(100)/24 = 0.4167: E valid, Q (2 Delta = 0.83) invalid (decision B3)
    lower_bound_instance(100, 1, 1000, 1, 0)
    with pytest.raises(ValueError, match="2 Delta_j"):
        lower_bound_instance(100, 1, 1000, 1, 0, 1)
    with pytest.raises(ValueError, match="Delta_j"):
        lower_bound_instance(600, 1, 1000, 1, 0)
    lower_bound_instance(36 * 4, 2, 1000, 1, 0, 1)  # K = 36 B^2: 2 Delta_1 = 1/2 exactly
    for args in [(5, 3, 1000, 1, 5), (5, 3, 1000, 1, -1), (5, 3, 1000, 1, 0, 5), (5, 3, 1000, 4, 0)]:
        with pytest.raises(ValueError):
            lower_bound_instance(*args)


# --------------------------------------------------------------------------- bound functions
def test_upper_bounds_by_hand():
    # Theorem 3.1: 3 K T^(1/B) ln(6 T K^2 B) sum 1/eps_j; K = 2, B = 1, T = 10, gaps (0, 1/4)
    assert pcomp_bound(2, 1, 10, [0.0, 0.25]) == pytest.approx(3 * 2 * 10 * math.log(240) * 4)
    # worst case: 3 K^2 T^(1/B) ln(6 T K^2 B) / eps_min; K = 2, B = 2, T = 100
    assert pcomp_worst_case_bound(2, 2, 100, 0.1) == pytest.approx(1200 * math.log(4800))
    # shapes at T = 10^4, B = 4: T^(1/B) = 10, ln T = 4 ln 10
    assert pcomp_shape(3, 4, 1e4, 0.5) == pytest.approx(720 * LN10)
    assert scomp_shape(4, 4, 1e4, [0.0, 0.5, 0.25, 0.0]) == pytest.approx(2 * 10 * 4 * LN10 * 6)
    assert scomp_worst_case_shape(4, 4, 1e4, 0.5) == pytest.approx(640 * LN10)
    assert scomp_k23_shape(8, 4, 1e4, 0.5) == pytest.approx(1280 * LN10)
    assert scomp2_shape(3, 4, 1e4, 0.5) == pytest.approx(960 * LN10)
    # the instance-dependent bound with equal gaps is the worst-case bound
    assert pcomp_bound(5, 3, 1e5, [0, 0.1, 0.1, 0.1, 0.1]) == pytest.approx(
        pcomp_worst_case_bound(5, 3, 1e5, 0.1) * 4 / 5)


def test_lower_bounds_by_hand():
    assert lower_bound_shape(3, 4, 1e4, 0.5) == pytest.approx(3 * 10 / (16 * 0.5))
    # Delta_2 T^(2/2) / (4 * 2) with Delta_2 = 1/240 (K = 4, B = 2, T = 10^4)
    v = lower_bound_proof_value(4, 2, 1e4, 2)
    assert v == pytest.approx(1e4 / 240 / 8)
    # decision B5: = sqrt(K) T^((j+1)/(2B)) / (96 B^2) = K T^(1/B) / (2304 B^3 Delta_j)
    for K, B, T, j in [(4, 2, 1e4, 2), (7, 5, 3e6, 1), (30, 4, 1e5, 4)]:
        w = lower_bound_proof_value(K, B, T, j)
        assert w == pytest.approx(math.sqrt(K) * T ** ((j + 1) / (2 * B)) / (96 * B * B))
        assert w == pytest.approx(K * T ** (1 / B) / (2304 * B ** 3 * delta_j(K, B, T, j)))
        assert w == pytest.approx(lower_bound_shape(K, B, T, delta_j(K, B, T, j)) / (2304 * B))


def test_bound_argument_errors():
    with pytest.raises(ValueError):
        pcomp_bound(3, 2, 100, [0.1, 0.2])  # K gaps needed
    with pytest.raises(ValueError):
        pcomp_bound(2, 2, 100, [0.0, 0.0])
    with pytest.raises(ValueError):
        pcomp_bound(2, 2, 100, [0.0, -0.1])
    with pytest.raises(ValueError):
        pcomp_worst_case_bound(2, 2, 100, 0.0)
    with pytest.raises(ValueError):
        scomp2_shape(2, 2, float("inf"), 0.1)
    with pytest.raises(ValueError):
        lower_bound_shape(2, True, 100, 0.1)


# --------------------------------------------------------------------------- seed-set ranks
def direct_moments(K, p):
    q = 1.0 - p
    w = np.array([p * q ** r for r in range(K)])
    w /= w.sum()
    r = np.arange(K, dtype=float)
    return float((w * r).sum()), float((w * r * r).sum())


def test_closed_form_equals_direct_sum():
    for K in [1, 2, 3, 5, 16, 100, 1000]:
        for p in [1.0, 0.9, 0.5, K ** -0.5, K ** (-2 / 3), 0.01]:
            m, s = exact_seed_rank_moments(K, p)
            dm, ds = direct_moments(K, p)
            assert m == pytest.approx(dm, rel=1e-9, abs=1e-12)
            assert s == pytest.approx(ds, rel=1e-9, abs=1e-12)
    assert exact_seed_rank_moments(7, 1.0) == (0.0, 0.0)


def test_lemma_4_5_holds_and_lemma_4_6_second_moment_only_up_to_a_constant():
    for K in range(2, 3000):
        m, s = exact_seed_rank_moments(K, K ** -0.5)
        assert m <= math.sqrt(K) and s <= 2 * K  # Lemma 4.5
        m, s = exact_seed_rank_moments(K, K ** (-2 / 3))
        assert m <= K ** (2 / 3)  # Lemma 4.6, first moment
        assert s <= 2 * K ** (4 / 3)  # the geometric argument's 2/p^2
        assert (s > K ** (4 / 3)) == (K >= LEMMA_4_6_SECOND_MOMENT_FIRST_K)  # decision B6


def test_lemma_bound_selection():
    assert seed_rank_lemma_bounds(16, 0.25)[:2] == (4.0, 32.0)
    assert seed_rank_lemma_bounds(8, 0.25)[:2] == pytest.approx((4.0, 16.0))  # 8^(-2/3) = 1/4
    assert "4.6" in seed_rank_lemma_bounds(8, 0.25)[2]
    assert seed_rank_lemma_bounds(10, 0.2)[:2] == pytest.approx((5.0, 50.0))


@pytest.mark.parametrize("K,p", [(5, 5 ** -0.5), (16, 0.25), (100, 100 ** (-2 / 3)), (6, 0.9), (40, 0.02)])
def test_monte_carlo_agrees_with_closed_form(K, p):
    res = seed_rank_moments(K, p, 12345, 50_000)
    assert res.n == 50_000
    assert abs(res.mean - res.exact_mean) <= 4 * res.mean_se
    assert abs(res.second - res.exact_second) <= 4 * res.second_se
    # rejected empty seed sets: a binomial count with success probability (1-p)^K per draw
    draws = res.n + res.n_empty
    pe = (1 - p) ** K
    assert abs(res.n_empty - draws * pe) <= 4 * math.sqrt(draws * pe * (1 - pe)) + 1


def test_monte_carlo_reproducible_and_validated():
    a = seed_rank_moments(10, 0.3, 9, 1000)
    assert a == seed_rank_moments(10, 0.3, np.random.default_rng(9), 1000)
    assert a != seed_rank_moments(10, 0.3, 10, 1000)
    for args in [(10, 0.3, None, 100), (10, 0.0, 1, 100), (10, 1.5, 1, 100), (1, 0.5, 1, 100), (10, 0.3, 1, 1)]:
        with pytest.raises(ValueError):
            seed_rank_moments(*args)

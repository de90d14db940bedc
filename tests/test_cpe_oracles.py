"""Offline Condorcet oracles of Chen et al. 2020 (Eq. 6): the one-LP oracle, the exhaustive matrix
game and the FPTAS of Algorithms 6–7 (duelbench.cpe.oracles, .exhaustive, .fptas)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from duelbench.cpe.exhaustive import exhaustive_oracle, exhaustive_value, payoff_matrix
from duelbench.cpe.fptas import (_LinearMinimiser, condorcet_fptas, fptas_oracle, fptas_value, fw_project,
                                 paper_budget, step_size)
from _cpe_random import random_instance
from duelbench.cpe.instance import BipartiteInstance
from duelbench.cpe.matching import enumerate_matchings, matching_weight, mwmc
from duelbench.cpe.oracles import lp_value

SHAPES = [(3, 2), (4, 2), (4, 3), (5, 3)]


def _complete(n, ell, rng):
    """``K_{n,ℓ}`` (every candidate joined to every position) with a random ``P``."""
    return random_instance(n, ell, rng, name=f"K_{n},{ell}")


def _perturbed(inst, rng):
    """``Q = P ± U[0, 0.1]`` on comparable entries, clipped to ``[0, 1]``, diagonal 1/2, 0 elsewhere
    (a confidence-bound matrix as CAR-Cond builds)."""
    noise = rng.uniform(0, 0.1, size=inst.P.shape) * rng.choice([-1.0, 1.0], size=inst.P.shape)
    Q = np.where(inst.comparable_mask, np.clip(inst.P + noise, 0, 1), 0.0)
    np.fill_diagonal(Q, 0.5)
    return Q


def _consistent_sets(inst, rng):
    """Accepted ⊆ some matching ``M``, rejected disjoint from ``M``: a non-empty polytope."""
    all_m = enumerate_matchings(inst)
    M = all_m[rng.integers(len(all_m))]
    A = tuple(int(e) for e in M if rng.random() < 0.3)
    R = tuple(int(e) for e in np.setdiff1d(np.arange(inst.m), M) if rng.random() < 0.2)
    return A, R


def _f_exact(inst, x, A2, R2, Q):
    """``f(x) = min_{y} (1/ℓ) xᵀ Q y`` by enumerating the minimiser's admissible matchings."""
    Y = enumerate_matchings(inst, A2, R2)
    return min(float(x @ Q @ inst.indicator(M)) / inst.ell for M in Y)


def _in_polytope(inst, x, A=(), R=(), tol=1e-9):
    """Membership in {x ≥ 0, Σ_{E_j} x = 1, Σ_{e ∋ c} x ≤ 1, x_A = 1, x_R = 0}, which is 𝒫(ℳ, A, R)
    (the bipartite matching constraints are totally unimodular)."""
    pos_sums = np.bincount(inst.position, weights=x, minlength=inst.ell)
    cand_sums = np.bincount(inst.candidate, weights=x, minlength=inst.n)
    return (np.all(x >= -tol) and np.allclose(pos_sums, 1, atol=tol) and np.all(cand_sums <= 1 + tol)
            and np.allclose(x[list(A)], 1, atol=tol) and np.allclose(x[list(R)], 0, atol=tol))


# --- LP vs exhaustive ---------------------------------------------------------------------------
@pytest.mark.parametrize("n, ell", SHAPES)
def test_lp_equals_exhaustive_and_fptas_stays_below_on_random_constrained_cases(n, ell):
    rng = np.random.default_rng(np.random.SeedSequence([2020, n, ell]))
    inst = _complete(n, ell, rng)
    for _ in range(12):
        A1, R1 = _consistent_sets(inst, rng)
        A2, R2 = _consistent_sets(inst, rng)
        Q = _perturbed(inst, rng)
        lp = lp_value(inst, A1, R1, A2, R2, Q)
        ex = exhaustive_oracle(inst, A1, R1, A2, R2, Q)
        assert np.isfinite(lp) and abs(lp - ex.value) <= 1e-9
        # the exhaustive strategy achieves its value against every admissible y
        x = ex.strategy @ np.stack([inst.indicator(M) for M in ex.matchings_x])
        assert _f_exact(inst, x, A2, R2, Q) == pytest.approx(ex.value, abs=1e-9)
        r = condorcet_fptas(inst, A1, R1, A2, R2, Q, outer=20, fw=20, step="diameter")
        assert r.value <= lp + 1e-9
        assert _in_polytope(inst, r.x, A1, R1)
        assert r.value == pytest.approx(_f_exact(inst, r.x, A2, R2, Q), abs=1e-12)


def test_payoff_matrix_is_eq1_for_each_pair():
    rng = np.random.default_rng(5)
    inst = _complete(4, 3, rng)
    Q = _perturbed(inst, rng)
    X = enumerate_matchings(inst, forced=(0,))
    Y = enumerate_matchings(inst, forbidden=(1, 2))
    G = payoff_matrix(inst, X, Y, Q)
    assert G.shape == (len(X), len(Y)) == (6, 12)
    for a, b in [(0, 0), (3, 7), (5, 11)]:
        assert G[a, b] == pytest.approx(inst.f(X[a], Y[b], Q), abs=1e-15)


@pytest.mark.parametrize("n, ell", SHAPES)
def test_symmetric_game_value_is_one_half(n, ell):
    # xᵀPy + yᵀPx = Σ_j (Σ_{E_j} x)(Σ_{E_j} y) = ℓ, so G(x, y) + G(y, x) = 1 and a symmetric game has value 1/2
    rng = np.random.default_rng(np.random.SeedSequence([7, n, ell]))
    inst = _complete(n, ell, rng)
    M = enumerate_matchings(inst)
    assert all(inst.f(a, b) + inst.f(b, a) == pytest.approx(1.0) for a, b in itertools.product(M[:5], M[-5:]))
    for _ in range(4):
        A, R = _consistent_sets(inst, rng)
        assert lp_value(inst, A, R, A, R, inst.P) == pytest.approx(0.5, abs=1e-9)
        assert exhaustive_value(inst, A, R, A, R, inst.P) == pytest.approx(0.5, abs=1e-9)
        assert fptas_value(inst, A, R, A, R, inst.P, outer=10, fw=10, step="diameter") <= 0.5 + 1e-9


def test_infeasible_cases_give_minus_and_plus_infinity_for_all_oracles():
    rng = np.random.default_rng(11)
    inst = _complete(4, 3, rng)
    Q = inst.P
    fptas = fptas_oracle(outer=5, fw=5, step="diameter")
    same_position = (0, 1)  # two edges at position 0
    same_candidate = (inst.edge_index(2, 0), inst.edge_index(2, 1))
    no_edge_left = tuple(int(e) for e in inst.position_edges[1])  # position 1 cannot be filled
    fine = ((), ())
    # candidates 0, 1 forbidden at positions 0-1 and candidate 0, 1 at position 2: 2 candidates for 3 positions
    hall = tuple(inst.edge_index(c, s) for c in (0, 1) for s in range(3))
    cases = [((same_position, ()), fine, -np.inf), ((same_candidate, ()), fine, -np.inf),
             (((), no_edge_left), fine, -np.inf), (((), hall), fine, -np.inf),
             (fine, (same_position, ()), np.inf), (fine, ((), no_edge_left), np.inf), (fine, ((), hall), np.inf),
             (((), no_edge_left), ((), no_edge_left), -np.inf)]
    for (A1, R1), (A2, R2), want in cases:
        for oracle in (lp_value, exhaustive_value, fptas):
            assert oracle(inst, A1, R1, A2, R2, Q, 0.0) == want, (oracle, A1, R1, A2, R2)
    r = condorcet_fptas(inst, (), hall, (), (), Q, outer=5, fw=5)
    assert (r.value, r.x, r.matching_calls) == (-np.inf, None, 1)
    r = condorcet_fptas(inst, (), (), (), hall, Q, outer=5, fw=5)
    assert (r.value, r.x, r.matching_calls) == (np.inf, None, 2)


def test_exhaustive_refuses_past_its_limit():
    inst = _complete(4, 3, np.random.default_rng(0))  # |ℳ| = 4·3·2 = 24
    assert exhaustive_value(inst, (), (), (), (), inst.P, limit=24) == pytest.approx(0.5)
    with pytest.raises(ValueError, match=r"maximiser .* more than limit=23"):
        exhaustive_value(inst, (), (), (), (), inst.P, limit=23)
    with pytest.raises(ValueError, match=r"minimiser .* more than limit=23"):
        exhaustive_value(inst, (0,), (), (), (), inst.P, limit=23)  # 6 matchings hold edge 0


# --- FPTAS --------------------------------------------------------------------------------------
def test_fptas_error_shrinks_with_the_outer_budget_under_the_diameter_step():
    rng = np.random.default_rng(np.random.SeedSequence([42, 4, 3]))
    inst = _complete(4, 3, rng)
    Q = _perturbed(inst, rng)
    A1, R1, A2, R2 = (), (inst.edge_index(0, 0),), (inst.edge_index(1, 2),), ()
    opt = lp_value(inst, A1, R1, A2, R2, Q)
    assert opt == pytest.approx(exhaustive_value(inst, A1, R1, A2, R2, Q), abs=1e-9)
    # Lemma 9 needs the projection accuracy ε′ ∝ 1/√T, i.e. Frank–Wolfe iterations ∝ T (Lemma 8): fw = 8T
    errors = []
    for outer in (4, 16, 64):
        r = condorcet_fptas(inst, A1, R1, A2, R2, Q, outer=outer, fw=8 * outer, step="diameter")
        assert r.value <= opt + 1e-9
        assert r.matching_calls == outer * (8 * outer + 1) + 2
        errors.append(opt - r.value)
    assert all(b < a for a, b in zip(errors, errors[1:])), errors
    assert errors[-1] < 1e-3 < 1e-2 < errors[0], errors


def test_fptas_value_is_f_of_its_best_iterate_and_at_least_the_last():
    rng = np.random.default_rng(8)
    inst = _complete(5, 3, rng)
    Q = _perturbed(inst, rng)
    for warm in (False, True):
        r = condorcet_fptas(inst, (), (), (), (), Q, outer=30, fw=30, step="diameter", warm_start=warm)
        assert 1 <= r.best_iterate <= 31 and r.eta == pytest.approx(2 * 9 / np.sqrt(15 * 30))
        assert r.value == pytest.approx(_f_exact(inst, r.x, (), (), Q), abs=1e-12)
        assert r.value <= lp_value(inst, (), (), (), (), Q) + 1e-9


def test_linear_minimiser_agrees_with_mwmc():
    rng = np.random.default_rng(3)
    inst = _complete(5, 3, rng)
    for _ in range(30):
        A, R = _consistent_sets(inst, rng)
        c = rng.normal(size=inst.m)
        lmo = _LinearMinimiser(inst, A, R)
        M = lmo(c)
        ref = mwmc(inst, -c, A, R)
        assert set(A) <= set(M.tolist()) and not set(R) & set(M.tolist())
        assert list(inst.position[M]) == list(range(inst.ell))
        assert -matching_weight(c, M) == pytest.approx(matching_weight(-c, ref), abs=1e-12)
    assert _LinearMinimiser(inst, (0, 1), ())(np.zeros(inst.m)) is None


def test_fw_projection_of_a_polytope_point_stays_close():
    # Proposition 2 (β = 1) after N iterations: h(x^(N+1)) − h* ≤ 2D²/(N + 2), and h is 1-strongly
    # convex, so ‖x^(N+1) − z‖² ≤ 4D²/(N + 2) for z in the polytope, with D² ≤ 2ℓ (0/1 points, ℓ ones each).
    rng = np.random.default_rng(17)
    inst = _complete(5, 3, rng)
    for _ in range(5):
        A, R = _consistent_sets(inst, rng)
        M = enumerate_matchings(inst, A, R)
        lam = rng.dirichlet(np.ones(min(4, len(M))))
        z = lam @ np.stack([inst.indicator(m) for m in M[rng.permutation(len(M))[:len(lam)]]])
        for N in (10, 100, 1000):
            p = fw_project(inst, z, A, R, iterations=N)
            assert p.iterations == N and p.matching_calls == N + 1
            assert _in_polytope(inst, p.x, A, R)
            assert np.linalg.norm(p.x - z) <= np.sqrt(4 * 2 * inst.ell / (N + 2))
        # warm-started at z itself, exact line search never moves
        assert np.array_equal(fw_project(inst, z, A, R, iterations=20, start=z).x, z)


def test_fw_projection_meets_lemma_8_against_an_exact_projection():
    cp = pytest.importorskip("cvxpy")
    rng = np.random.default_rng(23)
    inst = _complete(4, 2, rng)
    A, R = (inst.edge_index(1, 0),), (inst.edge_index(2, 1),)
    eps = 0.5
    pos = np.equal.outer(np.arange(inst.ell), inst.position).astype(float)
    cand = np.equal.outer(np.arange(inst.n), inst.candidate).astype(float)
    for _ in range(3):
        z = rng.normal(0.3, 0.8, size=inst.m)
        v = cp.Variable(inst.m)
        cons = [v >= 0, pos @ v == 1, cand @ v <= 1, v[list(A)] == 1, v[list(R)] == 0]
        cp.Problem(cp.Minimize(cp.sum_squares(v - z)), cons).solve(solver="CLARABEL")
        p = fw_project(inst, z, A, R, eps=eps)
        assert p.iterations == 16 * 4 / eps ** 2  # ⌈16ℓ²/ε²⌉ = 256 (L1097)
        assert np.linalg.norm(p.x - v.value) <= eps


def test_paper_budget_on_hand_computed_examples():
    # ℓ = K = ε = 1: T = 16·1·1 = 16, ε′² = 1/(4·1·16) = 1/64, F = 16·64 = 1024, calls = 1 + 16·1025 + 1
    b = paper_budget(1, 1, 1)
    assert (b.outer, b.fw, b.matching_calls) == (16, 1024, 16402) and b.eta == pytest.approx(0.5)
    # ℓ = 2, K = 3, ε = 1/2: T = 576/(1/4) = 2304, F = 64·4·9·2304/(1/4) = 21233664
    b = paper_budget(2, 3, "0.5")
    assert (b.outer, b.fw) == (2304, 21233664)
    assert b.matching_calls == 2304 * 21233665 + 2 == 48922364162
    assert b.matching_calls / (16384 * 2 ** 6 * 3 ** 6 / 0.5 ** 6) == pytest.approx(1, rel=1e-6)
    assert paper_budget(1, 1, Fraction(1, 3)).outer == 144  # ⌈16·9⌉, exact in rationals
    # a float ε is its decimal: ε = 0.1 gives T = 1600ℓ²K² and F = 6400ℓ²K²T exactly (no binary rounding)
    b = paper_budget(3, 18, np.float64(0.1))
    assert (b.outer, b.fw) == (1600 * 9 * 18 ** 2, 6400 * 9 * 18 ** 2 * 1600 * 9 * 18 ** 2)


def test_paper_parameters_run_on_a_single_position_and_are_refused_when_too_large():
    edges = [(0, 0), (1, 0)]
    P = np.array([[0.5, 0.7], [0.3, 0.5]])
    inst = BipartiteInstance(2, 1, edges, P, "duel")  # ℓ = K = 1: an ordinary dueling bandit
    r = condorcet_fptas(inst, (), (), (), (), P, eps=1.0)
    assert (r.outer, r.fw, r.matching_calls) == (16, 1024, 16402)
    assert r.eta == step_size(inst, 16, "paper") == pytest.approx(0.5)
    assert 0.5 - 1.0 <= r.value <= 0.5 + 1e-12  # OPT = p(e0, e0) = 1/2: e0 is the Condorcet winner
    big = _complete(4, 3, np.random.default_rng(1))
    with pytest.raises(ValueError, match="matching-oracle calls"):
        fptas_value(big, (), (), (), (), big.P, 0.1)
    with pytest.raises(ValueError, match="eps > 0"):
        fptas_value(big, (), (), (), (), big.P, 0.0, outer=5)

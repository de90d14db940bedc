"""ECW-RMED constant C^{E*} and target R^{E*} (paper 000 Theorems 4–5, L202–L232; Appendix E).

The closed form of :mod:`duelbench.bounds.ecw` is checked against a brute-force LP of R^E with
every subset of constraint (5) enumerated (HiGHS), on the paper's matrices and on random
matrices with random Copeland structure, and against the derived Condorcet identity.
"""

import itertools
import math
import warnings

import numpy as np
import pytest
from scipy.optimize import linprog

from duelbench import load_matrix
from duelbench.bounds.ecw import (
    covering_margin,
    divergences_into,
    ecw_constant,
    ecw_constants,
    ecw_lp_bruteforce,
    ecw_target,
    in_re_covering,
    theorem5,
)
from duelbench.problems.regret import regret_matrix
from duelbench.problems.winners import copeland_winners, losses
from duelbench.stats.copeland import (
    copeland_winner_set,
    losses_into,
    min_losses,
    move_loss,
    pair_regret,
    pair_sign,
    winner_mask_into,
)
from duelbench.stats.kl import kl_to_half

PAPER = ["cyclic", "sushi", "gap", "multisol", "arxiv", "mslr5_condorcet_printed", "mslr5_noncondorcet_printed"]


def _load(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ArXiv's printed tie
        return load_matrix(name)


def from_upper(U):
    P = np.triu(U, 1)
    P = P + np.tril(1.0 - P.T, -1)
    np.fill_diagonal(P, 0.5)
    return P


def random_copeland_matrix(K, rng):
    """No ties; the tournament is either uniform or a rotation (regular) tournament with a few
    edges flipped, relabelled at random, so that L̂^(1) ≥ 2 and several winners occur often."""
    beats = np.zeros((K, K), dtype=bool)
    if rng.random() < 0.5:
        for i in range(K):
            for j in range(i + 1, K):
                beats[i, j] = rng.random() < 0.5
                beats[j, i] = not beats[i, j]
    else:
        for i in range(K):
            for s in range(1, K // 2 + 1):
                j = (i + s) % K
                if not beats[j, i]:
                    beats[i, j] = True
        for _ in range(rng.integers(0, 3)):
            i, j = rng.choice(K, 2, replace=False)
            beats[i, j], beats[j, i] = beats[j, i], beats[i, j]
        for i in range(K):  # even K: the rotation leaves some pairs unset
            for j in range(i + 1, K):
                if not beats[i, j] and not beats[j, i]:
                    beats[i, j] = rng.random() < 0.5
                    beats[j, i] = not beats[i, j]
        perm = rng.permutation(K)
        beats = beats[np.ix_(perm, perm)]
    gap = rng.uniform(0.02, 0.45, size=(K, K))
    U = np.where(beats, 0.5 + gap, 0.5 - gap)
    return from_upper(U)


# --------------------------------------------------------------------------- stats.copeland


@pytest.mark.parametrize("seed", range(20))
def test_empirical_copeland_kernels_match_problem_layer(seed):
    rng = np.random.default_rng(seed)
    K = int(rng.integers(2, 9))
    P = random_copeland_matrix(K, rng)
    if seed % 3 == 0:  # exact ties are neither wins nor losses
        i, j = rng.choice(K, 2, replace=False)
        P[i, j] = P[j, i] = 0.5
    L = np.zeros(K, dtype=np.int64)
    losses_into(P, L)
    assert np.array_equal(L, losses(P))
    assert tuple(copeland_winner_set(P).tolist()) == copeland_winners(P, by="losses")
    mask = np.zeros(K, dtype=bool)
    assert winner_mask_into(L, min_losses(L), mask) == len(copeland_winners(P, by="losses"))
    r = regret_matrix(P, "copeland")
    for i in range(K):
        for j in range(K):
            assert pair_regret(L, min_losses(L), i, j) == pytest.approx(r[i, j], abs=1e-15)


def test_move_loss_tracks_sign_changes():
    P = from_upper(np.full((4, 4), 0.7))
    L = np.zeros(4, dtype=np.int64)
    losses_into(P, L)
    for new in (0.3, 0.5, 0.8, 0.2):
        old = pair_sign(P, 1, 3)
        P[1, 3], P[3, 1] = new, 1.0 - new
        move_loss(L, 1, 3, old, pair_sign(P, 1, 3))
        assert np.array_equal(L, losses(P))


# --------------------------------------------------------------------------- Theorem 5


def lp6_by_linprog(c, k):
    """LP (6) with every subset O, |O| = n − k, enumerated (independent of theorem5)."""
    n = len(c)
    rows = []
    for O in itertools.combinations(range(n), n - k):
        row = np.zeros(n)
        row[list(O)] = -1.0
        rows.append(row)
    res = linprog(c, A_ub=np.array(rows), b_ub=-np.ones(len(rows)), bounds=[(0, None)] * n, method="highs")
    assert res.status == 0
    return res.fun


@pytest.mark.parametrize("seed", range(40))
def test_theorem5_equals_enumerated_lp6(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 8))
    k = int(rng.integers(0, n))
    c = np.sort(rng.exponential(size=n) * (rng.random(n) < 0.8))  # some zero costs
    h = np.zeros(1, dtype=np.int64)
    value = theorem5(c, n, k, h)
    assert value == pytest.approx(lp6_by_linprog(c, k), rel=1e-9, abs=1e-12)
    assert k < h[0] <= n
    assert value == pytest.approx(c[: h[0]].sum() / (h[0] - k), rel=1e-12)


def test_theorem5_k0_is_the_cheapest_single_arm():
    # k = 0 case of (6) (L224): the one constraint Σ_{j∈𝒪} e_j ≥ 1 costs min_j c_j
    c = np.array([0.5, 2.0, 3.0])
    h = np.zeros(1, dtype=np.int64)
    assert theorem5(c, 3, 0, h) == 0.5 and h[0] == 1


# --------------------------------------------------------------------------- closed form vs LP


@pytest.mark.parametrize("name", PAPER)
def test_closed_form_equals_bruteforce_lp_on_paper_matrices(name):
    P = _load(name)
    consts = ecw_constants(P)
    assert set(consts) == set(copeland_winners(P, by="losses"))
    for i1, value in consts.items():
        lp, _ = ecw_lp_bruteforce(P, i1)
        assert value == pytest.approx(lp, rel=1e-9)
    assert ecw_constant(P) == min(consts.values())


def test_random_matrices_closed_form_equals_bruteforce_lp():
    rng = np.random.default_rng(2016)
    n_matrices = 0
    seen_k_positive = seen_multi = seen_condorcet = 0
    while n_matrices < 220:
        K = int(rng.integers(3, 8))
        P = random_copeland_matrix(K, rng)
        L = losses(P)
        winners = copeland_winners(P, by="losses")
        consts = ecw_constants(P)
        assert set(consts) == set(winners)
        for i1 in winners:
            lp, _ = ecw_lp_bruteforce(P, i1)
            assert consts[i1] == pytest.approx(lp, rel=1e-8), (P, i1)
        n_matrices += 1
        seen_condorcet += L.min() == 0
        seen_multi += len(winners) > 1
        seen_k_positive += L.min() >= 2  # Theorem 5's non-trivial case (k > 0) is possible
    assert seen_condorcet >= 10 and seen_multi >= 30 and seen_k_positive >= 30


@pytest.mark.parametrize("name", PAPER)
def test_target_point_is_feasible_and_optimal(name):
    P = _load(name)
    r = regret_matrix(P, "copeland")
    D = np.zeros((P.K, P.K))
    divergences_into(np.ascontiguousarray(P.values), D)
    for i1, value in ecw_constants(P).items():
        v, q = ecw_target(P, i1)
        assert v == value
        assert np.array_equal(q, q.T) and np.all(q >= 0) and np.all(np.diag(q) == 0)
        assert in_re_covering(P, q, i1)
        iu = np.triu_indices(P.K, 1)
        assert (r[iu] * q[iu]).sum() == pytest.approx(value, rel=1e-12)
        # the box q ≤ 1/d of R^E holds too, (4) with equality
        finite = D[iu] > 0
        assert np.all(q[iu][finite] * D[iu][finite] <= 1 + 1e-12)
        H = np.flatnonzero(P.values[i1] > 0.5)
        assert np.allclose(q[i1, H] * D[i1, H], 1.0)


@pytest.mark.parametrize("name", ["cyclic", "sushi", "arxiv", "mslr5_condorcet_printed"])
def test_condorcet_identity(name):
    # derived (see duelbench.bounds.ecw): with a Condorcet winner (5) is vacuous,
    # C^{E*} = Σ_j (L_j / (2(K−1))) / d_1j
    P = _load(name)
    consts = ecw_constants(P)
    (w,) = consts
    L = losses(P)
    assert L[w] == 0
    K = P.K
    expected = sum(L[j] / (2 * (K - 1)) / kl_to_half(P.values[w, j]) for j in range(K) if j != w)
    assert consts[w] == pytest.approx(expected, rel=1e-12)


def test_condorcet_identity_on_random_matrices():
    rng = np.random.default_rng(7)
    done = 0
    while done < 50:
        K = int(rng.integers(2, 10))
        P = random_copeland_matrix(K, rng)
        L = losses(P)
        if L.min() != 0:
            continue
        w = int(np.argmin(L))
        expected = sum(L[j] / (2 * (K - 1)) / kl_to_half(P[w, j]) for j in range(K) if j != w)
        assert ecw_constants(P) == {w: pytest.approx(expected, rel=1e-12)}
        done += 1


def test_multisol_winners_share_one_constant():
    # paper 000 L285, L301 (check multisol_three_winners): three Copeland winners with identical
    # constants (argmin not unique)
    consts = ecw_constants(_load("multisol"))
    assert sorted(consts) == [0, 1, 2]
    values = list(consts.values())
    assert max(values) - min(values) <= 1e-12 * max(values)


def test_gap_uses_the_corrected_k0_case():
    # Gap, candidate arm 1 (index 0), L = (1, 2, 2, 3, 2).  Row i2 = arm 5 (index 4) beats arm 1,
    # so 𝒪 = Ô_5 = {arms 2, 3}, need = L_5 − L_1 + 1 = 2 = |𝒪|: k = 0 and the single
    # constraint e_2 + e_3 ≥ 1 costs min(c_2, c_3), not c_2 + c_3 ((6) with k = 0, L224)
    P = _load("gap")
    assert list(losses(P)) == [1, 2, 2, 3, 2]
    lp, q = ecw_lp_bruteforce(P, 0)
    value = ecw_constant(P)
    assert value == pytest.approx(lp, rel=1e-9)
    c = 0.25 / kl_to_half(0.8)  # r̂_{j,5} = (2 + 2 − 2)/8 for both j, d = d(0.2)
    D = np.zeros((5, 5))
    divergences_into(np.ascontiguousarray(P.values), D)
    _, qc = ecw_target(P, 0)
    assert qc[1, 4] * D[1, 4] + qc[2, 4] * D[2, 4] == pytest.approx(1.0)  # e sums to 1, not 2
    assert abs((value + c) - lp) > 1e-6 * lp  # the summed reading would overshoot by c


def test_covering_margin_counts_the_smallest_subsets():
    # MultiSol, candidate 0: evidence E = 1 everywhere except E_{3,1} = E_{3,0} = 0.25
    P = np.ascontiguousarray(_load("multisol").values)
    E = np.ones((5, 5))
    E[3, 1] = E[1, 3] = 0.25
    # arm 3 loses to 0, 1, 2 (L_3 = 3, L̂^(1) = 1): its constraint sums L_3 − L_1 + 1 = 3 of the
    # evidences of {1, 2} (0 left out) — only 2 remain, so no constraint; arm 4 loses to
    # 0, 1, 2, 3 (need 4 of {1, 2, 3}): none either.  Arm 1 (beats 0): need 1 of Ô_1 \ {0} = {2}
    assert covering_margin(P, E, 0) == 1.0
    E[1, 2] = E[2, 1] = 0.5
    assert covering_margin(P, E, 0) == 0.5
    # an explicit enumeration of every covering constraint gives the same minimum
    assert covering_margin(P, E, 0) == enumerate_margin(P, E, 0)


def enumerate_margin(P, E, i1):
    """Smallest LHS of the covering constraints of R^E_{i1}, by enumeration (test oracle)."""
    K = P.shape[0]
    L = losses(P)
    vals = [E[i1, j] for j in range(K) if P[i1, j] > 0.5]
    for i2 in range(K):
        if i2 == i1:
            continue
        sup = [j for j in range(K) if j != i1 and P[i2, j] < 0.5]
        size = int(L[i2] - L[i1] + 1)
        for O in itertools.combinations(sup, size) if size <= len(sup) else ():
            vals.append(sum(E[i2, j] for j in O))
    return min(vals) if vals else math.inf


def test_covering_margin_equals_enumeration_on_random_matrices():
    rng = np.random.default_rng(11)
    for _ in range(100):
        K = int(rng.integers(3, 8))
        P = random_copeland_matrix(K, rng)
        E = from_upper(rng.exponential(size=(K, K)))
        E = np.triu(E, 1) + np.triu(E, 1).T
        for i1 in copeland_winners(P, by="losses"):
            assert covering_margin(P, E, i1) == pytest.approx(enumerate_margin(P, E, i1), rel=1e-12)


def test_non_winner_is_rejected():
    with pytest.raises(ValueError, match="not a Copeland winner"):
        ecw_target(_load("cyclic"), 2)

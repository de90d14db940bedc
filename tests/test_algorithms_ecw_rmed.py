"""ECW-RMED (paper 000 Algorithm 1, ECW branch): determinism, the membership test (3), the cached
exploration target against recomputation from μ̂, sub-linear Copeland regret, parameters.

The compiled and plain-Python paths are compared by ``tests/test_engine_paths.py`` (which picks
up every registered compiled algorithm).
"""

import itertools
import math
import warnings

import numpy as np
import pytest

from duelbench import load_matrix, simulate
from duelbench.algorithms import ecw_rmed as m
from duelbench.algorithms.registry import canonical_params, get_algorithm, list_algorithms
from duelbench.bounds.ecw import covering_margin, divergences_into, ecw_values_into
from duelbench.problems.winners import copeland_winners, losses
from duelbench.stats.copeland import losses_into
from duelbench.stats.kl import kl_to_half

PARAMS = np.array([3.0, 0.01])


def _load(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ArXiv's printed tie
        return load_matrix(name).values


def _random(K, seed):
    rng = np.random.default_rng(seed)
    U = rng.uniform(0.05, 0.95, size=(K, K))
    U = np.where(np.abs(U - 0.5) < 0.01, U + 0.02, U)
    P = np.triu(U, 1)
    P = P + np.tril(1.0 - P.T, -1)
    np.fill_diagonal(P, 0.5)
    return P


def state_from_counts(W, params=PARAMS):
    state = m.init(W.shape[0], params)
    state[m.S_W][:] = W
    m.rebuild(state)
    return state


def exploit(state, log_t):
    """Line (8) of the state (the candidate exploited, or −1)."""
    return m.exploit_candidate(state[m.S_COVER], state[m.S_COVER_STALE], state[m.S_MU], state[m.S_E],
                               state[m.S_L], state[m.S_COUNTERS][m.MIN_LOSS], state[m.S_WIN],
                               state[m.S_VALUES], log_t)


def margin_by_enumeration(mu, E, i1):
    """Smallest LHS over the covering constraints of R^E_{i1}(μ̂), every subset enumerated."""
    K = mu.shape[0]
    L = losses(mu)
    vals = [E[i1, j] for j in range(K) if mu[i1, j] > 0.5]
    for i2 in range(K):
        if i2 == i1:
            continue
        sup = [j for j in range(K) if j != i1 and mu[i2, j] < 0.5]
        size = int(L[i2] - L[i1] + 1)
        if size <= len(sup):
            vals.extend(sum(E[i2, j] for j in O) for O in itertools.combinations(sup, size))
    return min(vals) if vals else math.inf


# --------------------------------------------------------------------------- deterministic case

# arm 0 beats 1 and 2 surely, 1 beats 2 surely: every outcome is determined, so is every pair
SURE = np.array([[0.5, 1.0, 1.0], [0.0, 0.5, 1.0], [0.0, 0.0, 0.5]])


def test_deterministic_instance():
    T = 3000
    runs = [simulate("ecw_rmed", SURE, T, 1, seed=s, permute=False, record_pairs=True) for s in (1, 2)]
    pairs = runs[0].pairs[0]
    assert np.array_equal(pairs, runs[1].pairs[0])  # no randomness left in the algorithm
    lex = [(0, 1), (0, 2), (1, 2)]
    # t = 1..3: line (4) draws every pair (μ̂ = 1/2 for unobserved pairs); t = 4..6: the first
    # pass over L_C = all pairs, lexicographic order
    assert [tuple(p) for p in pairs[:6]] == lex + lex
    counts = {p: 0 for p in [(0, 0), (1, 1), (2, 2)] + lex}
    for p in map(tuple, pairs):
        counts[tuple(sorted(p))] += 1
    assert counts[(1, 1)] == counts[(2, 2)] == 0  # only the empirical winner is exploited
    log_T = math.log(T)
    # (1, 2) is in no exploration target (Condorcet winner 0): it is drawn by line (4) only,
    # until N ≥ α √(ln t)
    assert counts[(1, 2)] <= 3 * math.sqrt(log_T) + 2
    # (0, j) is explored until N_0j d(1) ≥ ln t (d(1) = ln 2), and not much longer
    for p in [(0, 1), (0, 2)]:
        assert log_T / math.log(2) - 1 <= counts[p] <= log_T / math.log(2) + 3 * math.sqrt(log_T) + 2
    assert counts[(0, 0)] == T - sum(v for k, v in counts.items() if k != (0, 0))
    r = runs[0].regret[0, -1]
    assert r == pytest.approx(0.25 * counts[(0, 1)] + 0.5 * counts[(0, 2)] + 0.75 * counts[(1, 2)])


def test_first_visit_of_line4_draws_every_pair_once_also_with_beta_zero():
    P = _load("sushi")
    for beta in (0.01, 0.0):
        r = simulate("ecw_rmed", P, 240, 1, seed=3, permute=False, record_pairs=True, beta=beta)
        lex = [(a, b) for a in range(16) for b in range(a + 1, 16)]
        assert [tuple(p) for p in r.pairs[0][:120]] == lex


# --------------------------------------------------------------------------- line (4)


def test_line4_guard_and_tie_rule():
    W = np.zeros((3, 3))
    W[0, 1], W[1, 0] = 60, 40  # μ̂ = 0.6, N = 100
    W[0, 2], W[2, 0] = 50, 50  # exact tie, N = 100
    W[1, 2], W[2, 1] = 80, 20
    for beta in (0.01, 0.0):
        st = state_from_counts(W, np.array([3.0, beta]))
        args = (st[m.S_W], st[m.S_MU], st[m.S_PA], st[m.S_PB])
        for t in (1, 2, 3, 15, 16, 10**6):  # no log of a non-positive number at small t
            # the tie (0, 2) (pair index 1) is always drawn; (0, 1) only while |0.1| < β/…
            assert m.next_forced_pair(*args, 0, t, st[m.S_PARAMS]) == 1
            assert m.next_forced_pair(*args, 2, t, st[m.S_PARAMS]) == -1
    # counts below α √(ln t) are forced: N_01 = 6 from the first t with 6 < 3 √(ln t)
    st = state_from_counts(np.array([[0, 5, 60], [1, 0, 60], [40, 40, 0.0]]), PARAMS)
    args = (st[m.S_W], st[m.S_MU], st[m.S_PA], st[m.S_PB])
    assert m.next_forced_pair(*args, 0, 1, st[m.S_PARAMS]) == -1
    t_first = next(t for t in range(1, 10**5) if 6 < 3 * math.sqrt(math.log(t)))
    assert m.next_forced_pair(*args, 0, t_first - 1, st[m.S_PARAMS]) == -1
    assert m.next_forced_pair(*args, 0, t_first, st[m.S_PARAMS]) == 0


# --------------------------------------------------------------------------- membership test (3)


def test_condorcet_certificate_needs_every_win_certified():
    W = np.zeros((3, 3))
    W[0, 1], W[1, 0] = 8, 2  # E_01 = 10 d(0.8)
    W[0, 2], W[2, 0] = 15, 5  # E_02 = 20 d(0.75)
    W[1, 2], W[2, 1] = 6, 4
    st = state_from_counts(W)
    e01 = 10 * kl_to_half(0.8)
    assert e01 < 20 * kl_to_half(0.75)
    assert exploit(st, e01) == 0
    assert exploit(st, np.nextafter(e01, np.inf)) == -1
    assert exploit(st, 0.5 * e01) == 0


def cycle_counts(n01, n12, n20, n_vs3=50):
    """Arms 0 → 1 → 2 → 0 (each beats the next, 70 %), all beat arm 3: L = (1, 1, 1, 3)."""
    W = np.zeros((4, 4))
    for (a, b), n in {(0, 1): n01, (1, 2): n12, (2, 0): n20}.items():
        W[a, b], W[b, a] = 0.7 * n, 0.3 * n
    for a in range(3):
        W[a, 3], W[3, a] = 0.8 * n_vs3, 0.2 * n_vs3
    return W


def test_non_condorcet_certificates():
    # candidate 0: wins {1, 3} certified by (4); (5) for i2 = 2 (arm 2 beats 0, its only other
    # superior is 1): E_21 ≥ ln t; i2 = 1 and 3 give no constraint.  So margin(0) = min(E01, E03,
    # E12), margin(1) = min(E12, E13, E20), margin(2) = min(E20, E23, E01).
    d = kl_to_half(0.7)
    st = state_from_counts(cycle_counts(100, 10, 100))
    mu, E = st[m.S_MU], st[m.S_E]
    assert list(st[m.S_L]) == [1, 1, 1, 3] and list(st[m.S_WIN]) == [True, True, True, False]
    margins = np.zeros(4)
    m.current_margins(st, margins)
    for i1 in range(3):
        assert margins[i1] == pytest.approx(margin_by_enumeration(mu, E, i1), rel=1e-12)
    assert margins[0] == pytest.approx(10 * d) and margins[1] == pytest.approx(10 * d)
    assert margins[2] == pytest.approx(min(100 * d, 50 * kl_to_half(0.8)))
    log_t = 11 * d
    assert exploit(st, log_t) == 2  # 0 and 1 fail (E_12 too small), 2 passes
    st = state_from_counts(cycle_counts(100, 100, 100))
    assert exploit(st, log_t) == 0  # all pass: the lowest index is exploited
    st = state_from_counts(cycle_counts(5, 5, 5))
    assert exploit(st, log_t) == -1


def test_exact_tie_in_the_candidates_row_blocks_exploitation():
    W = np.zeros((3, 3))
    W[0, 1], W[1, 0] = 90, 10
    W[0, 2], W[2, 0] = 50, 50  # exact tie: arm 0 keeps L̂ = 0 but its loss count is uncertified
    W[1, 2], W[2, 1] = 90, 10
    st = state_from_counts(W)
    assert list(st[m.S_L]) == [0, 1, 1] and st[m.S_WIN][0]
    assert exploit(st, 1e-9) == -1
    # a tie elsewhere does not block: arm 0 beats both, arms 1 and 2 tie
    W[0, 2], W[2, 0] = 90, 10
    W[1, 2], W[2, 1] = 50, 50
    st = state_from_counts(W)
    assert exploit(st, 1.0) == 0


@pytest.mark.parametrize("seed", range(30))
def test_membership_test_equals_enumeration_on_random_counts(seed):
    rng = np.random.default_rng(seed)
    K = int(rng.integers(3, 8))
    N = rng.integers(1, 60, size=(K, K))
    N = np.triu(N, 1) + np.triu(N, 1).T
    P = _random(K, seed)
    W = np.floor(N * P) + (N * P % 1 > 0.5)
    W = np.triu(W, 1) + np.tril(N - W.T, -1)
    W[np.arange(K), np.arange(K)] = 0
    st = state_from_counts(W)
    mu, E = st[m.S_MU], st[m.S_E]
    margins = np.zeros(K)
    m.current_margins(st, margins)
    for i1 in copeland_winners(mu, by="losses"):
        assert margins[i1] == pytest.approx(margin_by_enumeration(mu, E, i1), rel=1e-12)
        assert margins[i1] == covering_margin(mu.copy(), E.copy(), i1)
    ties = [i for i in range(K) if any(mu[i, j] == 0.5 for j in range(K) if j != i)]
    for log_t in (0.5, 2.0, 8.0):
        expected = next((i for i in copeland_winners(mu, by="losses") if margins[i] >= log_t and i not in ties), -1)
        assert exploit(st, log_t) == expected


# --------------------------------------------------------------------------- caching


def statistics_from_scratch(W):
    K = W.shape[0]
    N = W + W.T
    with np.errstate(invalid="ignore", divide="ignore"):
        mu = np.where(N > 0, W / np.where(N > 0, N, 1), 0.5)
    np.fill_diagonal(mu, 0.5)
    D = np.zeros((K, K))
    divergences_into(np.ascontiguousarray(mu), D)
    E = N * D
    np.fill_diagonal(E, 0.0)
    return mu, D, E


@pytest.mark.parametrize("name, steps", [("arxiv", 2500), ("multisol", 2500), ("gap", 2500), ("random7", 2500),
                                         ("random12", 4000), ("mslr5_noncondorcet_printed", 20000)])
def test_cached_rows_equal_recomputation_after_every_step(name, steps):
    P = {"random7": _random(7, 1), "random12": _random(12, 2)}.get(name)
    P = _load(name) if P is None else P
    K = P.shape[0]
    st = m.init(K, PARAMS)
    rng = np.random.default_rng(4)
    cached, fresh = np.zeros(K), np.zeros(K)
    margins = np.zeros(K)
    L = np.zeros(K, dtype=np.int64)
    for t in range(1, steps + 1):
        i, j = m.select(st, t, rng)
        m.update(st, i, j, bool(rng.random() < P[i, j]), t)
        mu, D, E = statistics_from_scratch(st[m.S_W])
        assert np.array_equal(mu, st[m.S_MU]) and np.array_equal(D, st[m.S_D]) and np.array_equal(E, st[m.S_E])
        losses_into(mu, L)
        assert np.array_equal(L, st[m.S_L]) and st[m.S_COUNTERS][m.MIN_LOSS] == L.min()
        assert np.array_equal(st[m.S_WIN], L == L.min())
        m.current_constants(st, cached)
        ecw_values_into(mu, fresh)
        assert np.array_equal(cached, fresh, equal_nan=True), t  # bit for bit
        m.current_margins(st, margins)
        for i1 in np.flatnonzero(st[m.S_WIN]):
            assert margins[i1] == covering_margin(mu, E, i1), t


# --------------------------------------------------------------------------- regret


def growth_ratio(dataset, runs=10, T=100_000, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = simulate("ecw_rmed", dataset, T, runs, seed=0, checkpoints=np.array([T // 2, T]), **params)
    half, full = r.regret.mean(axis=0)
    return (full - half) / half


@pytest.mark.parametrize("dataset", ["multisol", "cyclic", "mslr5_noncondorcet_printed"])
def test_sublinear_copeland_regret(dataset):
    # [R(T) − R(T/2)] / R(T/2) ≈ ln 2 / ln(T/2) ≈ 0.06 for logarithmic regret, 1 for linear
    assert growth_ratio(dataset) < 0.5


def test_beta_zero_variant_is_sublinear_on_arxiv():
    # β = 0 (L289) with ArXiv's true tie (arms 4 and 6): decision 4 keeps it consistent
    assert growth_ratio("arxiv", beta=0.0) < 0.5


# --------------------------------------------------------------------------- registry


def test_registered_with_paper_parameters():
    assert "ecw_rmed" in list_algorithms()
    spec = get_algorithm("ecw_rmed")
    assert spec.defaults == {"alpha": 3.0, "beta": 0.01}
    assert spec.steps is not None
    # the Theorem-5 target's code is part of the code hash that keys its results
    from duelbench.provenance.codehash import import_closure

    assert any(str(f).endswith("bounds/ecw.py") for f in import_closure(spec.module_file))
    assert canonical_params("ecw_rmed", {"beta": 0}) == {"alpha": 3.0, "beta": 0.0}
    with pytest.raises(ValueError, match="alpha"):
        canonical_params("ecw_rmed", {"alpha": 0})
    with pytest.raises(ValueError, match="beta"):
        canonical_params("ecw_rmed", {"beta": -0.1})


def test_line4_count_threshold_is_strict():
    """Line (4) draws a pair while ``N_ab < α √(ln t)``: a count exactly on the threshold is not
    drawn (α chosen so that α √(ln 20) is 6.0 in floating point; N_01 = 6, μ̂_01 = 5/6, β = 0)."""
    t = 20
    alpha = 6.0 / math.sqrt(math.log(t))
    assert alpha * math.sqrt(math.log(t)) == 6.0
    st = state_from_counts(np.array([[0, 5, 60], [1, 0, 60], [40, 40, 0.0]]), np.array([alpha, 0.0]))
    args = (st[m.S_W], st[m.S_MU], st[m.S_PA], st[m.S_PB])
    assert m.next_forced_pair(*args, 0, t, st[m.S_PARAMS]) == -1
    assert not m.is_forced(st[m.S_W], st[m.S_MU], 0, 1, 6.0, 0.0)
    assert m.is_forced(st[m.S_W], st[m.S_MU], 0, 1, math.nextafter(6.0, 7.0), 0.0)
    assert not m.is_forced(st[m.S_W], st[m.S_MU], 0, 1, 5.0, 1 / 3 - 1e-9)  # |5/6 − 1/2| = 1/3
    assert m.is_forced(st[m.S_W], st[m.S_MU], 0, 1, 5.0, 1 / 3 + 1e-9)

"""CLUCB-Borda-PAC and CLUCB-Borda-Exact of Chen et al. 2020 (duelbench.cpe.borda): the reduction,
the samplers, the table oracle, and the compiled loop against the slow reference
(tests/reference/cpe_borda.py) and against its own pure-Python path."""

from __future__ import annotations

import hashlib
import itertools
from pathlib import Path

import numpy as np
import pytest

from duelbench.cpe.borda import (BordaResult, borda_worst, clucb_borda_exact, clucb_borda_pac, enumerated_mwmc,
                                 expected_reduced_reward, reduced_samples, sampler_probabilities, tv_distance)
from duelbench.cpe.borda_kernel import draw_row
from duelbench.cpe.instance import BipartiteInstance
from duelbench.cpe.matching import enumerate_matchings, matching_weight, mwmc
from reference import cpe_borda as ref

from _engine_helpers import run_without_jit


# --- instances built here: p(e, e′) = 1/2 + s(θ_e − θ_e′) ------------------------------------

def _instance(edges, n, ell, theta, s, name):
    pos = np.array([j for _, j in edges])
    th = np.asarray(theta, dtype=np.float64)
    P = np.where(pos[:, None] == pos[None, :], 0.5 + s * (th[:, None] - th[None, :]), 0.0)
    return BipartiteInstance(n, ell, edges, P, name)


def complete(n, ell, s, seed):
    """K_{n,ℓ} with θ_e ~ U[0, 1] per edge."""
    edges = [(c, j) for j in range(ell) for c in range(n)]
    return _instance(edges, n, ell, np.random.default_rng(seed).random(len(edges)), s, f"K{n},{ell}/{seed}")


def fixed(n, ell, theta):
    edges = [(c, j) for j in range(ell) for c in range(n)]
    return _instance(edges, n, ell, theta, 0.5, f"K{n},{ell}-fixed")


def sparse():
    edges = [(0, 0), (1, 0), (2, 0), (1, 1), (3, 1), (4, 1), (0, 2), (2, 2), (4, 2)]
    return _instance(edges, 5, 3, np.random.default_rng(11).random(len(edges)), 0.5, "sparse")


A = complete(4, 2, 0.5, 0)  # m = 8, K = 12, |ℳ| = 12
B = complete(4, 3, 0.4, 2)  # m = 12, K = 18, |ℳ| = 24
C = sparse()  # m = 9, K = 9
F = fixed(2, 1, [0.95, 0.05])  # one position, K = 1
G = fixed(3, 2, [0.95, 0.3, 0.05, 0.1, 0.9, 0.4])


def borda_scores(inst):
    """B(M) = (1/|ℳ|) Σ_{M′} f(M, M′) (Eq. 2, L80) for every enumerated M."""
    table = enumerate_matchings(inst)
    return table, np.array([np.mean([inst.f(M, M2) for M2 in table]) for M in table])


def borda_winner(inst):
    table, b = borda_scores(inst)
    order = np.argsort(-b)
    assert b[order[0]] - b[order[1]] > 1e-6  # a unique winner (L83)
    return table[order[0]]


def edge_weights(inst):
    """w(e) = (1/|ℳ|) Σ_M p(e, e(M, s(e))) (Eq. 4, L99), by enumeration."""
    table = enumerate_matchings(inst)
    return np.array([np.mean([inst.P[e, M[inst.position[e]]] for M in table]) for e in range(inst.m)])


# --- the reduction and the samplers -----------------------------------------------------------

@pytest.mark.parametrize("inst", [B, C], ids=["K4,3", "sparse"])
def test_reduced_reward_has_mean_w_and_w_of_a_matching_is_ell_times_its_borda_score(inst):
    w = edge_weights(inst)
    table, b = borda_scores(inst)
    assert np.allclose(w[table].sum(axis=1), inst.ell * b, atol=1e-12)  # Eq. 4 (a), B.1
    assert np.allclose(expected_reduced_reward(inst), w, atol=1e-12)
    rng = np.random.default_rng(20200712)
    n = 20000
    for e in range(inst.m):
        x = reduced_samples(inst, e, n, rng)
        assert set(np.unique(x)) <= {0.0, 1.0}
        z = (x.mean() - w[e]) / np.sqrt(w[e] * (1 - w[e]) / n)
        assert abs(z) < 4.0, (e, x.mean(), w[e])


def test_self_duel_half_records_one_half_and_keeps_the_mean():
    w = edge_weights(A)
    x = reduced_samples(A, 0, 40000, np.random.default_rng(5), self_duel="half")
    assert 0.5 in set(np.unique(x))
    assert abs(x.mean() - w[0]) < 4 * 0.5 / np.sqrt(len(x))


def test_biased_sampler_total_variation_and_bias_bound():
    table, b = borda_scores(B)
    N = len(table)
    worst = int(np.argmin(b))
    uniform = np.full(N, 1 / N)
    assert sampler_probabilities(B, "exact").tolist() == uniform.tolist()
    for eta in (0.0, 0.01, 0.125, 0.5, 1.0):
        p = sampler_probabilities(B, "biased", eta)
        assert p.sum() == pytest.approx(1.0, abs=1e-14)
        assert p[worst] == pytest.approx((1 - eta) / N + eta, abs=1e-15)  # default M_bad: Borda-worst
        assert tv_distance(p, uniform) == pytest.approx(eta * (1 - 1 / N), abs=1e-14)  # ≤ η (Definition 1)
        # E[X(e)] under π′ (L644) and the bias bound Σ|π′ − π| of L662–L667
        expect = np.array([sum(p[r] * B.P[e, table[r, B.position[e]]] for r in range(N)) for e in range(B.m)])
        got = expected_reduced_reward(B, "biased", eta)
        assert np.allclose(got, expect, atol=1e-12)
        assert np.all(np.abs(got - edge_weights(B)) <= 2 * eta * (1 - 1 / N) + 1e-12)
    other = table[3]
    p = sampler_probabilities(B, "biased", 0.2, bad=other)
    assert p[3] == pytest.approx((1 - 0.2) / N + 0.2)
    # Monte-Carlo mean of the biased reduced reward (the algorithms' stream)
    eta, n = 0.3, 20000
    mean = expected_reduced_reward(B, "biased", eta)
    rng = np.random.default_rng(77)
    for e in (0, 5, 11):
        x = reduced_samples(B, e, n, rng, sampler="biased", eta=eta)
        assert abs(x.mean() - mean[e]) < 4 * np.sqrt(mean[e] * (1 - mean[e]) / n)


# --- the table oracle ---------------------------------------------------------------------

@pytest.mark.parametrize("inst", [A, B, C, G], ids=["K4,2", "K4,3", "sparse", "K3,2"])
def test_table_oracle_is_a_maximum_weight_matching(inst):
    rng = np.random.default_rng(8)
    for _ in range(150):
        w = rng.normal(size=inst.m)  # continuous weights: no ties
        got, lsa = enumerated_mwmc(inst, w), mwmc(inst, w)
        assert matching_weight(w, got) == pytest.approx(matching_weight(w, lsa), abs=1e-12)
        assert got.tolist() == lsa.tolist()


def test_table_oracle_breaks_ties_lexicographically():
    table = enumerate_matchings(B)
    assert enumerated_mwmc(B, np.zeros(B.m)).tolist() == table[0].tolist()  # round 1: w̄ = 0
    rng = np.random.default_rng(4)
    for _ in range(50):
        w = rng.integers(0, 3, size=B.m).astype(float)  # many exact ties
        weights = w[table].sum(axis=1)
        best = [M.tolist() for M, x in zip(table, weights) if x == weights.max()]
        assert enumerated_mwmc(B, w).tolist() == min(best)
        assert enumerated_mwmc(B, w).tolist() == ref.oracle(B, w)  # the reference's mwmc-only rule


@pytest.mark.parametrize("sampler, eta", [("exact", 0.0), ("biased", 0.3), ("biased", 0.05)])
def test_reduced_samples_follow_the_rounds_stream(sampler, eta):
    """D7: sample k uses u₁ = u[k, 0] for the row of M′ (every row reachable, the last one included)
    and u₂ = u[k, 1] for the duel, exactly as the algorithms' rounds (``borda_kernel.draw_row``)."""
    table = enumerate_matchings(B)
    bad = borda_worst(B, table)
    bad_row = int(np.flatnonzero(np.all(table == bad, axis=1))[0])
    e, n = 10, 3000  # position 2, where the last two rows of the table differ
    x = reduced_samples(B, e, n, np.random.default_rng(8), sampler=sampler, eta=eta)
    u = np.random.default_rng(8).random((n, 2))
    rows = [draw_row(u1, len(table), sampler == "biased", eta, bad_row) for u1 in u[:, 0]]
    assert set(rows) == set(range(len(table)))
    opp = table[rows, B.position[e]]
    assert x.tolist() == (u[:, 1] < B.P[e, opp]).astype(float).tolist()


# --- compiled loop against the reference ------------------------------------------------------

CASES = [
    # (id, instance, algorithm, delta, epsilon, options, seed)
    ("pac-A", A, "pac", 0.1, 0.3, {}, 5),
    ("pac-B-biased", B, "pac", 0.1, 0.5, dict(sampler="biased"), 5),
    ("pac-C-m-half", C, "pac", 0.2, 0.8, dict(radius_count="m", self_duel="half"), 1),
    ("pac-A-biased-bad-cap", A, "pac", 0.05, 0.1, dict(sampler="biased", bad=[3, 4], max_samples=1200), 2),
    ("V0-F", F, "V0", 0.5, None, {}, 0),
    ("V0-G-biased-cap", G, "V0", 0.3, None, dict(sampler="biased", max_samples=2500), 3),
    ("V1-F-half", F, "V1", 0.5, None, dict(self_duel="half"), 1),
    ("V1-A-m-cap", A, "V1", 0.1, None, dict(radius_count="m", max_samples=1500), 4),
    ("V2-G", G, "V2", 0.5, None, {}, 2),
    ("V2-C-cap", C, "V2", 0.1, None, dict(max_samples=1500), 6),
]


def _compiled(inst, algorithm, delta, epsilon, options, seed, record=True):
    if algorithm == "pac":
        return clucb_borda_pac(inst, delta, epsilon, seed=seed, record=record, **options)
    return clucb_borda_exact(inst, delta, variant=algorithm, seed=seed, record=record, **options)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_compiled_equals_reference(case):
    _, inst, algorithm, delta, epsilon, options, seed = case
    got = _compiled(inst, algorithm, delta, epsilon, options, seed)
    want = ref.run(inst, delta, epsilon or 0.0, algorithm, np.random.default_rng(np.random.SeedSequence(seed)),
                   **options)
    assert got.samples == want["samples"] > 0
    assert (got.real_duels, got.self_duels) == (want["real_duels"], want["self_duels"])
    assert got.epochs == want["epochs"] and got.samples_per_epoch == want["samples_per_epoch"]
    assert got.capped == want["capped"] == ("max_samples" in options)
    assert got.last.tolist() == list(want["last"])
    assert (None if got.output is None else got.output.tolist()) == (None if want["output"] is None
                                                                     else list(want["output"]))
    assert got.trace.tolist() == [list(r) for r in want["trace"]]


# --- compiled loop against its pure-Python path ---------------------------------------------

NOJIT_SCRIPT = """
import json, sys
sys.path.insert(0, {tests!r})
import test_cpe_borda as t
out = []
for name in json.loads(sys.argv[1]):
    case = next(c for c in t.CASES if c[0] == name)
    r = t._compiled(*case[1:])
    out.append(t.summary(r))
print(json.dumps(out))
"""


def summary(r: BordaResult) -> list:
    return [None if r.output is None else r.output.tolist(), r.last.tolist(), r.samples, r.real_duels, r.self_duels,
            r.epochs, list(r.samples_per_epoch), r.capped, hashlib.sha256(r.trace.tobytes()).hexdigest()]


def test_compiled_equals_python_path():
    """NUMBA_DISABLE_JIT=1 runs the same loop in Python: identical outputs, counts and traces."""
    names = ["pac-A", "pac-B-biased", "V0-F", "V1-A-m-cap", "V2-G"]
    py = run_without_jit(NOJIT_SCRIPT.format(tests=str(Path(__file__).resolve().parent)), names)
    for name, got in zip(names, py):
        case = next(c for c in CASES if c[0] == name)
        assert summary(_compiled(*case[1:])) == got, name


# --- statistical behaviour --------------------------------------------------------------------

@pytest.mark.parametrize("sampler", ["exact", "biased"])
def test_pac_returns_an_eps_optimal_matching(sampler):
    table, b = borda_scores(B)
    eps = 0.02
    assert np.sum(b < b.max() - eps) >= len(b) // 2  # most matchings are not ε-optimal
    for seed in range(6):
        r = clucb_borda_pac(B, 0.05, eps, seed=seed, sampler=sampler)
        assert not r.capped and r.epochs == 1 and r.samples_per_epoch == (r.samples,)
        score = b[[i for i, M in enumerate(table) if M.tolist() == r.output.tolist()][0]]
        assert score >= b.max() - eps, (seed, r.output, score, b.max())


@pytest.mark.parametrize("variant", ["V1", "V2"])
@pytest.mark.parametrize("inst", [A, B], ids=["K4,2", "K4,3"])
def test_exact_variants_find_the_borda_winner(inst, variant):
    winner = borda_winner(inst).tolist()
    for seed in range(3):
        r = clucb_borda_exact(inst, 0.1, variant=variant, seed=seed, max_samples=5_000_000)
        assert not r.capped and r.output.tolist() == winner
        assert sum(r.samples_per_epoch) == r.samples == r.real_duels + r.self_duels
        assert r.epochs == len(r.samples_per_epoch) and (variant != "V2" or r.epochs == 1)


def test_v0_runs_past_the_epoch_of_theorem_2():
    """On F (ℓ = 1, Δ_min = w(e₀) − w(e₁) = 0.45) the proof's epoch is q* = ⌊log₂(ℓ/Δ_min)⌋ + 1 = 2
    (L800); V1 returns there, V0 as printed keeps breaking to later epochs (module docstring)."""
    w = edge_weights(F)
    q_star = int(np.floor(np.log2(1 / (w[0] - w[1])))) + 1
    assert q_star == 2
    for seed in range(3):
        v0 = clucb_borda_exact(F, 0.5, variant="V0", seed=seed)
        v1 = clucb_borda_exact(F, 0.5, variant="V1", seed=seed)
        assert v0.output.tolist() == v1.output.tolist() == [0]
        assert v1.epochs == q_star < v0.epochs
        assert len(v0.samples_per_epoch) == v0.epochs and all(x > 0 for x in v0.samples_per_epoch)


# --- options and results ----------------------------------------------------------------------

def test_cap_semantics():
    full = clucb_borda_pac(A, 0.1, 0.3, seed=9)
    at = clucb_borda_pac(A, 0.1, 0.3, seed=9, max_samples=full.samples)
    below = clucb_borda_pac(A, 0.1, 0.3, seed=9, max_samples=full.samples - 1)
    assert not at.capped and at.output.tolist() == full.output.tolist() and at.samples == full.samples
    assert below.capped and below.output is None and below.samples == full.samples - 1
    zero = clucb_borda_exact(A, 0.1, seed=9, max_samples=0)
    assert zero.capped and zero.samples == 0 and zero.last.tolist() == enumerate_matchings(A)[0].tolist()


def test_options_change_the_run_and_count_self_duels():
    base = clucb_borda_pac(A, 0.1, 0.3, seed=3, record=True)
    m_count = clucb_borda_pac(A, 0.1, 0.3, seed=3, radius_count="m", record=True)
    assert A.m < A.K and m_count.samples < base.samples  # smaller radius with m = 8 < K = 12
    for r in (base, m_count):
        selfd = r.trace[:, 0] == r.trace[:, 1]
        assert r.self_duels == selfd.sum() > 0 and r.real_duels == (~selfd).sum()
        assert set(r.trace[selfd, 2]) == {0, 2}  # coin
    half = clucb_borda_pac(A, 0.1, 0.3, seed=3, self_duel="half", record=True)
    selfd = half.trace[:, 0] == half.trace[:, 1]
    assert set(half.trace[selfd, 2]) == {1}  # X = 1/2
    assert base.radius_count == "K" and m_count.radius_count == "m" and half.self_duel == "half"
    assert base.trace.shape == (base.samples, 3) and clucb_borda_pac(A, 0.1, 0.3, seed=3).trace is None


def test_same_seed_same_run_and_seed_forms():
    a = clucb_borda_exact(G, 0.2, variant="V2", seed=12, record=True)
    b = clucb_borda_exact(G, 0.2, variant="V2", seed=np.random.SeedSequence(12), record=True)
    c = clucb_borda_exact(G, 0.2, variant="V2", seed=13, record=True)
    assert a.trace.tolist() == b.trace.tolist() != c.trace.tolist()


def _k0_instance():
    return BipartiteInstance(2, 2, [(0, 0), (1, 1)], np.eye(2) * 0.5, "K=0")


@pytest.mark.parametrize("call, match", [
    (lambda: clucb_borda_pac(A, 0.0, 0.1), r"δ must lie in \(0, 1\)"),
    (lambda: clucb_borda_pac(A, 1.0, 0.1), r"δ must lie in \(0, 1\)"),
    (lambda: clucb_borda_exact(A, -0.5), r"δ must lie in \(0, 1\)"),
    (lambda: clucb_borda_exact(A, float("nan")), r"δ must lie in \(0, 1\)"),
    (lambda: clucb_borda_pac(A, 0.1, 0.0), "ε must be > 0"),
    (lambda: clucb_borda_pac(A, 0.1, -1.0), "ε must be > 0"),
    (lambda: clucb_borda_pac(A, 0.1, float("inf")), "ε must be > 0"),
    (lambda: clucb_borda_pac(A, 0.1, 9.0, sampler="biased"), "η = ε/8 ≤ 1"),
    (lambda: clucb_borda_pac(_k0_instance(), 0.1, 0.1), "K = 0"),
    (lambda: clucb_borda_exact(_k0_instance(), 0.1), "K = 0"),
    (lambda: clucb_borda_pac(A, 0.1, 0.1, sampler="jsv"), "unknown sampler"),
    (lambda: clucb_borda_pac(A, 0.1, 0.1, radius_count="n"), "unknown radius_count"),
    (lambda: clucb_borda_pac(A, 0.1, 0.1, self_duel="skip"), "unknown self_duel"),
    (lambda: clucb_borda_exact(A, 0.1, variant="V3"), "unknown variant"),
    (lambda: clucb_borda_exact(A, 0.1, variant="V2", sampler="biased"), "needs the exact sampler"),
    (lambda: clucb_borda_pac(A, 0.1, 0.1, sampler="biased", bad=[0, 4]), "not a maximum matching"),
    (lambda: clucb_borda_pac(A, 0.1, 0.1, sampler="biased", bad=[0]), "edge indices"),
    (lambda: clucb_borda_pac(A, 0.1, 0.1, bad=[0, 5]), "biased sampler only"),
    (lambda: clucb_borda_pac(A, 0.1, 0.1, max_samples=-1), "max_samples"),
    (lambda: clucb_borda_pac(A, 0.1, 0.1, max_samples=2.5), "max_samples"),
    (lambda: sampler_probabilities(A, "biased", 1.5), "η must lie in"),
    (lambda: reduced_samples(A, 8, 10, np.random.default_rng(0)), "outside"),
])
def test_invalid_arguments_are_refused(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_k4_3_counts_every_duel_pair():
    """Sanity of the test instances: K = Σ_j |E_j|(|E_j| − 1)/2 (L66) and |ℳ| = n!/(n − ℓ)!."""
    assert (A.K, len(enumerate_matchings(A))) == (12, 12)
    assert (B.K, len(enumerate_matchings(B))) == (18, 24)
    assert len(list(itertools.permutations(range(4), 3))) == 24

"""PCOMP, SCOMP and SCOMP2 (Agarwal, Ghuge & Nagarajan, ICML 2022, paper 003): batch schedule,
batch counts of Theorems 3.1, 3.2 and 3.4, the regret identity R(T) = ½ Σ_j T_j ε_j (@7196),
Lemmas 4.1-4.4 under the γ-rule, the batch log, parameter validation and the pure-Python path.
"""

import itertools
import math
import warnings

import numpy as np
import pytest

import duelbench
from duelbench.algorithms import batched
from duelbench.algorithms.batched import batch_log
from duelbench.algorithms.registry import canonical_params, get_algorithm
from duelbench.data.registry import load_matrix
from duelbench.engine.seeding import run_rng
from duelbench.problems.generators import btl, hard_condorcet, random_btl
from duelbench.problems.matrix import PreferenceMatrix
from duelbench.stats.batches import batch_size, gamma_radius

from _engine_helpers import ARXIV, random_matrix, run_without_jit

pytestmark = pytest.mark.filterwarnings("ignore::duelbench.problems.matrix.TiedPairWarning")

ALGS = ("pcomp", "scomp", "scomp2")
#: Batches allowed with B = ``batches``: Theorem 3.1 (B), 3.2 (B + 1), 3.4 (2B + 1).
MAX_BATCHES = {"pcomp": lambda B: B, "scomp": lambda B: B + 1, "scomp2": lambda B: 2 * B + 1}
#: A Condorcet winner (arm 0) above a BTL order with well separated utilities.
EASY = btl([1.0, 0.5, 0.3, 0.2, 0.12, 0.08]).values


def _matrices():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            "arxiv": load_matrix("arxiv").values,  # K = 6, paper 003 "Six rankers"
            "sushi": load_matrix("sushi").values,  # K = 16
            "syn_btl": random_btl(100, 2022).values,  # SYN-BTL, K = 100 (@31554)
            "syn_cd": hard_condorcet(100, rng=2022).values,  # SYN-CD, K = 100 (@31931)
        }


MATRICES = _matrices()


def _flag_grid(alg):
    """Every combination of the flags that changes behaviour (γ-rule: only δ and rounding)."""
    out = []
    kl = {"threshold": (0.0, 1.0, 2.0), "delta": (0.0, 1.0), "kl_counts": (0.0, 1.0), "rounding": (0.0, 1.0)}
    if alg != "pcomp":
        kl["all_kl"] = (0.0, 1.0)
    for values in itertools.product(*kl.values()):
        out.append({"elimination": 0.0, **dict(zip(kl, values))})
    for delta, rounding in itertools.product((0.0, 1.0), (0.0, 1.0)):
        out.append({"elimination": 1.0, "delta": delta, "rounding": rounding})
    extra = [{"batches": 2.0}, {"batches": 8.0}, {"batches": 8.0, "elimination": 1.0}]
    if alg != "pcomp":
        extra += [{"seed_exponent": 2.0 / 3.0}, {"seed_exponent": 2.0 / 3.0, "elimination": 1.0}]
    return out + extra


def _condorcet_regret_from_pairs(P, pairs):
    """½ Σ_j T_j ε_j (paper 003 @7196), T_j = comparisons involving j, a self-duel counting 2."""
    K = P.shape[0]
    w = int(np.flatnonzero((P > 0.5).sum(axis=1) == K - 1)[0])
    eps = P[w] - 0.5
    eps[w] = 0.0
    Tj = np.bincount(pairs[:, 0], minlength=K) + np.bincount(pairs[:, 1], minlength=K)
    return 0.5 * float(Tj @ eps)


# --------------------------------------------------------------------------- schedule helpers
def test_batch_size_and_gamma_radius():
    """c_r = q^r (paper 003 @18483), q = T^{1/B}; γ = sqrt(log(1/δ)/(2c)) (Algorithm 1 line 2)."""
    T, B = 100_000, 16
    q = math.pow(T, 1.0 / B)
    sizes = [batch_size(q, r, 0) for r in range(1, B + 1)]
    assert sizes[:6] == [3, 5, 9, 18, 37, 75] and sizes[-1] == T
    assert all(math.ceil(q**r - 1e-9) == c for r, c in zip(range(1, B + 1), sizes))
    assert [batch_size(q, r, 1) for r in range(1, 7)] == [2, 4, 9, 18, 37, 75]
    assert batch_size(q, B, 1) == T
    assert batch_size(1.0001, 1, 1) == 1 and batch_size(1.0001, 1, 0) == 2
    assert batch_size(0.3, 1, 0) == 1 and batch_size(0.3, 1, 1) == 1  # at least one comparison
    assert batch_size(1e10, 10, 0) == 2**62  # saturates
    L = math.log(T * 36)
    assert gamma_radius(L, 37) == pytest.approx(math.sqrt(L / 74), rel=1e-15)
    assert gamma_radius(L, 0) == math.inf


def test_test_levels_are_the_printed_gamma_multiples():
    """The squared γ multiples of Algorithms 1-3 (γ, 3γ, 5γ) and the KL levels of A' with
    ``all_kl`` ((1/3)², (3/5)²), evaluated in the order the results were computed with:
    ``9·L``, ``L/9``, ``(L·9)/25`` (not ``L·0.36``)."""
    b = batched
    assert (b.GAMMA_1_SQ, b.GAMMA_3_SQ, b.GAMMA_5_SQ) == (1.0, 9.0, 25.0)
    for L in (math.log(1e5) + 2 * math.log(6), math.log(1e4) + 2 * math.log(16) + math.log(6) + math.log(16), 7.3):
        assert b._gamma_level(b.GAMMA_1_SQ, L) == L
        assert b._gamma_level(b.GAMMA_3_SQ, L) == 9.0 * L
        assert b._gamma_level(b.GAMMA_5_SQ, L) == 25.0 * L
        assert b._kl_switch_set_level(b.GAMMA_1_SQ, b.GAMMA_3_SQ, L) == L / 9.0  # SCOMP, Algorithm 2 line 10
        assert b._kl_switch_set_level(b.GAMMA_3_SQ, b.GAMMA_5_SQ, L) == L * 9.0 / 25.0  # SCOMP2, Algorithm 3 line 12


def test_registry_entries():
    assert get_algorithm("pcomp").defaults == {"batches": 16.0, "elimination": 0.0, "threshold": 0.0, "delta": 0.0,
                                               "kl_counts": 0.0, "rounding": 0.0}
    for alg in ("scomp", "scomp2"):
        assert get_algorithm(alg).defaults == {**get_algorithm("pcomp").defaults, "all_kl": 0.0, "seed_exponent": 0.5}
    for alg in ALGS:
        spec = get_algorithm(alg)
        assert spec.run is not None and not spec.needs_horizon and spec.compiled


@pytest.mark.parametrize("bad,match", [
    ({"batches": 0.0}, "batches"), ({"batches": 2.5}, "batches"), ({"batches": -16.0}, "batches"),
    ({"batches": 20000.0}, "batches"),
    ({"elimination": 2.0}, "elimination"), ({"elimination": 0.5}, "elimination"),
    ({"threshold": 3.0}, "threshold"), ({"threshold": -1.0}, "threshold"),
    ({"delta": 2.0}, "delta"), ({"kl_counts": 0.5}, "kl_counts"), ({"rounding": 2.0}, "rounding"),
    ({"all_kl": 3.0}, "all_kl"), ({"seed_exponent": -0.5}, "seed_exponent"),
])
@pytest.mark.parametrize("alg", ALGS)
def test_parameter_validation(alg, bad, match):
    if alg == "pcomp" and set(bad) & {"all_kl", "seed_exponent"}:
        with pytest.raises(ValueError, match="has no parameter"):
            canonical_params(alg, bad)
        return
    with pytest.raises(ValueError, match=match):
        canonical_params(alg, bad)


def test_valid_parameter_values():
    for alg in ("scomp", "scomp2"):
        canonical_params(alg, {"batches": 1.0, "elimination": 1.0, "threshold": 2.0, "delta": 1.0, "kl_counts": 1.0,
                               "rounding": 1.0, "all_kl": 1.0, "seed_exponent": 0.0})
    canonical_params("pcomp", {"batches": 2.0, "threshold": 1.0})
    with pytest.raises(ValueError, match="batch_log"):
        batch_log("rucb", ARXIV, 100, {}, np.random.default_rng(0))


# --------------------------------------------------------------------------- batch structure
def test_first_pcomp_batches_are_round_robin_in_lexicographic_order():
    """Algorithm 1 line 4: every pair of A, c_1 = ceil(T^{1/16}) = 3 times at T = 10^5, as a
    round robin over the pairs (i, j), i < j, then c_2 = 5 times."""
    log = batch_log("pcomp", ARXIV, 100_000, {}, np.random.default_rng(0), record_pairs=True)
    order = [(i, j) for i in range(6) for j in range(i + 1, 6)]
    assert [tuple(p) for p in log.pairs[:45]] == order * 3
    assert log.batch_sizes[:2] == (45, 75) and log.batch_rounds[:2] == (1, 2)
    assert [tuple(p) for p in log.pairs[45:120]] == order * 5


def test_scomp_pairs_are_seed_set_times_active_set():
    """Algorithm 2 line 5: each pair {i, j} with i ∈ S, j ∈ A once (pairs inside S once)."""
    log = batch_log("scomp", MATRICES["sushi"], 100_000, {}, np.random.default_rng(5), record_pairs=True)
    S = set(log.seed_set)
    assert 0 < len(S) < 16
    expected = sorted({(min(i, j), max(i, j)) for i in S for j in range(16) if i != j})
    c1 = log.batch_sizes[0] // len(expected)
    assert c1 == 3 and log.batch_sizes[0] == 3 * len(expected)
    assert [tuple(p) for p in log.pairs[:len(expected)]] == expected


def test_scomp2_rounds_are_two_batches():
    """Algorithm 3: r(1) all pairs of S, r(2) the candidate against every other arm of A, with
    the same c_r; the candidate of r(2) is an arm of S."""
    log = batch_log("scomp2", MATRICES["sushi"], 100_000, {}, np.random.default_rng(5), record_pairs=True)
    S = set(log.seed_set)
    assert len(S) >= 2
    m1 = len(S) * (len(S) - 1) // 2
    assert log.batch_kinds[:4] == ("seed_pairs", "candidate", "seed_pairs", "candidate")
    assert log.batch_sizes[:2] == (3 * m1, 3 * 15) and log.batch_rounds[:4] == (1, 1, 2, 2)
    assert log.candidates[1] in S and log.candidates[0] == -1
    cand = log.candidates[1]
    r2 = log.pairs[3 * m1:3 * m1 + 15]
    assert all(cand in p for p in r2)


@pytest.mark.parametrize("alg", ALGS)
def test_eliminated_arms_are_never_compared_again(alg):
    for s in range(4):
        log = batch_log(alg, MATRICES["sushi"], 100_000, {}, np.random.default_rng(s), record_pairs=True)
        ends = np.cumsum(log.batch_sizes)
        assert log.eliminated
        for arm, b in log.eliminated.items():
            later = log.pairs[ends[b]:]
            assert not np.any(later == arm), (arm, b)


@pytest.mark.parametrize("alg", ALGS)
def test_easy_instance_ends_on_the_condorcet_winner(alg):
    """With well separated gaps every algorithm reduces A to the Condorcet winner before T = 10^5
    and plays (w, w) for the rest of the budget; the winner is never eliminated."""
    for s in range(4):
        log = batch_log(alg, EASY, 100_000, {}, np.random.default_rng(s), record_pairs=True)
        assert log.batch_kinds[-1] == "self" and tuple(log.pairs[-1]) == (0, 0)
        assert log.winner_eliminated is False and log.batch_sizes[-1] > 50_000
        assert log.regret < 5_000


# --------------------------------------------------------------------------- batch log vs engine
@pytest.mark.parametrize("alg", ALGS)
@pytest.mark.parametrize("name", ["arxiv", "sushi", "syn_cd"])
def test_batch_log_and_simulate_agree(alg, name):
    """Same core, same stream: the pairs and the Condorcet regret of ``simulate`` (arms not
    shuffled) equal those of :func:`batch_log` on the run's generator."""
    P = PreferenceMatrix(MATRICES[name])
    params = {"threshold": 2.0} if alg == "pcomp" else {"all_kl": 1.0}
    res = duelbench.simulate(alg, P, 50_000, 3, seed=4, permute=False, record_pairs=True, **params)
    canon = canonical_params(alg, params)
    for r in range(3):
        log = batch_log(alg, P, 50_000, params, run_rng(4, P.identity, alg, canon, r), record_pairs=True)
        assert np.array_equal(log.pairs, res.pairs[r])
        assert log.regret == pytest.approx(res.regrets["condorcet"][r, -1], rel=1e-12)
        assert log.regret == pytest.approx(_condorcet_regret_from_pairs(P.values, res.pairs[r]), rel=1e-9)


@pytest.mark.parametrize("alg", ALGS)
@pytest.mark.parametrize("name", sorted(MATRICES))
def test_batches_comparisons_and_regret_identity_over_the_flag_grid(alg, name):
    """For every flag combination: batches used ≤ B (PCOMP, Theorem 3.1), ≤ B + 1 (SCOMP,
    Theorem 3.2), ≤ 2B + 1 (SCOMP2, Theorem 3.4); exactly T = 10^5 comparisons; the recorded
    Condorcet regret equals ½ Σ_j T_j ε_j of the pairs played, and the log's T_j are those of
    the pairs."""
    P = MATRICES[name]
    T = 100_000
    for k, params in enumerate(_flag_grid(alg)):
        log = batch_log(alg, P, T, params, np.random.default_rng(k), record_pairs=True)
        B = int(canonical_params(alg, params)["batches"])
        assert log.batches <= MAX_BATCHES[alg](B), (params, log.batch_kinds, log.batch_sizes)
        assert len(log.batch_sizes) == log.batches and sum(log.batch_sizes) == T == log.comparisons
        assert log.pairs.shape == (T, 2) and np.all(log.pairs[:, 0] <= log.pairs[:, 1])
        assert log.regret == pytest.approx(_condorcet_regret_from_pairs(P, log.pairs), rel=1e-9, abs=1e-9)
        K = P.shape[0]
        Tj = np.bincount(log.pairs[:, 0], minlength=K) + np.bincount(log.pairs[:, 1], minlength=K)
        assert np.array_equal(log.arm_comparisons, Tj) and Tj.sum() == 2 * T
        if alg == "pcomp":
            assert log.switch_round == -1 and not log.seed_set
        if log.switch_round >= 0:
            assert 1 <= log.switch_size <= P.shape[0]


@pytest.mark.parametrize("alg", ["scomp", "scomp2"])
def test_empty_seed_set_runs_pcomp_from_round_one(alg):
    """seed probability K^{-e} tiny: S = ∅, the run is PCOMP on all arms (switch at r' = 1),
    pair for pair the PCOMP run that follows the K seed draws."""
    P = MATRICES["sushi"]
    log = batch_log(alg, P, 100_000, {"seed_exponent": 30.0}, np.random.default_rng(3), record_pairs=True)
    assert log.seed_empty and log.switch_round == 1 and log.switch_size == 16
    rng = np.random.default_rng(3)
    rng.random(16)  # the seed draws
    ref = batch_log("pcomp", P, 100_000, {}, rng, record_pairs=True)
    assert np.array_equal(ref.pairs, log.pairs) and ref.batch_sizes == log.batch_sizes


# --------------------------------------------------------------------------- Lemmas 4.1-4.4
@pytest.mark.parametrize("alg", ALGS)
def test_good_event_lemmas_under_the_gamma_rule(alg):
    """γ-rule with δ = 1/(6TK²B) (Algorithms 1-3 as printed): every per-round estimate lies within
    γ_r of P (Lemma 4.2, probability ≥ 1 − 1/T per run), the Condorcet winner is never
    eliminated (proof of Theorem 3.1, Lemma 4.3), and at a switch w ∈ A' and |A'| ≤ rank of the
    best seed (Lemma 4.4; the instances are SST + STI).  Some runs switch (hard instance, K = 20,
    w outside S)."""
    params = {"elimination": 1.0, "delta": 1.0}
    cases = [(MATRICES["syn_btl"], 100_000), (MATRICES["syn_cd"], 100_000),
             (hard_condorcet(20, 0.45, winner=3).values, 1_000_000), (EASY, 100_000)]
    switches = 0
    for P, T in cases:
        for s in range(6):
            log = batch_log(alg, P, T, params, np.random.default_rng(s))
            assert log.estimates > 0 and log.incorrect_estimates == 0
            assert log.winner_eliminated is False
            if log.switch_round >= 0:
                switches += 1
                assert log.winner_in_switch_set is True
                if not log.seed_empty:
                    assert log.switch_size <= log.rank_best_seed
    assert alg == "pcomp" or switches > 0


@pytest.mark.parametrize("alg", ALGS)
def test_estimates_counted_on_every_complete_batch(alg):
    """Lemma 4.2 counts one estimate per pair and complete batch: Σ size_b / c_b over the
    batches that were not cut by T (and are not the closing (a, a) block); on these runs the
    last batch is cut (no run ends a batch exactly at T)."""
    T = 100_000
    q = math.pow(T, 1.0 / 16)
    for s in range(4):
        log = batch_log(alg, MATRICES["sushi"], T, {}, np.random.default_rng(s))
        n = 0
        for k, (size, r, kind) in enumerate(zip(log.batch_sizes, log.batch_rounds, log.batch_kinds)):
            if kind == "self" or k == log.batches - 1:  # the closing block, or the batch cut by T
                continue
            c = batch_size(q, r, 0)
            assert size % c == 0
            n += size // c
        assert log.estimates == n


def test_rank_of_the_best_seed():
    """rank(b) = number of arms beating b; the best seed is the one beaten by the fewest."""
    P = MATRICES["arxiv"]  # total order 0 > 1 > 2 > 3 > 4 > 5 up to the tie P[3, 5] = 1/2
    for s in range(10):
        log = batch_log("scomp", P, 2000, {}, np.random.default_rng(s))
        if log.seed_set:
            ranks = (P > 0.5).sum(axis=0)
            assert log.rank_best_seed == min(ranks[a] for a in log.seed_set)
        else:
            assert log.rank_best_seed is None
    assert batch_log("pcomp", P, 2000, {}, np.random.default_rng(0)).rank_best_seed is None


# --------------------------------------------------------------------------- pure-Python path
PY_SCRIPT = r"""
import json, sys, numpy as np, warnings
warnings.simplefilter("ignore")
from duelbench import simulate
args = json.loads(sys.argv[1])
out = []
for alg, params in args["runs"]:
    for P in args["matrices"]:
        r = simulate(alg, np.array(P), args["T"], 2, seed=6, record_pairs=True, checkpoints=[100, 3000, args["T"]],
                     **params)
        out.append({"pairs": r.pairs.tolist(), "regret": r.regret.tolist()})
print(json.dumps(out))
"""

PY_RUNS = [("pcomp", {}), ("pcomp", {"elimination": 1.0, "rounding": 1.0}), ("scomp", {}),
           ("scomp", {"all_kl": 1.0, "seed_exponent": 0.0}), ("scomp2", {}),
           ("scomp2", {"elimination": 1.0, "seed_exponent": 0.0, "threshold": 1.0}),
           ("scomp2", {"kl_counts": 1.0, "delta": 1.0, "all_kl": 1.0})]


def test_python_path_identical():
    """NUMBA_DISABLE_JIT=1 gives the same pairs and bit-identical regret sums."""
    T = 12_000
    mats = [ARXIV, random_matrix(8, 11), EASY]
    py = run_without_jit(PY_SCRIPT, {"runs": PY_RUNS, "matrices": [m.tolist() for m in mats], "T": T})
    k = 0
    for alg, params in PY_RUNS:
        for P in mats:
            r = duelbench.simulate(alg, P, T, 2, seed=6, record_pairs=True, checkpoints=[100, 3000, T], **params)
            assert np.array_equal(r.pairs, np.array(py[k]["pairs"])), (alg, params)
            assert np.array_equal(r.regret, np.array(py[k]["regret"])), (alg, params)
            k += 1

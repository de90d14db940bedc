"""D-TS+ (Wu & Liu, NIPS 2016, Section 4.3): the regret tie-break on hand-made samples, agreement
with D-TS when |C| = 1, concentration on one Copeland winner (the conjecture after Corollary 1,
paper 004 L868–872), parameter validation, and compiled == pure-Python path."""

import math

import numpy as np
import pytest

import duelbench
from duelbench.algorithms import dts, dts_plus
from duelbench.algorithms.registry import canonical_params, get_algorithm, params_array
from duelbench.stats.confident_beats import cb_rebuild

from _engine_helpers import run_without_jit

pytestmark = pytest.mark.filterwarnings("ignore::duelbench.problems.matrix.TiedPairWarning")


def _D(x):
    """D(x ‖ 1/2), written out (x well inside (0, 1), so the clip plays no role)."""
    return x * math.log(2 * x) + (1 - x) * math.log(2 * (1 - x))


def _theta(upper):
    """A sampled matrix from its upper triangle {(i, j): θ_ij}, mirrored, θ_ii = 1/2."""
    K = 1 + max(j for _, j in upper)
    th = np.full((K, K), 0.5)
    for (i, j), v in upper.items():
        th[i, j], th[j, i] = v, 1.0 - v
    return th


def _wins(th):
    K = th.shape[0]
    return np.array([sum(th[i, j] > 0.5 for j in range(K) if j != i) for i in range(K)], dtype=np.float64)


def _tie_break(th, C, over_C, rng=None):
    K = th.shape[0]
    in_C = np.array([i in C for i in range(K)])
    in_A = np.zeros(K, dtype=np.bool_)
    neg = np.zeros(K)
    # every value given: the rows of A(1) need no further draw
    a1 = dts_plus.tie_break(np.zeros((K, K)), th > 0.5, th.copy(), np.zeros((K, K)), _wins(th), in_C, in_A, neg, over_C,
                            rng or np.random.default_rng(0))
    return int(a1), [i for i in range(K) if in_A[i]], -neg


# ------------------------------------------------------------------ the regret tie-break
def test_estimated_regret_by_hand():
    """ζ̃ = (2/3, 2/3, 1/3, 0), ζ̃* = 2/3; θ_23 = 1/2 exactly is left out of R̃_2 (L831)."""
    th = _theta({(0, 1): 0.8, (0, 2): 0.3, (0, 3): 0.9, (1, 2): 0.7, (1, 3): 0.6, (2, 3): 0.5})
    wins = _wins(th)
    assert wins.tolist() == [2, 2, 1, 0]
    zs = 2 / 3
    R0 = (1 / 6) / _D(0.3) + (1 / 3) / _D(0.9)  # r_01 = 0
    R1 = (1 / 6) / _D(0.7) + (1 / 3) / _D(0.6)  # r_10 = 0
    R2 = (1 / 6) / _D(0.7) + (1 / 6) / _D(0.3)  # j = 3 skipped: θ_23 = 1/2
    for i, want in enumerate([R0, R1, R2]):
        assert dts_plus.estimated_regret(th, wins, i, zs) == pytest.approx(want, rel=1e-13)
    # A(1) = {0, 1}: arm 0 beats its weakest rival more clearly (θ_03 = 0.9 vs θ_13 = 0.6)
    for over_C in (False, True):
        a1, A, R = _tie_break(th, {0, 1, 2}, over_C)
        assert A == [0, 1] and a1 == 0
        assert R[:2] == pytest.approx([R0, R1], rel=1e-13)


def test_zeta_star_over_all_arms_or_over_C_can_choose_differently():
    """Arm 0 (outside C) beats everybody; 1 → 2 → 3 → 1 is a cycle; C = {1, 2}, A(1) = {1, 2}.

    ζ̃* over all arms (= 1, L815): R̃_i charges each sampled comparison with r̃ > 0 and the near-tie
    θ_23 = 0.55 makes R̃_2 large, so a(1) = 1.  ζ̃* over C (= 1/3): only r̃_i0 = −1/3 ≠ 0, so
    R̃_i = −(1/3)/D(θ_0i ‖ 1/2) and a(1) = 2 (whose loss to arm 0 is narrower).
    """
    th = _theta({(0, 1): 0.9, (0, 2): 0.8, (0, 3): 0.7, (1, 2): 0.7, (2, 3): 0.55, (1, 3): 0.05})
    assert _wins(th).tolist() == [3, 1, 1, 1]
    a1, A, R = _tie_break(th, {1, 2}, over_C=False)
    assert A == [1, 2] and a1 == 1
    assert R[1] == pytest.approx((1 / 3) / _D(0.1) + (2 / 3) / _D(0.7) + (2 / 3) / _D(0.95), rel=1e-13)
    assert R[2] == pytest.approx((1 / 3) / _D(0.2) + (2 / 3) / _D(0.7) + (2 / 3) / _D(0.55), rel=1e-13)
    a1, A, R = _tie_break(th, {1, 2}, over_C=True)
    assert A == [1, 2] and a1 == 2
    assert R[1:3] == pytest.approx([-(1 / 3) / _D(0.1), -(1 / 3) / _D(0.2)], rel=1e-13)


def test_all_equal_sampled_scores_tie_at_random_with_one_draw():
    """A sampled 3-cycle: every ζ̃ = 1/2, every r̃ = 0, every R̃ = 0 — a(1) uniform on A(1) = C,
    one uniform draw (the decision on ties of the argmin)."""
    th = _theta({(0, 1): 0.7, (1, 2): 0.6, (0, 2): 0.2})
    seen = set()
    for seed in range(40):
        rng, twin = np.random.default_rng(seed), np.random.default_rng(seed)
        a1, A, R = _tie_break(th, {0, 1, 2}, over_C=False, rng=rng)
        assert A == [0, 1, 2] and R.tolist() == [0.0, 0.0, 0.0]
        assert a1 == min(int(twin.random() * 3), 2)
        assert rng.bit_generator.state == twin.bit_generator.state
        seen.add(a1)
    assert seen == {0, 1, 2}


def test_a_unique_line11_maximiser_needs_no_regret_and_no_draw():
    th = _theta({(0, 1): 0.7, (1, 2): 0.6, (0, 2): 0.8})
    rng, twin = np.random.default_rng(3), np.random.default_rng(3)
    a1, A, _ = _tie_break(th, {0, 1, 2}, over_C=False, rng=rng)
    assert (a1, A) == (0, [0])
    assert rng.bit_generator.state == twin.bit_generator.state


def test_divergence_clip():
    assert dts_plus.THETA_CLIP == 1e-7
    assert dts_plus.divergence_to_half(0.0) == dts_plus.divergence_to_half(1e-7)
    assert dts_plus.divergence_to_half(1.0) == dts_plus.divergence_to_half(1 - 1e-7)
    assert dts_plus.divergence_to_half(0.0) == pytest.approx(math.log(2), rel=1e-5)
    assert dts_plus.divergence_to_half(0.3) == pytest.approx(_D(0.3), rel=1e-14)


# ------------------------------------------------------------------ |C| = 1: D-TS's a(1)
def test_single_candidate_equals_dts():
    """With a confidently established Condorcet winner C = {it}: D-TS+ returns D-TS's pair and
    consumes the generator exactly as D-TS (no Phase-1 sample, the same Phase 2)."""
    g = np.random.default_rng(7)
    t, alpha, checked = 500, 0.51, 0
    while checked < 100:
        K = int(g.integers(2, 8))
        B = g.integers(0, 40, size=(K, K)).astype(np.float64)
        cw = int(g.integers(K))
        B[cw, :] += 400.0
        np.fill_diagonal(B, 0.0)
        s_dts = dts.init(K, np.array([alpha]))
        s_plus = dts_plus.init(K, params_array("dts_plus", canonical_params("dts_plus", {})))
        for s in (s_dts, s_plus):
            s[0][:] = B
            cb_rebuild(s[1], s[0], math.log(t), alpha)
        if dts.copeland_candidates(s_dts[1][1], s_dts[3]) != cw:
            continue
        rng_d, rng_p = np.random.default_rng(checked), np.random.default_rng(checked)
        want = tuple(int(x) for x in dts.select(s_dts, t, rng_d))
        got = tuple(int(x) for x in dts_plus.select(s_plus, t, rng_p))
        assert got == want and got[0] == cw
        assert rng_p.bit_generator.state == rng_d.bit_generator.state
        checked += 1


# ------------------------------------------------------------------ Corollary 1, L868–872
def _top_share(alg, name, T, runs):
    """Mean over runs of the share of the most frequent first candidate a(1) over t > T/2."""
    r = duelbench.simulate(alg, name, T, runs, seed=0, record_pairs=True)
    return float(np.mean([np.bincount(p[T // 2:, 0]).max() / (T - T // 2) for p in r.pairs])), r


def test_focuses_on_one_copeland_winner_multisol():
    """MultiSol (three Copeland winners in a strong cycle): D-TS's random ties spread a(1) evenly
    (about 1/3 each); D-TS+ concentrates it on one winner (L869–871)."""
    share_dts, _ = _top_share("dts", "multisol", 5000, 20)
    share_plus, _ = _top_share("dts_plus", "multisol", 5000, 20)
    assert share_dts < 0.4
    assert share_plus > share_dts + 0.15


def test_focuses_on_one_copeland_winner_mslr_noncondorcet():
    """The 5-arm non-Condorcet MSLR matrix of the paper's Fig. 1(b) (three Copeland winners, gaps
    of about 0.02): over T = 10^5, D-TS+ concentrates a(1) more than D-TS (40 runs) and has lower
    Copeland regret (120 runs; L926–930).  The run-to-run spread of the regret is about 1,300, so
    fewer runs leave the difference of about 600 within two standard errors of zero."""
    T, runs = 100_000, 40
    share_dts, _ = _top_share("dts", "mslr5_noncondorcet_printed", T, runs)
    share_plus, _ = _top_share("dts_plus", "mslr5_noncondorcet_printed", T, runs)
    assert share_plus > share_dts + 0.05
    final = {alg: duelbench.simulate(alg, "mslr5_noncondorcet_printed", T, 120, seed=1, checkpoints=[T]).regret[:, -1]
             for alg in ("dts", "dts_plus")}
    assert final["dts_plus"].mean() < final["dts"].mean()


# ------------------------------------------------------------------ registry and validation
def test_registered_with_paper_parameters():
    spec = get_algorithm("dts_plus")
    assert spec.title == "D-TS+" and spec.steps is not None and not spec.needs_horizon
    assert spec.defaults == {"alpha": 0.51, "zeta_star_over_candidates": 0.0}
    assert list(spec.defaults).index("alpha") == 0  # read by the shared confident-beat update
    assert list(spec.defaults).index("zeta_star_over_candidates") == dts_plus.OVER_C
    assert canonical_params("dts_plus", {"zeta_star_over_candidates": 1}) == {
        "alpha": 0.51, "zeta_star_over_candidates": 1.0}


@pytest.mark.parametrize("params, match", [
    ({"alpha": 0.5}, "alpha"),
    ({"alpha": 0.2}, "alpha"),
    ({"zeta_star_over_candidates": 0.5}, "zeta_star_over_candidates"),
    ({"zeta_star_over_candidates": 2}, "zeta_star_over_candidates"),
    ({"zeta_star_over_candidates": -1}, "zeta_star_over_candidates"),
    ({"gamma": 1.3}, "no parameter"),
])
def test_invalid_parameters(params, match):
    with pytest.raises(ValueError, match=match):
        canonical_params("dts_plus", params)


def test_dts_module_is_reused_not_copied():
    """Lines 4–6 and 13–14 are D-TS's own kernels."""
    assert dts_plus.copeland_candidates is dts.copeland_candidates
    assert dts_plus.second_candidate is dts.second_candidate
    assert dts_plus.update is dts.update


# ------------------------------------------------------------------ code paths
PY_SCRIPT = r"""
import json, sys, numpy as np, warnings
warnings.simplefilter("ignore")
from duelbench import simulate
out = {}
for name in ("mslr5_noncondorcet_printed", "multisol", "sushi"):
    for v in (0.0, 1.0):
        r = simulate("dts_plus", name, 1500, 2, seed=3, record_pairs=True, zeta_star_over_candidates=v)
        out[f"{name}/{v}"] = {"pairs": r.pairs.tolist(), "regret": r.regret.tolist()}
print(json.dumps(out))
"""


def test_python_path_identical():
    """NUMBA_DISABLE_JIT=1 gives the same pairs and bit-identical regret, for both readings of ζ̃*."""
    py = run_without_jit(PY_SCRIPT)
    for name in ("mslr5_noncondorcet_printed", "multisol", "sushi"):
        for v in (0.0, 1.0):
            r = duelbench.simulate("dts_plus", name, 1500, 2, seed=3, record_pairs=True, zeta_star_over_candidates=v)
            assert np.array_equal(r.pairs, np.array(py[f"{name}/{v}"]["pairs"])), (name, v)
            assert np.array_equal(r.regret, np.array(py[f"{name}/{v}"]["regret"])), (name, v)

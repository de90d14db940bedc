"""D-TS+ (compiled, :mod:`duelbench.algorithms.dts_plus`) against the independent reference
:mod:`reference.dts_plus`, pair for pair on the engine's random streams.

The reference recomputes U and L from the counts at every step with the standard library only,
draws its posterior samples with numpy's ``Generator.beta`` in the documented order (every pair
once, i < j, row-major, when |C| ≥ 2) and evaluates the regret tie-break of Section 4.3 (paper
004 L812–863) with its own clipped KL divergence.  Both readings of ζ̃* are compared (over all
arms, the default, and over the candidate set C).  Single steps from injected counts check that
both sides consume the same random draws, including the random ties of the argmin.
"""

import math

import numpy as np
import pytest

from duelbench.algorithms import dts_plus
from duelbench.algorithms.registry import canonical_params, params_array
from duelbench.stats.confident_beats import cb_rebuild

from _engine_helpers import random_matrix
from reference.driver import Tap, compare_with_engine, reference_pairs
from reference.dts_plus import ReferenceDTSPlus

pytestmark = pytest.mark.filterwarnings("ignore::duelbench.problems.matrix.TiedPairWarning")

ALGORITHM = "dts_plus"
SEEDS = [(0, 0), (1, 3)]
VARIANTS = [0.0, 1.0]


def _instance(name):
    return random_matrix(8, 11) if name == "random8" else name


def _params(over_C, alpha=0.51):
    return {"alpha": alpha, "zeta_star_over_candidates": over_C}


def _compare(P, T, seed, run, params):
    return compare_with_engine(Tap(ReferenceDTSPlus), ALGORITHM, P, T, seed, run, params)


def test_defaults_reach_the_reference():
    assert canonical_params(ALGORITHM, {}) == {"alpha": 0.51, "zeta_star_over_candidates": 0.0}
    tap = Tap(ReferenceDTSPlus)
    reference_pairs(tap, "cyclic", 5, algorithm=ALGORITHM)
    assert tap.ref.alpha == 0.51 and not tap.ref.over_C


@pytest.mark.parametrize("over_C", VARIANTS)
@pytest.mark.parametrize("seed,run", SEEDS)
@pytest.mark.parametrize("name,T", [
    ("mslr5_noncondorcet_printed", 3000),  # K = 5, three Copeland winners, gaps about 0.02
    ("mslr5_condorcet_printed", 2000),     # K = 5, Condorcet winner
    ("multisol", 3000),                    # K = 5, three Copeland winners, large gaps
    ("cyclic", 2000),                      # K = 4
    ("arxiv", 2000),                       # K = 6, an exact tie p = 1/2
    ("sushi", 800),                        # K = 16
    ("random8", 2000),
])
def test_compiled_dts_plus_equals_reference(name, T, seed, run, over_C):
    _compare(_instance(name), T, seed, run, _params(over_C))


@pytest.mark.parametrize("over_C", VARIANTS)
def test_changed_alpha_equals_reference(over_C):
    ref = _compare("multisol", 2000, 2, 1, _params(over_C, alpha=0.6))
    assert ref.alpha == 0.6


@pytest.mark.parametrize("name,over_C", [("gap", 0.0), ("random8", 1.0)])
def test_long_horizon_equals_reference(name, over_C):
    """T = 20 000: pairs resolved earlier become unresolved again as ln t grows (expiries)."""
    T = 20_000
    ref = _compare(_instance(name), T, 5, 0, _params(over_C))
    assert ref.events["expired"] > 0
    assert max(ref.expiry_times) > T // 4, ref.expiry_times


@pytest.mark.parametrize("over_C", VARIANTS)
def test_long_horizon_mslr_noncondorcet_equals_reference(over_C):
    """T = 15 000 on the 5-arm non-Condorcet MSLR matrix, where the tie-break decides most steps."""
    ref = _compare("mslr5_noncondorcet_printed", 15_000, 5, 0, _params(over_C))
    assert ref.events["A_multi"] > 1000


def test_reference_comparisons_reach_every_branch():
    """Together: |C| = 1 and > 1, |A(1)| = 1 and > 1, an argmin that is not the lowest index of
    A(1), random ties of the argmin, Phase-2 exclusions, a(2) = a(1), expiries; with ζ̃* over C,
    negative r̃_ij."""
    total, negative = {}, 0
    for name, over_C in (("multisol", 0.0), ("mslr5_noncondorcet_printed", 0.0), ("multisol", 1.0)):
        tap = Tap(ReferenceDTSPlus)
        reference_pairs(tap, name, 3000, algorithm=ALGORITHM, params=_params(over_C), seed=0, run=0)
        for k, v in tap.ref.events.items():
            total[k] = total.get(k, 0) + v
        negative += tap.ref.negative_r if over_C else 0
    assert all(v > 0 for v in total.values()), total
    assert negative > 0


@pytest.mark.parametrize("over_C", VARIANTS)
@pytest.mark.parametrize("t", [1, 2, 50, 10**6])
def test_one_step_from_given_counts_equals_reference(t, over_C):
    """One ``select`` from random count matrices: the same pair and equal generator states
    afterwards.  Small counts make |C| > 1, |A(1)| > 1 and ties of the argmin frequent."""
    params = _params(over_C)
    g = np.random.default_rng(100 + t)
    for case in range(300):
        K = int(g.integers(2, 8))
        B = g.integers(0, 4, size=(K, K)).astype(np.float64)
        B[g.random((K, K)) < 0.3] = 0.0
        np.fill_diagonal(B, 0.0)
        state = dts_plus.init(K, params_array(ALGORITHM, params))
        state[0][:] = B
        cb_rebuild(state[1], state[0], math.log(t), params["alpha"])
        ref = ReferenceDTSPlus(K, t, params)
        ref.B = [[int(x) for x in row] for row in B]
        rng_compiled, rng_ref = np.random.default_rng(case), np.random.default_rng(case)
        got = tuple(int(x) for x in dts_plus.select(state, t, rng_compiled))
        want = ref.select(t, rng_ref)
        assert got == want, (case, B)
        assert rng_compiled.bit_generator.state == rng_ref.bit_generator.state, (case, B)


"""RUCB (compiled, :mod:`duelbench.algorithms.rucb`) against the independent reference
:mod:`reference.rucb`, pair for pair on the engine's random streams.

The reference recomputes U from the counts at every step with the standard library only, so the
module's incremental confident-beat relation (heap of expiry times), its ``ln t`` with the
current t, "x/0 := 1", the hypothesis set B and the exact order of its random draws are what is
under test.

Whole runs are compared at α = 0.51 (the default), at α = 0.6, and at T = 20 000, where pairs
resolved earlier become unresolved again as ln t grows.  Single steps from injected counts add
t = 1, the only time a bound can equal 1/2 exactly (the documented boundary convention), and
check that both sides consume the same number of random draws.
"""

import math

import numpy as np
import pytest

from duelbench.algorithms import rucb
from duelbench.algorithms.registry import canonical_params
from duelbench.stats.confident_beats import cb_rebuild

from _engine_helpers import random_matrix
from reference.driver import Tap, compare_with_engine, engine_pairs, reference_pairs
from reference.rucb import ReferenceRUCB

pytestmark = pytest.mark.filterwarnings("ignore::duelbench.problems.matrix.TiedPairWarning")

ALGORITHM = "rucb"
#: (seed, run): run 0 and a later run, so the arm permutation and run streams vary.
SEEDS = [(0, 0), (1, 3)]


def _instance(name):
    return random_matrix(8, 11) if name == "random8" else name


def _Tap(**override):
    return Tap(ReferenceRUCB, **override)


def _compiled(P, T, seed, run, params):
    return engine_pairs(ALGORITHM, P, T, seed, run, params)


def _compare(P, T, seed, run, params=None, tap=None):
    """Reference and compiled pairs of one run; an assertion naming the first differing step."""
    return compare_with_engine(tap or _Tap(), ALGORITHM, P, T, seed, run, params)


def test_reference_receives_the_default_alpha():
    assert canonical_params(ALGORITHM, {}) == {"alpha": 0.51}
    tap = _Tap()
    reference_pairs(tap, "cyclic", 5, algorithm=ALGORITHM)
    assert tap.ref.alpha == 0.51


@pytest.mark.parametrize("seed,run", SEEDS)
@pytest.mark.parametrize("name,T", [
    ("cyclic", 3000),     # K = 4, Condorcet winner: |C| = 1, B, coins, d = c
    ("multisol", 3000),   # K = 5, no Condorcet winner: C = ∅ most of the time
    ("gap", 3000),
    ("arxiv", 3000),      # K = 6, small gaps and an exact tie p = 1/2
    ("sushi", 1500),      # K = 16
    ("random8", 3000),
])
def test_compiled_rucb_equals_reference(name, T, seed, run):
    _compare(_instance(name), T, seed, run)


@pytest.mark.parametrize("name", ["multisol", "random8"])
def test_changed_alpha_equals_reference_with_that_alpha(name):
    """α = 0.6 is passed through: the compiled run equals the reference at α = 0.6, and a reference
    kept at α = 0.51 on the same (α = 0.6) random stream does not."""
    P = _instance(name)
    T, seed, run = 3000, 2, 1
    assert _compare(P, T, seed, run, {"alpha": 0.6}).alpha == 0.6
    stale = reference_pairs(_Tap(alpha=0.51), P, T, algorithm=ALGORITHM, params={"alpha": 0.6}, seed=seed, run=run)
    assert not np.array_equal(stale, _compiled(P, T, seed, run, {"alpha": 0.6}))


@pytest.mark.parametrize("name,alpha", [("cyclic", 0.51), ("arxiv", 0.51), ("arxiv", 0.6)])
def test_long_horizon_equals_reference(name, alpha):
    """T = 20 000: pairs resolved earlier become unresolved again as ln t grows (expiries from the
    module's heap), also late in the run."""
    T = 20_000
    ref = _compare(_instance(name), T, 5, 0, {"alpha": alpha})
    assert ref.events["expired"] > 0
    assert max(ref.expiry_times) > T // 4, ref.expiry_times


def test_reference_comparisons_reach_every_branch():
    """Together the instances above take every branch: C = ∅, |C| = 1, the coin for B (both
    outcomes), uniform c without B, a random tie for d, d = c, and expiries."""
    total = {}
    for name in ("cyclic", "multisol"):
        tap = _Tap()
        reference_pairs(tap, name, 3000, algorithm=ALGORITHM, seed=0, run=0)
        for k, v in tap.ref.events.items():
            total[k] = total.get(k, 0) + v
    assert all(v > 0 for v in total.values()), total


@pytest.mark.parametrize("t", [1, 2, 3, 50, 10**6])
def test_one_step_from_given_counts_equals_reference(t):
    """One ``select`` from many random count matrices and hypothesis sets: the same pair, the same
    B afterwards and the same number of random draws (equal generator states).  Small counts
    make ties in u_jc frequent; at t = 1 (ln t = 0) u_ij is the empirical mean, so pairs with
    equal counts sit exactly on the boundary u = 1/2 (not confidently beaten; c tied with d)."""
    alpha = 0.51
    g = np.random.default_rng(t)
    for case in range(300):
        K = int(g.integers(2, 7))
        W = g.integers(0, 4, size=(K, K)).astype(np.float64)
        W[g.random((K, K)) < 0.3] = 0.0
        np.fill_diagonal(W, 0.0)
        b = int(g.integers(-1, K))
        state = rucb.init(K, np.array([alpha]))
        state[0][:] = W
        cb_rebuild(state[1], state[0], math.log(t), alpha)
        state[3][0] = b
        ref = ReferenceRUCB(K, t, {"alpha": alpha})
        ref.W = [[int(x) for x in row] for row in W]
        ref.B = None if b < 0 else b
        rng_compiled, rng_ref = np.random.default_rng(case), np.random.default_rng(case)
        got = tuple(int(x) for x in rucb.select(state, t, rng_compiled))
        want = ref.select(t, rng_ref)
        assert got == want, (case, W, b)
        assert state[3][0] == (-1 if ref.B is None else ref.B), (case, W, b)
        assert rng_compiled.bit_generator.state == rng_ref.bit_generator.state, (case, W, b)

"""D-TS (compiled, :mod:`duelbench.algorithms.dts`) against the independent reference
:mod:`reference.dts`, pair for pair on the engine's random streams.

The reference recomputes U and L from the counts at every step with the standard library only
and draws its posterior samples with numpy's ``Generator.beta``; the compiled code draws them
with numba's implementation of the same method, which gives the same numbers for the same
generator state (checked below).  The module's incremental confident-beat relation, its ``ln t``
with the current t, "x/0 := 1", the restriction of Phase 1 to the rows of C, the column read in
Phase 2 and the exact order of its random draws are what is under test.

Whole runs are compared at α = 0.51 (the default), at α = 0.6, and at T = 20 000, where pairs
resolved earlier become unresolved again as ln t grows.  Single steps from injected counts add
t = 1, the only time a bound can equal 1/2 exactly (the documented boundary convention), and
check that both sides consume the same number of random draws.
"""

import math

import numba
import numpy as np
import pytest

from duelbench.algorithms import dts
from duelbench.algorithms.registry import canonical_params
from duelbench.stats.confident_beats import cb_rebuild

from _engine_helpers import random_matrix
from reference.driver import Tap, compare_with_engine, engine_pairs, reference_pairs
from reference.dts import ReferenceDTS

pytestmark = pytest.mark.filterwarnings("ignore::duelbench.problems.matrix.TiedPairWarning")

ALGORITHM = "dts"
#: (seed, run): run 0 and a later run, so the arm permutation and run streams vary.
SEEDS = [(0, 0), (1, 3)]


def _instance(name):
    return random_matrix(8, 11) if name == "random8" else name


def _Tap(**override):
    return Tap(ReferenceDTS, **override)


def _compiled(P, T, seed, run, params):
    return engine_pairs(ALGORITHM, P, T, seed, run, params)


def _compare(P, T, seed, run, params=None, tap=None):
    """Reference and compiled pairs of one run; an assertion naming the first differing step."""
    return compare_with_engine(tap or _Tap(), ALGORITHM, P, T, seed, run, params)


@numba.njit
def _numba_draws(rng, a, b, beta_out, uniform_out):
    for k in range(a.shape[0]):
        beta_out[k] = rng.beta(a[k], b[k])
        uniform_out[k] = rng.random()


def test_numba_beta_equals_numpy_beta():
    """For the same generator state numba's ``Generator.beta`` returns numpy's value bit for bit
    and leaves the generator in the same state (interleaved with ``random()``), over the
    parameters D-TS uses: counts + 1, from Beta(1, 1) to tens of thousands."""
    g = np.random.default_rng(2024)
    n = 20_000
    a = np.floor(np.exp(g.uniform(0.0, np.log(30_000.0), n)))
    b = np.floor(np.exp(g.uniform(0.0, np.log(30_000.0), n)))
    a[:500] = 1.0
    b[:250] = 1.0
    b[500:750] = 1.0
    got_beta, got_u = np.empty(n), np.empty(n)
    rng_numba = np.random.Generator(np.random.PCG64(7))
    _numba_draws(rng_numba, a, b, got_beta, got_u)
    rng_numpy = np.random.Generator(np.random.PCG64(7))
    want_beta = np.empty(n)
    want_u = np.empty(n)
    for k in range(n):
        want_beta[k] = rng_numpy.beta(a[k], b[k])
        want_u[k] = rng_numpy.random()
    assert np.array_equal(got_beta, want_beta)
    assert np.array_equal(got_u, want_u)
    assert rng_numba.bit_generator.state == rng_numpy.bit_generator.state


def test_reference_receives_the_default_alpha():
    assert canonical_params(ALGORITHM, {}) == {"alpha": 0.51}
    tap = _Tap()
    reference_pairs(tap, "cyclic", 5, algorithm=ALGORITHM)
    assert tap.ref.alpha == 0.51


@pytest.mark.parametrize("seed,run", SEEDS)
@pytest.mark.parametrize("name,T", [
    ("cyclic", 3000),     # K = 4, Condorcet winner
    ("multisol", 3000),   # K = 5, three Copeland winners: Phase-2 exclusions, vote ties
    ("gap", 3000),
    ("arxiv", 3000),      # K = 6, small gaps and an exact tie p = 1/2
    ("sushi", 1500),      # K = 16
    ("random8", 3000),
])
def test_compiled_dts_equals_reference(name, T, seed, run):
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


@pytest.mark.parametrize("name,alpha", [("gap", 0.51), ("random8", 0.51), ("multisol", 0.6)])
def test_long_horizon_equals_reference(name, alpha):
    """T = 20 000: pairs resolved earlier become unresolved again as ln t grows (expiries from the
    module's heap), also late in the run."""
    T = 20_000
    ref = _compare(_instance(name), T, 5, 0, {"alpha": alpha})
    assert ref.events["expired"] > 0
    assert max(ref.expiry_times) > T // 4, ref.expiry_times


def test_reference_comparisons_reach_every_branch():
    """Together the instances above take every branch: |C| = 1 (no Phase-1 draw) and |C| > 1,
    mirrored Phase-1 samples, random vote ties, Phase-2 exclusions, a(2) = a(1), and expiries."""
    total = {}
    for name in ("cyclic", "multisol"):
        tap = _Tap()
        reference_pairs(tap, name, 3000, algorithm=ALGORITHM, seed=0, run=0)
        for k, v in tap.ref.events.items():
            total[k] = total.get(k, 0) + v
    assert all(v > 0 for v in total.values()), total


@pytest.mark.parametrize("t", [1, 2, 3, 50, 10**6])
def test_one_step_from_given_counts_equals_reference(t):
    """One ``select`` from many random count matrices: the same pair and the same random draws
    (equal generator states).  Small counts make |C| > 1, vote ties and Phase-2 exclusions
    frequent; at t = 1 (ln t = 0) the bounds are the empirical means, so pairs with equal counts
    sit exactly on the boundary u = l = 1/2 (counted in ζ̂, eligible in Phase 2)."""
    alpha = 0.51
    g = np.random.default_rng(t)
    for case in range(300):
        K = int(g.integers(2, 7))
        B = g.integers(0, 4, size=(K, K)).astype(np.float64)
        B[g.random((K, K)) < 0.3] = 0.0
        np.fill_diagonal(B, 0.0)
        state = dts.init(K, np.array([alpha]))
        state[0][:] = B
        cb_rebuild(state[1], state[0], math.log(t), alpha)
        ref = ReferenceDTS(K, t, {"alpha": alpha})
        ref.B = [[int(x) for x in row] for row in B]
        rng_compiled, rng_ref = np.random.default_rng(case), np.random.default_rng(case)
        got = tuple(int(x) for x in dts.select(state, t, rng_compiled))
        want = ref.select(t, rng_ref)
        assert got == want, (case, B)
        assert rng_compiled.bit_generator.state == rng_ref.bit_generator.state, (case, B)

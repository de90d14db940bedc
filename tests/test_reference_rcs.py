"""RCS (compiled, :mod:`duelbench.algorithms.rcs`) against the independent reference
:mod:`reference.rcs`, pair for pair on the engine's random streams.

The reference recomputes U from the counts at every step with the standard library only and
draws the posterior sample with numpy's ``Generator.beta`` in the same order as the compiled code
(numba's implementation of that method gives the same numbers for the same generator state:
``test_reference_dts.test_numba_beta_equals_numpy_beta``).  The champion rule (the sample's
Condorcet winner, strict comparisons with 1/2 read through θ_ji = 1 − θ_ij, the fallback to the
arm with the fewest champion steps and its ties), the challenger rule shared with RUCB and the
order of the random draws are what is under test.

Whole runs are compared at α = 0.51 (the default) and at other α, on instances with and without
a Condorcet winner; single steps from injected counts add t = 1, where bounds equal to 1/2 make
c take part in (and be left out of) ties for d, and check that both sides consume the same
number of random draws.
"""

import numpy as np
import pytest

from duelbench.algorithms import rcs
from duelbench.algorithms.registry import canonical_params

from _engine_helpers import random_matrix
from reference.driver import Tap, compare_with_engine, engine_pairs, reference_pairs
from reference.rcs import ReferenceRCS

pytestmark = pytest.mark.filterwarnings("ignore::duelbench.problems.matrix.TiedPairWarning")

ALGORITHM = "rcs"
#: (seed, run): run 0 and a later run, so the arm permutation and run streams vary.
SEEDS = [(0, 0), (1, 3)]


def _instance(name):
    return random_matrix(8, 11) if name == "random8" else name


def _Tap(**override):
    return Tap(ReferenceRCS, **override)


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
    ("cyclic", 3000),     # K = 4, Condorcet winner
    ("multisol", 3000),   # K = 5, no Condorcet winner: the fallback stays busy
    ("gap", 3000),
    ("arxiv", 3000),      # K = 6, small gaps and an exact tie p = 1/2
    ("sushi", 1000),      # K = 16
    ("random8", 3000),
])
def test_compiled_rcs_equals_reference(name, T, seed, run):
    _compare(_instance(name), T, seed, run)


@pytest.mark.parametrize("name,alpha", [("multisol", 0.6), ("random8", 0.6), ("cyclic", 1.5)])
def test_changed_alpha_equals_reference_with_that_alpha(name, alpha):
    """α is passed through: the compiled run equals the reference at that α, and a reference kept
    at α = 0.51 on the same random stream does not."""
    P = _instance(name)
    T, seed, run = 3000, 2, 1
    assert _compare(P, T, seed, run, {"alpha": alpha}).alpha == alpha
    stale = reference_pairs(_Tap(alpha=0.51), P, T, algorithm=ALGORITHM, params={"alpha": alpha}, seed=seed, run=run)
    assert not np.array_equal(stale, engine_pairs(ALGORITHM, P, T, seed, run, {"alpha": alpha}))


def test_long_horizon_equals_reference():
    """T = 20 000 on an instance with a Condorcet winner (arm 0 of "cyclic", gaps 0.1): the sample
    winner takes over from the fallback, and d = c (every other arm's u_jc below 1/2) alternates
    with exploration as ln t grows."""
    ref = _compare("cyclic", 20_000, 5, 0)
    assert ref.events["sample_winner"] > 15_000, ref.events
    assert ref.events["d_is_c"] > 10_000, ref.events


def test_reference_comparisons_reach_every_branch_but_one():
    """The whole runs take every branch except "c left out of a tie for d", which needs a bound
    exactly 1/2 (only at t = 1, checked from injected counts below): a sample winner and the
    fallback, fallback ties, random ties for d, and d = c."""
    total = {}
    for name in ("cyclic", "multisol"):
        tap = _Tap()
        reference_pairs(tap, name, 3000, algorithm=ALGORITHM, seed=0, run=0)
        for k, v in tap.ref.events.items():
            total[k] = total.get(k, 0) + v
    assert total.pop("c_left_out") == 0
    assert all(v > 0 for v in total.values()), total


@pytest.mark.parametrize("t", [1, 2, 3, 50, 10**6])
def test_one_step_from_given_counts_equals_reference(t):
    """One ``select`` from many random count matrices and champion counts: the same pair, the same
    champion counts afterwards and the same random draws (equal generator states).  Small counts
    make the fallback and its ties frequent; at t = 1 (ln t = 0) the bounds are the empirical
    means, so u_jc = 1/2 = u_cc happens and c is left out of the tie."""
    g = np.random.default_rng(t)
    events = {}
    for case in range(300):
        alpha = 0.51 if case % 2 else 0.8
        K = int(g.integers(2, 7))
        W = g.integers(0, 4, size=(K, K)).astype(np.float64)
        W[g.random((K, K)) < 0.3] = 0.0
        np.fill_diagonal(W, 0.0)
        champ = g.integers(0, 3, size=K).astype(np.int64)
        state = rcs.init(K, np.array([alpha]))
        state[0][:] = W
        state[2][:] = champ
        ref = ReferenceRCS(K, t, {"alpha": alpha})
        ref.W = [[int(x) for x in row] for row in W]
        ref.champion_steps = [int(x) for x in champ]
        rng_compiled, rng_ref = np.random.default_rng(case), np.random.default_rng(case)
        got = tuple(int(x) for x in rcs.select(state, t, rng_compiled))
        want = ref.select(t, rng_ref)
        assert got == want, (case, W, champ)
        assert list(state[2]) == ref.champion_steps, (case, W, champ)
        assert rng_compiled.bit_generator.state == rng_ref.bit_generator.state, (case, W, champ)
        for k, v in ref.events.items():
            events[k] = events.get(k, 0) + v
    assert events["fallback"] > 0 and events["sample_winner"] > 0 and events["d_tie"] > 0
    if t == 1:
        assert events["c_left_out"] > 0, events

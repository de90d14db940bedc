"""Sparring (compiled, :mod:`duelbench.algorithms.sparring`) against the independent reference
:mod:`reference.sparring`, pair for pair on the engine's random streams.

The reference recomputes both machines' UCB indices from their integer counts at every step in
its own code; the module keeps float counts, computes ``(α + 2) ln t / 2`` once per step and
divides it by n.  Whole runs are compared on several instances, seeds and runs at the default
α = 3.0 and at α = 1.0; single steps from injected counts add t = 1 (ln t = 0, where a played
arm's index is its mean and ties with unplayed arms are frequent) and states with many equal
indices.
"""

import numpy as np
import pytest

from duelbench.algorithms import sparring
from duelbench.algorithms.registry import canonical_params

from _engine_helpers import random_matrix
from reference.driver import Tap, compare_with_engine, engine_pairs, reference_pairs
from reference.sparring import ReferenceSparring

pytestmark = pytest.mark.filterwarnings("ignore::duelbench.problems.matrix.TiedPairWarning")

ALGORITHM = "sparring"
#: (seed, run): run 0 and later runs, so the arm permutation and the duel outcomes vary.
SEEDS = [(0, 0), (1, 3), (4, 2)]


def _linear(u):
    """Utility-based instance with the linear link of Ailon et al.: P_ij = (1 + u_i − u_j)/2."""
    u = np.asarray(u, dtype=np.float64)
    return (1.0 + u[:, None] - u[None, :]) / 2.0


LINEAR6 = _linear([0.9, 0.7, 0.6, 0.5, 0.3, 0.1])


def _instance(name):
    return {"random8": random_matrix(8, 11), "linear6": LINEAR6}.get(name, name)


def _compare(P, T, seed, run, params=None):
    return compare_with_engine(Tap(ReferenceSparring), ALGORITHM, P, T, seed, run, params)


def test_reference_receives_the_default_alpha():
    assert canonical_params(ALGORITHM, {}) == {"alpha": 3.0}
    tap = Tap(ReferenceSparring)
    reference_pairs(tap, "cyclic", 5, algorithm=ALGORITHM)
    assert tap.ref.alpha == 3.0


@pytest.mark.parametrize("seed,run", SEEDS)
@pytest.mark.parametrize("name,T", [
    ("cyclic", 3000),     # K = 4, no Condorcet winner
    ("multisol", 3000),   # K = 5, three Copeland winners
    ("arxiv", 3000),      # K = 6, small gaps and an exact tie p = 1/2
    ("sushi", 2000),      # K = 16
    ("random8", 3000),
    ("linear6", 3000),    # utility-based (Ailon et al.'s setting)
])
def test_compiled_sparring_equals_reference(name, T, seed, run):
    _compare(_instance(name), T, seed, run)


@pytest.mark.parametrize("name", ["multisol", "random8", "linear6"])
def test_changed_alpha_equals_reference_with_that_alpha(name):
    """α = 1.0 is passed through: the compiled run equals the reference at α = 1.0, and a reference
    kept at α = 3.0 on the same (α = 1.0) random stream does not."""
    P = _instance(name)
    T, seed, run = 3000, 2, 1
    assert _compare(P, T, seed, run, {"alpha": 1.0}).alpha == 1.0
    stale = reference_pairs(Tap(ReferenceSparring, alpha=3.0), P, T, algorithm=ALGORITHM, params={"alpha": 1.0},
                            seed=seed, run=run)
    assert not np.array_equal(stale, engine_pairs(ALGORITHM, P, T, seed, run, {"alpha": 1.0}))


def test_long_horizon_equals_reference():
    _compare("arxiv", 30_000, 5, 0)


def test_reference_comparisons_reach_every_branch():
    """The runs above take every branch: ties (always at t = 1), an unplayed arm chosen while
    another is played, a(1) = a(2) and a(1) ≠ a(2)."""
    tap = Tap(ReferenceSparring)
    reference_pairs(tap, "multisol", 3000, algorithm=ALGORITHM, seed=0, run=0)
    assert all(v > 0 for v in tap.ref.events.values()), tap.ref.events


@pytest.mark.parametrize("t", [1, 2, 3, 50, 10**6])
@pytest.mark.parametrize("alpha", [3.0, 0.5])
def test_one_step_from_given_counts_equals_reference(t, alpha):
    """One ``select`` from many random statistics: the same pair, and no random draw consumed.
    Small counts make equal indices frequent (equal (S, n) on several arms, unplayed arms, and at
    t = 1 played arms of mean 1 tying with the unplayed index 1)."""
    g = np.random.default_rng(t)
    ties = 0
    for case in range(400):
        K = int(g.integers(1, 8))
        n = g.integers(0, 4, size=(2, K))
        S = np.minimum(g.integers(0, 4, size=(2, K)), n)
        state = sparring.init(K, np.array([alpha]))
        state[0][:] = n
        state[1][:] = S
        ref = ReferenceSparring(K, t, {"alpha": alpha})
        ref.n = [[int(x) for x in row] for row in n]
        ref.S = [[int(x) for x in row] for row in S]
        rng = np.random.default_rng(case)
        before = rng.bit_generator.state
        got = tuple(int(x) for x in sparring.select(state, t, rng))
        want = ref.select(t, None)
        assert got == want, (case, n, S)
        assert rng.bit_generator.state == before
        ties += ref.events["tie"]
    assert ties > 50

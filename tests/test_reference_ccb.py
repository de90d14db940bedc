"""CCB (compiled, :mod:`duelbench.algorithms.ccb`) against the independent reference
:mod:`reference.ccb` (Zoghi et al. 2015, Algorithm 1, L82–111), pair for pair on the engine's
random streams.

The reference recomputes U, L, the optimistic and pessimistic Copeland scores, C_t, the checks
of 9A–9C, the set S of line 10 and the argmax of line 13 from the win counts at every step;
the module's incremental relation (heap of expiry times), its O(1) 9A test, its dirty-shortlist
bookkeeping in 9C, its sets S and "unresolved partners" and the exact order of its random draws
are what is under test.

Confidence failures (9A resets, B = ∅ in 9B, shortlists emptied by 9C) are practically never
seen at α = 0.51 within a few thousand steps; they are reached with α < 1/2, which the registry
refuses (α > 1/2 is the algorithm's requirement), by calling the compiled kernel directly.
"""

import numpy as np
import pytest

from duelbench.algorithms.registry import canonical_params
from duelbench.engine.loop import run_algorithm

from _engine_helpers import random_matrix
from reference.driver import Tap, engine_pairs, first_difference, play_reference, reference_pairs
from reference.ccb import ReferenceCCB

pytestmark = pytest.mark.filterwarnings("ignore::duelbench.problems.matrix.TiedPairWarning")

ALGORITHM = "ccb"
#: (seed, run): run 0 and a later run, so the arm permutation and the run stream vary.
SEEDS = [(0, 0), (1, 3)]


def _near_ties(K, seed, high):
    """A random K-armed instance whose gaps |p_ij − 1/2| are uniform on [0, high)."""
    rng = np.random.default_rng(seed)
    P = np.full((K, K), 0.5)
    for i in range(K):
        for j in range(i + 1, K):
            g = rng.uniform(0.0, high) * (1 if rng.random() < 0.5 else -1)
            P[i, j] = 0.5 + g
            P[j, i] = 0.5 - g
    return P


def _instance(name):
    return {"random8": random_matrix(8, 11), "random20": random_matrix(20, 5)}.get(name, name)


def _Tap(**override):
    return Tap(ReferenceCCB, **override)


def _compiled(P, T, seed, run, params):
    return engine_pairs(ALGORITHM, P, T, seed, run, params)


def _fail_at_first_difference(ref, got, events):
    pytest.fail(first_difference(ref, got, events))


def _compare(P, T, seed, run, params=None, tap=None):
    """Reference and compiled pairs of one run must be equal; returns the reference."""
    tap = tap or _Tap()
    ref = reference_pairs(tap, P, T, algorithm=ALGORITHM, params=params, seed=seed, run=run)
    got = _compiled(P, T, seed, run, params or {})
    if not np.array_equal(ref, got):
        _fail_at_first_difference(ref, got, tap.ref.events)
    return tap.ref


def test_reference_receives_the_default_alpha():
    assert canonical_params(ALGORITHM, {}) == {"alpha": 0.51}
    tap = _Tap()
    reference_pairs(tap, "cyclic", 5, algorithm=ALGORITHM)
    assert tap.ref.alpha == 0.51


@pytest.mark.parametrize("seed,run", SEEDS)
@pytest.mark.parametrize("name,T", [
    ("cyclic", 4000),                       # K = 4, Condorcet winner: 9B removals, 9C, trims, line 10
    ("multisol", 4000),                     # K = 5, three Copeland winners in a cycle, L_C = 1
    ("mslr5_noncondorcet_printed", 4000),   # K = 5, no Condorcet winner
    ("mslr5_condorcet_printed", 3000),
    ("gap", 3000),
    ("arxiv", 3000),                        # K = 6, small gaps and an exact tie p = 1/2
    ("sushi", 1200),                        # K = 16: many ties among unexplored opponents
    ("random8", 3000),
    ("random20", 1500),                     # K = 20: more than 16 tied opponents early in a run
])
def test_compiled_ccb_equals_reference(name, T, seed, run):
    _compare(_instance(name), T, seed, run)


@pytest.mark.parametrize("name,seed,run", [("multisol", 2, 1), ("cyclic", 5, 0), ("arxiv", 4, 2)])
def test_long_horizon_equals_reference(name, seed, run):
    """T = 15 000: resolved pairs expire as ln t grows, shortlists are rebuilt, trimmed and
    explored (line 10) long after the start."""
    ref = _compare(name, 15_000, seed, run)
    assert ref.events["removed"] > 0 and ref.events["added"] > 0 and ref.events["line10"] > 0, ref.events


def test_changed_alpha_equals_reference_with_that_alpha():
    """α = 0.7 is passed through: the compiled run equals the reference at α = 0.7, and a
    reference kept at α = 0.51 on the same (α = 0.7) random stream does not."""
    T, seed, run = 3000, 2, 1
    assert _compare("cyclic", T, seed, run, {"alpha": 0.7}).alpha == 0.7
    stale = reference_pairs(_Tap(alpha=0.51), "cyclic", T, algorithm=ALGORITHM, params={"alpha": 0.7},
                            seed=seed, run=run)
    assert not np.array_equal(stale, _compiled("cyclic", T, seed, run, {"alpha": 0.7}))


def test_shortlist_branches_are_reached_at_the_default_alpha():
    """At α = 0.51, cyclic and multisol (runs of the comparison above) take 9B (removal and
    rebuild), 9C (additions and random trims), line 10, the 2/3 restriction of line 11, line 13
    on B^c and its fall-back to [K], ties for d and d = c."""
    total = {}
    for name, seed, run in (("cyclic", 0, 3), ("multisol", 0, 0), ("cyclic", 0, 0)):
        tap = _Tap()
        reference_pairs(tap, name, 4000, algorithm=ALGORITHM, seed=seed, run=run)
        for k, v in tap.ref.events.items():
            total[k] = total.get(k, 0) + v
    for k in ("removed", "rebuilt", "added", "trimmed", "line10", "restricted", "shortlist_d", "fallback",
              "d_tie", "d_is_c"):
        assert total[k] > 0, (k, total)


# ----------------------------------------------------------------------------- confidence failures
#: (name, instance, α, seed, T, branches that must be taken); α < 1/2 makes confidence failures
#: frequent, so the resets of 9A and 9B and the emptied shortlists of 9C are reached.
STRESS = [
    ("near5-9B", _near_ties(5, 2, 0.15), 0.1, 0, 3000, ("reset_9B", "emptied", "trimmed")),
    ("near4-9A", _near_ties(4, 4, 0.1), 0.1, 0, 3000, ("reset_9A", "line10", "shortlist_d")),
    # 9A on the shortlist of the opponent d (c ∈ B^d and now d confidently beats c)
    ("near4-9A-opponent", _near_ties(4, 8, 0.1), 0.1, 0, 3000, ("reset_9A_owner_d",)),
    ("near3-9A-opponent", _near_ties(3, 1, 0.1), 0.15, 1, 3000, ("reset_9A_owner_d",)),
    ("near5-9A", _near_ties(5, 0, 0.1), 0.1, 1, 3000, ("reset_9A", "emptied", "trimmed")),
    ("near6-9A", _near_ties(6, 0, 0.2), 0.15, 0, 3000, ("reset_9A", "trimmed", "line10")),
]


@pytest.mark.parametrize("name,P,alpha,seed,T,branches", STRESS, ids=[s[0] for s in STRESS])
def test_kernel_equals_reference_through_resets(name, P, alpha, seed, T, branches):
    K = P.shape[0]
    ref = ReferenceCCB(K, T, {"alpha": alpha})
    expected = play_reference(ref, P, T, np.random.default_rng(seed))
    _, got = run_algorithm("ccb", np.ascontiguousarray(P), np.zeros((1, K, K)), np.array([T], dtype=np.int64),
                           np.array([alpha]), np.random.default_rng(seed), True)
    if not np.array_equal(expected, got):
        _fail_at_first_difference(expected, got, ref.events)
    for k in branches:
        assert ref.events[k] > 0, (k, ref.events)

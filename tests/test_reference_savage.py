"""Copeland SAVAGE (compiled, :mod:`duelbench.algorithms.savage`) against the independent
reference :mod:`reference.savage`, pair for pair on the engine's random streams.

The reference recomputes, at every step and from the win counts alone, the Hoeffding intervals
(radius sqrt(ln(2NT/δ)/(2n)), δ = 1/T), the certain-beat relation, Cpld_up and Cpld_lo, the
"Indep" removals and the least-sampled pair of W; the module's round-robin linked list over W,
its incremental removal test, its empirical Copeland winner and its closed-form exploitation
are what is under test.

The algorithm needs the horizon T in advance (δ = 1/T): the engine runs it once per checkpoint
from the start of the run's stream.  Most comparisons use ``checkpoints=[T]`` (one run); one
uses the engine's default horizon grid and checks the pairs of the final run and the regret of
every horizon point.
"""

import numpy as np
import pytest

import duelbench
from duelbench.data.registry import load_matrix

from _engine_helpers import random_matrix
from reference.driver import reference_pairs
from reference.savage import ReferenceSavage

pytestmark = pytest.mark.filterwarnings("ignore::duelbench.problems.matrix.TiedPairWarning")

ALGORITHM = "copeland_savage"
SEEDS = [(0, 0), (1, 3)]

INSTANCES = {
    "random4": random_matrix(4, 2),
    "random5": random_matrix(5, 1),
    "random6": random_matrix(6, 3),
}


def _instance(name):
    return INSTANCES.get(name, name)


class _Tap:
    """A ``ref_cls`` for :func:`reference_pairs` that keeps the reference it builds; ``scale``
    multiplies the horizon the reference is told (its δ = 1/T), not the number of pairs played."""

    def __init__(self, scale=1):
        self.scale = scale
        self.ref = None

    def __call__(self, K, horizon, params):
        self.ref = ReferenceSavage(K, horizon * self.scale, params)
        return self.ref


def _compiled(P, T, seed, run, checkpoints=None):
    r = duelbench.simulate(ALGORITHM, P, T, 1, seed, run_start=run, record_pairs=True,
                           checkpoints=[T] if checkpoints is None else checkpoints)
    return r


def _compare(name, T, seed, run):
    """Reference and compiled pairs of one run (horizon T) must be equal; returns the reference."""
    tap = _Tap()
    P = _instance(name)
    ref = reference_pairs(tap, P, T, algorithm=ALGORITHM, seed=seed, run=run)
    got = _compiled(P, T, seed, run).pairs[0]
    if not np.array_equal(ref, got):
        t = int(np.argmax(np.any(ref != got, axis=1)))
        pytest.fail(f"first difference at t = {t + 1}: reference {tuple(ref[t])}, compiled {tuple(got[t])}; "
                    f"reference events {tap.ref.events}, exploration steps {tap.ref.explored}")
    return tap.ref


@pytest.mark.parametrize("seed,run", SEEDS)
@pytest.mark.parametrize("name,T,commits,resolves", [
    ("multisol", 20_000, True, True),     # three Copeland winners: ties in empirical wins, "Indep" removals
    ("cyclic", 20_000, True, True),
    ("mslr5_condorcet_printed", 40_000, True, True),
    ("random4", 5_000, True, True),
    ("random5", 10_000, True, True),
    ("random6", 20_000, True, True),
    ("arxiv", 20_000, False, True),       # an exact tie p = 1/2: that pair is never resolved
    ("gap", 20_000, False, True),
    ("sushi", 10_000, False, True),       # K = 16: 120 pairs in the round robin
    ("mslr5_noncondorcet_printed", 5_000, False, False),  # gaps too small to resolve a pair here
])
def test_compiled_savage_equals_reference(name, T, commits, resolves, seed, run):
    ref = _compare(name, T, seed, run)
    assert (ref.winner is not None) == commits, (ref.explored, ref.events)
    assert (ref.events["resolved"] > 0) == resolves, ref.events


def test_reference_reaches_every_branch():
    """Over the instances above: pairs resolved by their interval, pairs removed by the
    "Indep" test only, exploitation, a tie in empirical wins broken by Cpld_lo."""
    total = {}
    for name, T, seed, run in (("multisol", 20_000, 0, 0), ("random6", 20_000, 0, 0), ("multisol", 20_000, 1, 3)):
        tap = _Tap()
        reference_pairs(tap, _instance(name), T, algorithm=ALGORITHM, seed=seed, run=run)
        for k, v in tap.ref.events.items():
            total[k] = total.get(k, 0) + v
    assert all(v > 0 for v in total.values()), total


@pytest.mark.parametrize("name", ["multisol", "random6"])
def test_horizon_enters_through_delta(name):
    """Horizons T = 2 000, 5 000 and 20 000 on one stream: each equals the reference told that
    T, and a reference told 2T (δ = 1/(2T)) on the same stream does not."""
    P = _instance(name)
    seed, run = 2, 1
    lengths = set()
    for T in (2_000, 5_000, 20_000):
        lengths.add(_compare(name, T, seed, run).explored)
    assert len(lengths) > 1, lengths
    stale = reference_pairs(_Tap(scale=2), P, 20_000, algorithm=ALGORITHM, seed=seed, run=run)
    assert not np.array_equal(stale, _compiled(P, 20_000, seed, run).pairs[0])


def _copeland_regret(P):
    """r_ij = (L_i + L_j − 2 min_k L_k) / (2 (K − 1)), L_i = #{j : p_ij < 1/2} (Komiyama et al.
    2016, L71)."""
    P = np.asarray(P, dtype=float)
    K = P.shape[0]
    L = (P < 0.5).sum(axis=1)
    return (L[:, None] + L[None, :] - 2 * L.min()) / (2.0 * (K - 1))


@pytest.mark.parametrize("name,seed,run", [("multisol", 0, 2), ("cyclic", 3, 0)])
def test_default_horizon_grid_runs_each_horizon_from_the_start(name, seed, run):
    """Default checkpoints: the recorded pairs are those of the run with the final horizon, and
    the regret at every horizon point c equals the regret of the reference's run with T = c."""
    T = 30_000
    r = duelbench.simulate(ALGORITHM, name, T, 1, seed, run_start=run, record_pairs=True)
    assert len(r.checkpoints) > 5
    final = reference_pairs(_Tap(), name, T, algorithm=ALGORITHM, seed=seed, run=run)
    assert np.array_equal(r.pairs[0], final)
    R = _copeland_regret(load_matrix(name).values)
    expected = []
    for c in r.checkpoints:
        pairs = reference_pairs(_Tap(), name, int(c), algorithm=ALGORITHM, seed=seed, run=run)
        expected.append(R[pairs[:, 0], pairs[:, 1]].sum())
    np.testing.assert_allclose(r.regrets["copeland"][0], expected, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("seed,run", SEEDS)
@pytest.mark.parametrize("name,T", [("multisol", 20_000), ("random6", 20_000), ("cyclic", 20_000)])
def test_strict_independence_variant_equals_reference(name, T, seed, run):
    """The labelled reading ``strict_independence = 1`` (Indep test with ``<``) equals the
    reference with the same test, pair for pair."""
    params = {"strict_independence": 1.0}
    tap = _Tap()
    P = _instance(name)
    ref = reference_pairs(tap, P, T, algorithm=ALGORITHM, seed=seed, run=run, params=params)
    got = duelbench.simulate(ALGORITHM, P, T, 1, seed, run_start=run, record_pairs=True, checkpoints=[T],
                             **params).pairs[0]
    assert np.array_equal(ref, got)


def test_the_readings_differ_where_arms_tie_with_the_certified_score():
    """On MultiSol (three Copeland winners of equal score) the strict test keeps the tied
    winners' pairs, so fewer pairs leave W by the Indep test than with ``<=`` (summed over runs:
    the two readings draw from different streams)."""
    removed = {0.0: 0, 1.0: 0}
    for run in range(8):
        for strict in removed:
            tap = _Tap()
            reference_pairs(tap, "multisol", 20_000, algorithm=ALGORITHM, seed=0, run=run,
                            params={"strict_independence": strict})
            assert tap.ref.winner is not None
            removed[strict] += tap.ref.events["indep_removed"]
    assert removed[1.0] < removed[0.0], removed

"""Beat-the-Mean (compiled, :mod:`duelbench.algorithms.btm`) against the independent reference
:mod:`reference.btm`, pair for pair on the engine's random streams.

The reference recomputes, at every step and from the per-pair counts alone, each arm's record
against the working set (n_b, w_b summed over the opponents still in W), P̂_b, n* and the radius
c = f·γ²·sqrt(ln(2KT)/n*); the module's incremental records, its deletion of the comparisons
against a removed arm, its tie-breaking and its closed-form exploitation are what is under test.

BTM needs the horizon T in advance (δ = 1/(2KT)): the engine runs it once per horizon point from
the start of the run's stream.  Most comparisons use ``checkpoints=[T]`` (one run); one uses the
engine's default horizon grid and checks the pairs of the final run and the regret of every
horizon point.  Small ``confidence_factor`` values (the default is Yue & Joachims' 3) make the
removals happen within horizons the slow reference can play.
"""

import numpy as np
import pytest

import duelbench
from duelbench.data.registry import load_matrix

from _engine_helpers import ARXIV, MULTISOL, random_matrix
from reference.driver import Tap, compare_with_engine, reference_pairs
from reference.btm import ReferenceBTM

pytestmark = pytest.mark.filterwarnings("ignore::duelbench.problems.matrix.TiedPairWarning")

ALGORITHM = "btm"
SEEDS = [(0, 0), (1, 3)]

# a Condorcet winner (arm 2) with gaps ≥ 0.2: every arm's record against W is well separated
EASY = np.array([
    [0.5, 0.7, 0.3, 0.8],
    [0.3, 0.5, 0.2, 0.7],
    [0.7, 0.8, 0.5, 0.9],
    [0.2, 0.3, 0.1, 0.5],
])
# deterministic outcomes, a 3-cycle plus an arm that loses to all: exact ties in P̂ (the
# removal's lowest-index rule) are frequent
CYCLE_DET = np.array([
    [0.5, 1.0, 0.0, 1.0],
    [0.0, 0.5, 1.0, 1.0],
    [1.0, 0.0, 0.5, 1.0],
    [0.0, 0.0, 0.0, 0.5],
])

INSTANCES = {
    "easy": EASY,
    "cycle_det": CYCLE_DET,
    "arxiv": ARXIV,
    "multisol": MULTISOL,
    "random6": random_matrix(6, 3),
}


def _instance(name):
    return INSTANCES.get(name, name)


def _compare(name, T, seed, run, params=None):
    """Reference and compiled pairs of one run (horizon T) must be equal; returns the reference."""
    return compare_with_engine(Tap(ReferenceBTM), ALGORITHM, _instance(name), T, seed, run,
                               {**(params or {})})


@pytest.mark.parametrize("seed,run", SEEDS)
@pytest.mark.parametrize("name,T,params,commits", [
    ("easy", 60_000, {}, False),                                       # the defaults: two removals by T
    ("easy", 20_000, {"confidence_factor": 1.0}, True),
    ("easy", 20_000, {"confidence_factor": 1.0, "gamma": 1.0}, True),
    ("cycle_det", 2_000, {"confidence_factor": 0.1}, None),            # a balanced 3-cycle may never resolve
    ("multisol", 20_000, {"confidence_factor": 0.5}, False),
    ("arxiv", 20_000, {"confidence_factor": 0.3}, None),               # one seed commits, one does not
    ("random6", 10_000, {"confidence_factor": 0.5, "gamma": 1.0}, True),
    ("sushi", 12_000, {"confidence_factor": 0.5}, False),              # K = 16
    ("mslr5_condorcet_printed", 20_000, {"confidence_factor": 0.5}, None),
])
def test_compiled_btm_equals_reference(name, T, params, commits, seed, run):
    ref = _compare(name, T, seed, run, params)
    assert ref.events["removal"] > 0, ref.events
    if commits is not None:
        assert (ref.winner is not None) == commits, (ref.explored, ref.removed)


@pytest.mark.parametrize("seed,run", SEEDS)
@pytest.mark.parametrize("name,T,params", [
    ("easy", 20_000, {"confidence_factor": 1.0}),
    ("cycle_det", 2_000, {"confidence_factor": 0.1}),
    ("random6", 10_000, {"confidence_factor": 0.5, "gamma": 1.0}),
    ("sushi", 12_000, {"confidence_factor": 0.5}),
])
def test_opponent_excludes_self_variant_equals_reference(name, T, params, seed, run):
    ref = _compare(name, T, seed, run, {**params, "opponent_excludes_self": 1.0})
    assert ref.events["self"] == 0 and ref.events["removal"] > 0, ref.events


def test_reference_reaches_every_branch():
    """Over a few runs: ties on b, self-comparisons, removals, a tie in P̂ at a removal, and
    exploitation."""
    total = {}
    for name, T, params, seed, run in (("easy", 20_000, {"confidence_factor": 1.0}, 0, 0),
                                       ("cycle_det", 2_000, {"confidence_factor": 0.1}, 0, 0),
                                       ("cycle_det", 2_000, {"confidence_factor": 0.1}, 1, 3)):
        ref = _compare(name, T, seed, run, params)
        for k, v in ref.events.items():
            total[k] = total.get(k, 0) + v
    assert all(v > 0 for v in total.values()), total


def test_horizon_enters_through_delta():
    """Horizons T = 2 000, 5 000 and 20 000 on one stream: each equals the reference told that
    T, and a reference told 2T (δ = 1/(4KT)) on the same stream does not."""
    params = {"confidence_factor": 1.0}
    seed, run = 2, 1
    explored = set()
    for T in (2_000, 5_000, 20_000):
        explored.add(_compare("easy", T, seed, run, params).explored)
    assert len(explored) > 1, explored

    class Stale(ReferenceBTM):
        def __init__(self, K, horizon, p):
            super().__init__(K, 2 * horizon, p)

    stale = reference_pairs(Stale, EASY, 20_000, algorithm=ALGORITHM, seed=seed, run=run, params=params)
    got = duelbench.simulate(ALGORITHM, EASY, 20_000, 1, seed, run_start=run, record_pairs=True,
                             checkpoints=[20_000], **params).pairs[0]
    assert not np.array_equal(stale, got)


def _condorcet_regret(P):
    """r_ij = (Δ_i + Δ_j)/2, Δ_i = p_{c i} − 1/2 for the Condorcet winner c."""
    P = np.asarray(P, dtype=float)
    c = int(np.flatnonzero(((P > 0.5) | np.eye(len(P), dtype=bool)).all(axis=1))[0])
    d = P[c] - 0.5
    return (d[:, None] + d[None, :]) / 2.0


@pytest.mark.parametrize("name,seed,run", [("easy", 0, 2), ("mslr5_condorcet_printed", 3, 0)])
def test_default_horizon_grid_runs_each_horizon_from_the_start(name, seed, run):
    """Default checkpoints: the recorded pairs are those of the run with the final horizon, and
    the regret at every horizon point c equals the regret of the reference's run with T = c."""
    T = 20_000
    params = {"confidence_factor": 0.5}
    r = duelbench.simulate(ALGORITHM, _instance(name), T, 1, seed, run_start=run, record_pairs=True, **params)
    assert len(r.checkpoints) > 5
    final = reference_pairs(ReferenceBTM, _instance(name), T, algorithm=ALGORITHM, seed=seed, run=run,
                            params=params)
    assert np.array_equal(r.pairs[0], final)
    P = load_matrix(name).values if isinstance(_instance(name), str) else _instance(name)
    R = _condorcet_regret(P)
    expected = []
    for c in r.checkpoints:
        pairs = reference_pairs(ReferenceBTM, _instance(name), int(c), algorithm=ALGORITHM, seed=seed, run=run,
                                params=params)
        expected.append(R[pairs[:, 0], pairs[:, 1]].sum())
    np.testing.assert_allclose(r.regrets["condorcet"][0], expected, rtol=1e-9, atol=1e-9)

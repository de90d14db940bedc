"""Condorcet SAVAGE (compiled, :mod:`duelbench.algorithms.condorcet_savage`) against the
independent reference :mod:`reference.condorcet_savage`, pair for pair on the engine's random
streams.

The reference recomputes, at every step and from the win counts alone, the Hoeffding intervals
(radius sqrt(ln(2NT/δ)/(2n)), δ = 1/T), the certain-beat relation, every arm's number of
certain losses, the Condorcet removals and the least-sampled pair of W; the module's round-robin
list over W (shared with Copeland SAVAGE), its incremental removal test, its exploited arm and
its closed-form exploitation are what is under test.

Both readings of the registered parameter ``assume_condorcet_winner`` are compared through the
engine (``simulate(..., assume_condorcet_winner=1 or 0)``, whose random stream is keyed by the
canonical parameters): 1, the default (a pair leaves W as soon as one of its arms is certainly
beaten), and 0 (the exact test: only when both are).

Instances with a Condorcet winner (MSLR Condorcet, ArXiv with its exact tie, Cyclic, Sushi,
two random ones) and without one (MultiSol, Gap, MSLR non-Condorcet, a random one, where every
arm can end up certainly beaten under the exact test).  The algorithm needs the horizon T in
advance (δ = 1/T): most comparisons use ``checkpoints=[T]`` (one run); one uses the engine's
default horizon grid.
"""

import numpy as np
import pytest

import duelbench
from duelbench.algorithms import condorcet_savage
from duelbench.algorithms.registry import canonical_params, get_algorithm, params_array
from duelbench.data.registry import load_matrix
from duelbench.engine.seeding import run_permutation, run_rng
from duelbench.engine.simulate import permuted_instance, regret_stack
from duelbench.problems.matrix import PreferenceMatrix
from duelbench.problems.regret import regret_matrix

from _engine_helpers import random_matrix
from reference.condorcet_savage import ReferenceCondorcetSavage
from reference.driver import Tap, first_difference, reference_pairs

pytestmark = pytest.mark.filterwarnings("ignore::duelbench.problems.matrix.TiedPairWarning")

ALGORITHM = "condorcet_savage"
SEEDS = [(0, 0), (1, 3)]

INSTANCES = {
    "random4_cw": random_matrix(4, 2),   # Condorcet winner, gaps ≥ 0.18
    "random5_cw": random_matrix(5, 1),   # Condorcet winner
    "random5_nocw": random_matrix(5, 2),  # no Condorcet winner
    "random6_cw": random_matrix(6, 3),   # Condorcet winner, one gap 0.015 between two other arms
}


def _matrix(name):
    if name in INSTANCES:
        return PreferenceMatrix(INSTANCES[name])
    return load_matrix(name)


def _instance(name):
    return INSTANCES.get(name, name)


def _readings():
    """``{"assume_condorcet_winner": 1}`` (the default) and ``{"assume_condorcet_winner": 0}``."""
    return [{"assume_condorcet_winner": 1.0}, {"assume_condorcet_winner": 0.0}]


READINGS = pytest.mark.parametrize("params", _readings(), ids=["assume_cw", "exact"])


def _compare(name, T, seed, run, params):
    """Reference and compiled pairs of one run (horizon T, registered parameters ``params``)
    must be equal; returns the reference."""
    tap = Tap(ReferenceCondorcetSavage)
    ref = reference_pairs(tap, _instance(name), T, algorithm=ALGORITHM, params=params, seed=seed, run=run)
    got = duelbench.simulate(ALGORITHM, _instance(name), T, 1, seed, run_start=run, record_pairs=True,
                             checkpoints=[T], **params).pairs[0]
    message = first_difference(ref, got, tap.ref.events)
    assert message is None, f"{message}; exploration steps {tap.ref.explored}"
    assert tap.ref.assume == (params["assume_condorcet_winner"] == 1.0)
    return tap.ref


def _kernel_pairs(name, T, seed, run, params):
    """The module's ``run`` kernel on the engine's seeding (permutation, and the stream of the
    registered algorithm with the canonical parameters of ``params``), given the params array of
    those canonical parameters; pairs in original labels."""
    M = _matrix(name)
    canon = canonical_params(ALGORITHM, params)
    perm, Pp, Rp = permuted_instance(M, regret_stack(M), seed, run)
    rng = run_rng(seed, M.identity, ALGORITHM, canon, run)
    _, pairs = condorcet_savage.run(Pp, Rp, np.array([T], dtype=np.int64), params_array(ALGORITHM, canon),
                                    rng, True)
    return perm[pairs]


@READINGS
@pytest.mark.parametrize("seed,run", SEEDS)
@pytest.mark.parametrize("name,T,commits,all_beaten", [
    ("mslr5_condorcet_printed", 60_000, True, False),
    ("arxiv", 150_000, True, False),       # the exact tie p = 1/2 is between two arms the winner beats
    ("cyclic", 20_000, True, False),       # Condorcet winner above a cycle
    ("random4_cw", 5_000, True, False),
    ("random5_cw", 20_000, True, False),
    ("random6_cw", 20_000, True, False),   # its gap of 0.015 is between two beaten arms: removed, not resolved
    ("multisol", 20_000, True, True),      # no Condorcet winner: every arm ends certainly beaten (exact test)
    ("gap", 20_000, True, True),
    ("random5_nocw", 20_000, True, True),
    ("sushi", 20_000, False, False),       # K = 16: 120 pairs in the round robin
    ("mslr5_noncondorcet_printed", 5_000, False, False),  # gaps too small to resolve a pair here
])
def test_compiled_condorcet_savage_equals_reference(name, T, commits, all_beaten, seed, run, params):
    """``all_beaten``: under the exact test (0) the exploration of an instance without a
    Condorcet winner ends with every arm certainly beaten.  Under the default (1) one arm always
    stays unbeaten, and the exploration ends with exactly K − 1 pairs resolved (the first certain
    loss of every other arm) and every other pair removed by the test."""
    ref = _compare(name, T, seed, run, params)
    M = _matrix(name)
    assume = params["assume_condorcet_winner"] == 1.0
    assert (ref.winner is not None) == commits, (ref.explored, ref.events)
    assert (ref.events["all_beaten"] > 0) == (all_beaten and not assume), ref.events
    if commits and assume:
        assert ref.events["resolved"] == M.K - 1, ref.events
        assert ref.events["indep_removed"] == M.K * (M.K - 1) // 2 - (M.K - 1), ref.events
    if commits and not all_beaten:
        # the unique arm without a certain loss, i.e. the Condorcet winner of the instance
        perm = run_permutation(seed, M.identity, run, M.K)
        cw = [a for a in range(M.K) if all(M.values[a, k] > 0.5 for k in range(M.K) if k != a)]
        assert [perm[ref.winner]] == cw


@READINGS
def test_reference_reaches_every_branch(params):
    """Over a few runs without a Condorcet winner (engine and reference compared): pairs resolved
    by their interval, pairs removed by the Condorcet test only, exploitation; under the exact
    test also a choice with every arm beaten and ties in L broken by the empirical wins and by the
    index.  Under the default reading those three never occur (the exploited arm is the only
    unbeaten one)."""
    total = {}
    cases = [("multisol", 20_000, 0, r) for r in range(6)] + [("gap", 20_000, 1, r) for r in range(4)]
    for name, T, seed, run in cases:
        ref = _compare(name, T, seed, run, params)
        for k, v in ref.events.items():
            total[k] = total.get(k, 0) + v
    if params["assume_condorcet_winner"] == 1.0:
        assert total["resolved"] > 0 and total["indep_removed"] > 0 and total["exploit"] > 0, total
        assert total["all_beaten"] == total["wins_decide"] == total["index_decides"] == 0, total
    else:
        assert all(v > 0 for v in total.values()), total


@READINGS
@pytest.mark.parametrize("name", ["arxiv", "random5_nocw"])
def test_horizon_enters_through_delta(name, params):
    """Horizons T = 2 000, 10 000 and 60 000 on one stream: each equals the reference told that
    T, and a reference told 2T (δ = 1/(2T)) on the same stream does not."""
    seed, run = 2, 1
    lengths = set()
    for T in (2_000, 10_000, 60_000):
        lengths.add(_compare(name, T, seed, run, params).explored)
    assert len(lengths) > 1, lengths

    class Doubled(ReferenceCondorcetSavage):
        def __init__(self, K, horizon, params):
            super().__init__(K, 2 * horizon, params)

    stale = reference_pairs(Doubled, _instance(name), 60_000, algorithm=ALGORITHM, params=params, seed=seed, run=run)
    got = duelbench.simulate(ALGORITHM, _instance(name), 60_000, 1, seed, run_start=run, record_pairs=True,
                             checkpoints=[60_000], **params).pairs[0]
    assert not np.array_equal(stale, got)


@READINGS
@pytest.mark.parametrize("name,seed,run", [("mslr5_condorcet_printed", 0, 2), ("cyclic", 3, 0)])
def test_default_horizon_grid_runs_each_horizon_from_the_start(name, seed, run, params):
    """Default checkpoints: the recorded pairs are those of the run with the final horizon, and
    the Condorcet regret at every horizon point c equals the regret of the reference's run with
    T = c."""
    T = 30_000
    r = duelbench.simulate(ALGORITHM, name, T, 1, seed, run_start=run, record_pairs=True, **params)
    assert len(r.checkpoints) > 5
    final = reference_pairs(ReferenceCondorcetSavage, name, T, algorithm=ALGORITHM, params=params, seed=seed,
                            run=run)
    assert np.array_equal(r.pairs[0], final)
    R = regret_matrix(load_matrix(name), "condorcet")
    expected = []
    for c in r.checkpoints:
        pairs = reference_pairs(ReferenceCondorcetSavage, name, int(c), algorithm=ALGORITHM, params=params,
                                seed=seed, run=run)
        expected.append(R[pairs[:, 0], pairs[:, 1]].sum())
    np.testing.assert_allclose(r.regrets["condorcet"][0], expected, rtol=1e-9, atol=1e-9)


def test_kernel_with_canonical_params_reproduces_the_engine():
    """The engine runs the kernel with ``params_array`` of the canonical parameters, on the
    stream keyed by them; no parameter given means the default reading 1, and the two readings
    are different runs."""
    assert get_algorithm(ALGORITHM).defaults == {"assume_condorcet_winner": 1.0}
    for name, T in (("multisol", 8_000), ("arxiv", 20_000)):
        default = duelbench.simulate(ALGORITHM, name, T, 1, 4, run_start=1, record_pairs=True,
                                     checkpoints=[T]).pairs[0]
        by_reading = {}
        for params in _readings():
            got = duelbench.simulate(ALGORITHM, name, T, 1, 4, run_start=1, record_pairs=True, checkpoints=[T],
                                     **params).pairs[0]
            assert np.array_equal(_kernel_pairs(name, T, 4, 1, params), got)
            by_reading[params["assume_condorcet_winner"]] = got
        assert np.array_equal(default, by_reading[1.0])
        assert np.array_equal(_kernel_pairs(name, T, 4, 1, {}), default)
        assert not np.array_equal(by_reading[0.0], by_reading[1.0])

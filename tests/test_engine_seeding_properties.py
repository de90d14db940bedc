"""Random streams and arm permutations of the engine (:mod:`duelbench.engine.seeding`).

Contract (module docstrings of ``seeding.py`` and ``simulate.py``): run r of a job uses the
generator ``run_rng(seed, dataset, algorithm, canonical params, r)`` and, with ``permute=True``,
the arm permutation ``run_permutation(seed, dataset, r, K)``, which does not depend on the
algorithm.  Consequences checked here for every registered algorithm:

(a) different run indices give different streams — also with ``permute=False``, where arm
    shuffling cannot hide a stream that ignores the run index;
(b) the permutation of run r depends on (seed, dataset, r) only, and is the documented one;
(c) results do not depend on the shard layout;
(d) adding runs to a job leaves the earlier runs unchanged;
(e) the seed and the parameters change the stream.

Two tiny pure-Python :class:`~duelbench.algorithms.registry.Policy` algorithms make the
permutation and the stream visible: they play arm ``(t − 1) mod K`` against itself in their own
labels, so the first K recorded pairs (original labels) spell out the permutation; one of them
also draws from its stream, and has a parameter it ignores.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import duelbench
import duelbench.problems.regret
from duelbench.algorithms import registry
from duelbench.algorithms.registry import AlgorithmSpec, canonical_params, get_algorithm, list_algorithms
from duelbench.data.registry import load_matrix
from duelbench.engine.result import RECORDED_KINDS, SimulationResult
from duelbench.engine.seeding import run_permutation, run_rng
from duelbench.problems.matrix import PreferenceMatrix

from _engine_helpers import ARXIV, random_matrix

ALGORITHMS = list_algorithms()


def _sim(alg, matrix, horizon, runs, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return duelbench.simulate(alg, matrix, horizon, runs, record_pairs=True, **kw)


def _assert_same_runs(a: SimulationResult, b: SimulationResult, label: str) -> None:
    assert np.array_equal(a.checkpoints, b.checkpoints), label
    assert np.array_equal(a.run_indices, b.run_indices), label
    assert np.array_equal(a.pairs, b.pairs), f"{label}: pairs differ"
    for kind in RECORDED_KINDS:
        assert np.array_equal(a.regrets[kind], b.regrets[kind], equal_nan=True), f"{label}: {kind} regret differs"


# --------------------------------------------------------------------------- probe policies
class CyclingProbe:
    """Plays ``((t − 1) mod K, (t − 1) mod K)``; draws nothing from its stream."""

    def __init__(self, K, horizon, rng, **params):
        self.K = K

    def select(self, t):
        k = (t - 1) % self.K
        return k, k

    def update(self, i, j, i_won, t):
        pass


class DrawingCyclingProbe(CyclingProbe):
    """As :class:`CyclingProbe` for t ≤ K, then two uniform arms per step from its stream.

    Its parameter ``unused`` does not change what it does, only (through the canonical
    parameters) which stream it gets.  Every instance keeps the outcomes it is told
    (``(t, i, j, i_won)``) in :attr:`outcomes`; the instances of a process are listed in
    :attr:`instances`.
    """

    instances: list = []

    def __init__(self, K, horizon, rng, unused=1.0):
        super().__init__(K, horizon, rng)
        self.rng = rng
        self.outcomes = []
        DrawingCyclingProbe.instances.append(self)

    def update(self, i, j, i_won, t):
        self.outcomes.append((t, i, j, bool(i_won)))

    def select(self, t):
        if t <= self.K:
            return super().select(t)
        return int(self.rng.integers(self.K)), int(self.rng.integers(self.K))


PROBES = {
    "zz_probe_cycling": AlgorithmSpec(name="zz_probe_cycling", title="probe", reference="test", defaults={},
                                      policy=CyclingProbe, module_file=__file__),
    "zz_probe_drawing": AlgorithmSpec(name="zz_probe_drawing", title="probe", reference="test",
                                      defaults={"unused": 1.0}, policy=DrawingCyclingProbe, module_file=__file__),
}


@pytest.fixture
def probes():
    """Register the probe algorithms for one test and remove them afterwards."""
    list_algorithms()  # discover the built-ins first
    for spec in PROBES.values():
        registry.register(spec)
    try:
        yield tuple(PROBES)
    finally:
        for name in PROBES:
            registry._REGISTRY.pop(name, None)
        assert not set(PROBES) & set(list_algorithms())


def _revealed_permutation(res: SimulationResult, row: int, K: int) -> np.ndarray:
    """The permutation of a probe run: step k + 1 plays its own arm k, recorded as perm[k]."""
    pairs = res.pairs[row, :K]
    assert np.array_equal(pairs[:, 0], pairs[:, 1])
    return pairs[:, 0].copy()


# --------------------------------------------------------------------------- (a) run index
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_run_index_changes_the_first_draw_of_the_stream(algorithm):
    canon = canonical_params(algorithm, {})
    first = [run_rng(0, "arxiv", algorithm, canon, r).random() for r in range(50)]
    assert len(set(first)) == 50
    again = [run_rng(0, "arxiv", algorithm, canon, r).random() for r in range(50)]
    assert first == again


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_runs_differ_without_arm_shuffling(algorithm):
    """With ``permute=False`` only the stream distinguishes runs: runs 0…5 are pairwise different."""
    res = _sim(algorithm, "multisol", 3000, 6, seed=0, permute=False)
    for a, b in itertools.combinations(range(6), 2):
        assert not np.array_equal(res.pairs[a], res.pairs[b]), (
            f"{algorithm}: runs {a} and {b} play identical pair sequences with permute=False "
            f"(does the random stream ignore the run index?)")
    for kind in ("copeland", "copeland_wu"):
        assert len(np.unique(res.regrets[kind][:, -1])) > 1, (algorithm, kind)


def test_probe_sees_the_documented_stream_and_permutation(probes):
    """A probe that draws from its stream reproduces ``run_rng`` / ``run_permutation`` exactly.

    Each engine step is ``select`` (the probe's draws), then one uniform draw u for the duel,
    won by the first arm iff ``u < p_ij`` of the relabelled matrix, then ``update`` with that
    outcome.  The recorded regret is that of the recorded pairs.
    """
    name = "zz_probe_drawing"
    K, T, seed, start = 6, 400, 4, 3
    DrawingCyclingProbe.instances.clear()
    res = _sim(name, "arxiv", T, 3, seed=seed, run_start=start, permute=True)
    assert len(DrawingCyclingProbe.instances) == 3
    canon = canonical_params(name, {})
    P = load_matrix("arxiv")
    R = {kind: duelbench.problems.regret.regret_matrix(P, kind) for kind in RECORDED_KINDS}
    for row, r in enumerate(range(start, start + 3)):
        perm = run_permutation(seed, "arxiv", r, K)
        Pp = P.values[np.ix_(perm, perm)]
        rng = run_rng(seed, "arxiv", name, canon, r)
        expected, outcomes = [], []
        for t in range(1, T + 1):
            if t <= K:
                i = j = t - 1
            else:
                i, j = int(rng.integers(K)), int(rng.integers(K))
            outcomes.append((t, i, j, bool(rng.random() < Pp[i, j])))
            expected.append((perm[i], perm[j]))
        assert np.array_equal(res.pairs[row], np.array(expected)), f"run {r}"
        assert DrawingCyclingProbe.instances[row].outcomes == outcomes, f"run {r}: outcomes"
        for kind in RECORDED_KINDS:
            total = np.cumsum(R[kind][res.pairs[row, :, 0], res.pairs[row, :, 1]])[res.checkpoints - 1]
            assert np.allclose(res.regrets[kind][row], total, rtol=1e-12, atol=1e-9), (r, kind)
    # an unnamed matrix: the dataset of the stream and the permutation is its identity
    P = PreferenceMatrix(random_matrix(5, 9))
    res = _sim(name, P, 5, 1, seed=seed, run_start=2)
    assert P.identity.startswith("sha256:")
    assert np.array_equal(_revealed_permutation(res, 0, 5), run_permutation(seed, P.identity, 2, 5))


# --------------------------------------------------------------------------- (b) permutation
@pytest.mark.parametrize("dataset", ["arxiv", "sushi"])
def test_permutation_depends_on_seed_dataset_and_run_not_on_the_algorithm(probes, dataset):
    K = load_matrix(dataset).K
    seed, runs = 2, 10
    a = _sim("zz_probe_cycling", dataset, K, runs, seed=seed)
    b = _sim("zz_probe_drawing", dataset, K, runs, seed=seed, unused=3.0)
    perms = []
    for r in range(runs):
        pa = _revealed_permutation(a, r, K)
        assert np.array_equal(pa, _revealed_permutation(b, r, K)), f"run {r}: the permutation depends on the algorithm"
        assert np.array_equal(pa, run_permutation(seed, dataset, r, K)), f"run {r}"
        assert sorted(pa) == list(range(K))
        perms.append(tuple(pa))
    if K >= 16:
        assert len(set(perms)) == runs, "runs share a permutation"
    else:
        assert len(set(perms)) > runs // 2
    # a later shard sees the same permutation for the same run index
    c = _sim("zz_probe_cycling", dataset, K, 2, seed=seed, run_start=7)
    assert np.array_equal(c.pairs, a.pairs[7:9])
    # permute=False: the identity
    d = _sim("zz_probe_cycling", dataset, K, 2, seed=seed, permute=False)
    assert np.array_equal(_revealed_permutation(d, 1, K), np.arange(K))
    # another seed, another permutation (for some run)
    e = _sim("zz_probe_cycling", dataset, K, runs, seed=seed + 1)
    assert any(not np.array_equal(_revealed_permutation(e, r, K), perms[r]) for r in range(runs))


def test_permutation_depends_on_the_dataset(probes):
    seed, runs = 0, 10
    per = {ds: _sim("zz_probe_cycling", ds, 5, runs, seed=seed) for ds in ("multisol", "gap")}
    assert any(not np.array_equal(_revealed_permutation(per["multisol"], r, 5), _revealed_permutation(per["gap"], r, 5))
               for r in range(runs))


def test_permutation_function_properties():
    for K in (2, 5, 16, 136):
        p = run_permutation(0, "arxiv", 3, K)
        assert p.dtype == np.int64 and sorted(p) == list(range(K))
    ps = {tuple(run_permutation(0, "sushi", r, 16)) for r in range(50)}
    assert len(ps) == 50
    assert not np.array_equal(run_permutation(0, "sushi", 0, 16), run_permutation(1, "sushi", 0, 16))
    assert not np.array_equal(run_permutation(0, "sushi", 0, 16), run_permutation(0, "sushi_x", 0, 16))


# --------------------------------------------------------------------------- (c), (d) layout
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_results_do_not_depend_on_the_shard_layout(algorithm):
    for dataset, horizon in (("arxiv", 3000), ("multisol", 3000)):
        whole = _sim(algorithm, dataset, horizon, 6, seed=1)
        first = _sim(algorithm, dataset, horizon, 2, seed=1, run_start=0)
        rest = _sim(algorithm, dataset, horizon, 4, seed=1, run_start=2)
        label = f"{algorithm} on {dataset}"
        assert np.array_equal(np.concatenate([first.pairs, rest.pairs]), whole.pairs), f"{label}: pairs"
        for kind in RECORDED_KINDS:
            assert np.array_equal(np.concatenate([first.regrets[kind], rest.regrets[kind]]), whole.regrets[kind],
                                  equal_nan=True), f"{label}: {kind}"
        merged = SimulationResult.concatenate([rest, first])
        assert list(merged.run_indices) == list(range(6))
        for kind in RECORDED_KINDS:
            assert np.array_equal(merged.regrets[kind], whole.regrets[kind], equal_nan=True), f"{label}: {kind}"
        single = _sim(algorithm, dataset, horizon, 1, seed=1, run_start=4)
        assert np.array_equal(single.pairs[0], whole.pairs[4]), f"{label}: run 4 alone"


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_adding_runs_leaves_earlier_runs_unchanged(algorithm):
    three = _sim(algorithm, ARXIV, 2500, 3, seed=6)
    five = _sim(algorithm, ARXIV, 2500, 5, seed=6)
    _assert_same_runs(three, SimulationResult(**{**five.__dict__, "pairs": five.pairs[:3],
                                                 "run_indices": five.run_indices[:3],
                                                 "regrets": {k: v[:3] for k, v in five.regrets.items()}}),
                      algorithm)
    # and re-running, after another algorithm, reproduces them
    _sim("random", ARXIV, 500, 2, seed=6)
    _assert_same_runs(three, _sim(algorithm, ARXIV, 2500, 3, seed=6), f"{algorithm} rerun")


# --------------------------------------------------------------------------- (e) seed, params
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_seed_changes_the_stream(algorithm):
    canon = canonical_params(algorithm, {})
    assert run_rng(0, "multisol", algorithm, canon, 0).random() != run_rng(1, "multisol", algorithm, canon, 0).random()
    a = _sim(algorithm, "multisol", 3000, 2, seed=0, permute=False)
    b = _sim(algorithm, "multisol", 3000, 2, seed=1, permute=False)
    for r in range(2):
        assert not np.array_equal(a.pairs[r], b.pairs[r]), f"{algorithm}: seeds 0 and 1 give the same run {r}"


@pytest.mark.parametrize("algorithm", [a for a in ALGORITHMS if get_algorithm(a).defaults])
def test_params_change_the_stream(algorithm):
    canon = canonical_params(algorithm, {})
    key = next(iter(canon))
    v = canon[key]
    # another valid value: the other reading of a 0/1 switch, else a scaled value
    other = {**canon, key: 1.0 - v if v in (0.0, 1.0) else v * 1.25}
    canonical_params(algorithm, other)  # a valid value
    assert run_rng(0, "arxiv", algorithm, canon, 0).random() != run_rng(0, "arxiv", algorithm, other, 0).random()
    # the key order of the parameters does not matter (canonical JSON)
    rev = dict(reversed(list(canon.items())))
    assert run_rng(0, "arxiv", algorithm, canon, 0).random() == run_rng(0, "arxiv", algorithm, rev, 0).random()


def test_stream_depends_on_dataset_and_algorithm_name():
    canon = {"alpha": 0.51}
    draws = {(ds, alg): run_rng(0, ds, alg, canon, 0).random() for ds in ("arxiv", "sushi") for alg in ("rucb", "ccb")}
    assert len(set(draws.values())) == 4


def test_params_change_the_stream_even_when_ignored(probes):
    """The probe ignores ``unused``; a different value still gives a different stream (and run)."""
    a = _sim("zz_probe_drawing", "arxiv", 200, 2, seed=0, permute=False)
    b = _sim("zz_probe_drawing", "arxiv", 200, 2, seed=0, permute=False, unused=2.0)
    c = _sim("zz_probe_drawing", "arxiv", 200, 2, seed=0, permute=False, unused=1.0)
    assert np.array_equal(a.pairs, c.pairs)
    for r in range(2):
        assert not np.array_equal(a.pairs[r], b.pairs[r])
    assert a.params == {"unused": 1.0} and b.params == {"unused": 2.0}

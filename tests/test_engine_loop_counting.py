"""The run loop's steps run without reference counting, and an allocating step is caught.

:mod:`duelbench.engine.loop` compiles the steps of every step-wise algorithm without numba's
reference counting (README "Benchmarks": RUCB several times faster at K = 5, no bit changed).
Speed is measured by ``duelbench bench``, never asserted; these tests pin what buys it (no
reference-count call in the compiled steps of a built-in algorithm) and the contract it puts on
an algorithm's kernels: an allocating ``select`` or ``update`` gets an error naming the
algorithm and the fix, and runs, with the same result, once it declares ``step_allocates``.
"""

import numba
import numpy as np
import pytest

from duelbench.algorithms import registry
from duelbench.algorithms.registry import AlgorithmSpec, get_algorithm, list_algorithms
from duelbench.engine import loop
from duelbench.engine.simulate import simulate


@numba.njit(inline="always")
def _init(K, params):
    return (np.zeros(K, dtype=np.int64),)


@numba.njit(inline="always")
def _least_and_most(counts):
    least = most = 0
    for i in range(1, counts.shape[0]):
        if counts[i] < counts[least]:
            least = i
        if counts[i] > counts[most]:
            most = i
    return least, most


@numba.njit(inline="always")
def _select_in_place(state, t, rng):
    """The arm with the lowest count against the one with the highest (first index on ties)."""
    return _least_and_most(state[0])


@numba.njit(inline="always")
def _select_copying(state, t, rng):
    """The same choice, read from a copy made at every step (an allocation)."""
    return _least_and_most(state[0].copy())


@numba.njit(inline="always")
def _update(state, i, j, i_won, t):
    """Count the loser of the duel."""
    state[0][j if i_won else i] += 1


def _spec(name, select, **kw):
    return AlgorithmSpec(name=name, title=name, reference="test", defaults={}, steps=(_init, select, _update),
                         module_file=__file__, **kw)


PROBES = {
    "zz_steps_in_place": _spec("zz_steps_in_place", _select_in_place),
    "zz_steps_copying": _spec("zz_steps_copying", _select_copying),
    "zz_steps_copying_declared": _spec("zz_steps_copying_declared", _select_copying, step_allocates=True),
}


@pytest.fixture
def probes():
    list_algorithms()
    for spec in PROBES.values():
        registry.register(spec)
    try:
        yield
    finally:
        for name in PROBES:
            registry._REGISTRY.pop(name, None)


#: A total order (i beats j for i < j, surely): duel outcomes do not depend on the random stream,
#: which differs between the probes (it derives from the algorithm's name).
ORDER = np.triu(np.ones((5, 5)), 1) + 0.5 * np.eye(5)


def _run(name):
    return simulate(name, ORDER, 500, 2, seed=3, permute=False, record_pairs=True)


def test_an_allocating_step_is_named_with_the_fix(probes):
    with pytest.raises(TypeError, match=r"zz_steps_copying.*allocates.*step_allocates=True"):
        _run("zz_steps_copying")


def test_a_declared_allocating_step_runs_and_agrees(probes):
    counted = _run("zz_steps_copying_declared")
    uncounted = _run("zz_steps_in_place")
    assert np.array_equal(counted.pairs, uncounted.pairs)
    assert np.array_equal(counted.regret, uncounted.regret)
    assert len({tuple(p) for p in counted.pairs[0]}) > 2  # the pairs did change


def _steps_ir(name):
    """The LLVM IR of the compiled steps of algorithm ``name`` (compiled afresh: the run loop's
    cached code cannot be inspected)."""
    spec = get_algorithm(name)
    steps = loop._make_loop(*spec.steps, counted=spec.step_allocates).steps
    K = ORDER.shape[0]
    checkpoints = np.array([20], dtype=np.int64)
    state = spec.steps[0](K, np.array(list(spec.defaults.values()), dtype=np.float64))
    steps(state, ORDER, np.zeros((1, K, K)), checkpoints, np.random.default_rng(0), False, np.zeros(1),
          np.zeros((1, 1)), np.zeros((0, 2), dtype=np.int64))
    (ir,) = steps.inspect_llvm().values()
    return ir


def test_the_steps_of_a_builtin_algorithm_count_no_references():
    assert not get_algorithm("rucb").step_allocates
    ir = _steps_ir("rucb")
    assert "NRT_incref" not in ir and "NRT_decref" not in ir, "reference counting in RUCB's compiled steps"


def test_the_ir_check_sees_reference_counting(probes):
    """The test above can fail: the counted loop of a declared allocating step has the calls."""
    assert "NRT_decref" in _steps_ir("zz_steps_copying_declared")


def test_no_builtin_algorithm_declares_an_allocating_step():
    declared = [n for n in list_algorithms() if get_algorithm(n).step_allocates]
    assert declared == []

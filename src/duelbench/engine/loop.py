"""The run loop of every step-wise algorithm, compiled once per algorithm and cached.

An algorithm registers its kernels ``steps=(init, select, update)``
(:class:`~duelbench.algorithms.registry.AlgorithmSpec`); one run is::

    state = init(K, params)
    rec = recorder_new(regret, checkpoints, record_pairs)
    for t in range(1, horizon + 1):
        i, j = select(state, t, rng)
        update(state, i, j, duel(P, i, j, rng), t)
        recorder_step(rec, t, i, j)

The loop is written once, in :func:`run_steps`, and specialised per algorithm through
``numba.extending.overload`` of three stubs on a *string literal*: the literal selects the
algorithm's kernels at compile time, so each algorithm gets its own machine code, as fast as a
loop written out in its module.  (A loop taking the kernels as arguments cannot be cached: numba
refuses functions as arguments of cached code, and their types differ in every process.)

Cache correctness: the loop's compiled code contains the algorithm's kernels, but the loop's
module does not import them, so its import closure cannot see an edit to them.  The literal is
therefore ``"<name>:<code hash>"`` (:func:`loop_key`), the algorithm's
:func:`~duelbench.algorithms.registry.source_hash`: an edit to the algorithm or anything it
imports gives a new literal, a new signature, and a fresh compilation; the loop's own closure
(this module, the duel and the recorder) keys its cache folder as for every other module.
"""

from __future__ import annotations

import functools

import numba
from numba import types
from numba.core.errors import TypingError
from numba.extending import overload

from duelbench.algorithms.kernels import duel, recorder_new, recorder_step
from duelbench.algorithms.registry import get_algorithm, source_hash

#: Hex digits of the algorithm's code hash in the loop literal.
KEY_HASH_LEN = 16


@functools.lru_cache(maxsize=None)
def loop_key(name: str) -> str:
    """The literal that selects (and versions) an algorithm's compiled loop: ``name:hash``."""
    return f"{name}:{source_hash(name)[:KEY_HASH_LEN]}"


def _steps(key) -> tuple:
    if not isinstance(key, types.StringLiteral):
        raise TypingError("the run loop is selected by a string literal (see duelbench.engine.loop.loop_key)")
    spec = get_algorithm(key.literal_value.split(":")[0])
    if spec.steps is None:
        raise TypingError(f"algorithm {spec.name!r} has no step kernels")
    return spec.steps


def _python_steps(key: str) -> tuple:
    return get_algorithm(key.split(":")[0]).steps


# The stubs run as plain Python when numba is disabled (NUMBA_DISABLE_JIT=1); compiled code
# gets the overloads below instead.
def step_init(key, K, params):
    """The algorithm's ``init(K, params)``."""
    return _python_steps(key)[0](K, params)


def step_select(key, state, t, rng):
    """The algorithm's ``select(state, t, rng)``."""
    return _python_steps(key)[1](state, t, rng)


def step_update(key, state, i, j, i_won, t):
    """The algorithm's ``update(state, i, j, i_won, t)``."""
    return _python_steps(key)[2](state, i, j, i_won, t)


@overload(step_init)
def _init_of(key, K, params):
    init = _steps(key)[0]
    return lambda key, K, params: init(K, params)


@overload(step_select)
def _select_of(key, state, t, rng):
    select = _steps(key)[1]
    return lambda key, state, t, rng: select(state, t, rng)


@overload(step_update)
def _update_of(key, state, i, j, i_won, t):
    update = _steps(key)[2]
    return lambda key, state, i, j, i_won, t: update(state, i, j, i_won, t)


@numba.njit(cache=True)
def run_steps(key, P, regret, checkpoints, params, rng, record_pairs):
    """One run of the algorithm selected by the literal ``key``; returns ``(out, pairs)``.

    ``out`` is the (D, checkpoints) array of cumulative regrets, ``pairs`` the chosen pairs
    (T × 2) if ``record_pairs``.
    """
    state = step_init(key, P.shape[0], params)
    rec = recorder_new(regret, checkpoints, record_pairs)
    for t in range(1, checkpoints[-1] + 1):
        i, j = step_select(key, state, t, rng)
        step_update(key, state, i, j, duel(P, i, j, rng), t)
        recorder_step(rec, t, i, j)
    return rec[3], rec[4]


@numba.njit(cache=True)
def _run_literal(key, P, regret, checkpoints, params, rng, record_pairs):
    return run_steps(numba.literally(key), P, regret, checkpoints, params, rng, record_pairs)


def run_algorithm(name: str, P, regret, checkpoints, params, rng, record_pairs: bool):
    """One run of the step-wise algorithm ``name``: ``(out, pairs)`` as :func:`run_steps`."""
    return _run_literal(loop_key(name), P, regret, checkpoints, params, rng, record_pairs)

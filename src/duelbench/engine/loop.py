"""The run loop of every step-wise algorithm, compiled once per algorithm and cached.

An algorithm registers its kernels ``steps=(init, select, update)``
(:class:`~duelbench.algorithms.registry.AlgorithmSpec`); one run is::

    state = init(K, params)
    _, _, cum, out, pairs, _ = recorder_new(regret, checkpoints, record_pairs)
    k, next_t = 0, checkpoints[0]            # the next checkpoint and its time
    for t in range(1, horizon + 1):
        i, j = select(state, t, rng)
        update(state, i, j, duel(P, i, j, rng), t)
        add_regret(regret, cum, i, j)
        if record_pairs: pairs[t - 1] = (i, j)
        if t == next_t:
            store_sums(cum, out, k)
            k += 1
            next_t = checkpoint_time(checkpoints, k)

The loop is written once (:func:`_make_loop`) and specialised per algorithm through
``numba.extending.overload`` of :func:`loop_of` on a *string literal*: the literal selects the
algorithm's kernels at compile time and the whole loop is compiled around them, so each
algorithm gets its own machine code, as fast as a loop written out in its module (measured:
0.92–0.99× of the former written-out loops; wrapping only ``init``/``select``/``update`` in
overloads cost 20–40 %).  (A loop taking the kernels as arguments cannot be cached: numba
refuses functions as arguments of cached code, and their types differ in every process.)

Reference counting: numba gives every array variable a reference count and updates it with an
atomic increment and decrement wherever an array is bound to a name, passed or unpacked from the
state tuple; its pruning pass removes only pairs it can match within simple control flow.  In
the step kernels (branches, loops over a heap) most updates stayed: for RUCB at K = 5 they were
about half of the samples of a profile.  They protect nothing here, as the state and the
recorder live for the whole run in the caller.  So the loop is split: ``init`` and the recorder
allocate with reference counting, and the steps (:func:`_make_loop`'s ``body``) are compiled
with numba's ``_nrt=False`` option, which emits no reference-count operation.  The arithmetic
is the same instruction for instruction: every golden trajectory is bit-identical.  The price
is a contract: ``select`` and ``update`` may not allocate (the compiler refuses, and
:func:`run_algorithm` turns its message into an error naming the algorithm and the fix); an
algorithm that must allocate in a step declares ``step_allocates=True`` and keeps the counted
loop.  The built-in kernels that sorted or copied an index list each step sort in place
(:mod:`duelbench.algorithms.sorting`).

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

from duelbench.algorithms.kernels import add_regret, checkpoint_time, duel, recorder_new, store_sums
from duelbench.algorithms.registry import get_algorithm, source_hash

#: Hex digits of the algorithm's code hash in the loop literal.
KEY_HASH_LEN = 16


@functools.lru_cache(maxsize=None)
def loop_key(name: str) -> str:
    """The literal that selects (and versions) an algorithm's compiled loop: ``name:hash``."""
    return f"{name}:{source_hash(name)[:KEY_HASH_LEN]}"


def _spec(key):
    if not isinstance(key, types.StringLiteral):
        raise TypingError("the run loop is selected by a string literal (see duelbench.engine.loop.loop_key)")
    spec = get_algorithm(key.literal_value.split(":")[0])
    if spec.steps is None:
        raise TypingError(f"algorithm {spec.name!r} has no step kernels")
    return spec


def _make_loop(init, select, update, counted=False):
    """The loop over ``init``, ``select`` and ``update`` (bound at compile time when compiled).

    The allocating part (the algorithm's state, the recorder) runs with numba's reference
    counting; the steps run in :func:`body`, compiled without it unless ``counted``.
    """

    def body(state, P, regret, checkpoints, rng, record_pairs, cum, out, pairs):
        k, next_t = 0, checkpoints[0]
        for t in range(1, checkpoints[-1] + 1):
            i, j = select(state, t, rng)
            update(state, i, j, duel(P, i, j, rng), t)
            add_regret(regret, cum, i, j)
            if record_pairs:
                pairs[t - 1, 0] = i
                pairs[t - 1, 1] = j
            if t == next_t:
                store_sums(cum, out, k)
                k += 1
                next_t = checkpoint_time(checkpoints, k)

    steps = numba.njit(_nrt=counted)(body)

    def loop(key, P, regret, checkpoints, params, rng, record_pairs):
        state = init(P.shape[0], params)
        _, _, cum, out, pairs, _ = recorder_new(regret, checkpoints, record_pairs)
        steps(state, P, regret, checkpoints, rng, record_pairs, cum, out, pairs)
        return out, pairs

    loop.steps = steps  # for inspection (tests)
    return loop


def loop_of(key, P, regret, checkpoints, params, rng, record_pairs):
    """One run of the algorithm selected by ``key``: plain Python when numba is disabled
    (``NUMBA_DISABLE_JIT=1``); compiled code gets the overload below, the same loop with the
    algorithm's kernels bound at compile time."""
    spec = get_algorithm(key.split(":")[0])
    return _make_loop(*spec.steps)(key, P, regret, checkpoints, params, rng, record_pairs)


@overload(loop_of)
def _loop_of(key, P, regret, checkpoints, params, rng, record_pairs):
    spec = _spec(key)
    return _make_loop(*spec.steps, counted=spec.step_allocates)


@numba.njit(cache=True)
def run_steps(key, P, regret, checkpoints, params, rng, record_pairs):
    """One run of the algorithm selected by the literal ``key``; returns ``(out, pairs)``."""
    return loop_of(key, P, regret, checkpoints, params, rng, record_pairs)


@numba.njit(cache=True)
def _run_literal(key, P, regret, checkpoints, params, rng, record_pairs):
    return run_steps(numba.literally(key), P, regret, checkpoints, params, rng, record_pairs)


def run_algorithm(name: str, P, regret, checkpoints, params, rng, record_pairs: bool):
    """One run of the step-wise algorithm ``name``: ``(out, pairs)`` as :func:`run_steps`.

    Raises
    ------
    TypeError
        If the algorithm's ``select`` or ``update`` allocates without declaring it (the
        compiler's "NRT required but not enabled"), naming the algorithm and the fix.
    """
    try:
        return _run_literal(loop_key(name), P, regret, checkpoints, params, rng, record_pairs)
    except TypingError as e:
        if NO_COUNTING in str(e):
            raise TypeError(
                f"algorithm {name!r}: its select or update kernel allocates (np.zeros, np.sort, a.sort(), a slice "
                "copy a[:n] = b[:n], a list, ...), which the run loop's steps, compiled without reference counting, "
                "cannot do. Allocate the scratch arrays once in init and write loops instead, or register the "
                "algorithm with AlgorithmSpec(..., step_allocates=True) (slower per step)") from None
        raise


#: numba's message when code compiled without reference counting allocates.
NO_COUNTING = "NRT required but not enabled"

"""Traced runs of D-TS and D-TS+ (Wu & Liu 2016) as sample shards (archived like the simulations).

Two claims of the paper are about what happens inside a run, not about its regret: "RUCB-based
elimination seldom occurs" (L955-L956) and D-TS's extra regret "mainly because it randomly
explores all Copeland winners due to the random tie-breaking rule" (L928-L929). A traced run
records, per step, whether the RUCB bounds removed a candidate (lines 4-6 of Algorithm 1: the
candidate set C is smaller than the arm set) and which arm is the first candidate a(1), with the
regret of the step.

A family per panel; its samples are the traced runs of every traced curve, curve by curve (sample
``i`` is run ``i % runs`` of curve ``i // runs``). Each run is replayed on the engine's own
relabelled instance and random stream (:func:`duelbench.engine.simulate.permuted_instance`,
:func:`duelbench.engine.seeding.run_rng`) through the algorithm's own kernels (``init``,
``select``, ``update`` of :mod:`duelbench.algorithms.dts` and :mod:`duelbench.algorithms.dts_plus`)
and the engine's duel, in the order of the engine's run loop (:mod:`duelbench.engine.loop`): the
random draws are the simulation's, so the replayed R(T) equals the simulated one bit for bit (the
``traces`` step checks it against ``final_regret.csv``).

Columns (one value per sample, floats): ``regret`` (R(T), Eq. (1)), ``eliminated_steps`` (steps
t <= T at which |C| < K), and for every arm k of the dataset in its own labels ``first_steps_<k>``
(steps with a(1) = k) and ``first_regret_<k>`` (the regret of those steps).

This module imports nothing from the rest of the package, so that editing a table, a figure or a
check of the package leaves the archived traces valid (their key holds this module's code hash).
"""

from __future__ import annotations

from collections.abc import Mapping

import numba
import numpy as np

from duelbench.algorithms import dts as _dts
from duelbench.algorithms import dts_plus as _dts_plus
from duelbench.algorithms.kernels import duel

#: The algorithms a run can be traced for (their state holds the candidate mask of C at index 3).
TRACEABLE = ("dts", "dts_plus")


@numba.njit(cache=True)
def _count(in_C):
    n = 0
    for k in range(in_C.shape[0]):
        if in_C[k]:
            n += 1
    return n


@numba.njit(cache=True)
def _trace_dts(P, R, horizon, params, rng, first_steps, first_regret):
    """One D-TS run (the engine's loop) with its trace; returns (R(T), steps with |C| < K)."""
    K = P.shape[0]
    state = _dts.init(K, params)
    total = 0.0
    eliminated = 0
    for t in range(1, horizon + 1):
        i, j = _dts.select(state, t, rng)
        if _count(state[3]) < K:
            eliminated += 1
        _dts.update(state, i, j, duel(P, i, j, rng), t)
        r = R[i, j]
        total += r
        first_steps[i] += 1.0
        first_regret[i] += r
    return total, eliminated


@numba.njit(cache=True)
def _trace_dts_plus(P, R, horizon, params, rng, first_steps, first_regret):
    """One D-TS+ run (the engine's loop) with its trace; returns (R(T), steps with |C| < K)."""
    K = P.shape[0]
    state = _dts_plus.init(K, params)
    total = 0.0
    eliminated = 0
    for t in range(1, horizon + 1):
        i, j = _dts_plus.select(state, t, rng)
        if _count(state[3]) < K:
            eliminated += 1
        _dts_plus.update(state, i, j, duel(P, i, j, rng), t)
        r = R[i, j]
        total += r
        first_steps[i] += 1.0
        first_regret[i] += r
    return total, eliminated


_LOOPS = {"dts": _trace_dts, "dts_plus": _trace_dts_plus}


def trace_run(dataset: str, algorithm: str, params: Mapping, horizon: int, seed: int, run: int) -> dict[str, float]:
    """The trace of run ``run`` of ``algorithm`` on ``dataset`` (the columns of the module docstring,
    arms in the dataset's own labels)."""
    from duelbench.algorithms.registry import canonical_params, params_array
    from duelbench.engine.seeding import run_rng
    from duelbench.engine.simulate import permuted_instance, regret_stack, resolve_matrix

    if algorithm not in _LOOPS:
        raise ValueError(f"no trace for {algorithm!r} (traceable: {', '.join(TRACEABLE)})")
    P = resolve_matrix(dataset)
    canon = canonical_params(algorithm, dict(params))
    perm, Pp, Rp = permuted_instance(P, regret_stack(P), seed, run)
    K = P.K
    steps, regret = np.zeros(K), np.zeros(K)
    total, eliminated = _LOOPS[algorithm](Pp, np.ascontiguousarray(Rp[0]), int(horizon), params_array(algorithm, canon),
                                          run_rng(seed, P.identity, algorithm, canon, run), steps, regret)
    out = {"regret": float(total), "eliminated_steps": float(eliminated)}
    for k in range(K):  # run label k is arm perm[k] of the dataset
        out[f"first_steps_{int(perm[k])}"] = float(steps[k])
        out[f"first_regret_{int(perm[k])}"] = float(regret[k])
    return out


def trace_samples(job: Mapping, a: int, b: int) -> dict[str, np.ndarray]:
    """Samples ``a … b − 1`` of a panel's trace family ``job`` (dataset, horizon, seed, runs and
    ``curves``: [algorithm, params] of each traced curve): sample ``i`` is run ``i % runs`` of curve
    ``i // runs``."""
    runs = int(job["runs"])
    rows = []
    for i in range(a, b):
        algorithm, params = job["curves"][i // runs]
        rows.append(trace_run(job["dataset"], algorithm, params, int(job["horizon"]), int(job["seed"]), i % runs))
    out = {"sample": np.arange(a, b, dtype=np.int64)}
    for k in sorted(rows[0]):
        out[k] = np.array([r[k] for r in rows], dtype=np.float64)
    return out

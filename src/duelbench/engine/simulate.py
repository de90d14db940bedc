"""``simulate()``: R independent runs of T steps of a registered algorithm on a matrix.

Contract (DESIGN.md "Engine contract"):

* run r uses the generator :func:`duelbench.engine.seeding.run_rng` ``(seed, dataset,
  algorithm, canonical params, r)`` and, unless ``permute=False``, sees the instance with its
  arms relabelled by :func:`~duelbench.engine.seeding.run_permutation` ``(seed, dataset, r)``.
  Wu & Liu (2016) state that they shuffle the arms; for the other papers shuffling is this
  suite's recorded decision (on by default): it removes any advantage an algorithm's
  deterministic tie-breaking (e.g. "lowest index") would get from the printed arm order.
* regret is pseudo-regret: the expected regret r(i, j) of the chosen pair, summed in float64;
* algorithms that need T in advance (``needs_horizon``) are run once per checkpoint with that
  checkpoint as horizon, each from the start of the same run stream, as the papers do
  ("each point is obtained by resetting the time horizon", Wu & Liu L892ff).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from duelbench.algorithms.registry import canonical_params, get_algorithm, params_array
from duelbench.problems.matrix import PreferenceMatrix
from duelbench.problems.regret import NoCondorcetWinnerError, regret_matrix

from .checkpoints import default_checkpoints, horizon_mode_checkpoints, validate_checkpoints
from .loop import run_algorithm
from .python_loop import run_policy
from .result import RECORDED_KINDS, SimulationResult
from .seeding import run_permutation, run_rng


def resolve_matrix(matrix) -> PreferenceMatrix:
    """A :class:`PreferenceMatrix` from a registered dataset name, a matrix, or an array."""
    if isinstance(matrix, PreferenceMatrix):
        return matrix
    if isinstance(matrix, str):
        from duelbench.data.registry import load_matrix

        return load_matrix(matrix)
    return PreferenceMatrix(np.asarray(matrix, dtype=np.float64))


def regret_stack(P: PreferenceMatrix) -> np.ndarray:
    """(D, K, K) per-pair regret for ``RECORDED_KINDS``; Condorcet regret is NaN without a CW."""
    mats = []
    for kind in RECORDED_KINDS:
        try:
            mats.append(np.asarray(regret_matrix(P, kind), dtype=np.float64))
        except NoCondorcetWinnerError:
            mats.append(np.full((P.K, P.K), np.nan))
    return np.ascontiguousarray(np.stack(mats))


def permuted_instance(P: PreferenceMatrix, R: np.ndarray, seed: int, run: int, permute: bool = True):
    """Run ``run``'s view of the instance: ``(perm, P', R')`` with arm k of the run being arm
    ``perm[k]`` of ``P`` (the identity when ``permute`` is off)."""
    perm = run_permutation(seed, P.identity, run, P.K) if permute else np.arange(P.K, dtype=np.int64)
    Pp = np.ascontiguousarray(P.values[np.ix_(perm, perm)])
    Rp = np.ascontiguousarray(R[:, perm][:, :, perm])
    return perm, Pp, Rp


def _one_run(spec, canon, pvec, Pp, Rp, checkpoints, rng, record_pairs):
    if spec.steps is not None:
        return run_algorithm(spec.name, Pp, Rp, checkpoints, pvec, rng, record_pairs)
    if spec.run is not None:
        return spec.run(Pp, Rp, checkpoints, pvec, rng, record_pairs)
    return run_policy(spec.policy, Pp, Rp, checkpoints, canon, rng, record_pairs)


def simulate(
    algorithm: str,
    matrix,
    horizon: int,
    runs: int,
    seed: int = 0,
    *,
    run_start: int = 0,
    checkpoints=None,
    permute: bool = True,
    record_pairs: bool = False,
    progress: Callable[[int, int], None] | None = None,
    **params,
) -> SimulationResult:
    """Simulate ``runs`` runs (indices ``run_start … run_start + runs − 1``) of ``horizon`` steps.

    Parameters
    ----------
    algorithm : registry name (see :func:`duelbench.algorithms.registry.list_algorithms`).
    matrix : a registered dataset name, a :class:`PreferenceMatrix` or a K×K array.
    horizon, runs : T and R.
    seed : the global seed (the workflow's ``seed`` config key).
    checkpoints : times at which cumulative regret is recorded (default
        :func:`default_checkpoints`, or :func:`horizon_mode_checkpoints` for algorithms that
        need T in advance); must end at ``horizon``.
    permute : relabel arms per run (see module docstring).
    record_pairs : also return the chosen pairs (runs × T × 2, original arm labels).
    **params : algorithm parameters overriding its defaults.

    Returns
    -------
    SimulationResult with ``.checkpoints`` and ``.regret`` (runs × checkpoints).
    """
    spec = get_algorithm(algorithm)
    P = resolve_matrix(matrix)
    canon = canonical_params(algorithm, params)
    pvec = params_array(algorithm, canon)
    horizon = int(horizon)
    if int(runs) < 1:
        raise ValueError(f"runs must be ≥ 1, got {runs}")
    if checkpoints is not None:
        ckpts = validate_checkpoints(checkpoints, horizon)
    elif spec.needs_horizon:
        ckpts = horizon_mode_checkpoints(horizon)
    else:
        ckpts = default_checkpoints(horizon)
    R = regret_stack(P)
    K = P.K
    out = np.zeros((len(RECORDED_KINDS), runs, ckpts.shape[0]))
    pairs_all = np.zeros((runs, horizon, 2), dtype=np.int64) if record_pairs else None
    for row, r in enumerate(range(run_start, run_start + runs)):
        perm, Pp, Rp = permuted_instance(P, R, seed, r, permute)
        if spec.needs_horizon:
            for k in range(ckpts.shape[0]):
                rng = run_rng(seed, P.identity, algorithm, canon, r)
                last = k == ckpts.shape[0] - 1
                o, pairs = _one_run(spec, canon, pvec, Pp, Rp, ckpts[: k + 1], rng, record_pairs and last)
                out[:, row, k] = o[:, -1]
        else:
            rng = run_rng(seed, P.identity, algorithm, canon, r)
            o, pairs = _one_run(spec, canon, pvec, Pp, Rp, ckpts, rng, record_pairs)
            out[:, row, :] = o
        if record_pairs:
            pairs_all[row] = perm[pairs]
        if progress is not None:
            progress(row + 1, runs)
    regrets = {kind: out[d] for d, kind in enumerate(RECORDED_KINDS)}
    return SimulationResult(
        algorithm=algorithm, dataset=P.identity, params=canon, horizon=horizon, seed=int(seed),
        checkpoints=ckpts, regrets=regrets, run_indices=np.arange(run_start, run_start + runs, dtype=np.int64),
        permute=permute, pairs=pairs_all,
    )

"""Batch logs of Agarwal et al. (2022) as sample shards (archived like the simulations).

A family per panel; its samples are the runs of every batched curve, curve by curve (sample
``i`` is run ``i % runs`` of curve ``i // runs``).  Each run is replayed on the engine's own
random stream and relabelled instance (:func:`replay`), through
:func:`duelbench.algorithms.batched.batch_log`, which runs the same compiled code as the
simulation.  The ``batches`` step (:mod:`.tradeoff`) checks every replayed R(T) against the
simulated one and writes ``batches.csv``.

Columns (one value per sample, as floats; flags are 1/0, and ``NaN`` stands for a value the
log does not have, e.g. without a Condorcet winner): ``sample``, ``batches_used``,
``comparisons``, ``switch_round``, ``a_prime_size``, ``winner_in_a_prime``, ``seed_rank``,
``seed_empty``, ``winner_eliminated``, ``good_event_estimates``, ``good_event_violations``,
``replay_regret`` and ``identity`` (½ Σ_j T_j ε_j, the regret identity of the paper, @7196).

The identity's sum is :func:`math.fsum` of the element-wise products (each product rounded once,
the sum correctly rounded), not ``np.dot``: BLAS picks its kernel, and with it the order of the
terms, by processor, and the last bit of a written value must not depend on the machine.

This module imports nothing from the rest of the package, so that editing a table or a figure
of the package leaves the archived batch logs valid (their key holds this module's code hash).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np


def replay(dataset: str, algorithm: str, params: dict, horizon: int, seed: int, run: int):
    """``(log, eps)``: the batch log of run ``run`` exactly as the engine simulated it (same
    instance, relabelling and random stream) and the relabelled gaps eps_j = P_wj - 1/2 to the
    Condorcet winner w."""
    from duelbench.algorithms.batched import batch_log
    from duelbench.algorithms.registry import canonical_params
    from duelbench.engine.families import run_matrix
    from duelbench.engine.seeding import run_rng
    from duelbench.engine.simulate import permuted_instance, regret_stack

    P = run_matrix(dataset, run)
    canon = canonical_params(algorithm, params)
    _, Pp, _ = permuted_instance(P, regret_stack(P), seed, run)
    log = batch_log(algorithm, Pp, horizon, canon, run_rng(seed, P.identity, algorithm, canon, run))
    w = log.condorcet_winner
    eps = Pp[w, :] - 0.5 if w is not None else np.full(Pp.shape[0], np.nan)
    return log, eps


def _value(x) -> float:
    return np.nan if x is None else float(x)


def _exact_dot(x, y) -> float:
    """Σ x_i·y_i with each product rounded once and the sum correctly rounded (any processor)."""
    return math.fsum((np.asarray(x, dtype=np.float64) * np.asarray(y, dtype=np.float64)).tolist())


def log_row(log, eps) -> dict[str, float]:
    """One run's columns (see the module docstring) from its batch log and gaps."""
    return {
        "batches_used": float(log.batches), "comparisons": float(log.comparisons),
        "switch_round": float(log.switch_round), "a_prime_size": float(log.switch_size),
        "winner_in_a_prime": _value(log.winner_in_switch_set), "seed_rank": _value(log.rank_best_seed),
        "seed_empty": float(log.seed_empty), "winner_eliminated": _value(log.winner_eliminated),
        "good_event_estimates": float(log.estimates), "good_event_violations": float(log.incorrect_estimates),
        "replay_regret": _value(log.regret), "identity": 0.5 * _exact_dot(log.arm_comparisons, eps),
    }


def batch_log_samples(job: Mapping, a: int, b: int) -> dict[str, np.ndarray]:
    """Samples ``a … b − 1`` of a panel's batch-log family ``job`` (dataset, horizon, seed, runs,
    and ``curves``: [id, algorithm, params] of each batched curve): sample ``i`` is run
    ``i % runs`` of curve ``i // runs``."""
    runs = int(job["runs"])
    rows = []
    for i in range(a, b):
        _, algorithm, params = job["curves"][i // runs]
        rows.append(log_row(*replay(job["dataset"], algorithm, params, int(job["horizon"]), int(job["seed"]),
                                    i % runs)))
    out = {"sample": np.arange(a, b, dtype=np.int64)}
    for k in rows[0]:
        out[k] = np.array([r[k] for r in rows], dtype=np.float64)
    return out

"""The duel and the regret recorder: what every run loop does besides choosing pairs.

The engine's shared loop (:mod:`duelbench.engine.loop`) runs every step-wise algorithm with
them; block algorithms (SAVAGE, SCB), which commit to a pair for many steps at once, drive them
from their own loop (``recorder_block``, ``recorder_commit``).  They sit below the engine, beside
the algorithms, so that algorithms never import the engine.
"""

import numba
import numpy as np


@numba.njit(cache=True, inline="always")
def duel(P, i, j, rng):
    """Compare arms i and j: ``True`` iff i wins, with probability ``P[i, j]``.

    Exactly one uniform draw per duel, also for a self-comparison (i == j, whose outcome
    carries no information), so the random stream does not depend on which pairs are drawn.
    """
    return rng.random() < P[i, j]


@numba.njit(cache=True, inline="always")
def recorder_new(regret, checkpoints, record_pairs):
    """Recorder state for one run.

    ``regret`` is a (D, K, K) stack of per-pair regret matrices (one per regret definition),
    ``checkpoints`` the increasing 1-based times at which the D cumulative sums are stored.
    If ``record_pairs`` the chosen pairs are kept in ``pairs`` (T × 2), for tests.
    """
    D = regret.shape[0]
    T = checkpoints[-1]
    cum = np.zeros(D, dtype=np.float64)
    out = np.zeros((D, checkpoints.shape[0]), dtype=np.float64)
    pairs = np.zeros((T if record_pairs else 0, 2), dtype=np.int64)
    nxt = np.zeros(1, dtype=np.int64)
    return regret, checkpoints, cum, out, pairs, nxt


@numba.njit(cache=True, inline="always")
def add_regret(regret, cum, i, j):
    """Add the pseudo-regret of pair (i, j), one value per regret definition, to ``cum``."""
    for d in range(regret.shape[0]):
        cum[d] += regret[d, i, j]


@numba.njit(cache=True, inline="always")
def store_sums(cum, out, k):
    """Store the running sums as checkpoint ``k`` (column k of ``out``)."""
    for d in range(cum.shape[0]):
        out[d, k] = cum[d]


@numba.njit(cache=True, inline="always")
def checkpoint_time(checkpoints, k):
    """The time of checkpoint ``k``, or 0 (never reached) once every checkpoint is stored."""
    return checkpoints[k] if k < checkpoints.shape[0] else 0


@numba.njit(cache=True, inline="always")
def recorder_step(rec, t, i, j):
    """Add the pseudo-regret of pair (i, j) at time t (1-based); store sums at checkpoints.

    For loops that keep the recorder's tuple (SAVAGE, BTM); the engine's run loop does the
    same with the index and time of the next checkpoint in local variables
    (:mod:`duelbench.engine.loop`).
    """
    regret, checkpoints, cum, out, pairs, nxt = rec
    add_regret(regret, cum, i, j)
    if pairs.shape[0] > 0:
        pairs[t - 1, 0] = i
        pairs[t - 1, 1] = j
    k = nxt[0]
    if checkpoint_time(checkpoints, k) == t:
        store_sums(cum, out, k)
        nxt[0] = k + 1


@numba.njit(cache=True, inline="always")
def recorder_block(rec, t, m, i, j):
    """Record m steps t+1 … t+m that all play the pair (i, j), in O(#checkpoints inside + 1).

    Checkpoints inside the block get ``cum + (t_k − t)·r(i, j)`` (as in
    :func:`recorder_commit`); the running sums then advance by
    ``m·r(i, j)``.  Recorded pairs (tests) are filled for every step.
    """
    regret, checkpoints, cum, out, pairs, nxt = rec
    k = nxt[0]
    while k < checkpoints.shape[0] and checkpoints[k] <= t + m:
        for d in range(regret.shape[0]):
            out[d, k] = cum[d] + (checkpoints[k] - t) * regret[d, i, j]
        k += 1
    nxt[0] = k
    for d in range(regret.shape[0]):
        cum[d] += m * regret[d, i, j]
    for s in range(t, min(t + m, pairs.shape[0])):
        pairs[s, 0] = i
        pairs[s, 1] = j


@numba.njit(cache=True, inline="always")
def recorder_commit(rec, t, i, j):
    """Close a run that has committed to pair (i, j) for every step after t.

    For explore-then-exploit algorithms (DESIGN: "regret after it commits added in closed
    form"): the remaining checkpoints get ``cum + (t_k − t) · r(i, j)`` exactly as if the pair
    had been drawn step by step (up to float summation order).
    """
    recorder_block(rec, t, rec[1][-1] - t, i, j)

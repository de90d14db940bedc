"""Incremental Copeland counts under RUCB-style confidence bounds.

RUCB, CCB and D-TS all need, at every step, counts such as ``#{j : u_ij ≥ 1/2}`` (optimistic
Copeland score) and ``#{j : l_ij > 1/2}`` (pessimistic score).  Recomputing them costs O(K²)
square roots per step; at K = 500 (Zoghi et al. 2015, Figure 2) that is prohibitive.  Instead
this module tracks the relation "i *confidently beats* j at time t":

    i ≻_t j  ⇔  l_ij(t) > 1/2  ⇔  u_ji(t) < 1/2  ⇔  mû_ij > 1/2 and z_ij > ln t,

with the evidence ``z_ij = N_ij (mû_ij − 1/2)² / alpha`` of :func:`duelbench.stats.bounds.evidence`.
``z`` changes only when the pair is compared; between comparisons a resolved pair becomes
unresolved exactly when ``ln t`` reaches ``z``, so each resolved pair sits in an indexed
min-heap keyed by ``z`` and :func:`cb_advance` pops the expired ones.  The per-step cost is
O(log K) plus the number of expiries.

Boundary convention (one place for every algorithm): a bound exactly equal to 1/2 counts as
*not* excluding 1/2, i.e. ``u_ij ≥ 1/2`` ⇔ not ``j ≻ i``, and ``l_ij ≥ 1/2`` is taken as
``l_ij > 1/2``.  The two readings differ only when ``z_ij == ln t`` to the last bit, which for
t ≥ 2 does not occur in practice; algorithms whose papers write "≥" and ">" name this here.

State tuple ``cb = (beats, n_lost, n_won, heap)``:

* ``beats[i, j] = 1`` iff ``i ≻ j`` (int8, K×K);
* ``n_lost[i] = #{j : j ≻ i}`` — so ``#{j ≠ i : u_ij ≥ 1/2} = K − 1 − n_lost[i]``;
* ``n_won[i] = #{j : i ≻ j}`` — ``#{j : l_ij > 1/2}``;
* ``heap`` — :mod:`duelbench.stats.heap` over pair ids ``a*K + b`` (a < b).

Inlining: every kernel here and in :mod:`duelbench.stats.heap` is compiled with
``inline="always"``, i.e. numba splices it into its caller before code generation.  A call
that numba does not inline hands each array of its arguments (``cb`` holds seven) to the callee
with an atomic reference-count increment and decrement, which LLVM cannot remove; at K = 5 these
were about half of RUCB's step.  Inlining the kernels of this module, of the heap and of the
algorithms built on them (RUCB, CCB, D-TS, D-TS+, RCS; ECW-RMED's own kernels likewise) gave,
per step on one core (``duelbench bench``, 10^6 steps, same machine and load): RUCB 1.33–1.53×,
CCB 1.34–1.36×, ECW-RMED 1.5–2.1×, D-TS 1.0–1.2×, D-TS+ 1.0–1.2×, RCS 1.0–1.1× of the
non-inlined code.  It changes no arithmetic: every golden trajectory and every archived shard
recomputed with it is bit-identical.  Inlining did not remove the updates of an inlined
function whose body branches; the run loop now compiles the steps without reference counting
altogether (:mod:`duelbench.engine.loop`), so none is left, and these kernels must not
allocate.
"""

import math

import numba
import numpy as np

from .bounds import evidence
from .counts import record_outcome
from .heap import heap_new, heap_remove, heap_top, heap_upsert

#: Index of α in the ``params`` array of every algorithm built on this module (RUCB, CCB, D-TS:
#: each registers ``alpha`` as its first parameter); :func:`cb_update_state` reads it here.
ALPHA = 0


@numba.njit(cache=True, inline="always")
def cb_new(K):
    """Empty relation: nothing is resolved (every bound of an unobserved pair straddles 1/2)."""
    beats = np.zeros((K, K), dtype=np.int8)
    n_lost = np.zeros(K, dtype=np.int64)
    n_won = np.zeros(K, dtype=np.int64)
    return beats, n_lost, n_won, heap_new(K * K)


@numba.njit(cache=True, inline="always")
def _set_winner(cb, a, b, winner):
    """Set the status of pair {a, b} to ``winner`` ∈ {a, b, −1 (unresolved)}."""
    beats, n_lost, n_won, _ = cb
    if beats[a, b] == 1:
        beats[a, b] = 0
        n_won[a] -= 1
        n_lost[b] -= 1
    elif beats[b, a] == 1:
        beats[b, a] = 0
        n_won[b] -= 1
        n_lost[a] -= 1
    if winner == a:
        beats[a, b] = 1
        n_won[a] += 1
        n_lost[b] += 1
    elif winner == b:
        beats[b, a] = 1
        n_won[b] += 1
        n_lost[a] += 1


@numba.njit(cache=True, inline="always")
def cb_refresh_pair(cb, W, i, j, log_t, alpha):
    """Re-evaluate pair {i, j} after its counts changed, at time t (``log_t = ln t``)."""
    if i == j:
        return
    a = min(i, j)
    b = max(i, j)
    K = W.shape[0]
    z = evidence(W, a, b, alpha)
    winner = -1
    if z > log_t:
        winner = a if W[a, b] > W[b, a] else b
    _set_winner(cb, a, b, winner)
    if winner >= 0:
        heap_upsert(cb[3], a * K + b, z)
    else:
        heap_remove(cb[3], a * K + b)


@numba.njit(cache=True, inline="always")
def cb_advance(cb, log_t):
    """Unresolve every pair whose evidence no longer exceeds ``ln t`` (call once per step)."""
    K = cb[0].shape[0]
    h = cb[3]
    while True:
        item = heap_top(h)
        if item < 0 or h[0][item] > log_t:
            break
        heap_remove(h, item)
        _set_winner(cb, item // K, item % K, -1)


@numba.njit(cache=True, inline="always")
def cb_rebuild(cb, W, log_t, alpha):
    """Recompute the whole relation from W (O(K²)); used after a reset and by tests."""
    K = W.shape[0]
    for a in range(K):
        for b in range(a + 1, K):
            cb_refresh_pair(cb, W, a, b, log_t, alpha)


@numba.njit(cache=True, inline="always")
def cb_observe(cb, W, i, j, i_won, log_t, alpha):
    """Count one comparison of (i, j) in W and refresh the pair (self-comparisons are ignored)."""
    if i == j:
        return
    record_outcome(W, i, j, i_won)
    cb_refresh_pair(cb, W, i, j, log_t, alpha)


@numba.njit(cache=True, inline="always")
def cb_update_state(state, i, j, i_won, t):
    """The ``update`` step of RUCB-style algorithms whose state begins ``(W, cb, params)`` with
    ``params[ALPHA] = alpha``: count the outcome of (i, j) at time t and refresh the pair."""
    cb_observe(state[1], state[0], i, j, i_won, math.log(t), state[2][ALPHA])

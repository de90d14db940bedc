"""RUCB-style confidence bounds (Zoghi et al. 2014; used by RUCB, CCB, D-TS).

``u_ij = W_ij/N_ij + sqrt(alpha ln t / N_ij)`` and ``l_ij = W_ij/N_ij − sqrt(alpha ln t / N_ij)``
with ``u_ii = l_ii = 1/2``.  For an unobserved pair (``N_ij = 0``) the papers' convention
"x/0 := 1" is applied to both ratios (Zoghi et al. 2015, paper 001 Algorithm 1 line 3; Wu & Liu
Algorithm 1 line 4), giving ``u = 1 + 1 = 2`` and ``l = 1 − 1 = 0``.

Whether a bound lies on one side of 1/2 is decided by :func:`evidence` (see
:mod:`duelbench.stats.confident_beats`); the bound values themselves are used where an algorithm
takes an argmax over them (RUCB and CCB's choice of the opponent ``d``).
"""

import math

import numba


@numba.njit(cache=True, inline="always")
def ucb(W, i, j, log_t, alpha):
    """Upper confidence bound ``u_ij`` at time t (``log_t = ln t``)."""
    if i == j:
        return 0.5
    n = W[i, j] + W[j, i]
    if n == 0.0:
        return 2.0
    return W[i, j] / n + math.sqrt(alpha * log_t / n)


@numba.njit(cache=True, inline="always")
def lcb(W, i, j, log_t, alpha):
    """Lower confidence bound ``l_ij`` at time t (``log_t = ln t``)."""
    if i == j:
        return 0.5
    n = W[i, j] + W[j, i]
    if n == 0.0:
        return 0.0
    return W[i, j] / n - math.sqrt(alpha * log_t / n)


@numba.njit(cache=True, inline="always")
def evidence(W, i, j, alpha):
    """``z_ij = N_ij (mû_ij − 1/2)² / alpha``: the pair's bounds exclude 1/2 iff ``z_ij > ln t``.

    ``l_ij > 1/2  ⇔  mû_ij > 1/2 and sqrt(alpha ln t / N) < mû_ij − 1/2  ⇔  mû_ij > 1/2 and
    z_ij > ln t``.  Since z does not depend on t, the time at which a resolved pair becomes
    unresolved again is known in advance (``ln t ≥ z``), which is what makes incremental Copeland
    counts possible.
    """
    n = W[i, j] + W[j, i]
    if n == 0.0:
        return 0.0
    d = W[i, j] / n - 0.5
    return n * d * d / alpha

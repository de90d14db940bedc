"""Hoeffding confidence intervals for a Bernoulli mean (used by Copeland SAVAGE).

For n i.i.d. outcomes in [0, 1] with empirical mean mû_n, Hoeffding's inequality gives
``P(|mû_n − mu| > c) ≤ 2 exp(−2 n c²)``.  Asking for ``δ' = 2 exp(−2 n c²)`` gives the radius

    c(n) = sqrt(log_term / (2 n)),   log_term = ln(2 / δ'),

and a union bound over m (variable, sample size) events at total failure probability δ makes
``δ' = δ / m``, i.e. ``log_term = ln(2 m / δ)`` (Urvoy et al. 2013 use m = N·T for N variables
and a horizon T; see :mod:`duelbench.algorithms.savage`).

The interval ``[mû − c, mû + c]`` *excludes 1/2* iff ``|mû − 1/2| > c``.  With w wins out of n
this is ``|2w − n| / (2n) > sqrt(log_term / (2n))`` ⇔ ``(2w − n)² > 2 n · log_term``, which
:func:`hoeffding_side` evaluates without a square root or a division (``2w − n`` is an exact
integer in float64).  Boundary convention (as in :mod:`duelbench.stats.confident_beats`): an
interval whose end lies exactly on 1/2 does not exclude it.
"""

import math

import numba


@numba.njit(cache=True)
def hoeffding_radius(n, log_term):
    """``c(n) = sqrt(log_term / (2n))``; ``inf`` for n = 0 (nothing is known)."""
    if n <= 0:
        return math.inf
    return math.sqrt(log_term / (2.0 * n))


@numba.njit(cache=True)
def hoeffding_side(wins, n, log_term):
    """+1 if ``mû − c(n) > 1/2``, −1 if ``mû + c(n) < 1/2``, 0 if the interval contains 1/2.

    ``wins`` of ``n`` outcomes were 1 (``mû = wins / n``); n = 0 gives 0.
    """
    if n <= 0:
        return 0
    d = 2.0 * wins - n
    if d * d > 2.0 * n * log_term:
        return 1 if d > 0 else -1
    return 0

"""Batch schedules of batched dueling bandits (Agarwal, Ghuge & Nagarajan, ICML 2022, paper 003).

In round r every compared pair is compared ``c_r = q^r`` times, ``q = T^{1/B}`` (paper 003,
"If a pair (b_i, b_j) is compared in round r, it is compared c_r = q^r times", @18483;
Algorithm 1 line 2, @18682), and its fresh estimate (Eq. (1)) is tested against the radius
``γ_r = sqrt(log(1/δ) / (2 c_r))`` (natural log; Lemma 4.1: Hoeffding's inequality for c_r
comparisons).  The paper does not say how a fractional q^r becomes a number of comparisons;
:func:`batch_size` offers the two roundings used by :mod:`duelbench.algorithms.batched`.
"""

import math

import numba

from .hoeffding import hoeffding_radius

#: Tolerance below an integer under which ``q^r`` counts as that integer (rounding 0), so that
#: ``q^B`` computed in floating point gives exactly T rather than T + 1.
CEIL_SLACK = 1e-9
#: Largest batch size returned (far above any horizon; keeps the conversion to int64 exact).
MAX_BATCH = 2**62


@numba.njit(cache=True)
def batch_size(q, r, rounding):
    """``c_r`` = q^r comparisons of each pair in round r, as an integer ≥ 1.

    ``rounding`` 0: ``ceil(q^r − 1e-9)``; 1: ``floor(q^r + 1/2)`` (the nearest integer, halves
    up).  ``q^r`` is ``math.pow(q, r)`` (the C library's pow on both code paths); values above
    :data:`MAX_BATCH` are returned as :data:`MAX_BATCH`.
    """
    x = math.pow(q, float(r))
    if not x < MAX_BATCH:
        return MAX_BATCH
    if rounding == 0:
        c = math.ceil(x - CEIL_SLACK)
    else:
        c = math.floor(x + 0.5)
    return max(int(c), 1)


@numba.njit(cache=True)
def gamma_radius(log_inv_delta, c):
    """``γ = sqrt(log(1/δ) / (2c))`` for c comparisons of a pair (paper 003, Algorithm 1 line 2,
    Lemma 4.1); the Hoeffding radius :func:`duelbench.stats.hoeffding.hoeffding_radius` with
    ``log_term = log(1/δ)``; ``inf`` for c = 0."""
    return hoeffding_radius(c, log_inv_delta)

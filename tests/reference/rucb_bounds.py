"""RUCB's confidence bounds recomputed from the win counts, for the references of the
algorithms that use them (RUCB, RCS, D-TS, D-TS+).

``W[i][j]`` = wins of i over j (integers); ``u_ij = W_ij/N_ij + sqrt(alpha ln t / N_ij)`` and
``l_ij = W_ij/N_ij − sqrt(alpha ln t / N_ij)`` with ``N_ij = W_ij + W_ji``, "x/0 := 1" for both
ratios of an unobserved pair, and ``u_ii = l_ii = 1/2``.  Standard library only: no ``duelbench``
helper (the shared bounds in ``duelbench.stats.bounds`` are what the references check).
"""

import math


def mean_and_width(W, i, j, alpha, log_t):
    wins, n = W[i][j], W[i][j] + W[j][i]
    if n == 0:
        return 1.0, 1.0  # x/0 := 1 for the mean and for the width
    return wins / n, math.sqrt(alpha * log_t / n)


def upper(W, i, j, alpha, log_t):
    if i == j:
        return 0.5
    m, w = mean_and_width(W, i, j, alpha, log_t)
    return m + w


def lower(W, i, j, alpha, log_t):
    if i == j:
        return 0.5
    m, w = mean_and_width(W, i, j, alpha, log_t)
    return m - w

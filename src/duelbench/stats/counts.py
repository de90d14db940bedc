"""Pairwise win counts.

The state of every algorithm in this suite stores ``W[i, j]`` = number of comparisons of the
pair {i, j} that arm i won (float64, K×K; the diagonal counts self-comparisons and is never
read).  ``N_ij = W[i, j] + W[j, i]``.  The empirical preference is ``W[i, j] / N_ij`` with the
convention ``0/0 := 1/2`` of Komiyama et al. (2016), paper 000 L67.
"""

import numba
import numpy as np


@numba.njit(cache=True, inline="always")
def new_counts(K):
    """A zero K×K float64 win-count matrix."""
    return np.zeros((K, K), dtype=np.float64)


@numba.njit(cache=True, inline="always")
def n_pair(W, i, j):
    """Number of comparisons of the unordered pair {i, j}."""
    return W[i, j] + W[j, i]


@numba.njit(cache=True, inline="always")
def empirical_mean(W, i, j):
    """``mû_ij = W_ij / N_ij`` with ``0/0 := 1/2`` (paper 000 L67); 1/2 on the diagonal."""
    if i == j:
        return 0.5
    n = W[i, j] + W[j, i]
    if n == 0.0:
        return 0.5
    return W[i, j] / n


@numba.njit(cache=True, inline="always")
def record_outcome(W, i, j, i_won):
    """Count one comparison of (i, j): ``W[i, j] += 1`` if i won, else ``W[j, i] += 1``."""
    if i_won:
        W[i, j] += 1.0
    else:
        W[j, i] += 1.0

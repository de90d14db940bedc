"""Empirical Copeland structure of an arbitrary preference matrix (numba kernels).

Komiyama et al. (2016), paper 000 L95: for any K×K matrix ``ν`` (the true ``μ`` or the
empirical ``μ̂(t)``)

* superiors ``Ô_i = {j : ν_ij < 1/2}`` (the arms that beat i), inferiors ``Ĥ_i = {j : ν_ij > 1/2}``;
* losses ``L̂_i = |Ô_i|``, ``L̂^(1) = min_i L̂_i``;
* Copeland winners ``C_cop = {i : L̂_i = L̂^(1)}`` (by losses, as in paper 000 L69);
* per-pair regret ``r̂_ij = (L̂_i + L̂_j − 2 L̂^(1)) / (2 (K − 1))`` (L101).

These are the in-kernel counterparts of :func:`duelbench.problems.winners.losses`,
:func:`~duelbench.problems.winners.copeland_winners` (``by="losses"``) and
:func:`duelbench.problems.regret.regret_matrix` (``"copeland"``), which are Python-level and
work on a :class:`~duelbench.problems.matrix.PreferenceMatrix`.  Comparisons with 1/2 are exact:
an (empirical) tie ``ν_ij == 1/2`` — e.g. an unobserved pair, ``0/0 := 1/2`` — is neither a win
nor a loss, as in those functions.

Indices are 0-based.  Arrays ``L`` are int64 of length K; ``mask`` is a boolean array of
length K.  Every function is ``numba.njit(cache=True)`` and also runs as plain Python.
"""

import numba
import numpy as np


@numba.njit(cache=True)
def is_superior(nu, i, j):
    """``j ∈ Ô_i``: j beats i under ν (``ν_ij < 1/2``)."""
    return nu[i, j] < 0.5


@numba.njit(cache=True)
def is_inferior(nu, i, j):
    """``j ∈ Ĥ_i``: i beats j under ν (``ν_ij > 1/2``)."""
    return nu[i, j] > 0.5


@numba.njit(cache=True)
def pair_sign(nu, i, j):
    """+1 if ``ν_ij > 1/2`` (i beats j), −1 if ``ν_ij < 1/2`` (j beats i), 0 for a tie."""
    x = nu[i, j]
    if x > 0.5:
        return 1
    if x < 0.5:
        return -1
    return 0


@numba.njit(cache=True)
def losses_into(nu, L):
    """Fill ``L[i] = L̂_i = #{j : ν_ij < 1/2}`` (the diagonal 1/2 is never counted)."""
    K = nu.shape[0]
    for i in range(K):
        c = 0
        for j in range(K):
            if nu[i, j] < 0.5:
                c += 1
        L[i] = c


@numba.njit(cache=True)
def min_losses(L):
    """``L̂^(1) = min_i L̂_i``."""
    m = L[0]
    for i in range(1, L.shape[0]):
        if L[i] < m:
            m = L[i]
    return m


@numba.njit(cache=True)
def winner_mask_into(L, L1, mask):
    """Fill ``mask[i] = (L̂_i == L̂^(1))`` (``L1`` from :func:`min_losses`); return ``|C_cop|``."""
    count = 0
    for i in range(L.shape[0]):
        mask[i] = L[i] == L1
        count += mask[i]
    return count


@numba.njit(cache=True)
def copeland_winner_set(nu):
    """The Copeland winners of ν by losses, as an increasing int64 array (allocates)."""
    K = nu.shape[0]
    L = np.zeros(K, dtype=np.int64)
    losses_into(nu, L)
    mask = np.zeros(K, dtype=np.bool_)
    n = winner_mask_into(L, min_losses(L), mask)
    out = np.zeros(n, dtype=np.int64)
    m = 0
    for i in range(K):
        if mask[i]:
            out[m] = i
            m += 1
    return out


@numba.njit(cache=True)
def pair_regret(L, L1, i, j):
    """``r̂_ij = (L̂_i + L̂_j − 2 L̂^(1)) / (2 (K − 1))`` (paper 000 L101); 0 for K = 1."""
    K = L.shape[0]
    if K < 2:
        return 0.0
    return (L[i] + L[j] - 2 * L1) / (2.0 * (K - 1))


@numba.njit(cache=True)
def move_loss(L, a, b, old_sign, new_sign):
    """Update ``L`` after the sign of ``ν_ab − 1/2`` changed from ``old_sign`` to ``new_sign``.

    Signs are those of :func:`pair_sign` ``(ν, a, b)``: −1 means b beats a (a loss of a), +1 a
    loss of b, 0 a tie (no loss).
    """
    if old_sign == -1:
        L[a] -= 1
    elif old_sign == 1:
        L[b] -= 1
    if new_sign == -1:
        L[a] += 1
    elif new_sign == 1:
        L[b] += 1

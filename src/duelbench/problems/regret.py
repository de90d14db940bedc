"""Per-pair regret matrices used by the simulation engine.

:func:`regret_matrix` returns a (K, K) float64 array ``r`` with
``r[i, j]`` = the regret incurred by comparing arms ``i`` and ``j`` (the
matrix is symmetric; ``r[i, i]`` is the regret of comparing ``i`` with
itself).  The cumulative (pseudo-)regret of a run is the sum of
``r[l(t), m(t)]`` over rounds.

Kinds (``REGRET_KINDS``):

``"copeland"`` (suite default)
    Komiyama et al. 2016, paper 000 L71:
    ``r_ij = (L_i + L_j - 2 L_1) / (2 (K - 1))`` with ``L_i`` the number of
    losses of arm ``i`` (:func:`~duelbench.problems.winners.losses`) and
    ``L_1 = min_i L_i``.  Range [0, 1]; ``r_ii = (L_i - L_1)/(K - 1)``.
``"copeland_zoghi"``
    Zoghi et al. 2015, paper 001 Definition 1 (L46-48):
    ``r_ij = 2 cpld(a_1) - cpld(a_i) - cpld(a_j)`` with normalised Copeland
    scores ``cpld(a_i) = Cpld(a_i)/(K - 1)`` and ``cpld(a_1)`` the maximum.
    Range [0, 2].
``"copeland_wu"``
    Wu & Liu 2016, paper 004 eq. (1) (L170-203): per-step regret
    ``zeta* - (zeta_a + zeta_b)/2`` with ``zeta_i = cpld(a_i)``.  Range [0, 1].
``"condorcet"``
    Yue et al. 2012 (as used by paper 003, "r(t) = (eps_t1 + eps_t2)/2"):
    ``r_ab = (Delta_1a + Delta_1b)/2`` with ``Delta_1a = p_1a - 1/2`` and
    ``1`` the Condorcet winner (``Delta_11 = 0``).  Raises
    :class:`NoCondorcetWinnerError` if there is none.

Relations (exact in float64, because every Copeland kind is computed as an
integer numerator divided once by ``(K - 1)`` or ``2 (K - 1)``)::

    copeland_zoghi == 2 * copeland_wu                    (always, incl. ties)
    copeland       == copeland_wu == copeland_zoghi / 2  (if no p_ij == 1/2, i != j)

The factor 2 between paper 001 and paper 000 is the "constant factor" of
paper 000 footnote 1 (L73).  With ties the losses-based ``"copeland"`` and
the score-based kinds can differ, because a tie counts neither as a win nor
as a loss: ``"copeland"`` is zero on pairs of arms with the fewest losses,
the score-based kinds on pairs of arms with the most wins
(:func:`~duelbench.problems.winners.copeland_winners` with ``by="losses"``
vs ``by="score"``).
"""

from __future__ import annotations

import numpy as np

from .matrix import square_values
from .winners import copeland_scores, losses

__all__ = ["regret_matrix", "REGRET_KINDS", "NoCondorcetWinnerError"]

REGRET_KINDS = ("copeland", "copeland_zoghi", "copeland_wu", "condorcet")


class NoCondorcetWinnerError(ValueError):
    """The Condorcet regret was requested for a matrix without a Condorcet winner."""


def regret_matrix(P, kind: str = "copeland") -> np.ndarray:
    """Regret of every comparison ``(i, j)``, as a fresh (K, K) float64 array.

    Parameters
    ----------
    P : PreferenceMatrix or array_like
        The preference matrix (raw arrays are not validated).
    kind : str, default "copeland"
        One of :data:`REGRET_KINDS`; see the module docstring for the
        formulas, their sources and the exact relations between them.

    Returns
    -------
    numpy.ndarray
        Symmetric, non-negative; zero exactly on pairs of (Copeland or
        Condorcet) winners, including each winner with itself.

    Raises
    ------
    NoCondorcetWinnerError
        ``kind="condorcet"`` and no arm beats all others (``p_ij > 1/2``).
    ValueError
        Unknown ``kind``.
    """
    a = square_values(P, min_arms=1)
    K = a.shape[0]
    if kind == "copeland":
        if K == 1:
            return np.zeros((1, 1))
        L = losses(a)
        num = L[:, None] + L[None, :] - 2 * L.min()
        return num / (2.0 * (K - 1))
    if kind in ("copeland_zoghi", "copeland_wu"):
        if K == 1:
            return np.zeros((1, 1))
        C = copeland_scores(a)
        num = 2 * C.max() - C[:, None] - C[None, :]
        return num / ((K - 1) if kind == "copeland_zoghi" else 2.0 * (K - 1))
    if kind == "condorcet":
        C = copeland_scores(a)
        c = int(np.argmax(C))
        if C[c] != K - 1:
            raise NoCondorcetWinnerError(
                "the Condorcet regret (Delta_1a + Delta_1b)/2 needs a Condorcet winner (an arm with "
                f"p_ij > 1/2 against every other arm), but this matrix has none (best Copeland score "
                f"{int(C[c])} of {K - 1}); use a Copeland regret kind instead"
            )
        d = a[c] - 0.5
        d[c] = 0.0
        return (d[:, None] + d[None, :]) / 2.0
    raise ValueError(f"unknown regret kind {kind!r}; expected one of {REGRET_KINDS}")

"""Synthetic preference matrices and random submatrices.

Every function returns :class:`~duelbench.problems.matrix.PreferenceMatrix`
objects.  Randomness comes only from the ``rng`` argument, which may be a
:class:`numpy.random.Generator`, an int seed or a
:class:`numpy.random.SeedSequence` (anything accepted by
:func:`numpy.random.default_rng` except None: an unseeded call would not be
reproducible, so ``rng=None`` is rejected wherever randomness is used).
Arm indices are 0-based.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .matrix import PreferenceMatrix

__all__ = [
    "btl",
    "random_btl",
    "hard_condorcet",
    "cyclic",
    "copeland_cycle_plus_order",
    "random_submatrix",
    "SubmatrixSample",
    "SamplingError",
]


class SamplingError(RuntimeError):
    """Rejection sampling did not find an acceptable submatrix within ``max_tries``."""


def _rng(rng, what: str) -> np.random.Generator:
    if rng is None:
        raise ValueError(
            f"{what} needs a random source: pass rng as a numpy.random.Generator or an int seed "
            "(None is rejected so that every instance is reproducible)"
        )
    return np.random.default_rng(rng)


def _from_upper(full: np.ndarray, K: int) -> np.ndarray:
    """Stored matrix from the strict upper triangle of ``full``: lower = 1 - upper, diagonal 1/2."""
    P = np.full((K, K), 0.5)
    iu = np.triu_indices(K, 1)
    up = full[iu]
    P[iu] = up
    P[iu[1], iu[0]] = 1.0 - up
    return P


# --------------------------------------------------------------------------- BTL
def btl(utilities, *, names=None, name: str | None = None) -> PreferenceMatrix:
    """Bradley-Terry-Luce matrix ``p_ij = u_i / (u_i + u_j)``.

    Parameters
    ----------
    utilities : array_like, shape (K,)
        Positive finite weights ``u_i`` (K >= 2).
    names, name : optional
        Passed to :class:`PreferenceMatrix`.

    Notes
    -----
    BTL matrices are strongly stochastically transitive (SST) and satisfy the
    stochastic triangle inequality (paper 003 "SYN-BTL", citing Yue et al.
    2012).  The upper triangle is computed as ``u_i/(u_i+u_j)`` and the lower
    one as ``1 -`` that (storage convention of :mod:`.matrix`).  Equal
    utilities give exact ties and hence a ``TiedPairWarning``.
    """
    u = np.asarray(utilities, dtype=np.float64)
    if u.ndim != 1 or u.size < 2:
        raise ValueError(f"utilities must be a 1-D array of K >= 2 weights, got shape {u.shape}")
    if not np.all(np.isfinite(u)) or np.any(u <= 0):
        raise ValueError(f"utilities must be positive and finite, got {u.tolist()}")
    ratio = u[:, None] / (u[:, None] + u[None, :])
    return PreferenceMatrix(_from_upper(ratio, u.size), names=names, name=name)


def random_btl(K: int, rng, *, low: float = 0.0, high: float = 1.0, name: str | None = None) -> PreferenceMatrix:
    """BTL matrix with i.i.d. utilities ``u_i ~ Uniform(low, high]``.

    The defaults reproduce the SYN-BTL instance of paper 003 ("BTL-Uniform":
    weights "sampled uniformly in the interval (0, 1]").  The half-open
    interval is realised as ``high - (high - low) * U`` with ``U`` from
    ``Generator.random()`` in [0, 1).  Arms are in the drawn (random) order.
    """
    if K < 2:
        raise ValueError(f"K must be >= 2, got {K}")
    if not (0.0 <= low < high and np.isfinite(high)):
        raise ValueError(f"need 0 <= low < high < inf, got low={low}, high={high}")
    g = _rng(rng, "random_btl")
    u = high - (high - low) * g.random(K)
    return btl(u, name=name)


# --------------------------------------------------------------------------- hard Condorcet
def hard_condorcet(
    K: int,
    epsilon: float | None = None,
    rng=None,
    *,
    winner: int | None = None,
    name: str | None = None,
) -> PreferenceMatrix:
    """The "Hard-Instance" (SYN-CD) of Agarwal et al. 2022 (paper 003, @31931).

    Definition (paper 003, Section 5): pick the Condorcet winner ``l``
    uniformly in [K] and ``epsilon`` uniformly in (0, 0.5); set
    ``P[l, i] = 1/2 + epsilon`` for ``i != l`` (so ``P[i, l] = 1/2 - epsilon``)
    and ``P[i, j] = 1/2`` for all ``i, j != l``.  It mirrors the instances
    ``E_{j,k}`` of the lower bound (paper 003 Theorem C.1, @57676).  The paper
    uses K = 100.

    Parameters
    ----------
    K : int
        Number of arms (>= 2).
    epsilon : float, optional
        The gap, in (0, 1/2].  If None it is drawn from ``rng`` uniformly in
        the open interval (0, 0.5) (a draw of exactly 0 is redrawn).
    rng : Generator or int, optional
        Needed only if ``epsilon`` or ``winner`` is None.
    winner : int, optional
        The Condorcet winner ``l`` (0-based).  If None it is drawn uniformly
        from ``rng``.  (When both are drawn, ``winner`` is drawn first.)
    name : str, optional

    Notes
    -----
    All pairs not involving the winner are exact ties (by design), so the
    usual ``TiedPairWarning`` is not emitted.  The instance is weakly SST and
    satisfies STI.
    """
    if K < 2:
        raise ValueError(f"K must be >= 2, got {K}")
    g = None
    if winner is None or epsilon is None:
        g = _rng(rng, "hard_condorcet with a random winner or epsilon")
    if winner is None:
        winner = int(g.integers(K))
    elif not (0 <= int(winner) < K):
        raise ValueError(f"winner must be in [0, {K - 1}], got {winner}")
    winner = int(winner)
    if epsilon is None:
        epsilon = 0.0
        while epsilon == 0.0:
            epsilon = 0.5 * float(g.random())
    if not (0.0 < epsilon <= 0.5):
        raise ValueError(f"epsilon must lie in (0, 0.5], got {epsilon}")
    P = np.full((K, K), 0.5)
    P[winner, :] = 0.5 + epsilon
    P[:, winner] = 1.0 - (0.5 + epsilon)
    P[winner, winner] = 0.5
    return PreferenceMatrix._trusted(P, name=name)


# --------------------------------------------------------------------------- cyclic
def cyclic(K: int, gap=0.1, rng=None, *, name: str | None = None) -> PreferenceMatrix:
    """A cyclic (rotation-symmetric) tournament without a Condorcet winner.

    Construction: arm ``i`` beats arm ``j`` iff ``(j - i) mod K`` lies in
    ``{1, ..., floor((K - 1)/2)}``; for even K the "antipodal" pairs
    ``(i, i + K/2)``, ``i < K/2``, are won by the lower index ``i``.  The winner
    of each pair wins with probability ``w_ij = fl(1/2 + gap_ij)`` and the
    loser's entry is ``1 - w_ij`` (exact in float64 since ``w_ij >= 1/2``).

    * Odd K: every arm has Copeland score ``(K - 1)/2``; all K arms are
      Copeland winners, so there is no Condorcet winner and every Copeland
      regret is identically 0 (no arm is distinguished -- a "Copeland-free"
      instance).  K = 3 is the rock-paper-scissors cycle.
    * Even K: arms ``0 .. K/2 - 1`` have score ``K/2`` and are the Copeland
      winners; arms ``K/2 .. K-1`` have score ``K/2 - 1``.  No Condorcet
      winner for K >= 4.

    Parameters
    ----------
    K : int
        Number of arms, >= 3.
    gap : float or (float, float), default 0.1
        A constant gap in (0, 1/2], or a range ``(low, high)`` with
        ``0 < low <= high <= 1/2`` from which each pair's gap is drawn
        uniformly (upper triangle, row-major order) using ``rng``.
    rng : Generator or int, optional
        Needed only for random gaps.
    name : str, optional

    Notes
    -----
    With a constant gap and odd K the von Neumann winner is the uniform
    distribution (the matrix is circulant).
    """
    if K < 3:
        raise ValueError(f"a cyclic instance needs K >= 3, got {K}")
    iu = np.triu_indices(K, 1)
    n = iu[0].size
    if np.ndim(gap) == 0:
        g = float(gap)
        if not (0.0 < g <= 0.5):
            raise ValueError(f"gap must lie in (0, 0.5], got {gap}")
        gaps = np.full(n, g)
    else:
        lo, hi = (float(x) for x in gap)
        if not (0.0 < lo <= hi <= 0.5):
            raise ValueError(f"gap range must satisfy 0 < low <= high <= 0.5, got {gap}")
        gaps = lo + (hi - lo) * _rng(rng, "cyclic with random gaps").random(n)
    d = (iu[1] - iu[0]) % K  # in 1..K-1 since i < j
    half = (K - 1) // 2
    i_wins = (d <= half) | ((K % 2 == 0) & (d == K // 2))
    win = 0.5 + gaps
    up = np.where(i_wins, win, 1.0 - win)  # the loser's entry is exactly 1 - (winner's entry)
    U = np.zeros((K, K))
    U[iu] = up
    return PreferenceMatrix._trusted(_from_upper(U, K), name=name)


# --------------------------------------------------------------------------- Copeland cycle + order
def _gap(value, what: str) -> float:
    g = float(value)
    if not (0.0 < g <= 0.5):
        raise ValueError(f"{what} must lie in (0, 0.5], got {value!r}")
    return g


def copeland_cycle_plus_order(
    n_winners: int = 3,
    n_others: int = 497,
    g_w: float = 0.1,
    g_wn: float = 0.1,
    g_nn: float = 0.1,
    *,
    name: str | None = None,
) -> PreferenceMatrix:
    """Copeland winners in a cycle above a transitive order (Zoghi et al. 2015, Figure 2).

    Paper 001 L397 describes its 500-arm problem only by structure: "3 Copeland winners in a
    cycle, each with Copeland score 498; the other 497 arms have Copeland scores ranging from 0
    to 496".  The declared reading (``data/generated/zoghi2015.yaml``; reading Z2 of
    ``docs/zoghi2015.md``) is built here, deterministically (no randomness), with
    K = n_winners + n_others:

    * arms ``0 .. n_winners-1`` are the winners, in a cycle ``p_{k, k+1 mod n} = 1/2 + g_w``;
    * every winner beats every non-winner with ``p = 1/2 + g_wn``;
    * the non-winners ``n_winners .. K-1`` form a transitive order: non-winner i beats
      non-winner j > i with ``p = 1/2 + g_nn``;
    * ``p_ji = 1 - p_ij`` and ``p_ii = 1/2``.

    Copeland scores (number of arms beaten): each winner ``(n_winners - 1)/2 + n_others``; the
    non-winner at position m = 0, 1, … (arm ``n_winners + m``) ``n_others - 1 - m``.  The
    defaults give the paper's instance: scores 498 for arms 0-2 and 496, 495, …, 0 for arms
    3-499 (one arm at each score), no Condorcet winner, C = 3, L_C = 1.

    Parameters
    ----------
    n_winners : int
        1 (a single Condorcet winner) or an odd number >= 3.  For 3 the cycle is the whole
        winner tournament (0 beats 1, 1 beats 2, 2 beats 0).  For odd n >= 5 the cycle alone
        leaves pairs undetermined; they are completed to the regular (rotational) tournament:
        winner k beats winner ``k + d mod n`` for ``d = 1 .. (n - 1)/2``, so all winners keep
        equal scores.  An even number >= 2 is rejected (winners cannot then tie).
    n_others : int
        Number of non-winners (>= 0; K = n_winners + n_others must be >= 2).
    g_w, g_wn, g_nn : float
        Gaps in (0, 1/2] of winner-winner, winner-non-winner and non-winner pairs; the winning
        entry is ``fl(1/2 + g)`` and the losing entry exactly ``1 -`` that (as in :func:`cyclic`).
    name : str, optional
        Name of the returned matrix.
    """
    if isinstance(n_winners, bool) or int(n_winners) != n_winners or isinstance(n_others, bool) \
            or int(n_others) != n_others:
        raise ValueError(f"n_winners and n_others must be integers, got {n_winners!r} and {n_others!r}")
    n_w, n_o = int(n_winners), int(n_others)
    if not (n_w == 1 or (n_w >= 3 and n_w % 2 == 1)):
        raise ValueError(f"n_winners must be 1 or an odd number >= 3 (tied winners in a cycle), got {n_winners}")
    if n_o < 0 or n_w + n_o < 2:
        raise ValueError(f"need n_others >= 0 and n_winners + n_others >= 2, got {n_winners} and {n_others}")
    w_w = 0.5 + _gap(g_w, "g_w")
    w_wn = 0.5 + _gap(g_wn, "g_wn")
    w_nn = 0.5 + _gap(g_nn, "g_nn")
    K = n_w + n_o
    U = np.full((K, K), w_nn)  # upper triangle a < b: among non-winners the lower index wins
    U[:n_w, n_w:] = w_wn  # winners (lower indices) beat non-winners
    half = (n_w - 1) // 2
    for a in range(n_w):
        for b in range(a + 1, n_w):
            U[a, b] = w_w if (b - a) % n_w <= half else 1.0 - w_w
    return PreferenceMatrix._trusted(_from_upper(U, K), name=name)


# --------------------------------------------------------------------------- submatrices
class SubmatrixSample(NamedTuple):
    """Result of :func:`random_submatrix`.

    Attributes
    ----------
    matrix : PreferenceMatrix
        The accepted submatrix (arm names taken from the parent).
    indices : tuple of int
        Sorted 0-based indices of the chosen arms in the parent.
    tries : int
        Number of K-subsets drawn, including the accepted one (so the
        acceptance rate is estimated by ``1 / mean(tries)``).
    """

    matrix: PreferenceMatrix
    indices: tuple[int, ...]
    tries: int


def random_submatrix(
    P: PreferenceMatrix,
    K: int,
    rng,
    min_gap: float | None = None,
    condorcet: bool | None = None,
    max_tries: int = 1_000_000,
    *,
    name: str | None = None,
) -> SubmatrixSample:
    """Draw a uniformly random K-arm submatrix satisfying optional filters.

    Each try draws a K-subset of the parent's arms uniformly without
    replacement (``Generator.choice(n, K, replace=False)``), sorts it (the
    submatrix keeps the parent's arm order and orientation), and accepts it if

    * ``min_gap`` is None or every off-diagonal entry has
      ``|p_ij - 1/2| >= min_gap`` (float64 comparison; e.g. 0.005 for K = 16
      and 0.0005 for K = 64 in paper 000 L295), and
    * ``condorcet`` is None (either), True (the submatrix has a Condorcet
      winner) or False (it has none).

    Tries are repeated (rejection sampling) until acceptance, so the accepted
    subset is uniform over the acceptable K-subsets.

    Parameters
    ----------
    P : PreferenceMatrix
        Parent matrix with at least K arms.
    K : int
        Submatrix size, 2 <= K <= P.K.
    rng : Generator or int
    min_gap : float, optional
    condorcet : bool, optional
    max_tries : int, default 1000000
        Each try costs some microseconds.  For scale: on the 136-arm MSLR
        informational matrix, K = 16 with ``min_gap=0.005`` accepts about 1.4%
        of draws, and K = 64 with ``min_gap=0.0005, condorcet=False`` about
        2e-5 (so 1e6 tries fail with probability about e^-20).
    name : str, optional
        Name of the returned matrix (default None: identity = content hash).

    Returns
    -------
    SubmatrixSample
        ``(matrix, indices, tries)``.

    Raises
    ------
    SamplingError
        No acceptable subset within ``max_tries`` tries.
    """
    if not isinstance(P, PreferenceMatrix):
        raise TypeError(f"P must be a PreferenceMatrix, got {type(P).__name__}")
    n = P.K
    if not (2 <= K <= n):
        raise ValueError(f"K must satisfy 2 <= K <= {n} (the parent's size), got {K}")
    if max_tries < 1:
        raise ValueError(f"max_tries must be >= 1, got {max_tries}")
    if condorcet not in (None, True, False):
        raise ValueError(f"condorcet must be None, True or False, got {condorcet!r}")
    g = _rng(rng, "random_submatrix")
    V = P.values
    e0 = e1 = None
    if min_gap is not None:
        if not (min_gap >= 0):
            raise ValueError(f"min_gap must be >= 0, got {min_gap}")
        # the parent's pairs i < j that violate the gap filter (usually few)
        e0, e1 = np.nonzero(np.triu(np.abs(V - 0.5) < min_gap, 1))
    chosen = np.zeros(n, dtype=bool)
    for tries in range(1, max_tries + 1):
        idx = np.sort(g.choice(n, K, replace=False))
        if e0 is not None and e0.size:
            chosen[:] = False
            chosen[idx] = True
            if np.any(chosen[e0] & chosen[e1]):
                continue
        if condorcet is not None:
            sub = V[np.ix_(idx, idx)]
            has_cw = bool(np.any(np.count_nonzero(sub > 0.5, axis=1) == K - 1))
            if has_cw != condorcet:
                continue
        names = P.names
        sub = V[np.ix_(idx, idx)]
        matrix = PreferenceMatrix._trusted(sub, tuple(names[k] for k in idx), name)
        return SubmatrixSample(matrix, tuple(idx.tolist()), tries)
    filters = []
    if min_gap is not None:
        filters.append(f"min_gap={min_gap}")
    if condorcet is not None:
        filters.append(f"condorcet={condorcet}")
    raise SamplingError(
        f"no acceptable {K}-arm submatrix of {P!r} in {max_tries} tries with {', '.join(filters) or 'no filters'}; "
        "relax the filters (smaller min_gap, condorcet=None) or raise max_tries"
    )

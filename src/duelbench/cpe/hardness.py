"""Hardness quantities and sample-complexity bounds of Chen, Du, Huang & Zhao (ICML 2020).

Every quantity is computed exactly for one :class:`~duelbench.cpe.instance.BipartiteInstance`,
from the true preference matrix ``P``.

Borda winner (Section 3, Appendix B)
    * :func:`borda_weights` — ``w(e) = (1/|ℳ|) Σ_M p(e, e(M, j))`` (Eq. 4, L99), computed as
      ``Σ_{e′ ∈ E_j} p(e, e′) |ℳ_{e′}| / |ℳ|`` from exact matching counts;
    * :func:`borda_scores` — ``B(M) = (1/|ℳ|) Σ_{M_y} f(M, M_y, P)`` (Eq. 2, L80) by enumeration;
    * :func:`borda_truth` — the winner ``M^B_*``, the gaps ``Δ^B_e`` (Definition 3, L162–L168), their
      minimum, ``H^B`` (Definition 4, L170–L174), ``width(G)`` (Definition 2, L154–L158) and the last
      epoch ``q*`` of CLUCB-Borda-Exact (L800);
    * :func:`h_eps` — ``H^B_ε`` (Theorem 1, L186);
    * bounds :func:`n1` (Eq. 10, L720), :func:`n1_prime` (Eq. 9, L716), :func:`n2` (proof of
      Theorem 2, L796–L822) and the lower bound :func:`n3` (Theorem 3, L211–L213, L874) with its
      admissible ``γ`` (:func:`theorem3_gamma_range`).

Condorcet winner (Section 4, Appendix C)
    * :func:`condorcet_winner` — the strict Condorcet winner (L85–L87) by enumeration;
    * :func:`condorcet_truth` — ``Δ^C_e`` (Definition 5, L288–L292), ``Δ^C_{e,e′}`` (L294), the
      verification gaps ``Δ̃^C_e`` and ``H^C_ver`` (L362–L370);
    * bounds :func:`n4` / :func:`t_prime` (proof of Theorem 4, L1049–L1066), the ``O(·)`` argument
      :func:`h4` of Theorem 4 (L302), and the lower bound :func:`n6` (Theorem 6, L1342–L1383) with
      its admissible ``γ`` (:func:`theorem6_gamma_range`).

Decisions
---------
* **H1 — infinite gaps.**  A maximum over an empty set is ``−∞`` (L168), so an edge in every
  maximum matching (``e ∈ M*``, nothing avoids it) or in none gets ``Δ = +∞``.  It contributes
  ``1/Δ² = 0`` to ``H^B`` (L174), and ``min{width²/Δ², 1/ε²} = min{0, 1/ε²} = 0`` to ``H^B_ε``
  (L186, read literally): such an edge never lies in ``M̃_t △ M_t`` so CLUCB never pulls it.  The
  same holds for ``Δ^C`` and ``Δ̃^C`` (``t′(+∞) = 0`` in :func:`n4`, 0 in :func:`h4`, :func:`n6`
  and ``H^C_ver``).
* **H2 — uniqueness tolerance.**  Section 3 assumes a unique Borda winner (L83).  It is taken as
  unique when the best two Borda scores differ by more than :data:`TIE_TOL` ``= 1e-12``, i.e. when
  ``Δ^B_min / ℓ > 1e-12`` (the runner-up matching is the best one avoiding some edge of ``M*``,
  so the score gap is ``Δ^B_min/ℓ``); :func:`borda_truth` refuses other instances.  A strict
  Condorcet winner (L87) needs ``f(M*, M, P) > 1/2 + TIE_TOL`` for every ``M ≠ M*``.
* **H3 — width.**  ``width(M1, M2)`` (L156) counts the edges of the largest component of
  ``M1 ∪ M2``.  A component of common edges is a single edge, and a component of the symmetric
  difference has exactly two edges per position it touches (both matchings fill every position,
  differently there), so ``width(M1, M2) = 2 · (largest number of positions in one component
  of M1 △ M2)``; :func:`width` evaluates this over all unordered pairs with numpy.  With a single
  maximum matching there is no pair and the width is 0.  For the complete graph ``K_{n,ℓ}``
  (``n ≥ 2``) the closed form ``2ℓ`` is used (a cyclic shift of ``c_1…c_ℓ`` gives one component
  through all positions, and ``2ℓ`` is the most possible).
* **H4 — q*.**  ``q* = ⌊log₂(ℓ/Δ^B_min)⌋ + 1`` (L800); with a single maximum matching
  (``Δ^B_min = +∞``) CLUCB-Borda-Exact stops in its first epoch and ``q* = 1``.
* **H5 — N1′.**  Eq. (9) (L716) prints ``ln(4Kt³/δ)``; the inequality bounds the total ``T`` and
  the text continues with ``T`` (L730), so ``t = T``.  :func:`n1_prime` returns the largest real
  ``T`` with ``T ≤ g(T) := 32 H_ε ln(4KT³/δ) + m``: ``g`` is increasing and concave, so
  ``T − g(T)`` is convex (least at ``T = 96 H_ε``) and ``{T : T ≤ g(T)}`` is an interval;
  iterating ``T ← g(T)`` from a point above the interval (``T ≥ max(N1, 96 H_ε)`` with
  ``g(T) ≤ T``) decreases monotonically to its upper end (``g(T) < T`` there), with
  contraction factor ``g′(T*) = 96 H_ε / T* ≤ 3 / ln(4KT*³/δ)`` at the limit.  The iteration stops
  when a step moves ``T`` by less than ``1e-12·T``; it raises if the factor is not below 1.
* **H6 — N2.**  Epoch ``q`` runs CLUCB-Borda-PAC with ``ε_q = 2^{−q}``, ``δ_q = δ/(2q²)`` (L748–L749),
  so Eq. (10) with ``ln(4H_{ε_q}/δ_q) = ln(4H_{ε_q}·2q²/δ)`` bounds it; :func:`n2` sums epochs
  ``1 … q*`` (L814–L816).
* **H7 — N3 and γ.**  The two conditions of Theorem 3 (L213) give ``γ ≥ max |p − 1/2|`` over
  comparable pairs of distinct edges and ``γ ≤ 1/(4(ℓ r + 1))`` with
  ``r = max_e |ℳ|/(|ℳ| − |ℳ_e|)`` (solve ``r ≤ (1 − 4γ)/(4γℓ)`` for ``γ``), inside ``(0, 1/4)``.
  ``N3`` increases with ``γ``; the caller picks ``γ`` in the range (its upper end gives the
  largest admissible bound).  An edge in every matching makes ``r`` infinite: no ``γ``.
* **H8 — pairs.**  Theorems 4 and 5 sum over ordered pairs ``e ≠ e′`` of a position (each duel
  twice); :func:`n4` and :func:`h4` sum over the ``K`` unordered duel pairs, the number of samples
  CAR-Cond actually draws (one duel per unordered pair and round, Algorithm 2 line 6, L265).
* **H9 — N4.**  CAR-Cond duels a pair in every round until one of its edges is classified
  (L1064), which happens by round ``t′(Δ^C_e)`` (L1049–L1062), so pair ``{e, e′}`` is sampled at
  most ``⌈t′(max(Δ^C_e, Δ^C_{e′}))⌉ = ⌈t′(Δ^C_{e,e′})⌉`` times.  The paper's argument needs
  ``t′ ≥ 3`` (L1062); :func:`n4_conditions_hold` reports whether every finite ``t′`` is.
* **H10 — N6 and γ.**  Theorem 6 (L1344) needs ``0 < γ < 1/(2(2 + ℓ))``, ``|p − 1/2| ≤ γ`` on
  comparable pairs and a structural condition on the sets ``𝒪(M)`` (L1338, the matchings
  ``M_x ≠ M`` with ``f(M_x, M, P) ≥ 1/2``): ``f(M, M*) ≤ f(M, M_x)`` and ``M* ∖ M ⊆ M_x ∖ M``;
  :func:`theorem6_gamma_range` checks all three by enumeration.  ``N6`` is the explicit sum of
  L1380 over ``e ∉ M*``.
* **H11 — enumeration.**  ``B(M)``, the width, the Condorcet winner and ``Δ̃^C`` enumerate ``ℳ``
  (at most ``limit`` matchings, :data:`ENUMERATION_LIMIT` by default); ``w(e)``, ``Δ^B`` and
  ``Δ^C`` only need exact counts and the MWMC oracle.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .exact import matvec
from .instance import BipartiteInstance
from .matching import MatchingCounter, best_other_than, enumerate_matchings, matching_weight, mwmc

__all__ = [
    "TIE_TOL", "ENUMERATION_LIMIT",
    "borda_weights", "borda_scores", "borda_unique", "BordaTruth", "borda_truth", "width", "h_eps",
    "n1", "n1_prime", "n2", "n3", "theorem3_gamma_range",
    "matchings_f", "condorcet_winner", "CondorcetTruth", "condorcet_truth",
    "t_prime", "n4", "n4_conditions_hold", "h4", "n6", "theorem6_gamma_range",
]

#: Two Borda scores, or a duel value and 1/2, closer than this are a tie (decision H2).
TIE_TOL = 1e-12
#: Default cap on the number of maximum matchings enumerated (decision H11).
ENUMERATION_LIMIT = 100_000
#: Rows of ``f(M_x, M_y)`` computed at once (memory cap of the enumerations).
_CHUNK = 512


def _check_delta(delta: float, upper: float = 1.0) -> float:
    delta = float(delta)
    if not 0.0 < delta < upper:
        raise ValueError(f"delta must lie in (0, {upper:g}), got {delta!r}")
    return delta


def _inv_sq(gaps) -> np.ndarray:
    """``1/Δ²`` with ``1/∞² = 0`` (decision H1)."""
    gaps = np.asarray(gaps, dtype=np.float64)
    with np.errstate(divide="ignore"):
        return np.where(np.isinf(gaps), 0.0, 1.0 / gaps**2)


# --- Borda ------------------------------------------------------------------------------------
def borda_weights(inst: BipartiteInstance, counter: MatchingCounter | None = None) -> np.ndarray:
    """``w(e)`` for every edge (Eq. 4, L99).

    ``w(e) = (1/|ℳ|) Σ_{M ∈ ℳ} p(e, e(M, s(e))) = Σ_{e′ ∈ E_{s(e)}} p(e, e′) · |ℳ_{e′}|/|ℳ|``: the
    mean preference of ``e`` over the edge a uniformly drawn maximum matching puts at its
    position.  ``P`` is zero across positions, so this is the product of ``P`` with the vector of
    the marginals ``|ℳ_{e′}|/|ℳ|``, summed in a fixed order (:func:`duelbench.cpe.exact.matvec`).

    Parameters
    ----------
    inst : BipartiteInstance
    counter : MatchingCounter, optional
        Reused when given (it must count ``inst``).

    Returns
    -------
    numpy.ndarray
        Length ``m``.
    """
    counter = MatchingCounter(inst) if counter is None else counter
    return matvec(inst.P, counter.marginals())


def matchings_f(inst: BipartiteInstance, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """``f(M_x, M_y, P)`` (Eq. 1, L70) for every row ``M_x`` of ``rows`` and ``M_y`` of ``cols``.

    Both arguments are ``(·, ℓ)`` arrays of edge indices in position order; returns the
    ``len(rows) × len(cols)`` matrix ``(1/ℓ) Σ_j P[M_x[j], M_y[j]]``.
    """
    rows = np.asarray(rows, dtype=np.int64).reshape(-1, inst.ell)
    cols = np.asarray(cols, dtype=np.int64).reshape(-1, inst.ell)
    out = np.zeros((len(rows), len(cols)))
    for j in range(inst.ell):
        out += inst.P[rows[:, j][:, None], cols[:, j][None, :]]
    return out / inst.ell


def borda_scores(inst: BipartiteInstance, matchings=None, *, limit: int = ENUMERATION_LIMIT) -> np.ndarray:
    """Borda scores ``B(M) = (1/|ℳ|) Σ_{M_y ∈ ℳ} f(M, M_y, P)`` (Eq. 2, L80), ``M_y = M`` included.

    Computed from the definition, by enumerating ``ℳ`` (not from ``w``), so that Eq. (4a)
    ``w(M) = ℓ·B(M)`` can be checked against it.

    Parameters
    ----------
    inst : BipartiteInstance
    matchings : array of shape (k, ℓ), optional
        The matchings to score; all of ``ℳ`` in :func:`~duelbench.cpe.matching.enumerate_matchings`
        order by default.
    limit : int
        Enumeration cap (decision H11).

    Returns
    -------
    numpy.ndarray
        Length ``k``.
    """
    all_m = enumerate_matchings(inst, limit=limit)
    rows = all_m if matchings is None else np.asarray(matchings, dtype=np.int64).reshape(-1, inst.ell)
    out = np.empty(len(rows))
    for start in range(0, len(rows), _CHUNK):
        out[start:start + _CHUNK] = matchings_f(inst, rows[start:start + _CHUNK], all_m).mean(axis=1)
    return out


def borda_unique(inst: BipartiteInstance, counter: MatchingCounter | None = None) -> bool:
    """Whether the Borda winner is unique: best two scores more than :data:`TIE_TOL` apart (H2)."""
    w = borda_weights(inst, counter)
    best = mwmc(inst, w)
    second = best_other_than(inst, w, best)
    if second is None:
        return True
    return (matching_weight(w, best) - matching_weight(w, second)) / inst.ell > TIE_TOL


def width(inst: BipartiteInstance, matchings=None, *, closed_form: bool = True,
          limit: int = ENUMERATION_LIMIT) -> int:
    """``width(G)`` (Definition 2, L154–L158): the most edges in one connected component of
    ``M1 ∪ M2`` over pairs ``M1 ≠ M2`` of maximum matchings.

    Parameters
    ----------
    inst : BipartiteInstance
    matchings : array of shape (k, ℓ), optional
        ``ℳ`` if already enumerated.
    closed_form : bool
        Use ``2ℓ`` for a complete graph with ``n ≥ 2`` (decision H3) instead of enumerating.
    limit : int
        Enumeration cap.

    Returns
    -------
    int
        0 when ``ℳ`` has a single matching.
    """
    if closed_form and inst.m == inst.n * inst.ell and inst.n >= 2:
        return 2 * inst.ell
    ms = enumerate_matchings(inst, limit=limit) if matchings is None else np.asarray(matchings, dtype=np.int64)
    k, ell = ms.shape
    if k < 2:
        return 0
    cand = inst.candidate[ms]  # (k, ℓ) candidate at each position
    ia, ib = np.triu_indices(k, 1)
    best = 0
    big = ell  # label of positions outside the symmetric difference
    pos = np.arange(ell)
    chunk = max(1, 200_000 // max(1, ell * ell))
    for start in range(0, len(ia), chunk):
        ca, cb = cand[ia[start:start + chunk]], cand[ib[start:start + chunk]]
        diff = ca != cb  # positions where the two matchings differ
        # positions j, k (both differing) are joined when they share a candidate
        adj = (ca[:, :, None] == cb[:, None, :]) | (cb[:, :, None] == ca[:, None, :])
        adj |= np.eye(ell, dtype=bool)[None]
        adj &= diff[:, :, None] & diff[:, None, :]
        labels = np.where(diff, pos[None, :], big)
        for _ in range(ell):  # label propagation: the component's smallest position
            new = np.where(adj, labels[:, None, :], big).min(axis=2)
            new = np.where(diff, new, big)
            if np.array_equal(new, labels):
                break
            labels = new
        sizes = (labels[:, :, None] == pos[None, None, :]).sum(axis=1)
        best = max(best, int(sizes.max()))
    return 2 * best


@dataclass(frozen=True, eq=False)
class BordaTruth:
    """Ground truth of an instance for the Borda winner (Section 3).

    Attributes
    ----------
    w : numpy.ndarray
        ``w(e)`` (Eq. 4).
    marginals : numpy.ndarray
        ``|ℳ_e| / |ℳ|``.
    edge_counts : numpy.ndarray
        ``|ℳ_e|``.
    n_matchings : int
        ``|ℳ|``.
    winner : numpy.ndarray
        ``M^B_*`` (edge indices in position order).
    gaps : numpy.ndarray
        ``Δ^B_e`` (Definition 3); ``+inf`` for an empty maximum (decision H1).
    delta_min : float
        ``Δ^B_min``.
    hardness : float
        ``H^B = Σ_e 1/(Δ^B_e)²`` (Definition 4).
    width : int
        ``width(G)`` (Definition 2).
    q_star : int
        ``⌊log₂(ℓ/Δ^B_min)⌋ + 1`` (L800; decision H4).
    ell, m, K : int
        Size of the instance.
    """

    w: np.ndarray = field(repr=False)
    marginals: np.ndarray = field(repr=False)
    edge_counts: np.ndarray = field(repr=False)
    n_matchings: int
    winner: np.ndarray
    gaps: np.ndarray = field(repr=False)
    delta_min: float
    hardness: float
    width: int
    q_star: int
    ell: int
    m: int
    K: int

    @property
    def score_gap(self) -> float:
        """``B(M^B_*) − max_{M ≠ M^B_*} B(M) = Δ^B_min / ℓ``."""
        return self.delta_min / self.ell


def borda_truth(inst: BipartiteInstance, *, limit: int = ENUMERATION_LIMIT) -> BordaTruth:
    """Every Borda quantity of Section 3 for ``inst``.

    ``Δ^B_e = w(M*) − max_{M ∋ e} w(M)`` for ``e ∉ M*`` and ``w(M*) − max_{M ∌ e} w(M)`` for
    ``e ∈ M*`` (Definition 3, L166), each maximum a constrained MWMC (edge forced in / out).

    Raises
    ------
    ValueError
        If the Borda winner is not unique (decision H2).
    """
    counter = MatchingCounter(inst)
    w = borda_weights(inst, counter)
    winner = mwmc(inst, w)
    top = matching_weight(w, winner)
    in_winner = np.zeros(inst.m, dtype=bool)
    in_winner[winner] = True
    gaps = np.empty(inst.m)
    for e in range(inst.m):
        other = mwmc(inst, w, forbidden=(e,)) if in_winner[e] else mwmc(inst, w, forced=(e,))
        gaps[e] = top - matching_weight(w, other)  # +inf when no such matching (L168)
    delta_min = float(gaps.min())
    if not delta_min / inst.ell > TIE_TOL:
        raise ValueError(f"{inst.name!r}: the Borda winner is not unique (best two Borda scores within "
                         f"{TIE_TOL:g}; Chen et al. 2020 assume uniqueness, L83)")
    q_star = 1 if math.isinf(delta_min) else int(math.floor(math.log2(inst.ell / delta_min))) + 1
    winner.setflags(write=False)
    return BordaTruth(w=w, marginals=counter.marginals(), edge_counts=counter.edge_counts(),
                      n_matchings=counter.total, winner=winner, gaps=gaps, delta_min=delta_min,
                      hardness=float(_inv_sq(gaps).sum()), width=width(inst, limit=limit), q_star=max(1, q_star),
                      ell=inst.ell, m=inst.m, K=inst.K)


def h_eps(truth: BordaTruth, eps: float) -> float:
    """``H^B_ε = Σ_e min{width(G)²/(Δ^B_e)², 1/ε²}`` (Theorem 1, L186); infinite gaps add 0 (H1)."""
    eps = float(eps)
    if not eps > 0:
        raise ValueError(f"eps must be positive, got {eps!r}")
    return float(np.minimum(truth.width**2 * _inv_sq(truth.gaps), 1.0 / eps**2).sum())


def n1(truth: BordaTruth, eps: float, delta: float) -> float:
    """``N1 = 985 H_ε ln(4H_ε/δ) + 2m`` (Eq. 10, L720): CLUCB-Borda-PAC's sample bound (``2m`` if
    ``H_ε = 0``)."""
    delta = _check_delta(delta)
    h = h_eps(truth, eps)
    return 2.0 * truth.m + (985.0 * h * math.log(4.0 * h / delta) if h > 0 else 0.0)


def n1_prime(truth: BordaTruth, eps: float, delta: float, *, rtol: float = 1e-12, max_iter: int = 100_000) -> float:
    """The largest real ``T`` with ``T ≤ 32 H_ε ln(4KT³/δ) + m`` (Eq. 9, L716; decision H5).

    Fixed-point iteration ``T ← g(T)`` from above the fixed point (the larger of ``N1`` of
    Eq. 10 and ``96 H_ε``, doubled until ``g(T) ≤ T``), stopped when a step changes ``T`` by
    less than ``rtol·T``.
    """
    delta = _check_delta(delta)
    if truth.K < 1:
        raise ValueError("N1′ needs K ≥ 1 (ln(4KT³/δ), Eq. 9)")
    h = h_eps(truth, eps)
    if h == 0:
        return float(truth.m)

    def g(t: float) -> float:
        return 32.0 * h * (math.log(4.0 * truth.K / delta) + 3.0 * math.log(t)) + truth.m

    # above 96H, T − g(T) increases, so a start there with g(T) ≤ T lies above the interval
    t = max(n1(truth, eps, delta), 2.0 * truth.m, 96.0 * h, 1.0)
    while g(t) > t:
        t *= 2.0
    for _ in range(max_iter):
        nxt = g(t)
        if abs(t - nxt) <= rtol * t:
            t = nxt
            break
        t = nxt
    else:
        raise RuntimeError("N1′ fixed-point iteration did not converge")
    if 96.0 * h / t >= 1.0:
        raise RuntimeError(f"N1′: contraction factor 96H/T* = {96.0 * h / t:.3g} ≥ 1, the fixed point is not attracting")
    return float(t)


def n2(truth: BordaTruth, delta: float) -> float:
    """``N2 = Σ_{q=1}^{q*} [985 H_{ε_q} ln(4 H_{ε_q}·2q²/δ) + 2m]``, ``ε_q = 2^{−q}`` (proof of
    Theorem 2, L796–L822; decision H6)."""
    delta = _check_delta(delta)
    total = 0.0
    for q in range(1, truth.q_star + 1):
        total += n1(truth, 2.0 ** -q, delta / (2.0 * q * q))
    return total


def theorem3_gamma_range(inst: BipartiteInstance, counter: MatchingCounter | None = None) -> tuple[float, float] | None:
    """The ``γ`` for which both conditions of Theorem 3 hold (L213; decision H7), or None.

    Returns
    -------
    (low, high) or None
        ``γ`` is admissible iff ``low ≤ γ ≤ high`` and ``γ > 0`` (``low = 0`` for all-1/2
        preferences: the range is then open at 0).
    """
    counter = MatchingCounter(inst) if counter is None else counter
    i, j = inst.pairs[:, 0], inst.pairs[:, 1]
    low = float(np.abs(inst.P[i, j] - 0.5).max()) if inst.K else 0.0
    total, counts = counter.total, counter.edge_counts()
    if np.any(counts >= total):
        return None
    r = float((total / (total - counts)).max())
    high = 1.0 / (4.0 * (inst.ell * r + 1.0))
    if low > high or low >= 0.25:
        return None
    return low, high


def n3(truth: BordaTruth, gamma: float, delta: float) -> float:
    """``N3 = 0.2 γ(1 − γ) (4γℓ/(1 − 4γ))² ln(1/δ) H^B`` (Theorem 3, L874), ``δ ∈ (0, 0.1)``,
    ``γ ∈ (0, 1/4)``; check ``γ`` with :func:`theorem3_gamma_range`."""
    delta = _check_delta(delta, 0.1)
    gamma = float(gamma)
    if not 0 < gamma < 0.25:
        raise ValueError(f"gamma must lie in (0, 1/4) (Theorem 3, L213), got {gamma!r}")
    return 0.2 * gamma * (1 - gamma) * (4 * gamma * truth.ell / (1 - 4 * gamma)) ** 2 * math.log(1 / delta) * truth.hardness


# --- Condorcet --------------------------------------------------------------------------------
def condorcet_winner(inst: BipartiteInstance, matchings=None, *, limit: int = ENUMERATION_LIMIT) -> np.ndarray | None:
    """The strict Condorcet winner: ``f(M*, M, P) > 1/2`` for every ``M ≠ M*`` (L85–L87), by
    enumeration; None if there is none (ties within :data:`TIE_TOL` count as no win, H2)."""
    ms = enumerate_matchings(inst, limit=limit) if matchings is None else np.asarray(matchings, dtype=np.int64)
    k = len(ms)
    if k == 1:
        return ms[0].copy()
    for start in range(0, k, _CHUNK):
        f = matchings_f(inst, ms[start:start + _CHUNK], ms)
        rows = np.arange(len(f))
        f[rows, start + rows] = np.inf  # M_y = M_x does not count
        wins = np.flatnonzero((f > 0.5 + TIE_TOL).all(axis=1))
        if len(wins):
            return ms[start + wins[0]].copy()
    return None


@dataclass(frozen=True, eq=False)
class CondorcetTruth:
    """Ground truth of an instance for the Condorcet winner (Section 4).

    Attributes
    ----------
    winner : numpy.ndarray
        ``M^C_*``.
    matchings : numpy.ndarray
        ``ℳ`` (enumeration order).
    f_winner : numpy.ndarray
        ``f(M^C_*, M, P)`` for every ``M`` of ``matchings``.
    gaps : numpy.ndarray
        ``Δ^C_e`` (Definition 5, L292).
    pair_gaps : numpy.ndarray
        ``Δ^C_{e,e′} = max(Δ^C_e, Δ^C_{e′})`` (L294) for the ``K`` duel pairs ``inst.pairs``.
    verification_gaps : numpy.ndarray
        ``Δ̃^C_e`` (L362–L366) for ``e ∉ M^C_*``; NaN on ``M^C_*``.
    h_ver : float
        ``H^C_ver = Σ_{e ∉ M*} 1/(Δ̃^C_e)²`` (L370).
    ell, m, K : int
    """

    winner: np.ndarray
    matchings: np.ndarray = field(repr=False)
    f_winner: np.ndarray = field(repr=False)
    gaps: np.ndarray = field(repr=False)
    pair_gaps: np.ndarray = field(repr=False)
    verification_gaps: np.ndarray = field(repr=False)
    h_ver: float
    ell: int
    m: int
    K: int

    @property
    def outside(self) -> np.ndarray:
        """Boolean mask of the edges not in ``M^C_*``."""
        mask = np.ones(self.m, dtype=bool)
        mask[self.winner] = False
        return mask


def condorcet_truth(inst: BipartiteInstance, *, limit: int = ENUMERATION_LIMIT) -> CondorcetTruth:
    """Every Condorcet quantity of Section 4 for ``inst``.

    ``(1/ℓ) χ_Mᵀ P χ_{M*}`` is linear in ``χ_M`` with edge weights ``v(e′) = P[e′, e(M*, s(e′))]``,
    so ``Δ^C_e`` (L292) is ``1/2 − MWMC(v)/ℓ`` with ``e`` forced in (``e ∉ M*``) or out
    (``e ∈ M*``).  ``Δ̃^C_e = min_{M ≠ M*, e ∈ M} (ℓ/d(M*, M))·(1/2 − f(M, M*, P))`` (L364) by
    enumeration, ``d`` the number of positions where the two differ (L366).

    Raises
    ------
    ValueError
        If there is no strict Condorcet winner.
    """
    ms = enumerate_matchings(inst, limit=limit)
    winner = condorcet_winner(inst, ms)
    if winner is None:
        raise ValueError(f"{inst.name!r} has no strict Condorcet winner (L87)")
    v = inst.P[np.arange(inst.m), winner[inst.position]]
    in_winner = np.zeros(inst.m, dtype=bool)
    in_winner[winner] = True
    gaps = np.empty(inst.m)
    for e in range(inst.m):
        best = mwmc(inst, v, forbidden=(e,)) if in_winner[e] else mwmc(inst, v, forced=(e,))
        gaps[e] = 0.5 - matching_weight(v, best) / inst.ell
    pair_gaps = np.maximum(gaps[inst.pairs[:, 0]], gaps[inst.pairs[:, 1]]) if inst.K else np.zeros(0)

    f_winner = matchings_f(inst, winner[None, :], ms)[0]
    f_to_winner = matchings_f(inst, ms, winner[None, :])[:, 0]  # f(M, M*, P)
    d = (ms != winner[None, :]).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = np.where(d > 0, inst.ell / np.maximum(d, 1) * (0.5 - f_to_winner), np.inf)
    ver = np.full(inst.m, np.nan)
    for e in np.flatnonzero(~in_winner):
        holds = (ms == e).any(axis=1) & (d > 0)
        ver[e] = float(scaled[holds].min()) if holds.any() else np.inf
    h_ver = float(_inv_sq(ver[~in_winner]).sum())
    for arr in (winner, ms, f_winner, gaps, pair_gaps, ver):
        arr.setflags(write=False)
    return CondorcetTruth(winner=winner, matchings=ms, f_winner=f_winner, gaps=gaps, pair_gaps=pair_gaps,
                          verification_gaps=ver, h_ver=h_ver, ell=inst.ell, m=inst.m, K=inst.K)


def t_prime(gap, K: int, delta: float) -> np.ndarray:
    """``t′(Δ) = (162/Δ²) ln(162K/(δΔ²))`` (L1049), elementwise; ``t′(+∞) = 0`` (H1)."""
    delta = _check_delta(delta)
    if K < 1:
        raise ValueError("t′ needs K ≥ 1")
    gap = np.asarray(gap, dtype=np.float64)
    inv = _inv_sq(gap)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = 162.0 * inv * np.log(162.0 * K * inv / delta)
    return np.where(inv == 0, 0.0, out)


def n4(truth: CondorcetTruth, delta: float) -> float:
    """``N4 = Σ_{unordered duel pairs} ⌈t′(Δ^C_{e,e′})⌉`` (proof of Theorem 4, L1049–L1066;
    decisions H8, H9)."""
    return float(np.ceil(t_prime(truth.pair_gaps, truth.K, delta)).sum())


def n4_conditions_hold(truth: CondorcetTruth, delta: float) -> bool:
    """Whether every finite ``t′(Δ^C_{e,e′})`` is at least 3, as L1062 needs."""
    gaps = truth.pair_gaps[np.isfinite(truth.pair_gaps)]
    return bool(np.all(t_prime(gaps, truth.K, delta) >= 3.0))


def h4(truth: CondorcetTruth, delta: float) -> float:
    """``Σ_{unordered duel pairs} (1/Δ²_{e,e′}) ln(K/(δΔ²_{e,e′}))`` (Theorem 4, L302; H8)."""
    delta = _check_delta(delta)
    inv = _inv_sq(truth.pair_gaps)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = inv * np.log(truth.K * inv / delta)
    return float(np.where(inv == 0, 0.0, terms).sum())


def theorem6_gamma_range(inst: BipartiteInstance, truth: CondorcetTruth) -> tuple[float, float] | None:
    """The ``γ`` for which Theorem 6's conditions hold (L1344; decision H10), or None.

    Returns
    -------
    (low, high) or None
        ``γ`` is admissible iff ``low ≤ γ < high`` and ``γ > 0``; None when the structural
        condition on ``𝒪(M)`` fails or the preferences are too far from 1/2.
    """
    ms, star = truth.matchings, truth.winner
    f = matchings_f(inst, ms, ms)
    is_star = (ms == star[None, :]).all(axis=1)
    k_star = int(np.flatnonzero(is_star)[0])
    for a in range(len(ms)):
        if a == k_star:
            continue
        beaters = np.flatnonzero(f[:, a] >= 0.5 - TIE_TOL)
        for x in beaters:
            if x == a:
                continue
            if f[a, k_star] > f[a, x] + TIE_TOL:
                return None
            need = set(star.tolist()) - set(ms[a].tolist())
            if not need <= set(ms[x].tolist()) - set(ms[a].tolist()):
                return None
    i, j = inst.pairs[:, 0], inst.pairs[:, 1]
    low = float(np.abs(inst.P[i, j] - 0.5).max()) if inst.K else 0.0
    high = 1.0 / (2.0 * (2.0 + inst.ell))
    if low >= high:
        return None
    return low, high


def n6(truth: CondorcetTruth, gamma: float, delta: float) -> float:
    """``N6 = Σ_{e ∉ M*} 0.4 γ(1 − γ)/(ℓ² (Δ^C_e)²) · ln(1/δ)`` (Theorem 6, L1380), ``δ ∈ (0, 0.1)``;
    check ``γ`` with :func:`theorem6_gamma_range`."""
    delta = _check_delta(delta, 0.1)
    gamma = float(gamma)
    if not 0 < gamma < 1.0 / (2.0 * (2.0 + truth.ell)):
        raise ValueError(f"gamma must lie in (0, 1/(2(2 + ℓ))) (Theorem 6, L1344), got {gamma!r}")
    inv = _inv_sq(truth.gaps[truth.outside])
    return float(0.4 * gamma * (1 - gamma) / truth.ell**2 * inv.sum() * math.log(1 / delta))

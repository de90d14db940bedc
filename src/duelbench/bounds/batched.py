"""Theory of batched dueling bandits (Agarwal, Ghuge & Nagarajan, ICML 2022): bounds and hard instances.

Paper text: ``shared/papers/003_27d5cd025c82709f.txt`` ("paper 003"), a single line extracted
from the PDF; ``@N`` is the 0-based character offset of the cited passage (Python
``text.find``).  Math glyphs (square roots, fraction bars, inequality signs) are mostly lost in
the extraction; where a formula is read through that loss, the docstring says so.  Logarithms
are natural (the ``log(1/delta)`` of the Hoeffding step, Lemma B.1 @46275, comes from
``exp(-2 c gamma^2)``).  Arm indices are 0-based; the batch index ``j`` of the lower-bound family
is the paper's ``j in [B] = {1, ..., B}``.

Contents
--------
* :func:`delta_j`, :func:`lower_bound_instance`: the hard family of Theorem C.1 (@56982):
  ``E_{j,k}`` (@57676) and ``Q_{j,k,l}`` (Lemma C.3, @60777).
* Upper bounds: Theorem 3.1 (PCOMP, @19818) exactly (:func:`pcomp_bound`,
  :func:`pcomp_worst_case_bound`), and the ``O(.)`` shapes (no constant) of Table 1 (@9024),
  Theorems 3.2 (SCOMP, @22311), 3.3 (@22835) and 3.4 (SCOMP2, @24102).
* Lower bound: the ``Omega(.)`` shape of Table 1 / Theorem C.1 and the explicit value at the
  end of the proof of Lemma C.3 (@63532), :func:`lower_bound_proof_value`.
* Seed-set ranks (Lemmas 4.5 @27316, 4.6 @29727, B.5 @51481): :func:`exact_seed_rank_moments`
  (closed form) and the Monte Carlo :func:`seed_rank_moments`.

Decisions
---------
B1 (Delta_j).  The extraction prints "j = K 24B T (j 1)/2B" (@57767); with the lost glyphs
    restored this is ``Delta_j = sqrt(K) / (24 B) * T^(-(j-1)/(2B))``.  The square root is
    implied by the proof of Lemma C.2 (@59839 ff.): the Pinsker/Jensen step needs
    ``Delta_j^2 T^((j-1)/B) / K`` to be of order ``1/B^2``, which holds for ``sqrt(K)`` and not
    for ``K``.
B2 (P_{l,k} in Q_{j,k,l}).  The text (@60869) reads "P_lm = 1/2 + 2 Delta_j, m in [K] \\ {l};
    P_km = 1/2 + Delta_j, m in [K] \\ {l, k}; and 1/2 for remaining pairs".  The first clause
    includes ``m = k`` and the second excludes ``l``, so ``P_{l,k} = 1/2 + 2 Delta_j``
    (``P_{k,l} = 1/2 - 2 Delta_j``); we follow the text.  Remark: the proof bounds the KL
    divergence of ``E_{j,k}`` and ``Q_{j,k,l}`` per play of arm ``l`` by ``16 Delta_j^2``
    (@63039), which fits the pairs ``(l, m)``, ``m != k`` (``P_lm`` moves by ``2 Delta_j``) but
    not the pair ``(l, k)``, which moves from ``1/2 - Delta_j`` to ``1/2 + 2 Delta_j``
    (``3 Delta_j``, about ``36 Delta_j^2``); this changes constants only.
B3 (validity).  An instance needs its probabilities in [0, 1]: ``Delta_j <= 1/2`` for
    ``E_{j,k}`` and ``2 Delta_j <= 1/2`` for ``Q_{j,k,l}``; since ``Delta_j <= Delta_1 =
    sqrt(K)/(24 B)``, this holds whenever ``K <= 36 B^2`` (all ``j``).  Otherwise ValueError.
B4 (eps_min of the family).  The paper's ``eps_min`` is the smallest positive gap *to the best
    arm* (@7274).  It is ``Delta_j`` for ``E_{j,k}``, but ``2 Delta_j`` for ``Q_{j,k,l}``
    (every ``P_lm = 1/2 + 2 Delta_j``); the smallest positive gap over all pairs of
    ``Q_{j,k,l}`` is ``Delta_j`` (pairs ``(k, m)``).  The proof of Lemma C.3 (@60993) counts
    the ``Q`` instances among those with ``eps_min = Delta_j``; we compute what the definition
    gives and do not change the instances.
B5 (shapes).  The ``O(.)``/``Omega(.)`` bounds are returned without their unknown constants,
    with ``log T`` natural: they are growth shapes to compare across ``T``, ``B`` and ``K``,
    not numbers to compare with regrets.  Table 1 and Theorem C.1 print the lower bound as
    ``Omega(K T^(1/B) / (B^2 eps_min))``.  The proof's last display (@63532) ends in
    ``Delta_j T^(j/B) / (4B)`` (:func:`lower_bound_proof_value`), which equals
    ``K T^(1/B) / (2304 B^3 Delta_j)`` and ``sqrt(K) T^((j+1)/(2B)) / (96 B^2)``: in terms of
    ``eps_min = Delta_j`` it carries ``B^3``, in instance-independent terms ``B^2`` (tested).
B6 (seed-set rank).  Lemma B.5 (@51717) takes ``R`` = position of the best sampled arm
    (``R = k`` iff the first ``k - 1`` arms are not sampled and the ``k``-th is), a geometric
    variable with mean ``1/p``, "truncated at K" (footnote 5, @52339).  Here, as in the
    definition ``rank(b_j) = |E_j|`` (@26806), ``rank`` = number of arms above the best sampled
    arm = position - 1, in a strict order ``b_1 ≻ ... ≻ b_K``, conditioned on ``S != {}`` (the
    lemmas say nothing about an empty seed set).  Then ``P(rank = r) = p q^r / (1 - q^K)``,
    ``r = 0..K-1``, ``q = 1 - p``, and by memorylessness (``G`` geometric on {0, 1, ...}):

        E[rank]   = (q/p - q^K (K + q/p)) / (1 - q^K)
        E[rank^2] = (m2 - q^K (K^2 + 2 K q/p + m2)) / (1 - q^K),   m2 = q (1 + q) / p^2.

    Without truncation ``E[G^2] = q(1+q)/p^2 = (1-p)(2-p)/p^2``, which for ``p = K^(-2/3)`` is
    ``2 K^(4/3) - 3 K^(2/3) + 1``: the second moment of Lemma 4.6 as printed, ``K^(4/3)``
    (@29727), holds only up to a constant (the proof "exactly as Lemma 4.5" gives
    ``2/p^2 = 2 K^(4/3)``).  The exact truncated moment exceeds ``K^(4/3)`` for every
    ``K >= 24`` checked (up to 2*10^5) and is below it for ``K <= 23``
    (:data:`LEMMA_4_6_SECOND_MOMENT_FIRST_K`, tested).  (The paper's position variable,
    ``rank + 1``, has the untruncated second moment ``(2 - p)/p^2``, larger still.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from duelbench.problems.matrix import PreferenceMatrix

__all__ = [
    "delta_j",
    "lower_bound_instance",
    "pcomp_bound",
    "pcomp_worst_case_bound",
    "pcomp_shape",
    "scomp_shape",
    "scomp_worst_case_shape",
    "scomp_k23_shape",
    "scomp2_shape",
    "lower_bound_shape",
    "lower_bound_proof_value",
    "exact_seed_rank_moments",
    "seed_rank_lemma_bounds",
    "seed_rank_moments",
    "SeedRankMoments",
    "LEMMA_4_6_SECOND_MOMENT_FIRST_K",
]

#: Smallest K >= 2 at which the exact E[rank^2] for p = K^(-2/3) exceeds the printed K^(4/3)
#: of Lemma 4.6 (decision B6); it stays above for every larger K checked (up to 2*10^5).
LEMMA_4_6_SECOND_MOMENT_FIRST_K = 24


# --------------------------------------------------------------------------- argument checks
def _int_at_least(x, lo: int, what: str) -> int:
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or int(x) < lo:
        raise ValueError(f"{what} must be an integer >= {lo}, got {x!r}")
    return int(x)


def _horizon(T, lo: float = 1.0) -> float:
    try:
        t = float(T)
    except (TypeError, ValueError):
        raise ValueError(f"T must be a number, got {T!r}") from None
    if not (math.isfinite(t) and t > lo):
        raise ValueError(f"T must be a finite number > {lo:g}, got {T!r}")
    return t


def _positive(x, what: str) -> float:
    try:
        v = float(x)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a number, got {x!r}") from None
    if not (math.isfinite(v) and v > 0):
        raise ValueError(f"{what} must be a finite positive number, got {x!r}")
    return v


def _kbt(K, B, T, t_lo: float = 1.0) -> tuple[int, int, float]:
    return _int_at_least(K, 2, "K"), _int_at_least(B, 1, "B"), _horizon(T, t_lo)


# --------------------------------------------------------------------------- hard instances
def delta_j(K: int, B: int, T: float, j: int) -> float:
    """``Delta_j = sqrt(K) / (24 B) * T^(-(j-1)/(2B))`` (Theorem C.1's family, @57767; decision B1).

    Parameters
    ----------
    K, B : int
        Number of arms (>= 2) and of batches (>= 1).
    T : float
        Horizon (> 1).
    j : int
        Batch index in ``1..B`` (the paper's ``j in [B]``).
    """
    K, B, T = _kbt(K, B, T)
    j = _int_at_least(j, 1, "j")
    if j > B:
        raise ValueError(f"j must lie in 1..B = 1..{B} (the paper's [B]), got {j}")
    return math.sqrt(K) / (24.0 * B) * T ** (-(j - 1) / (2.0 * B))


def lower_bound_instance(K: int, B: int, T: float, j: int, k: int, l: int | None = None) -> PreferenceMatrix:
    """The hard instance ``E_{j,k}`` (``l`` None or ``l == k``) or ``Q_{j,k,l}`` of Theorem C.1.

    * ``E_{j,k}`` (@57676): arm ``k`` is the Condorcet winner with ``P_{k,m} = 1/2 + Delta_j`` for
      all ``m != k``; every other pair is 1/2.
    * ``Q_{j,k,l}``, ``l != k`` (Lemma C.3, @60777): arm ``l`` is the Condorcet winner with
      ``P_{l,m} = 1/2 + 2 Delta_j`` for all ``m != l`` (``m = k`` included, decision B2);
      ``P_{k,m} = 1/2 + Delta_j`` for ``m`` not in ``{l, k}``; every other pair is 1/2.  The
      paper sets ``Q_{j,k,k} := E_{j,k}``, and so does this function.

    ``Delta_j`` is :func:`delta_j`.  Arms ``k`` and ``l`` are 0-based, ``j`` in ``1..B``.

    Returns
    -------
    PreferenceMatrix
        Named ``"agarwal2022_E_j{j}_k{k}"`` or ``"agarwal2022_Q_j{j}_k{k}_l{l}"`` (0-based
        arm numbers).  The ties are by design; no ``TiedPairWarning`` is emitted.

    Raises
    ------
    ValueError
        Bad ``K``, ``B``, ``T``, ``j``, ``k``, ``l``, or a gap that would push a probability
        above 1 (decision B3).
    """
    d = delta_j(K, B, T, j)
    K = int(K)
    k = _int_at_least(k, 0, "k")
    if k >= K:
        raise ValueError(f"k must be a 0-based arm index in [0, {K - 1}], got {k}")
    if l is not None:
        l = _int_at_least(l, 0, "l")
        if l >= K:
            raise ValueError(f"l must be a 0-based arm index in [0, {K - 1}], got {l}")
    P = np.full((K, K), 0.5)
    if l is None or l == k:
        if d > 0.5:
            raise ValueError(f"Delta_j = {d:g} > 1/2 (K = {K}, B = {B}, j = {j}): E_(j,k) is not a valid instance "
                             "(it needs K <= 576 B^2 at j = 1)")
        P[k, :] = 0.5 + d
        P[:, k] = 1.0 - (0.5 + d)
        P[k, k] = 0.5
        name = f"agarwal2022_E_j{j}_k{k}"
    else:
        if 2.0 * d > 0.5:
            raise ValueError(f"2 Delta_j = {2 * d:g} > 1/2 (K = {K}, B = {B}, j = {j}): Q_(j,k,l) is not a valid "
                             "instance (it needs K <= 36 B^2 at j = 1)")
        others = np.array([m for m in range(K) if m not in (k, l)], dtype=np.int64)
        P[k, others] = 0.5 + d
        P[others, k] = 1.0 - (0.5 + d)
        P[l, :] = 0.5 + 2.0 * d
        P[:, l] = 1.0 - (0.5 + 2.0 * d)
        P[l, l] = 0.5
        name = f"agarwal2022_Q_j{j}_k{k}_l{l}"
    return PreferenceMatrix._trusted(P, name=name)


# --------------------------------------------------------------------------- upper bounds
def _gaps(gaps, K: int) -> np.ndarray:
    g = np.asarray(gaps, dtype=np.float64)
    if g.ndim != 1 or g.size != K:
        raise ValueError(f"gaps must hold the K = {K} gaps eps_j = eps_(1,j) (the best arm's own 0 included), "
                         f"got shape {g.shape}")
    if not np.all(np.isfinite(g)) or np.any(g < 0) or np.any(g > 0.5):
        raise ValueError(f"gaps must lie in [0, 1/2], got {g.tolist()}")
    if not np.any(g > 0):
        raise ValueError("at least one gap must be positive (the sums run over j with eps_j > 0)")
    return g[g > 0]


def pcomp_bound(K: int, B: int, T: float, gaps) -> float:
    """Theorem 3.1 (PCOMP, @19818): ``3 K T^(1/B) ln(6 T K^2 B) * sum_{j: eps_j > 0} 1/eps_j``.

    ``gaps`` are the K gaps ``eps_j = P_{1,j} - 1/2`` to the Condorcet winner ``b_1`` (e.g.
    :func:`duelbench.problems.transitivity.gaps_to_best`); zero gaps are left out of the sum, as
    the proof says (@48857 ff.).  This is an upper bound on ``E[R(T)]`` for ``q = T^(1/B)``,
    ``tau = 1``, ``delta = 1/(6 T K^2 B)``.
    """
    K, B, T = _kbt(K, B, T)
    pos = _gaps(gaps, K)
    return 3.0 * K * T ** (1.0 / B) * math.log(6.0 * T * K * K * B) * float(np.sum(1.0 / pos))


def pcomp_worst_case_bound(K: int, B: int, T: float, eps_min: float) -> float:
    """Theorem 3.1, second form (@20038): ``3 K^2 T^(1/B) ln(6 T K^2 B) / eps_min``."""
    K, B, T = _kbt(K, B, T)
    e = _positive(eps_min, "eps_min")
    return 3.0 * K * K * T ** (1.0 / B) * math.log(6.0 * T * K * K * B) / e


def pcomp_shape(K: int, B: int, T: float, eps_min: float) -> float:
    """Table 1, Condorcet row (@9024): the shape ``K^2 T^(1/B) ln T / eps_min`` (no constant, B5)."""
    K, B, T = _kbt(K, B, T)
    return K * K * T ** (1.0 / B) * math.log(T) / _positive(eps_min, "eps_min")


def scomp_shape(K: int, B: int, T: float, gaps) -> float:
    """Theorem 3.2 (SCOMP, @22311): ``sum_{j: eps_j > 0} sqrt(K) T^(1/B) ln T / eps_j`` (no constant).

    Each term is the per-arm ``O(.)`` of the theorem (the ``sqrt`` glyph is lost in the
    extraction; the proof's phase-I and phase-II terms are ``E[T_j] <= (sqrt(K) + E|S|) ...``
    and ``E|A'| <= sqrt(K)``, proof of Theorem 3.2 @27443 ff.).  ``gaps`` as in :func:`pcomp_bound`.
    """
    K, B, T = _kbt(K, B, T)
    pos = _gaps(gaps, K)
    return math.sqrt(K) * T ** (1.0 / B) * math.log(T) * float(np.sum(1.0 / pos))


def scomp_worst_case_shape(K: int, B: int, T: float, eps_min: float) -> float:
    """SCOMP's worst case after Theorem 3.2 (@22591): ``K sqrt(K) T^(1/B) ln T / eps_min``."""
    K, B, T = _kbt(K, B, T)
    return K * math.sqrt(K) * T ** (1.0 / B) * math.log(T) / _positive(eps_min, "eps_min")


def scomp_k23_shape(K: int, B: int, T: float, eps_min: float) -> float:
    """Theorem 3.3 (SCOMP with seed probability ``K^(-2/3)``, @22835): ``K^(4/3) T^(1/B) ln T / eps_min``."""
    K, B, T = _kbt(K, B, T)
    return K ** (4.0 / 3.0) * T ** (1.0 / B) * math.log(T) / _positive(eps_min, "eps_min")


def scomp2_shape(K: int, B: int, T: float, eps_min: float) -> float:
    """Theorem 3.4 (SCOMP2, @24102; Table 1 SST+STI row): ``K B T^(1/B) ln T / eps_min``."""
    K, B, T = _kbt(K, B, T)
    return K * B * T ** (1.0 / B) * math.log(T) / _positive(eps_min, "eps_min")


def lower_bound_shape(K: int, B: int, T: float, eps_min: float) -> float:
    """Table 1 (@9024) / Theorem C.1 (@56982): the shape ``K T^(1/B) / (B^2 eps_min)`` (decision B5)."""
    K, B, T = _kbt(K, B, T)
    return K * T ** (1.0 / B) / (B * B * _positive(eps_min, "eps_min"))


def lower_bound_proof_value(K: int, B: int, T: float, j: int) -> float:
    """``Delta_j T_j / (4B)`` with ``T_j = T^(j/B)``: the explicit bound of Lemma C.3 (@63532).

    The last display of the proof bounds ``sup_{I: eps_min(I) = Delta_j} E[R_T(I)]`` from below
    by this value, for a ``j`` with ``p_j >= 1/(2B)`` (which Lemma C.2 guarantees to exist).  It
    equals ``sqrt(K) T^((j+1)/(2B)) / (96 B^2)`` and ``K T^(1/B) / (2304 B^3 Delta_j)``
    (decision B5).
    """
    d = delta_j(K, B, T, j)
    return d * float(T) ** (int(j) / int(B)) / (4.0 * int(B))


# --------------------------------------------------------------------------- seed-set ranks
def _prob(p) -> float:
    try:
        v = float(p)
    except (TypeError, ValueError):
        raise ValueError(f"p must be a number, got {p!r}") from None
    if not (0.0 < v <= 1.0):
        raise ValueError(f"p must lie in (0, 1], got {p!r}")
    return v


def exact_seed_rank_moments(K: int, p: float) -> tuple[float, float]:
    """Exact ``(E[rank], E[rank^2])`` of the best arm of a seed set, given ``S != {}`` (decision B6).

    Each of the K arms of a strict order ``b_1 ≻ ... ≻ b_K`` enters ``S`` independently with
    probability ``p``; ``rank`` = number of arms above the best arm of ``S``.  Closed form of the
    geometric distribution truncated at K (module docstring, B6).
    """
    K = _int_at_least(K, 1, "K")
    p = _prob(p)
    q = 1.0 - p
    qK = q ** K
    m1 = q / p
    m2 = q * (1.0 + q) / (p * p)
    z = 1.0 - qK
    mean = (m1 - qK * (K + m1)) / z
    second = (m2 - qK * (K * K + 2.0 * K * m1 + m2)) / z
    return mean, second


def seed_rank_lemma_bounds(K: int, p: float) -> tuple[float, float, str]:
    """The bounds on ``(E[rank], E[rank^2])`` the paper states for seed probability ``p``.

    * ``p = 1/sqrt(K)``: Lemma 4.5 / B.5 (@27316, @51481): ``sqrt(K)`` and ``2K``;
    * ``p = K^(-2/3)``: Lemma 4.6 (@29727): ``K^(2/3)`` and ``K^(4/3)`` as printed;
    * any other ``p``: the geometric argument of the proof of Lemma B.5 (@51717), ``1/p`` and
      ``2/p^2``.

    ``p`` is matched to the two special values with a relative tolerance of 1e-12.  Returns
    ``(bound on E[rank], bound on E[rank^2], source)``.
    """
    K = _int_at_least(K, 2, "K")
    p = _prob(p)
    if math.isclose(p, K ** -0.5, rel_tol=1e-12):
        return math.sqrt(K), 2.0 * K, "Lemma 4.5 (paper 003 @27316; Lemma B.5 @51481)"
    if math.isclose(p, K ** (-2.0 / 3.0), rel_tol=1e-12):
        return K ** (2.0 / 3.0), K ** (4.0 / 3.0), "Lemma 4.6 (paper 003 @29727)"
    return 1.0 / p, 2.0 / (p * p), "geometric bounds 1/p, 2/p^2 (proof of Lemma B.5, paper 003 @51717)"


@dataclass(frozen=True)
class SeedRankMoments:
    """Monte Carlo moments of the seed-set rank, with the exact values and the paper's bounds.

    Attributes
    ----------
    K, p, n : int, float, int
        Arms, inclusion probability, accepted (non-empty) samples.
    n_empty : int
        Rejected draws with ``S = {}``.
    mean, mean_se : float
        Sample mean of ``rank`` and its standard error.
    second, second_se : float
        Sample mean of ``rank^2`` and its standard error.
    exact_mean, exact_second : float
        :func:`exact_seed_rank_moments`.
    bound_mean, bound_second : float
        :func:`seed_rank_lemma_bounds`.
    bound_source : str
    """

    K: int
    p: float
    n: int
    n_empty: int
    mean: float
    mean_se: float
    second: float
    second_se: float
    exact_mean: float
    exact_second: float
    bound_mean: float
    bound_second: float
    bound_source: str


def seed_rank_moments(K: int, p: float, rng, n: int) -> SeedRankMoments:
    """Monte Carlo of ``rank(b_{i_S})`` for a random seed set ``S`` (Lemmas 4.5, 4.6; decision B6).

    Every draw puts each arm of the strict order ``0 ≻ 1 ≻ ... ≻ K-1`` into ``S`` independently
    with probability ``p`` (line 3 of Algorithm 2 @21738 and of Algorithm 3 @24614); draws with
    ``S = {}`` are rejected and counted; ``rank`` = index of the best (smallest) arm of ``S``.

    Parameters
    ----------
    K : int
        Number of arms (>= 2).
    p : float
        Inclusion probability in (0, 1].
    rng : numpy.random.Generator or int seed
        The only source of randomness (None is rejected).
    n : int
        Number of non-empty seed sets (>= 2).
    """
    K = _int_at_least(K, 2, "K")
    p = _prob(p)
    n = _int_at_least(n, 2, "n")
    if rng is None:
        raise ValueError("seed_rank_moments needs a random source: pass a numpy.random.Generator or an int seed")
    g = np.random.default_rng(rng)
    accept = 1.0 - (1.0 - p) ** K
    ranks = np.empty(n, dtype=np.int64)
    have = 0
    empty = 0
    rows_cap = max(1, (1 << 22) // K)  # about 4 M Booleans per block
    while have < n:
        want = n - have
        m = min(rows_cap, max(16, int(math.ceil(1.1 * want / accept)) + 16))
        draws = g.random((m, K)) < p
        nonempty = np.flatnonzero(draws.any(axis=1))
        if nonempty.size > want:  # rows after the n-th accepted draw are discarded
            cut = int(nonempty[want - 1]) + 1
            nonempty = nonempty[:want]
        else:
            cut = m
        empty += cut - nonempty.size
        take = nonempty.size
        ranks[have:have + take] = np.argmax(draws[nonempty], axis=1)
        have += take
    x = ranks.astype(np.float64)
    x2 = x * x
    em, es = exact_seed_rank_moments(K, p)
    bm, bs, src = seed_rank_lemma_bounds(K, p)
    return SeedRankMoments(
        K=K, p=p, n=n, n_empty=int(empty),
        mean=float(x.mean()), mean_se=float(x.std(ddof=1) / math.sqrt(n)),
        second=float(x2.mean()), second_se=float(x2.std(ddof=1) / math.sqrt(n)),
        exact_mean=em, exact_second=es, bound_mean=bm, bound_second=bs, bound_source=src,
    )

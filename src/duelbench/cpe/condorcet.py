"""The Condorcet algorithms of Chen, Du, Huang & Zhao (ICML 2020), Section 4.

* :func:`car_cond` — CAR-Cond (Algorithm 2, L259–L282; description L246): an accept–reject
  algorithm that samples every duel among undecided edges once per round, builds the
  confidence matrices ``P̄_t``, ``P_t`` (Eq. 7–8, L248–L257) and, for every undecided edge
  ``e``, asks the oracle ``O_ε`` (Eq. 6, L235–L244) whether forcing ``e`` in beats forcing it
  out by more than ``ε_q``, with ``ε_q = 2^-q`` halved every epoch (doubling trick, L246).
  Correctness is Lemmas 2–4 (L889–L980), the sample complexity Lemma 5 (L988–L1066).
* :func:`car_verify` — CAR-Verify (Algorithm 4, L337–L354): a hypothesis ``M̂`` from
  CAR-Cond(δ0 = 0.01), then one duel per step until the confidence bounds confirm ``M̂``
  (``max_{M≠M̂} f(M, M̂, P̄_t) ≤ 1/2``) or refute it (``max_{M≠M̂} f(M, M̂, P_t) ≥ 1/2``)
  (Lemmas 10–11, L1261–L1326).
* :func:`car_parallel` — CAR-Parallel (Algorithm 3, L324–L336): CAR-Verify_k with confidence
  ``δ/2^{k+1}``, ``k = 0, 1, 2, …``, simulated in parallel, instance ``k`` granted one sample at
  every step ``t`` with ``t mod 2^k = 0``; the first answer is returned (Theorem 5, L374–L378).
* :func:`confidence_bounds` (Eq. 7–8) and :func:`car_cond_check` (the classification step,
  lines 8–21 of Algorithm 2) are exposed for tests and experiments.

The oracle is a parameter with the signature ``oracle(inst, A1, R1, A2, R2, Q, eps) -> float``
(the value ``min_y (1/ℓ) x0ᵀ Q y`` of L244); the default is the exact LP
:func:`duelbench.cpe.oracles.lp_value`.

Sampling protocol.  Each algorithm is written once, as a generator that *requests* duels: it
yields the number ``n ≥ 1`` of duels it is about to take and, when resumed, draws them and
computes until it needs the next ones (or returns its result).  :func:`car_cond` and
:func:`car_verify` simply grant every request; :func:`car_parallel` grants one duel per turn
(line 6 of Algorithm 3) and resumes an instance once all the duels of its request have been
granted, so an instance's answer appears at the turn of its last sample, exactly as with one
sample per resumption (its draws depend on its own random stream only, not on when they are
made).

Decisions
---------
* One duel per unordered pair per round.  Line 6 of Algorithm 2 (L265) reads "for every
  ``e1 ≠ e2``"; a duel of ``(e1, e2)`` also observes ``(e2, e1)`` (``p̂(e2, e1) = 1 − p̂(e1, e2)``,
  L62), the count ``K`` of L66 counts unordered pairs, and the proof of Lemma 5 (L995) takes
  ``T_t = t`` for the pairs of ``U_t``: each unordered comparable pair of undecided edges is
  dueled once per round.  A round costs ``Σ_j C(|E_j ∩ U_{t−1}|, 2)`` samples.
* D7 (counts used at round ``t``).  ``P̄_t``, ``P_t`` use the counts *after* round ``t``'s duels
  (line 7 follows line 6; the proof of Lemma 5 uses ``T = t``, L995), with ``ln(4Kt³/δ)``; Eq. 7
  (L252) says "at the beginning of round ``t``", which would leave round 1 with no sample.
  ``p̂(e_j, e_i) = 1 − p̂(e_i, e_j)`` and each ordered pair is clipped separately (Eq. 8);
  the diagonal is 1/2 and incomparable entries 0 (L257).  A pair with no duel has
  ``P̄ = 1``, ``P = 0`` (it never occurs in CAR-Cond, where round 1 duels every pair).
* Epochs.  ``e_q = 1/ε_q² = 4^q`` (line 4, L263) is the last round of epoch ``q`` and
  ``e_0 = 0`` (line 2, L261): epoch 1 is rounds 1–4, epoch ``q`` rounds ``4^{q−1}+1 … 4^q``.
* Within a round ``A = A_{t−1}``, ``R = R_{t−1}`` are fixed for every oracle call (line 10,
  L269), and the four calls ``InU, InL, ExU, ExL`` are made for every ``e ∈ U_{t−1}`` in
  ascending edge order (lines 11–14), so a round's check costs ``4|U_{t−1}|`` calls until it
  stops.  Line 18 prints ``R_t ← R_{t−1} ∪ {e}``, which would drop edges rejected earlier in
  the same round; ``R_t ← R_t ∪ {e}`` is meant (a typo; line 16 has ``A_t ← A_t ∪ {e}``).
  The stop test (line 20) sits inside the loop over ``e``: the algorithm stops as soon as
  ``|A_t| = ℓ`` and returns ``A_t`` (line 20 prints ``A``, the shorthand of line 10 for
  ``A_{t−1}``, which has fewer than ``ℓ`` edges there; Lemma 4, L980, returns ``A_t``).
* D8 (infinite values).  An empty ``𝒫(ℳ, A1, R1)`` gives ``−∞`` and an empty
  ``𝒫(ℳ, A2, R2)`` ``+∞`` (max and min over empty sets, Eq. 6); the tests of lines 15 and 17
  compare them as extended reals (``−∞ + ε = −∞``, nothing exceeds ``+∞``).  An edge that
  conflicts with ``A`` is thus rejected (``InU = −∞``) and an edge forced by ``A ∪ R`` accepted.
* D9 (check schedule).  ``check_every="round"`` runs lines 7–21 after every round (faithful).
  ``check_every="geometric"`` runs them only at rounds ``⌈r^k⌉`` (``k = 0, 1, …``,
  ``r = ratio``, default 1.1) and at both sides of every epoch boundary, the last round ``4^q``
  of epoch ``q`` and the first round ``4^q + 1`` of epoch ``q + 1`` (so every ``ε_q`` is used,
  and the first round with a halved ``ε`` is always checked), always with the ``ε_q`` of the
  round of the check; the duels of the skipped rounds
  are drawn in one batch, ``Binomial(k, p)`` wins for each pair of undecided edges over ``k``
  rounds, which is exact in distribution because ``U`` only changes at checks.  Lemma 3 holds
  at every round, so skipping checks only delays decisions.  The number of checks and of
  oracle calls is recorded.
* Failure.  If ``max_rounds`` is reached, or every edge is decided while ``|A| < ℓ`` (possible
  only outside the event ``𝒩`` of Lemma 2), CAR-Cond returns ``output=None`` with ``capped`` or
  ``exhausted`` set.  A stop with ``|A_t| = ℓ`` returns ``A_t`` sorted by edge index (position
  order) even in the (improbable) case that it is not a matching.
* D12 (verification samples).  CAR-Verify's verification (lines 4–17 of Algorithm 4) starts
  from fresh counts and its own step counter ``t = 1, 2, …``; it does not reuse CAR-Cond's
  samples, as the event ``𝓕`` of Lemma 10's proof (L1268–L1276) concerns the verification's
  own estimates with confidence ``δ``.  Unsampled pairs have ``P̄ = 1``, ``P = 0`` (and
  ``c = ∞``); the radius is ``ln(4Kt³/δ)``.
* CAR-Verify's maxima over ``ℳ ∖ {M̂}``.  ``f(M, M̂, Q) = (1/ℓ) Σ_{e′∈M} Q[e′, e(M̂, s(e′))]`` is
  linear in ``χ_M``, so lines 6 and 9 are second-best matchings
  (:func:`~duelbench.cpe.matching.best_other_than`, whose tie rule picks ``M_t``); with
  ``|ℳ| = 1`` the maximum over the empty set is ``−∞`` and ``M̂`` is returned at once.  The
  pair of line 14 is, at each position where ``M_t`` and ``M̂`` differ, ``(e(M_t, j), e(M̂, j))``;
  ties of ``c_t`` go to the lowest position (equivalently the lowest edge index).
* Confidences.  CAR-Verify requires ``0 < δ < δ0`` with ``δ0 = 0.01`` by default (line 1–2,
  L338–L339; L356 says ``δ0 > δ``), and CAR-Parallel ``0 < δ < 0.01`` (line 1, L325).
* CAR-Parallel.  ``k`` starts at 0 (``k ∈ ℕ`` in line 2, L326, with ``t mod 2^0 = 0`` at every
  step), so instance ``k`` has confidence ``δ/2^{k+1}`` and ``Σ_k δ/2^{k+1} = δ``.  Within a
  step the instances are resumed in increasing ``k``.  Instances start lazily at their first
  turn (``t = 2^k``).  An instance that returns *error* (or hits a cap) is retired and the
  others keep running (Algorithm 3 returns only an answer ``Out_k``, line 7; the paper does not
  say what happens to an error).  Instance ``k`` draws from its own stream, the ``k``-th child
  of the run's :class:`numpy.random.SeedSequence` (``spawn_key + (k,)``), so its trajectory
  does not depend on the schedule.  Each instance runs CAR-Verify with its own CAR-Cond(δ0).
  ``samples`` counts the duels granted to all instances up to the answer: the samples the
  parallel simulation of Algorithm 3 takes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass, field

import numpy as np

from .instance import BipartiteInstance
from .matching import best_other_than, matching_weight
from .oracles import lp_value

__all__ = [
    "Oracle", "CHECK_SCHEDULES", "DEFAULT_RATIO", "DEFAULT_MAX_ROUNDS", "DEFAULT_MAX_STEPS", "DELTA0",
    "confidence_bounds", "epoch_of_round", "check_rounds", "CheckOutcome", "car_cond_check",
    "CarCondResult", "car_cond", "CarVerifyResult", "car_verify", "CarParallelResult", "car_parallel",
]

#: ``oracle(inst, A1, R1, A2, R2, Q, eps) -> float``: ``O_ε`` of L235–L244.
Oracle = Callable[..., float]

#: Check schedules of CAR-Cond: after every round (Algorithm 2) or at geometric rounds.
CHECK_SCHEDULES = ("round", "geometric")
#: Default ratio ``r`` of the geometric check schedule.
DEFAULT_RATIO = 1.1
#: Default cap on CAR-Cond's rounds.
DEFAULT_MAX_ROUNDS = 10**7
#: Default cap on CAR-Verify's verification steps and on CAR-Parallel's steps.
DEFAULT_MAX_STEPS = 10**8
#: ``δ0`` of Algorithm 4, line 2 (L339).
DELTA0 = 0.01


# --- helpers ----------------------------------------------------------------------------------
def _as_rng(rng) -> np.random.Generator:
    """A :class:`numpy.random.Generator` from a Generator, a SeedSequence or an integer seed."""
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, np.random.SeedSequence):
        return np.random.default_rng(rng)
    if rng is None or isinstance(rng, bool) or not isinstance(rng, (int, np.integer)):
        raise TypeError(f"need a numpy Generator, SeedSequence or integer seed, got {rng!r}")
    return np.random.default_rng(np.random.SeedSequence(int(rng)))


def _as_seed_sequence(seed) -> np.random.SeedSequence:
    """A SeedSequence from an integer seed, a SeedSequence or a Generator (one draw from it)."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence(int(seed.integers(2**63)))
    if seed is None or isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"need an integer seed, a SeedSequence or a numpy Generator, got {seed!r}")
    return np.random.SeedSequence(int(seed))


def _child_seed(root: np.random.SeedSequence, k: int) -> np.random.SeedSequence:
    """The ``k``-th child of ``root`` (what ``root.spawn`` gives as its ``k``-th child)."""
    return np.random.SeedSequence(root.entropy, spawn_key=tuple(root.spawn_key) + (k,), pool_size=root.pool_size)


def _check_delta(name: str, delta, upper: float = 1.0) -> float:
    delta = float(delta)
    if not 0.0 < delta < upper:
        raise ValueError(f"{name} must lie in (0, {upper}), got {delta}")
    return delta


def _check_instance(inst: BipartiteInstance) -> None:
    if not isinstance(inst, BipartiteInstance):
        raise TypeError(f"need a BipartiteInstance, got {type(inst).__name__}")
    if inst.K < 1:
        raise ValueError(f"instance {inst.name!r} has no duel pair (K = 0); the radius ln(4Kt³/δ) of Eq. 7 "
                         "needs K ≥ 1")


def _check_cond_options(check_every: str, ratio: float, max_rounds: int) -> tuple[str, float, int]:
    if check_every not in CHECK_SCHEDULES:
        raise ValueError(f"check_every must be one of {CHECK_SCHEDULES}, got {check_every!r}")
    ratio = float(ratio)
    if not (math.isfinite(ratio) and ratio > 1.0):
        raise ValueError(f"ratio must be a finite number > 1, got {ratio}")
    if isinstance(max_rounds, bool) or not isinstance(max_rounds, (int, np.integer)) or max_rounds < 1:
        raise ValueError(f"max_rounds must be a positive integer, got {max_rounds!r}")
    return check_every, ratio, int(max_rounds)


def _check_positive_int(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def _check_matching(inst: BipartiteInstance, matching) -> np.ndarray:
    M = np.asarray(matching)
    if M.shape != (inst.ell,) or not np.issubdtype(M.dtype, np.integer):
        raise ValueError(f"a matching of {inst.name!r} is {inst.ell} edge indices, got {matching!r}")
    M = M.astype(np.int64)
    if np.any((M < 0) | (M >= inst.m)) or np.any(inst.position[np.clip(M, 0, inst.m - 1)] != np.arange(inst.ell)) \
            or len(set(inst.candidate[M].tolist())) != inst.ell:
        raise ValueError(f"{matching!r} is not a maximum matching of {inst.name!r} in position order")
    return M


def epoch_of_round(t: int) -> int:
    """The epoch ``q ≥ 1`` of round ``t ≥ 1``: ``4^{q−1} < t ≤ 4^q`` (Algorithm 2, lines 2–5)."""
    if t < 1:
        raise ValueError(f"rounds start at 1, got {t}")
    q = 1
    while 4**q < t:
        q += 1
    return q


def _next_epoch_boundary(t: int) -> int:
    """The smallest round ``> t`` among the epoch ends ``4^q`` and epoch starts ``4^q + 1`` (``q ≥ 1``)."""
    q = 1
    while 4**q + 1 <= t:
        q += 1
    return 4**q if 4**q > t else 4**q + 1


def _next_geometric(t: int, ratio: float) -> int:
    """The smallest ``⌈ratio^k⌉ > t`` (``k ≥ 0``)."""
    k = max(0, int(math.log(max(t, 1)) / math.log(ratio)) - 2)
    while math.ceil(ratio**k) <= t:
        k += 1
    return math.ceil(ratio**k)


def _next_check(t: int, check_every: str, ratio: float) -> int:
    if check_every == "round":
        return t + 1
    return min(_next_geometric(t, ratio), _next_epoch_boundary(t))


def check_rounds(upto: int, check_every: str = "round", ratio: float = DEFAULT_RATIO) -> np.ndarray:
    """The rounds ``≤ upto`` at which CAR-Cond runs its classification step (decision D9).

    Parameters
    ----------
    upto : int
        Last round considered.
    check_every : {"round", "geometric"}
        Every round, or the rounds ``⌈ratio^k⌉`` together with the epoch ends ``4^q`` and
        starts ``4^q + 1``.
    ratio : float
        ``r > 1`` of the geometric schedule.

    Returns
    -------
    numpy.ndarray
        The check rounds, ascending.
    """
    check_every, ratio, _ = _check_cond_options(check_every, ratio, 1)
    out, t = [], 0
    while True:
        t = _next_check(t, check_every, ratio)
        if t > upto:
            return np.array(out, dtype=np.int64)
        out.append(t)


# --- confidence bounds (Eq. 7–8) ------------------------------------------------------------
def _radius(counts: np.ndarray, t: int, K: int, delta: float) -> np.ndarray:
    """``c_t = sqrt(ln(4Kt³/δ) / (2T))`` (Eq. 7); ``+∞`` where ``T = 0``."""
    log_term = math.log(4.0 * K / delta) + 3.0 * math.log(t)
    with np.errstate(divide="ignore"):
        return np.sqrt(log_term / (2.0 * counts.astype(np.float64)))


def confidence_bounds(inst: BipartiteInstance, wins, counts, t: int, delta: float) -> tuple[np.ndarray, np.ndarray]:
    """``P̄_t`` and ``P_t`` of Eq. 8 (L254–L257) from the duel counts of the ``K`` pairs.

    Parameters
    ----------
    inst : BipartiteInstance
        The instance; its :attr:`~BipartiteInstance.pairs` order the counts.
    wins : array of K ints
        ``wins[k]``: duels won by edge ``pairs[k, 0]`` over edge ``pairs[k, 1]``.
    counts : array of K ints
        ``counts[k] = T_t(e_i, e_j)``, the duels of pair ``k``.
    t : int
        Round (or step) index ``t ≥ 1`` in ``ln(4Kt³/δ)``.
    delta : float
        Confidence ``δ``.

    Returns
    -------
    upper, lower : numpy.ndarray
        ``m × m`` matrices: ``min(1, p̂ + c)`` and ``max(0, p̂ − c)`` for each ordered comparable
        pair with ``p̂(e_j, e_i) = 1 − p̂(e_i, e_j)``, 1/2 on the diagonal, 0 between
        incomparable edges; a pair with no duel gets ``upper = 1``, ``lower = 0``.
    """
    wins = np.asarray(wins, dtype=np.float64)
    counts = np.asarray(counts, dtype=np.int64)
    if wins.shape != (inst.K,) or counts.shape != (inst.K,):
        raise ValueError(f"wins and counts must have one entry per duel pair (K = {inst.K})")
    if np.any(counts < 0) or np.any(wins < 0) or np.any(wins > counts):
        raise ValueError("need 0 ≤ wins ≤ counts")
    if t < 1:
        raise ValueError(f"t must be ≥ 1, got {t}")
    c = _radius(counts, t, inst.K, delta)
    seen = counts > 0
    p_hat = np.divide(wins, counts, out=np.full(inst.K, 0.5), where=seen)
    up_ij = np.where(seen, np.minimum(1.0, p_hat + c), 1.0)
    lo_ij = np.where(seen, np.maximum(0.0, p_hat - c), 0.0)
    up_ji = np.where(seen, np.minimum(1.0, (1.0 - p_hat) + c), 1.0)
    lo_ji = np.where(seen, np.maximum(0.0, (1.0 - p_hat) - c), 0.0)
    i, j = inst.pairs[:, 0], inst.pairs[:, 1]
    upper = np.zeros((inst.m, inst.m))
    lower = np.zeros((inst.m, inst.m))
    np.fill_diagonal(upper, 0.5)
    np.fill_diagonal(lower, 0.5)
    upper[i, j], upper[j, i] = up_ij, up_ji
    lower[i, j], lower[j, i] = lo_ij, lo_ji
    return upper, lower


# --- the classification step of CAR-Cond (Algorithm 2, lines 8–21) --------------------------
@dataclass(frozen=True)
class CheckOutcome:
    """Result of one classification step (lines 8–21 of Algorithm 2).

    Attributes
    ----------
    accepted, rejected : tuple of int
        ``A_t`` and ``R_t``, ascending.
    oracle_calls : int
        Oracle calls made (four per edge examined).
    done : bool
        ``|A_t| = ℓ`` was reached (the step stopped at that edge, line 20).
    values : dict
        ``{e: (InU, InL, ExU, ExL)}`` of every edge examined.
    """

    accepted: tuple[int, ...]
    rejected: tuple[int, ...]
    oracle_calls: int
    done: bool
    values: dict = field(repr=False, default_factory=dict)


def car_cond_check(inst: BipartiteInstance, A: Iterable[int], R: Iterable[int], U: Iterable[int],
                   upper: np.ndarray, lower: np.ndarray, eps: float, oracle: Oracle = lp_value) -> CheckOutcome:
    """One classification step of CAR-Cond (Algorithm 2, lines 8–21).

    For every ``e ∈ U`` in ascending order, with ``A``, ``R`` fixed (line 10)::

        InU = O_ε(A ∪ {e}, R, A, R, P̄)     InL = O_ε(A ∪ {e}, R, A, R, P)
        ExU = O_ε(A, R ∪ {e}, A, R, P̄)     ExL = O_ε(A, R ∪ {e}, A, R, P)

    ``e`` is accepted if ``InL > ExU + ε``, else rejected if ``ExL > InU + ε``; the step stops
    as soon as ``ℓ`` edges are accepted (line 20).

    Parameters
    ----------
    inst : BipartiteInstance
        The instance.
    A, R, U : iterables of int
        ``A_{t−1}``, ``R_{t−1}`` and ``U_{t−1}`` (disjoint).
    upper, lower : numpy.ndarray
        ``P̄_t`` and ``P_t`` (``m × m``).
    eps : float
        ``ε_q``, the oracle's accuracy and the margin of lines 15 and 17.
    oracle : callable
        ``oracle(inst, A1, R1, A2, R2, Q, eps) -> float``.

    Returns
    -------
    CheckOutcome
    """
    A0 = tuple(sorted(int(e) for e in A))
    R0 = tuple(sorted(int(e) for e in R))
    U0 = sorted(int(e) for e in U)
    if set(A0) & set(R0) or set(U0) & (set(A0) | set(R0)):
        raise ValueError("A, R and U must be disjoint")
    eps = float(eps)
    acc, rej, calls, values = list(A0), list(R0), 0, {}
    done = len(acc) == inst.ell
    for e in U0:
        if done:
            break
        A_in = A0 + (e,)
        R_ex = R0 + (e,)
        in_u = oracle(inst, A_in, R0, A0, R0, upper, eps)
        in_l = oracle(inst, A_in, R0, A0, R0, lower, eps)
        ex_u = oracle(inst, A0, R_ex, A0, R0, upper, eps)
        ex_l = oracle(inst, A0, R_ex, A0, R0, lower, eps)
        calls += 4
        values[e] = (in_u, in_l, ex_u, ex_l)
        if in_l > ex_u + eps:      # line 15 (extended reals, decision D8)
            acc.append(e)
        elif ex_l > in_u + eps:    # line 17; R_t ← R_t ∪ {e} (line 18)
            rej.append(e)
        done = len(acc) == inst.ell  # line 20
    return CheckOutcome(tuple(sorted(acc)), tuple(sorted(rej)), calls, done, values)


# --- CAR-Cond (Algorithm 2) -------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class CarCondResult:
    """Outcome of CAR-Cond (Algorithm 2).

    Attributes
    ----------
    output : numpy.ndarray or None
        ``A_t`` at the stop (edge indices in position order); None if the run failed.
    samples : int
        Duels drawn, ``Σ_t Σ_j C(|E_j ∩ U_{t−1}|, 2)``.
    rounds : int
        Last round ``t``.
    epochs : int
        Epoch ``q`` of the last round.
    checks : int
        Classification steps run (``rounds`` under ``check_every="round"``).
    oracle_calls : int
        Oracle calls.
    capped : bool
        ``max_rounds`` was reached before the stop.
    exhausted : bool
        Every edge was decided with ``|A| < ℓ``.
    rejected : tuple of int
        ``R_t`` at the end.
    decided_at : numpy.ndarray
        Per edge, the round at which it left ``U`` (0 if it never did).
    u_history : tuple
        Per check, ``(t, sizes)`` with ``sizes[j] = |E_j ∩ U|`` during the rounds since the
        previous check, so ``samples = Σ (t − t_prev) Σ_j C(sizes[j], 2)``.
    delta : float
        Confidence ``δ``.
    options : dict
        ``check_every``, ``ratio``, ``max_rounds`` and the oracle's name.
    """

    output: np.ndarray | None
    samples: int
    rounds: int
    epochs: int
    checks: int
    oracle_calls: int
    capped: bool
    exhausted: bool
    rejected: tuple[int, ...]
    decided_at: np.ndarray = field(repr=False)
    u_history: tuple = field(repr=False)
    delta: float = 0.0
    options: dict = field(default_factory=dict)


def _oracle_name(oracle) -> str:
    return getattr(oracle, "__qualname__", None) or getattr(oracle, "__name__", None) or repr(oracle)


def _car_cond_steps(inst: BipartiteInstance, delta: float, oracle: Oracle, rng: np.random.Generator,
                    check_every: str, ratio: float, max_rounds: int) -> Generator[int, None, CarCondResult]:
    """CAR-Cond as a generator: yields the number of duels it is about to draw."""
    pi, pj = inst.pairs[:, 0], inst.pairs[:, 1]
    p_true = inst.P[pi, pj]
    wins = np.zeros(inst.K, dtype=np.int64)
    counts = np.zeros(inst.K, dtype=np.int64)
    in_u = np.ones(inst.m, dtype=bool)
    A: tuple[int, ...] = ()
    R: tuple[int, ...] = ()
    decided_at = np.zeros(inst.m, dtype=np.int64)
    t = samples = checks = calls = 0
    history = []
    options = {"check_every": check_every, "ratio": ratio, "max_rounds": max_rounds, "oracle": _oracle_name(oracle)}

    def result(output, capped=False, exhausted=False) -> CarCondResult:
        return CarCondResult(output=output, samples=samples, rounds=t, epochs=epoch_of_round(max(t, 1)),
                             checks=checks, oracle_calls=calls, capped=capped, exhausted=exhausted,
                             rejected=R, decided_at=decided_at.copy(), u_history=tuple(history),
                             delta=delta, options=dict(options))

    while True:
        t_next = min(_next_check(t, check_every, ratio), max_rounds)
        n_rounds = t_next - t
        active = in_u[pi] & in_u[pj]
        n = int(active.sum()) * n_rounds  # line 6, every round from t + 1 to t_next
        if n > 0:
            yield n
            wins[active] += rng.binomial(n_rounds, p_true[active])
            counts[active] += n_rounds
            samples += n
        t = t_next
        history.append((t, tuple(np.bincount(inst.position[in_u], minlength=inst.ell).tolist())))
        eps = 2.0 ** -epoch_of_round(t)
        upper, lower = confidence_bounds(inst, wins, counts, t, delta)  # line 7 (decision D7)
        out = car_cond_check(inst, A, R, np.flatnonzero(in_u), upper, lower, eps, oracle)
        checks += 1
        calls += out.oracle_calls
        new = (set(out.accepted) | set(out.rejected)) - (set(A) | set(R))
        for e in new:
            in_u[e] = False
            decided_at[e] = t
        A, R = out.accepted, out.rejected
        if out.done:
            return result(np.array(A, dtype=np.int64))
        if not in_u.any():
            return result(None, exhausted=True)
        if t >= max_rounds:
            return result(None, capped=True)


def _run(gen: Generator):
    """Drive a duel-requesting generator, granting every request; return its result."""
    try:
        while True:
            next(gen)
    except StopIteration as stop:
        return stop.value


def car_cond(inst: BipartiteInstance, delta: float, rng, oracle: Oracle = lp_value, *, check_every: str = "round",
             ratio: float = DEFAULT_RATIO, max_rounds: int = DEFAULT_MAX_ROUNDS) -> CarCondResult:
    """CAR-Cond (Algorithm 2, L259–L282): identify the Condorcet winner with confidence ``1 − δ``.

    Parameters
    ----------
    inst : BipartiteInstance
        The instance (``K ≥ 1``); its ``P`` is used only to draw duels.
    delta : float
        Confidence ``δ ∈ (0, 1)`` (Theorem 4, L298–L302).
    rng : numpy.random.Generator, numpy.random.SeedSequence or int
        Source of the duels.
    oracle : callable
        ``oracle(inst, A1, R1, A2, R2, Q, eps) -> float`` (``O_ε``, L235–L244); default the exact
        LP :func:`~duelbench.cpe.oracles.lp_value`.
    check_every : {"round", "geometric"}
        Run the classification after every round (Algorithm 2) or at rounds ``⌈ratio^k⌉`` and at
        every epoch end ``4^q`` and start ``4^q + 1``, the duels in between drawn in one batch
        (decision D9).
    ratio : float
        ``r > 1`` of the geometric schedule.
    max_rounds : int
        Cap on the rounds; the run then returns ``output=None`` with ``capped=True``.

    Returns
    -------
    CarCondResult
    """
    _check_instance(inst)
    delta = _check_delta("delta", delta)
    check_every, ratio, max_rounds = _check_cond_options(check_every, ratio, max_rounds)
    if not callable(oracle):
        raise TypeError("oracle must be callable as oracle(inst, A1, R1, A2, R2, Q, eps)")
    return _run(_car_cond_steps(inst, delta, oracle, _as_rng(rng), check_every, ratio, max_rounds))


# --- CAR-Verify (Algorithm 4) ------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class CarVerifyResult:
    """Outcome of CAR-Verify (Algorithm 4).

    Attributes
    ----------
    output : numpy.ndarray or None
        ``M̂`` if verified (line 11), None on error or failure.
    error : bool
        Line 7 returned *error* (``M̂`` refuted).
    hypothesis : numpy.ndarray or None
        ``M̂`` (None if CAR-Cond failed).
    samples : int
        ``cond_samples + verify_samples``.
    cond_samples, verify_samples : int
        Duels of CAR-Cond(δ0) (0 when ``M̂`` was given) and of the verification.
    steps : int
        Verification step ``t`` at the return.
    capped : bool
        CAR-Cond or the verification hit its cap.
    cond : CarCondResult or None
        CAR-Cond's result (None when ``M̂`` was given).
    delta, delta0 : float
        ``δ`` and ``δ0``.
    options : dict
        ``max_steps`` and CAR-Cond's options.
    """

    output: np.ndarray | None
    error: bool
    hypothesis: np.ndarray | None
    samples: int
    cond_samples: int
    verify_samples: int
    steps: int
    capped: bool
    cond: CarCondResult | None = field(repr=False)
    delta: float = 0.0
    delta0: float = DELTA0
    options: dict = field(default_factory=dict)


def _car_verify_steps(inst: BipartiteInstance, delta: float, delta0: float, oracle: Oracle, rng: np.random.Generator,
                      cond_options: dict, hypothesis: np.ndarray | None,
                      max_steps: int) -> Generator[int, None, CarVerifyResult]:
    """CAR-Verify as a generator: yields the number of duels it is about to draw."""
    options = {"max_steps": max_steps, **cond_options}
    cond = None
    if hypothesis is None:
        cond = yield from _car_cond_steps(inst, delta0, oracle, rng, **cond_options)  # line 3
        if cond.output is None:
            return CarVerifyResult(None, False, None, cond.samples, cond.samples, 0, 0, True, cond, delta, delta0,
                                   options)
        M_hat = cond.output
    else:
        M_hat = hypothesis
    cond_samples = 0 if cond is None else cond.samples
    ell = inst.ell
    pair_id = np.full((inst.m, inst.m), -1, dtype=np.int64)
    pair_id[inst.pairs[:, 0], inst.pairs[:, 1]] = np.arange(inst.K)
    pair_id[inst.pairs[:, 1], inst.pairs[:, 0]] = np.arange(inst.K)
    partner = M_hat[inst.position]  # e(M̂, s(e′)) for every edge e′
    rows = np.arange(inst.m)
    wins = np.zeros(inst.K, dtype=np.int64)
    counts = np.zeros(inst.K, dtype=np.int64)
    n = 0

    def result(output, error=False, capped=False) -> CarVerifyResult:
        return CarVerifyResult(output, error, M_hat.copy(), cond_samples + n, cond_samples, n, t, capped, cond,
                               delta, delta0, options)

    t = 0
    while True:
        t += 1
        upper, lower = confidence_bounds(inst, wins, counts, t, delta)  # line 5 (decision D12)
        w_lo = lower[rows, partner]
        M_lo = best_other_than(inst, w_lo, M_hat)
        if M_lo is not None and matching_weight(w_lo, M_lo) / ell >= 0.5:  # line 6
            return result(None, error=True)
        w_up = upper[rows, partner]
        M_t = best_other_than(inst, w_up, M_hat)  # line 9
        if M_t is None or matching_weight(w_up, M_t) / ell <= 0.5:  # line 10
            return result(M_hat.copy())
        if n >= max_steps:
            return result(None, capped=True)
        diff = np.flatnonzero(M_t != M_hat)  # positions where M_t and M̂ differ
        ids = pair_id[M_t[diff], M_hat[diff]]
        radii = _radius(counts[ids], t, inst.K, delta)
        k = int(ids[int(np.argmax(radii))])  # line 14, first maximum = lowest position
        yield 1
        i, j = inst.pairs[k]
        wins[k] += int(rng.random() < inst.P[i, j])  # line 15
        counts[k] += 1
        n += 1


def car_verify(inst: BipartiteInstance, delta: float, rng, oracle: Oracle = lp_value, *, delta0: float = DELTA0,
               hypothesis=None, check_every: str = "round", ratio: float = DEFAULT_RATIO,
               max_rounds: int = DEFAULT_MAX_ROUNDS, max_steps: int = DEFAULT_MAX_STEPS) -> CarVerifyResult:
    """CAR-Verify (Algorithm 4, L337–L354): CAR-Cond(δ0), then verify its answer with confidence δ.

    Parameters
    ----------
    inst : BipartiteInstance
        The instance (``K ≥ 1``).
    delta : float
        Confidence ``δ``, ``0 < δ < δ0`` (line 1).
    rng : numpy.random.Generator, numpy.random.SeedSequence or int
        Source of the duels (CAR-Cond's first, then the verification's).
    oracle : callable
        CAR-Cond's oracle ``O_ε``.
    delta0 : float
        CAR-Cond's confidence (line 2: 0.01).
    hypothesis : sequence of int, optional
        A matching ``M̂`` (edge indices in position order) to verify instead of running
        CAR-Cond (line 3 skipped; ``cond_samples = 0``).
    check_every, ratio, max_rounds
        CAR-Cond's options (see :func:`car_cond`).
    max_steps : int
        Cap on the verification's duels; the run then returns ``capped=True``.

    Returns
    -------
    CarVerifyResult
    """
    _check_instance(inst)
    delta0 = _check_delta("delta0", delta0)
    delta = _check_delta("delta", delta, upper=delta0)
    check_every, ratio, max_rounds = _check_cond_options(check_every, ratio, max_rounds)
    max_steps = _check_positive_int("max_steps", max_steps)
    if not callable(oracle):
        raise TypeError("oracle must be callable as oracle(inst, A1, R1, A2, R2, Q, eps)")
    M_hat = None if hypothesis is None else _check_matching(inst, hypothesis)
    cond_options = {"check_every": check_every, "ratio": ratio, "max_rounds": max_rounds}
    return _run(_car_verify_steps(inst, delta, delta0, oracle, _as_rng(rng), cond_options, M_hat, max_steps))


# --- CAR-Parallel (Algorithm 3) ----------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class CarParallelResult:
    """Outcome of CAR-Parallel (Algorithm 3).

    Attributes
    ----------
    output : numpy.ndarray or None
        ``Out_k`` of the first instance that answered (None if ``max_steps`` was reached).
    samples : int
        Duels granted to all instances up to the answer (``Σ samples_per_instance``).
    steps : int
        Step ``t`` of Algorithm 3 at the answer.
    answered_by : int or None
        The ``k`` whose ``Out_k`` was returned.
    samples_per_instance : tuple of int
        Duels granted to instance ``k = 0, 1, …`` (started instances only).
    errors : tuple of int
        Instances retired after returning *error*.
    failed : tuple of int
        Instances retired after hitting a cap (CAR-Cond or verification).
    capped : bool
        ``max_steps`` was reached without an answer.
    answer : CarVerifyResult or None
        The answering instance's result.
    delta : float
        Confidence ``δ``.
    options : dict
        ``max_steps``, ``delta0`` and CAR-Cond's options.
    """

    output: np.ndarray | None
    samples: int
    steps: int
    answered_by: int | None
    samples_per_instance: tuple[int, ...]
    errors: tuple[int, ...]
    failed: tuple[int, ...]
    capped: bool
    answer: CarVerifyResult | None = field(repr=False)
    delta: float = 0.0
    options: dict = field(default_factory=dict)


class _Instance:
    """A suspended CAR-Verify_k: its generator and the duels still owed to its current request."""

    __slots__ = ("gen", "owed", "granted", "retired")

    def __init__(self, gen: Generator):
        self.gen = gen
        self.owed = 0
        self.granted = 0
        self.retired = False


def car_parallel(inst: BipartiteInstance, delta: float, seed, oracle: Oracle = lp_value, *, delta0: float = DELTA0,
                 check_every: str = "round", ratio: float = DEFAULT_RATIO, max_rounds: int = DEFAULT_MAX_ROUNDS,
                 max_steps: int = DEFAULT_MAX_STEPS) -> CarParallelResult:
    """CAR-Parallel (Algorithm 3, L324–L336): CAR-Verify_k with confidence ``δ/2^{k+1}`` in parallel.

    At step ``t = 1, 2, …`` every instance ``k`` with ``t mod 2^k = 0`` (increasing ``k``) is
    started or resumed for one sample; the first answer ``Out_k`` is returned.

    Parameters
    ----------
    inst : BipartiteInstance
        The instance (``K ≥ 1``).
    delta : float
        Confidence ``0 < δ < 0.01`` (line 1).
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        Root of the instances' streams: instance ``k`` uses the ``k``-th child SeedSequence.
    oracle : callable
        CAR-Cond's oracle ``O_ε``.
    delta0 : float
        Confidence of each instance's CAR-Cond (Algorithm 4, line 2: 0.01).
    check_every, ratio, max_rounds
        CAR-Cond's options (see :func:`car_cond`).
    max_steps : int
        Cap on the steps ``t``; each instance's verification is capped at ``max_steps`` too.

    Returns
    -------
    CarParallelResult
    """
    _check_instance(inst)
    delta = _check_delta("delta", delta, upper=DELTA0)
    delta0 = _check_delta("delta0", delta0)
    check_every, ratio, max_rounds = _check_cond_options(check_every, ratio, max_rounds)
    max_steps = _check_positive_int("max_steps", max_steps)
    if not callable(oracle):
        raise TypeError("oracle must be callable as oracle(inst, A1, R1, A2, R2, Q, eps)")
    root = _as_seed_sequence(seed)
    cond_options = {"check_every": check_every, "ratio": ratio, "max_rounds": max_rounds}
    options = {"max_steps": max_steps, "delta0": delta0, **cond_options}
    instances: list[_Instance] = []
    errors: list[int] = []
    failed: list[int] = []

    def make(k: int) -> _Instance:
        delta_k = delta / 2 ** (k + 1)
        rng_k = np.random.default_rng(_child_seed(root, k))
        return _Instance(_car_verify_steps(inst, delta_k, delta0, oracle, rng_k, cond_options, None, max_steps))

    def finish(res: CarVerifyResult | None, t: int, k: int | None) -> CarParallelResult:
        granted = tuple(x.granted for x in instances)
        out = None if res is None else res.output
        return CarParallelResult(out, sum(granted), t, k, granted, tuple(errors), tuple(failed), res is None, res,
                                 delta, options)

    def retire(k: int, res: CarVerifyResult) -> None:
        instances[k].retired = True
        (errors if res.error else failed).append(k)

    t = 0
    while True:
        # steps at which no live instance has a turn are skipped: instances 0 … low−1 are retired
        low = next((k for k, x in enumerate(instances) if not x.retired), len(instances))
        t = (t // 2**low + 1) * 2**low
        if t > max_steps:
            return finish(None, max_steps, None)
        k = 0
        while t % 2**k == 0:  # line 5
            if k == len(instances):
                instances.append(make(k))  # started lazily at its first turn, t = 2^k
                x = instances[k]
                try:
                    x.owed = next(x.gen)  # start: compute up to the first duel
                except StopIteration as stop:  # pragma: no cover - CAR-Cond always duels in round 1
                    if stop.value.output is not None:
                        return finish(stop.value, t, k)
                    retire(k, stop.value)
            x = instances[k]
            if not x.retired:  # line 6: one sample, then compute up to the next duel
                x.owed -= 1
                x.granted += 1
                if x.owed == 0:
                    try:
                        x.owed = x.gen.send(None)
                    except StopIteration as stop:
                        res = stop.value
                        if res.output is not None:  # lines 7–9
                            return finish(res, t, k)
                        retire(k, res)
            k += 1

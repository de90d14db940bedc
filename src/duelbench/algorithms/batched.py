"""PCOMP, SCOMP and SCOMP2 — batched dueling bandits (Agarwal, Ghuge & Nagarajan, ICML 2022).

Paper 003 (one line of text; locations are character offsets ``@N``).  The batched protocol
(Section 1.3, @7770): in round r the algorithm commits to a batch of comparisons and sees their
outcomes only when the batch is over; the batches sum to T, and T and B are known in advance
(@8843).  Every compared pair is compared ``c_r = q^r`` times, ``q = T^{1/B}`` (@18483), its
fresh estimate ``P̂_ij`` = wins of i over j / comparisons in round r (Eq. (1)) is tested against
``γ_r = sqrt(log(1/δ)/(2 c_r))``::

    PCOMP(A, τ)  (Algorithm 1, @18682; Theorem 3.1: at most B batches)
        round r = 1, 2, …: every pair of A, c = q^{r+τ−1} times (line 4, @18914)
        remove b_j from A if some b_i ∈ A has P̂_ij > 1/2 + γ            (line 5, @18993)
    SCOMP  (Algorithm 2, @21578; Theorem 3.2: at most B + 1 batches)
        S ← each arm with probability 1/√K (line 3, @21741);  A ← all arms
        round r: every pair of S × A, c_r times (line 5, @21816)
        remove b_j from A and S if some b_i ∈ S has P̂_ij > 1/2 + 3γ_r    (line 6, @21891)
        if some b_j has P̂_ji > 1/2 + 3γ_r for all b_i ∈ S               (line 9, @21969):
            A' = {b_j ∈ A : P̂_ji > 1/2 + γ_r ∀ b_i ∈ S}; PCOMP(A', τ = r)   (lines 10-15)
    SCOMP2  (Algorithm 3, @24450; Theorem 3.4: at most 2B + 1 batches)
        round r = two batches: r(1) every pair of S, c_r times (line 5, @24692);
            candidate i*_r: an arm of S with max_{j∈S} P̂_{j,i} ≤ 1/2 + γ_r (line 6, @24750)
        r(2): i*_r against every b_j ∈ A, c_r times (line 7, @24812)
        remove b_j from A and S if P̂_{i*,j} > 1/2 + 5γ_r                  (line 8, @24890)
        if some b_j has P̂_{j,i*} > 1/2 + 5γ_r                            (line 11, @24965):
            A' = {b_j ∈ A : P̂_{j,i*} > 1/2 + 3γ_r}; PCOMP(A', τ = r)        (lines 12-17)

δ = 1/(6TK²B) in Algorithms 1-3 (line 2, @18800).  The experiments (Section 5, @32491) replace
the elimination lines (PCOMP l.5, SCOMP l.6, SCOMP2 l.8) by a KL rule: "eliminate an arm i if
there exists another arm j [with] P̂_ij < 1/2 and N_ij D_KL(P̂_ij, 1/2) > log(Tδ) where N_ij is the
number of times arm i and j are played together", and set T = 10^5, δ = 1/(TK²), B = log(T) = 16
(@34200).  R(t) is plotted against t for runs of horizon T, so the horizon is the last checkpoint
(``checkpoints[-1]``) and the regret curve is recorded at every checkpoint of that one run
(``needs_horizon=False``).  Regret per comparison is the engine's (paper 003 @7196:
``r(t) = (ε_t1 + ε_t2)/2``, the ``condorcet`` kind).

Code: one compiled function per algorithm and phase, sequenced by ``_core`` — ``_pcomp``
(Algorithm 1, also PCOMP(A', τ = r') after a switch), ``_draw_seed_set`` (line 3 of Algorithms 2
and 3), ``_scomp_round`` (Algorithm 2 lines 5-12), ``_scomp2_round`` (Algorithm 3 lines 5-14,
with ``_candidate`` for line 6) and ``_self_tail`` (|A| = 1).  They share ``_batch`` (one batch
played and logged), ``_eliminate`` (the elimination lines) and ``_switch`` (the switch test and
A'); the γ multiples of the printed tests are the constants ``GAMMA_1_SQ``, ``GAMMA_3_SQ``,
``GAMMA_5_SQ`` (squared, the level of the test), the log's fields the constants ``L_*``,
``BATCH_*`` and ``ARM_*``.

Parameters (floats, in the kernels' order; SCOMP and SCOMP2 have all eight, PCOMP the first six)
------------------------------------------------------------------------------------------------
* ``batches`` B = 16 ("B = log(T) = 16", @34230); q = T^{1/B}.
* ``elimination`` 0: the experiments' KL rule (@32491); 1: the γ-rules of Algorithms 1-3.
* ``threshold`` (level THR of the KL rule) 0: log(1/δ); 1: log(Tδ) as printed (@32901; negative
  for δ = 1/(TK²): every arm with one P̂_ij < 1/2 falls; a labelled variant); 2: log(T/δ).
* ``delta`` 0: δ = 1/(TK²) (experiments, @34200); 1: δ = 1/(6TK²B) (line 2 of Algorithms 1-3).
* ``kl_counts`` 0: N_ij and P̂_ij of the KL rule count every comparison of the run so far;
  1: the round's fresh estimate of Eq. (1) (N_ij = c_r).
* ``rounding`` 0: c_r = ceil(q^r − 1e-9); 1: floor(q^r + 1/2) (at least 1 either way;
  :func:`duelbench.stats.batches.batch_size`).
* ``all_kl`` (SCOMP, SCOMP2) 0: only the elimination lines use the KL rule (the literal
  reading of @32689); 1: the switch test, the set A' and SCOMP2's candidate use KL tests too:
  switch if some b_j has P̂_{j,i} > 1/2 and N_ji d(P̂_ji, 1/2) > log(1/δ) (SCOMP: for every
  b_i ∈ S; SCOMP2: for i = i*), A' = the arms passing the same test at level (1/3)² log(1/δ)
  (SCOMP) or (3/5)² log(1/δ) (SCOMP2) — the ratios of the printed γ multiples — together with
  the arms that triggered the switch; the candidate is undefeated if no b_j ∈ S has
  P̂_{j,i} > 1/2 and N_ji d(P̂_ji, 1/2) > log(1/δ).  Ignored while ``elimination`` = 1.
* ``seed_exponent`` (SCOMP, SCOMP2) 0.5: seed probability K^{−seed_exponent} (1/√K, line 3);
  2/3 is the variant of Theorem 3.3 (@22792).

Decisions
---------
* **Pairs and order inside a batch.**  A batch compares unordered pairs of distinct arms (no
  self-comparisons); SCOMP's S × A holds each pair {i, j} once, also when both arms are in S.
  The pairs are listed in increasing (i, j), i < j, and played round-robin: the whole list once,
  then again, c times; each comparison is one step, recorded as (i, j) with i < j, and draws one
  uniform (:func:`duelbench.algorithms.kernels.duel`).  The batch that reaches T is cut there in
  the same order, so a run makes exactly T comparisons.
* **Batch protocol.**  The tests of a round (eliminations, the switch, SCOMP2's candidate) are
  evaluated only when its batch is complete, on the batch's outcomes; a cut batch is never
  evaluated.  The eliminations of one batch are simultaneous: every arm is tested against the
  sets as they were during the batch, then all losers leave A (and S).
* **An elimination that would empty A.**  Without a Condorcet winner (or outside the good event
  of Lemma 4.2) the simultaneous eliminations can remove every arm of A (a cycle of defeats, or
  every arm losing one estimate under ``threshold`` = 1).  Then the arms eliminated by the
  fewest arms stay active and only the others leave: the rule of the paper, applied so that A
  stays non-empty.  (SCOMP2 never needs it: its candidate is never tested against itself.)
* **Sequence of SCOMP's tests.**  As printed: eliminations (line 6-7) first, then the switch
  test (line 9) on the updated A and S.  An arm of S never triggers the switch nor enters A'
  (the convention P̂_jj = 1/2: it cannot beat itself); so when S is empty the test "for all
  b_i ∈ S" holds vacuously and the algorithm switches to PCOMP(A' = A) — the case of S emptied
  by eliminations.
* **Empty seed set** (SCOMP, SCOMP2): PCOMP on all arms from round 1, logged as a switch at
  r' = 1 with A' = all arms.  **|S| = 1** in SCOMP2: r(1) is skipped and the seed is the
  candidate (r(1) then has no pair to compare).
* **SCOMP2's candidate** when several arms, or none, are undefeated: among the undefeated arms
  (all of S if none), the arm with the smallest ``max_{j ∈ S, j ≠ i} P̂_{j,i}``, ties to the
  lowest index (``all_kl`` = 1: the same with the KL estimates of ``kl_counts``).  The candidate
  is compared with every other arm of A in r(2); it is never eliminated and never enters A'.
* **PCOMP after a switch** at round r' is Algorithm 1 with τ = r' (lines 15, 17): its first
  batch repeats the switch round's size q^{r'}, then q^{r'+1}, …  δ is kept (not recomputed with
  |A'|), and the counts of the KL rule keep every comparison of the run (``kl_counts`` = 0).
* **|A| = 1**: the remaining budget plays (a, a) as one last batch; no information is gained,
  so no duels are drawn, but each step is recorded one by one
  (:func:`duelbench.algorithms.kernels.recorder_step`, a few nanoseconds a step), which keeps
  the running regret sums those of a step-by-step sum.
* **Rounds beyond B** never occur with |A| ≥ 2: round B has c_B = T (q^B = T), so its batch
  reaches the horizon; sizes are capped at T.
* **γ-tests** "P̂_ij > 1/2 + mγ_r" are evaluated exactly on the win counts as
  ``(2w − n)² > 2n·m²·log(1/δ)`` with ``2w > n`` (:func:`duelbench.stats.hoeffding.hoeffding_side`
  with ``log_term = m² log(1/δ)``, n = c_r), always on the round's fresh estimate (Eq. (1)).
  KL tests use :func:`duelbench.stats.kl.kl_to_half` with the estimate of the tested arm
  (P̂_ij with the loser i first for eliminations, P̂_{j,i} for the switch).
* **Logarithms** are natural: log(1/δ) = ln T + 2 ln K (+ ln 6 + ln B for ``delta`` = 1).

Batch log
---------
:func:`batch_log` runs the same compiled core on the same random stream and returns a
:class:`BatchLog`: batches used and their sizes, the switch round and A', the seed set, the
Condorcet winner's fate, and the γ-rule good event of Lemmas 4.1-4.2 (every per-round pair
estimate with ``|P̂_ij − P_ij| ≤ γ_r``), counted on every complete batch whatever the rule used.

Complexity: O(K²) memory; O(1) per comparison plus O(K²) per batch.
"""

from __future__ import annotations

import math
from collections import namedtuple
from dataclasses import dataclass

import numba
import numpy as np

from duelbench.algorithms.kernels import duel, recorder_new, recorder_step
from duelbench.problems.regret import NoCondorcetWinnerError, regret_matrix
from duelbench.problems.winners import condorcet_winner
from duelbench.stats.batches import batch_size, gamma_radius
from duelbench.stats.counts import empirical_mean, n_pair, new_counts, record_outcome
from duelbench.stats.hoeffding import hoeffding_side
from duelbench.stats.kl import kl_to_half

from .registry import AlgorithmSpec, canonical_params, params_array

PCOMP = 0
SCOMP = 1
SCOMP2 = 2
NAMES = ("pcomp", "scomp", "scomp2")

# parameter positions in the kernels' params array
P_BATCHES = 0
P_ELIMINATION = 1
P_THRESHOLD = 2
P_DELTA = 3
P_KL_COUNTS = 4
P_ROUNDING = 5
P_ALL_KL = 6
P_SEED_EXPONENT = 7

# squared multiples m² of γ_r in the printed tests "P̂ > 1/2 + mγ_r", tested at the level
# m² log(1/δ) (_gamma_level).  With all_kl = 1 the switch tests are KL tests at log(1/δ) and A' is
# tested at (m_A' / m_switch)² log(1/δ) (_kl_switch_set_level): (1/3)² = GAMMA_1_SQ / GAMMA_3_SQ
# for Algorithm 2 line 10, (3/5)² = GAMMA_3_SQ / GAMMA_5_SQ for Algorithm 3 line 12.
GAMMA_1_SQ = 1.0  # γ_r: Algorithm 1 line 5 (elimination), Algorithm 2 line 10 (A'), Algorithm 3 line 6 (candidate)
GAMMA_3_SQ = 9.0  # 3γ_r: Algorithm 2 lines 6 (elimination) and 9 (switch), Algorithm 3 line 12 (A')
GAMMA_5_SQ = 25.0  # 5γ_r: Algorithm 3 lines 8 (elimination) and 11 (switch)

# batch kinds in the log
KIND_PCOMP = 0  # all pairs of A (Algorithm 1 line 4)
KIND_SEEDED = 1  # S × A (Algorithm 2 line 5)
KIND_SEED_PAIRS = 2  # r(1): all pairs of S (Algorithm 3 line 5)
KIND_CANDIDATE = 3  # r(2): candidate × A (Algorithm 3 line 7)
KIND_SELF = 4  # |A| = 1: (a, a) for the remaining budget
KIND_NAMES = ("pcomp", "seeded", "seed_pairs", "candidate", "self")

# log layout (int64): header, then ``cap`` slots per batch field, then K slots per arm field
L_BATCHES = 0  # batches used
L_SWITCH = 1  # switch round r' (−1: none)
L_SWITCH_SIZE = 2  # |A'| (−1: no switch)
L_SEED_EMPTY = 3  # 1 if S = ∅ at the start
L_ESTIMATES = 4  # per-round pair estimates of complete batches
L_INCORRECT = 5  # … of which |P̂_ij − P_ij| > γ_r
L_COMPARISONS = 6  # comparisons made (T)
L_CAP = 7  # batch slots
HEADER = 8
# batch fields (one slot per batch each)
BATCH_SIZE = 0  # comparisons made in the batch
BATCH_KIND = 1  # KIND_*
BATCH_EXPONENT = 2  # r of the batch's c = q^r (−1 for the self batch)
BATCH_CANDIDATE = 3  # SCOMP2's candidate i*_r of an r(2) batch (−1 elsewhere)
BATCH_FIELDS = 4
# arm fields (one slot per arm each)
ARM_IN_SEED = 0  # 1 if the arm is in S at the start
ARM_ELIMINATED_AT = 1  # index of the batch whose elimination test removed it (−1)
ARM_IN_SWITCH_SET = 2  # 1 if the arm is in A' at the switch
ARM_COMPARISONS = 3  # comparisons involving the arm, a self-comparison counting twice
ARM_FIELDS = 4

#: What a run keeps fixed: horizon T, q = T^{1/B}, the rounding of c_r, the rule flags,
#: log(1/δ) and the level of the KL elimination test.
_Setting = namedtuple("_Setting", "T q rounding use_kl kl_fresh all_kl log_inv_delta kl_threshold")
#: What the batches change: the recorder, all counts W, the batch's fresh counts Wb, the counts
#: Wk of the KL tests (W or Wb), the pair list (pa, pb) of the batch and the log.  Loops take
#: the arrays out of it beforehand: each access to an array field costs a reference count.
_State = namedtuple("_State", "P rec rng W Wb Wk pa pb log")


# --------------------------------------------------------------------------- log
@numba.njit(cache=True)
def log_length(K, B):
    """Length of the int64 log array for K arms and B = ``batches`` (room for 2B + 4 batches)."""
    return HEADER + BATCH_FIELDS * (2 * B + 4) + ARM_FIELDS * K


@numba.njit(cache=True)
def _arm_slot(log, field, a):
    """Index of arm a's entry of the arm field ``field`` (``ARM_*``)."""
    K = (log.shape[0] - HEADER - BATCH_FIELDS * log[L_CAP]) // ARM_FIELDS
    return HEADER + BATCH_FIELDS * log[L_CAP] + field * K + a


@numba.njit(cache=True)
def _log_init(log, K):
    """An empty log for K arms: no batch, no switch (−1), no arm in S or A', none eliminated."""
    log[:] = -1
    cap = (log.shape[0] - HEADER - ARM_FIELDS * K) // BATCH_FIELDS
    log[L_BATCHES] = 0
    log[L_SEED_EMPTY] = 0
    log[L_ESTIMATES] = 0
    log[L_INCORRECT] = 0
    log[L_COMPARISONS] = 0
    log[L_CAP] = cap
    for a in range(K):  # ARM_ELIMINATED_AT stays −1
        log[_arm_slot(log, ARM_IN_SEED, a)] = 0
        log[_arm_slot(log, ARM_IN_SWITCH_SET, a)] = 0
        log[_arm_slot(log, ARM_COMPARISONS, a)] = 0


@numba.njit(cache=True)
def _log_batch(log, size, kind, exponent, candidate):
    b = log[L_BATCHES]
    cap = log[L_CAP]
    if b < cap:
        log[HEADER + BATCH_SIZE * cap + b] = size
        log[HEADER + BATCH_KIND * cap + b] = kind
        log[HEADER + BATCH_EXPONENT * cap + b] = exponent
        log[HEADER + BATCH_CANDIDATE * cap + b] = candidate
    log[L_BATCHES] = b + 1
    log[L_COMPARISONS] += size


@numba.njit(cache=True)
def _log_switch(log, r, active):
    """The switch at round r' = r to PCOMP on A' = the arms of ``active``."""
    size = 0
    for a in range(active.shape[0]):
        if active[a]:
            size += 1
            log[_arm_slot(log, ARM_IN_SWITCH_SET, a)] = 1
    log[L_SWITCH] = r
    log[L_SWITCH_SIZE] = size


# --------------------------------------------------------------------------- a run's setting
@numba.njit(cache=True)
def _setting(K, T, params, algo):
    """The :class:`_Setting` of a run of ``algo`` with horizon T on K arms (module docstring,
    Parameters): δ (line 2 of Algorithms 1-3, or the experiments' δ, @34200), the level of the
    KL rule (@32491) and q = T^{1/B}."""
    B = int(params[P_BATCHES])
    use_kl = params[P_ELIMINATION] == 0.0
    thr_mode = int(params[P_THRESHOLD])
    kl_fresh = params[P_KL_COUNTS] == 1.0
    rounding = int(params[P_ROUNDING])
    all_kl = algo != PCOMP and use_kl and params[P_ALL_KL] == 1.0

    ln_t = math.log(T)
    lid = ln_t + 2.0 * math.log(K)  # log(1/δ), δ = 1/(TK²)
    if params[P_DELTA] == 1.0:  # δ = 1/(6TK²B)
        lid += math.log(6.0) + math.log(B)
    if thr_mode == 0:
        thr = lid
    elif thr_mode == 1:
        thr = ln_t - lid  # log(Tδ)
    else:
        thr = ln_t + lid  # log(T/δ)
    q = math.pow(T, 1.0 / B)
    return _Setting(T, q, rounding, use_kl, kl_fresh, all_kl, lid, thr)


@numba.njit(cache=True)
def _new_state(P, regret, checkpoints, rng, record_pairs, kl_fresh, log):
    """The :class:`_State` at the start of a run (no comparison made)."""
    K = P.shape[0]
    W = new_counts(K)
    Wb = new_counts(K)
    npairs = max(K * (K - 1) // 2, 1)
    return _State(P, recorder_new(regret, checkpoints, record_pairs), rng, W, Wb, Wb if kl_fresh else W,
                  np.zeros(npairs, dtype=np.int64), np.zeros(npairs, dtype=np.int64), log)


@numba.njit(cache=True)
def _comparisons(s, r):
    """c = q^r comparisons of each pair in a batch of exponent r, at most T (@18483)."""
    return min(batch_size(s.q, r, s.rounding), s.T)


@numba.njit(cache=True)
def _gamma_level(m_sq, log_inv_delta):
    """``m² log(1/δ)``: the level at which :func:`_gamma_beats` tests ``P̂ > 1/2 + mγ_r``."""
    return m_sq * log_inv_delta


@numba.njit(cache=True)
def _kl_switch_set_level(set_sq, switch_sq, log_inv_delta):
    """Level of the KL test of A' (``all_kl`` = 1): ``m_A'² log(1/δ) / m²`` for the multiples m
    of the printed switch test and m_A' of A' — their squared ratio times the level log(1/δ) of
    the KL switch test."""
    return _gamma_level(set_sq, log_inv_delta) / switch_sq


# --------------------------------------------------------------------------- batches
@numba.njit(cache=True)
def _play(P, rec, rng, W, Wb, pa, pb, m, c, t, T, log):
    """Compare the m pairs (pa[k], pb[k]) round-robin, c times each, from step t + 1, stopping at
    T; fresh counts in Wb (reset for these pairs first), all counts in W, comparisons per arm in
    the log.  Returns the new t."""
    for k in range(m):
        Wb[pa[k], pb[k]] = 0.0
        Wb[pb[k], pa[k]] = 0.0
    n = min(m * c, T - t)
    k = 0
    for _ in range(n):
        i = pa[k]
        j = pb[k]
        won = duel(P, i, j, rng)
        record_outcome(W, i, j, won)
        record_outcome(Wb, i, j, won)
        t += 1
        recorder_step(rec, t, i, j)
        k += 1
        if k == m:
            k = 0
    if m > 0:
        full = n // m
        extra = n - full * m
        for k in range(m):
            played = full + (1 if k < extra else 0)
            log[_arm_slot(log, ARM_COMPARISONS, pa[k])] += played
            log[_arm_slot(log, ARM_COMPARISONS, pb[k])] += played
    return t


@numba.njit(cache=True)
def _pairs(mask, touching, pa, pb):
    """Fill ``pa``/``pb`` with the unordered pairs i < j of arms in ``mask`` of which at least one
    is in ``touching``, in increasing (i, j) order; returns their number."""
    K = mask.shape[0]
    m = 0
    for i in range(K):
        if mask[i]:
            for j in range(i + 1, K):
                if mask[j] and (touching[i] or touching[j]):
                    pa[m] = i
                    pb[m] = j
                    m += 1
    return m


@numba.njit(cache=True)
def _pairs_with(mask, a, pa, pb):
    """Fill ``pa``/``pb`` with the pairs {a, j}, j ≠ a in ``mask``, as (min, max) in increasing j
    (the order of :func:`_pairs` with ``touching`` = {a}, in O(K)); returns their number."""
    m = 0
    for j in range(mask.shape[0]):
        if mask[j] and j != a:
            pa[m] = min(a, j)
            pb[m] = max(a, j)
            m += 1
    return m


@numba.njit(cache=True)
def _batch(st, s, m, c, t, kind, r, candidate):
    """One batch: the m pairs of ``st.pa``/``st.pb`` round-robin c times each (:func:`_play`),
    logged; if it was not cut by T, its estimates are counted for the good event
    (:func:`_good_event`).  Returns the new t and whether the batch was complete."""
    t0 = t
    t = _play(st.P, st.rec, st.rng, st.W, st.Wb, st.pa, st.pb, m, c, t, s.T, st.log)
    _log_batch(st.log, t - t0, kind, r, candidate)
    complete = t - t0 == m * c
    if complete:
        _good_event(st.P, st.Wb, st.pa, st.pb, m, s.log_inv_delta, c, st.log)
    return t, complete


@numba.njit(cache=True)
def _good_event(P, Wb, pa, pb, m, log_inv_delta, c, log):
    """Count the batch's m pair estimates and those outside ±γ of P (Lemma 4.1)."""
    g = gamma_radius(log_inv_delta, c)
    bad = 0
    for k in range(m):
        i = pa[k]
        j = pb[k]
        if abs(empirical_mean(Wb, i, j) - P[i, j]) > g:
            bad += 1
    log[L_ESTIMATES] += m
    log[L_INCORRECT] += bad


# --------------------------------------------------------------------------- tests
@numba.njit(cache=True)
def _gamma_beats(Wb, i, j, level):
    """Fresh estimate P̂_ij > 1/2 + mγ, ``level`` = m² log(1/δ) (exact on the counts)."""
    return hoeffding_side(Wb[i, j], n_pair(Wb, i, j), level) > 0


@numba.njit(cache=True)
def _kl_beats(Wk, i, j, level):
    """P̂_ij > 1/2 and N_ij · d(P̂_ij, 1/2) > level (counts Wk)."""
    p = empirical_mean(Wk, i, j)
    return p > 0.5 and n_pair(Wk, i, j) * kl_to_half(p) > level


@numba.njit(cache=True)
def _kl_loses(Wk, i, j, level):
    """The KL elimination test of @32491: P̂_ij < 1/2 and N_ij · d(P̂_ij, 1/2) > level."""
    p = empirical_mean(Wk, i, j)
    return p < 0.5 and n_pair(Wk, i, j) * kl_to_half(p) > level


@numba.njit(cache=True)
def _beats(Wb, Wk, s, j, i, kl_level, m_sq):
    """b_j beats b_i in the switch test, A' or SCOMP2's candidate: P̂_ji > 1/2 + mγ_r on the
    batch's counts Wb (``m_sq`` = m²), or with ``all_kl`` the KL test at ``kl_level`` (counts
    Wk)."""
    if s.all_kl:
        return _kl_beats(Wk, j, i, kl_level)
    return _gamma_beats(Wb, j, i, _gamma_level(m_sq, s.log_inv_delta))


@numba.njit(cache=True)
def _eliminate(st, s, active, elim, victims, m_sq):
    """Simultaneous eliminations after the batch just played: victim j (``victims[j]``) leaves A
    if some eliminator i (``elim[i]``, i ≠ j) beats it — γ-rule ``P̂_ij > 1/2 + mγ`` (``m_sq`` =
    m²) or the KL rule ``P̂_ji < 1/2 and N_ji d > THR``.  If every arm of A would leave, those
    beaten by the fewest eliminators stay."""
    level = s.kl_threshold if s.use_kl else _gamma_level(m_sq, s.log_inv_delta)
    Wb, Wk, log = st.Wb, st.Wk, st.log
    batch_index = log[L_BATCHES] - 1
    K = active.shape[0]
    count = np.zeros(K, dtype=np.int64)
    n_active = 0
    n_out = 0
    fewest = K + 1
    for j in range(K):
        if not active[j]:
            continue
        n_active += 1
        if not victims[j]:
            continue
        for i in range(K):
            if i == j or not elim[i]:
                continue
            if s.use_kl:
                if _kl_loses(Wk, j, i, level):
                    count[j] += 1
            elif _gamma_beats(Wb, i, j, level):
                count[j] += 1
        if count[j] > 0:
            n_out += 1
            fewest = min(fewest, count[j])
    keep = 0
    if n_out == n_active:
        keep = fewest
    for j in range(K):
        if active[j] and count[j] > 0 and count[j] != keep:
            active[j] = False
            log[_arm_slot(log, ARM_ELIMINATED_AT, j)] = batch_index


@numba.njit(cache=True)
def _beats_all(Wb, Wk, s, j, opponents, kl_level, m_sq):
    """b_j beats every arm of the list ``opponents`` (:func:`_beats`); true if it is empty."""
    for i in opponents:
        if not _beats(Wb, Wk, s, j, i, kl_level, m_sq):
            return False
    return True


@numba.njit(cache=True)
def _switch(st, s, active, opponents, r, switch_sq, set_sq):
    """The switch test and A' of round r (Algorithm 2 lines 9-11: ``opponents`` = S; Algorithm 3
    lines 11-13: ``opponents`` = {i*_r}); ``switch_sq``, ``set_sq`` = m², m_A'².

    Switch if some b_j ∈ A outside ``opponents`` beats every opponent by m γ_r (``all_kl``: the
    KL test at log(1/δ)); then A ← A' = the arms b_j ∈ A outside ``opponents`` that beat every
    opponent by m_A' γ_r (``all_kl``: at :func:`_kl_switch_set_level`), together with the arms
    that triggered the switch (which pass that test too), and the switch is logged.  Returns
    whether it switched."""
    Wb, Wk = st.Wb, st.Wk
    lid = s.log_inv_delta
    K = active.shape[0]
    among = np.flatnonzero(opponents)
    trig = np.zeros(K, dtype=np.bool_)
    switched = False
    for j in range(K):
        if active[j] and not opponents[j] and _beats_all(Wb, Wk, s, j, among, lid, switch_sq):
            trig[j] = True
            switched = True
    if not switched:
        return False
    level = _kl_switch_set_level(set_sq, switch_sq, lid)
    for j in range(K):
        active[j] = trig[j] or (active[j] and not opponents[j] and _beats_all(Wb, Wk, s, j, among, level, set_sq))
    _log_switch(st.log, r, active)
    return True


# --------------------------------------------------------------------------- Algorithms 1-3
@numba.njit(cache=True)
def _draw_seed_set(rng, seed, exponent, log):
    """S ← each arm with probability K^{−exponent}, one uniform per arm in arm order (Algorithm 2
    and 3, line 3: 1/√K).  Returns |S|."""
    K = seed.shape[0]
    p_seed = math.pow(K, -exponent)
    n_seed = 0
    for a in range(K):
        if rng.random() < p_seed:
            seed[a] = True
            n_seed += 1
            log[_arm_slot(log, ARM_IN_SEED, a)] = 1
    return n_seed


@numba.njit(cache=True)
def _last(mask):
    """The highest arm in ``mask`` (−1 if none)."""
    last = -1
    for a in range(mask.shape[0]):
        if mask[a]:
            last = a
    return last


@numba.njit(cache=True)
def _pcomp(st, s, active, t, tau):
    """PCOMP(A, τ) — Algorithm 1 (@18682) on the arms of ``active`` from step t + 1: round
    r = 1, 2, … compares every pair of A c = q^{r+τ−1} times (line 4) and removes b_j from A if
    some b_i ∈ A has P̂_ij > 1/2 + γ (lines 5-6; the KL rule with ``elimination`` = 0), until T
    or |A| = 1.  Returns t."""
    r = tau  # exponent of c = q^r
    while t < s.T and np.count_nonzero(active) >= 2:
        c = _comparisons(s, r)
        m = _pairs(active, active, st.pa, st.pb)  # line 4
        t, complete = _batch(st, s, m, c, t, KIND_PCOMP, r, -1)
        if not complete:
            break
        _eliminate(st, s, active, active.copy(), active.copy(), GAMMA_1_SQ)  # lines 5-6
        r += 1
    return t


@numba.njit(cache=True)
def _scomp_round(st, s, active, seed, t, r):
    """Round r of SCOMP — Algorithm 2 (@21578), lines 5-12.  Returns t and whether it switched
    (then A = A')."""
    c = _comparisons(s, r)
    m = _pairs(active, seed, st.pa, st.pb)  # line 5: every pair of S × A, c_r times
    t, complete = _batch(st, s, m, c, t, KIND_SEEDED, r, -1)
    if not complete:
        return t, False
    # lines 6-7: b_j leaves A and S if some b_i ∈ S has P̂_ij > 1/2 + 3γ_r
    _eliminate(st, s, active, seed.copy(), active.copy(), GAMMA_3_SQ)
    seed &= active
    # lines 9-11: some b_j has P̂_ji > 1/2 + 3γ_r for all b_i ∈ S (as updated); A' at γ_r
    return t, _switch(st, s, active, seed, r, GAMMA_3_SQ, GAMMA_1_SQ)


@numba.njit(cache=True)
def _candidate(st, s, seed):
    """SCOMP2's candidate i*_r after r(1) — Algorithm 3 line 6: an arm i ∈ S that no b_j ∈ S
    beats by γ_r (``all_kl``: the KL test at log(1/δ)); among several or none, the smallest
    ``max_{j ∈ S, j ≠ i} P̂_{j,i}`` (KL counts with ``all_kl``), ties to the lowest index."""
    K = seed.shape[0]
    Wb, Wk = st.Wb, st.Wk
    Wc = Wk if s.all_kl else Wb
    undefeated = np.zeros(K, dtype=np.bool_)
    worst = np.zeros(K, dtype=np.float64)
    any_undefeated = False
    for i in range(K):
        if not seed[i]:
            continue
        ok = True
        w = -1.0
        for j in range(K):
            if j != i and seed[j]:
                w = max(w, empirical_mean(Wc, j, i))
                if _beats(Wb, Wk, s, j, i, s.log_inv_delta, GAMMA_1_SQ):
                    ok = False
        worst[i] = w
        undefeated[i] = ok
        any_undefeated = any_undefeated or ok
    cand = -1
    for i in range(K):
        if seed[i] and (undefeated[i] or not any_undefeated):
            if cand < 0 or worst[i] < worst[cand]:
                cand = i
    return cand


@numba.njit(cache=True)
def _scomp2_round(st, s, active, seed, t, r):
    """Round r of SCOMP2 — Algorithm 3 (@24450), lines 5-14: batches r(1) and r(2).  Returns t
    and whether it switched (then A = A')."""
    c = _comparisons(s, r)
    if np.count_nonzero(seed) >= 2:
        m = _pairs(seed, seed, st.pa, st.pb)  # line 5, r(1): all pairs of S, c_r times
        t, complete = _batch(st, s, m, c, t, KIND_SEED_PAIRS, r, -1)
        if not complete:
            return t, False
        cand = _candidate(st, s, seed)  # line 6
    else:  # |S| = 1: no r(1), the seed is the candidate
        cand = _last(seed)
    only = np.zeros(seed.shape[0], dtype=np.bool_)
    only[cand] = True
    m = _pairs_with(active, cand, st.pa, st.pb)  # line 7, r(2): i*_r against every b_j ∈ A, c_r times
    t, complete = _batch(st, s, m, c, t, KIND_CANDIDATE, r, cand)
    if not complete:
        return t, False
    # lines 8-9: b_j leaves A and S if P̂_{i*,j} > 1/2 + 5γ_r
    others = active.copy()
    others[cand] = False
    _eliminate(st, s, active, only, others, GAMMA_5_SQ)
    seed &= active
    # lines 11-13: some b_j has P̂_{j,i*} > 1/2 + 5γ_r; A' at 3γ_r
    return t, _switch(st, s, active, only, r, GAMMA_5_SQ, GAMMA_3_SQ)


@numba.njit(cache=True)
def _self_tail(st, active, t, T):
    """|A| = 1: the remaining T − t steps play (a, a) as one last batch, no duels drawn."""
    last = _last(active)
    rec, log = st.rec, st.log
    for step in range(t + 1, T + 1):
        recorder_step(rec, step, last, last)
    log[_arm_slot(log, ARM_COMPARISONS, last)] += 2 * (T - t)
    _log_batch(log, T - t, KIND_SELF, -1, -1)


@numba.njit(cache=True)
def _core(P, regret, checkpoints, params, rng, record_pairs, algo, log):
    """One run of ``algo``: PCOMP(all arms, τ = 1); or the seed set (Algorithms 2-3 line 3),
    rounds of Algorithm 2 or 3 until the switch at r', then PCOMP(A', τ = r') (Algorithm 2 line
    15, Algorithm 3 line 17); then the |A| = 1 tail.  Returns the recorder's sums and pairs."""
    K = P.shape[0]
    s = _setting(K, checkpoints[-1], params, algo)
    _log_init(log, K)
    st = _new_state(P, regret, checkpoints, rng, record_pairs, s.kl_fresh, log)
    active = np.ones(K, dtype=np.bool_)  # A
    seed = np.zeros(K, dtype=np.bool_)  # S

    t = 0
    r = 1  # exponent of c = q^r
    switched = algo == PCOMP
    if not switched and _draw_seed_set(rng, seed, params[P_SEED_EXPONENT], log) == 0:
        log[L_SEED_EMPTY] = 1  # empty S: PCOMP on all arms from round 1, a switch at r' = 1
        _log_switch(log, 1, active)
        switched = True
    while not switched and t < s.T and np.count_nonzero(active) >= 2:
        if algo == SCOMP:
            t, switched = _scomp_round(st, s, active, seed, t, r)
        else:
            t, switched = _scomp2_round(st, s, active, seed, t, r)
        if not switched:
            r += 1
    if switched:
        t = _pcomp(st, s, active, t, r)
    if t < s.T:
        _self_tail(st, active, t, s.T)
    return st.rec[3], st.rec[4]


@numba.njit(cache=True)
def run_pcomp(P, regret, checkpoints, params, rng, record_pairs):
    """PCOMP: one run with horizon ``checkpoints[-1]`` (see :mod:`duelbench.algorithms.kernels`)."""
    log = np.zeros(log_length(P.shape[0], int(params[P_BATCHES])), dtype=np.int64)
    return _core(P, regret, checkpoints, params, rng, record_pairs, PCOMP, log)


@numba.njit(cache=True)
def run_scomp(P, regret, checkpoints, params, rng, record_pairs):
    """SCOMP: one run with horizon ``checkpoints[-1]``."""
    log = np.zeros(log_length(P.shape[0], int(params[P_BATCHES])), dtype=np.int64)
    return _core(P, regret, checkpoints, params, rng, record_pairs, SCOMP, log)


@numba.njit(cache=True)
def run_scomp2(P, regret, checkpoints, params, rng, record_pairs):
    """SCOMP2: one run with horizon ``checkpoints[-1]``."""
    log = np.zeros(log_length(P.shape[0], int(params[P_BATCHES])), dtype=np.int64)
    return _core(P, regret, checkpoints, params, rng, record_pairs, SCOMP2, log)


@numba.njit(cache=True)
def run_logged(P, regret, checkpoints, params, rng, record_pairs, algo, log):
    """The core of :func:`run_pcomp` / :func:`run_scomp` / :func:`run_scomp2` (``algo`` 0, 1, 2),
    writing the batch log into ``log`` (length :func:`log_length`)."""
    return _core(P, regret, checkpoints, params, rng, record_pairs, algo, log)


# --------------------------------------------------------------------------- batch log
@dataclass(frozen=True)
class BatchLog:
    """What one run of PCOMP, SCOMP or SCOMP2 did, batch by batch (arm labels as in ``P``).

    Attributes
    ----------
    algorithm : "pcomp", "scomp" or "scomp2".
    horizon : T.
    batches : number of batches used (a last batch of self-comparisons counts as one).
    batch_sizes : comparisons made in each batch (the last one cut at T).
    batch_kinds : "pcomp" (all pairs of A), "seeded" (S × A), "seed_pairs" (SCOMP2 r(1)),
        "candidate" (SCOMP2 r(2)) or "self" ((a, a) after |A| = 1), per batch.
    batch_rounds : the exponent r of each batch's c = q^r (−1 for "self").
    candidates : SCOMP2's candidate i*_r of each "candidate" batch (−1 elsewhere).
    switch_round : r' of the switch to PCOMP (1 when S is empty), −1 if none.
    switch_set : A' at the switch (sorted arms), None if none.
    seed_set : S at the start (empty for PCOMP).
    seed_empty : S was empty (SCOMP, SCOMP2).
    eliminated : arm → index (0-based) of the batch whose elimination test removed it.
    condorcet_winner : the arm w with P[w, j] > 1/2 for all j ≠ w, or None.
    winner_eliminated : w was removed by an elimination test (None without w).
    winner_in_switch_set : w ∈ A' (None without w or without a switch).
    rank_best_seed : rank(b_{i_S}) = #{j : P[j, s] > 1/2} for the seed s beaten by the fewest
        arms (Lemma 4.4), None if S is empty or for PCOMP.
    estimates : per-round pair estimates of complete batches (Lemma 4.1).
    incorrect_estimates : those with |P̂_ij − P_ij| > γ_r (the good event G of Lemma 4.2 holds
        iff this is 0).
    comparisons : comparisons made (= T).
    arm_comparisons : T_j, the comparisons involving arm j (a self-comparison counts twice), so
        that R(T) = ½ Σ_j T_j ε_j (paper 003 @7196).
    regret : cumulative Condorcet regret (ε_t1 + ε_t2)/2 at T, None without w.
    pairs : the pairs (T × 2) if requested.
    """

    algorithm: str
    horizon: int
    batches: int
    batch_sizes: tuple
    batch_kinds: tuple
    batch_rounds: tuple
    candidates: tuple
    switch_round: int
    switch_set: tuple | None
    seed_set: tuple
    seed_empty: bool
    eliminated: dict
    condorcet_winner: int | None
    winner_eliminated: bool | None
    winner_in_switch_set: bool | None
    rank_best_seed: int | None
    estimates: int
    incorrect_estimates: int
    comparisons: int
    arm_comparisons: np.ndarray
    regret: float | None
    pairs: np.ndarray | None = None

    @property
    def switch_size(self) -> int:
        """|A'| (−1 without a switch)."""
        return -1 if self.switch_set is None else len(self.switch_set)


def batch_log(name: str, P, horizon: int, params: dict | None, rng, record_pairs: bool = False) -> BatchLog:
    """Run ``name`` ("pcomp", "scomp", "scomp2") once on ``P`` (a K×K array or a
    :class:`~duelbench.problems.matrix.PreferenceMatrix`, arms as the run sees them) with horizon
    ``horizon``, parameters ``params`` (defaults filled in) and the generator ``rng``, through the
    same compiled core and random stream as the registered ``run`` kernel; see :class:`BatchLog`.
    """
    if name not in NAMES:
        raise ValueError(f"batch_log: algorithm must be one of {NAMES}, got {name!r}")
    values = getattr(P, "values", P)
    Pa = np.ascontiguousarray(np.asarray(values, dtype=np.float64))
    K = Pa.shape[0]
    T = int(horizon)
    if T < 1:
        raise ValueError(f"batch_log: horizon must be >= 1, got {horizon}")
    canon = canonical_params(name, params or {})
    pvec = params_array(name, canon)
    w = condorcet_winner(Pa)
    try:
        R = regret_matrix(Pa, "condorcet")[None, :, :].copy()
    except NoCondorcetWinnerError:
        R = np.zeros((1, K, K))
    log = np.zeros(log_length(K, int(canon["batches"])), dtype=np.int64)
    out, pairs = run_logged(Pa, np.ascontiguousarray(R), np.array([T], dtype=np.int64), pvec, rng, bool(record_pairs),
                            NAMES.index(name), log)
    cap = int(log[L_CAP])
    nb = int(log[L_BATCHES])
    if nb > cap:
        raise RuntimeError(f"batch_log: {nb} batches, room for {cap}")

    def field(f):
        return tuple(int(x) for x in log[HEADER + f * cap: HEADER + f * cap + nb])

    def arm_field(f):
        start = HEADER + BATCH_FIELDS * cap + f * K
        return log[start:start + K]

    in_seed, elim_at, in_switch = arm_field(ARM_IN_SEED), arm_field(ARM_ELIMINATED_AT), arm_field(ARM_IN_SWITCH_SET)
    arm_comparisons = arm_field(ARM_COMPARISONS).copy()
    switch_round = int(log[L_SWITCH])
    switch_set = tuple(int(a) for a in np.flatnonzero(in_switch == 1)) if switch_round >= 0 else None
    seed_set = tuple(int(a) for a in np.flatnonzero(in_seed == 1))
    beaten_by = (Pa > 0.5).sum(axis=0)  # rank(b) = #{j : P[j, b] > 1/2}
    rank_best_seed = int(beaten_by[list(seed_set)].min()) if seed_set else None
    eliminated = {int(a): int(elim_at[a]) for a in range(K) if elim_at[a] >= 0}
    return BatchLog(
        algorithm=name, horizon=T, batches=nb, batch_sizes=field(BATCH_SIZE),
        batch_kinds=tuple(KIND_NAMES[k] for k in field(BATCH_KIND)), batch_rounds=field(BATCH_EXPONENT),
        candidates=field(BATCH_CANDIDATE),
        switch_round=switch_round, switch_set=switch_set, seed_set=seed_set, seed_empty=bool(log[L_SEED_EMPTY]),
        eliminated=eliminated, condorcet_winner=w,
        winner_eliminated=None if w is None else w in eliminated,
        winner_in_switch_set=None if (w is None or switch_set is None) else w in switch_set,
        rank_best_seed=rank_best_seed if name != "pcomp" else None,
        estimates=int(log[L_ESTIMATES]), incorrect_estimates=int(log[L_INCORRECT]),
        comparisons=int(log[L_COMPARISONS]), arm_comparisons=arm_comparisons,
        regret=None if w is None else float(out[0, -1]),
        pairs=pairs if record_pairs else None,
    )


# --------------------------------------------------------------------------- registration
_COMMON = {"batches": 16.0, "elimination": 0.0, "threshold": 0.0, "delta": 0.0, "kl_counts": 0.0, "rounding": 0.0}
_SEEDED = {**_COMMON, "all_kl": 0.0, "seed_exponent": 0.5}

_FLAGS = {
    "elimination": ((0.0, 1.0), "0 (the KL rule of the experiments, paper 003 @32491) or 1 (the printed γ-rule)"),
    "threshold": ((0.0, 1.0, 2.0), "0 (log(1/δ)), 1 (log(Tδ) as printed) or 2 (log(T/δ))"),
    "delta": ((0.0, 1.0), "0 (δ = 1/(TK²), paper 003 @34200) or 1 (δ = 1/(6TK²B), Algorithms 1-3 line 2)"),
    "kl_counts": ((0.0, 1.0), "0 (cumulative counts) or 1 (the round's fresh estimate, Eq. (1))"),
    "rounding": ((0.0, 1.0), "0 (ceil(q^r − 1e-9)) or 1 (the nearest integer)"),
    "all_kl": ((0.0, 1.0), "0 (only the elimination lines use the KL rule) or 1 (switch and candidate too)"),
}


def _validator(name: str):
    def validate(params: dict) -> None:
        b = params["batches"]
        if not (b >= 1 and b == int(b) and b <= 10_000):
            raise ValueError(f"{name}: batches must be an integer in [1, 10000] (B of paper 003), got {b!r}")
        for key, (allowed, meaning) in _FLAGS.items():
            if key in params and params[key] not in allowed:
                raise ValueError(f"{name}: {key} must be {meaning}, got {params[key]!r}")
        if "seed_exponent" in params and not params["seed_exponent"] >= 0.0:
            raise ValueError(f"{name}: seed_exponent must be >= 0 (seed probability K^-seed_exponent <= 1), "
                             f"got {params['seed_exponent']!r}")

    return validate


_REFERENCE = "Agarwal, Ghuge & Nagarajan (ICML 2022), {alg} (paper 003 {at}); KL elimination of Section 5 (@32491)"

ALGORITHMS = [
    AlgorithmSpec(name="pcomp", title="PCOMP", reference=_REFERENCE.format(alg="Algorithm 1", at="@18682"),
                  defaults=dict(_COMMON), run=run_pcomp, validate=_validator("pcomp")),
    AlgorithmSpec(name="scomp", title="SCOMP", reference=_REFERENCE.format(alg="Algorithm 2", at="@21578"),
                  defaults=dict(_SEEDED), run=run_scomp, validate=_validator("scomp")),
    AlgorithmSpec(name="scomp2", title="SCOMP2", reference=_REFERENCE.format(alg="Algorithm 3", at="@24450"),
                  defaults=dict(_SEEDED), run=run_scomp2, validate=_validator("scomp2")),
]

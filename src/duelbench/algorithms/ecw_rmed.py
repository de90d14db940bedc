"""ECW-RMED — Efficient Copeland Winner RMED (Komiyama, Honda & Nakagawa, ICML 2016).

Paper 000, Algorithm 1 (L145–L190, ECW branch), Section 4.2 (L200–L232); a Copeland-winner
algorithm scored with the Copeland regret of L71.  Hyper-parameters of the experiments:
α = 3.0, β = 0.01 (L305); β = 0 ("almost the same results", L289) is the parameter ``beta=0``.
The paper leaves open how test (3) is read, how often line (4) runs and how ``log log t`` is
guarded at small t (L152, L160); the Decisions below settle these and the other open points.
As implemented (0-based arms, unordered pairs {a, b} stored as ``min·K + max``)::

    L_C, L_R ← {pairs a < b};  L_N ← ∅                                                 (2)
    repeat                                                                             (3)
      for each pair a < b in lexicographic order:                                      (4)
          draw it if N_ab < α √(ln t)  or  |μ̂_ab − 1/2| < β / max(ln ln t, 1)  or  μ̂_ab = 1/2
      for p ∈ L_C in increasing pair order:                                             (5)
          draw p                                                                       (6)
          if some î ∈ C_cop(μ̂) passes the test (3):  L_NC ← {(î, î)}                   (8–9)
          else:  î ← argmin_{i1 ∈ C_cop(μ̂)} C^{E*}_{i1}(μ̂),  q* ← R^{E*}_î(μ̂)            (11)
                 L_NC ← {pairs with q*_ab ln t > N_ab} ∪ {(î, î)}                       (11–12)
          L_R ← L_R \\ {p};  L_N ← L_N ∪ (L_NC \\ L_R)                                   (14–15)
      L_C, L_R ← L_N;  L_N ← ∅                                                         (18)

The exploration target (``C^{E*}``, ``R^{E*}``, Theorem 5) and the covering test are the
kernels of :mod:`duelbench.bounds.ecw`, called on the empirical matrix ``μ̂`` (one source of
truth with the ECWB constant); the empirical Copeland structure is
:mod:`duelbench.stats.copeland`; ``μ̂`` (``0/0 := 1/2``, L67) and ``d`` are
:mod:`duelbench.stats.counts` and :mod:`duelbench.stats.kl`.

Decisions
---------
1. **Test (3), covering-only reading** (eq. (3), L160; the set ``R^E``, L204).  Read
   literally, (3) almost never holds: (4) is an equality and the box ``q ≤ 1/d`` caps
   ``N/log t``.  Only the covering constraints are tested, (4) read as "≥" and no box: î
   passes iff (a) ``N_îj d(μ̂_îj) ≥ ln t`` for every ``j ∈ Ĥ_î`` and (b) for every ``i2 ≠ î``
   the sum of the ``L̂_{i2} − L̂_î + 1`` smallest values of ``N_{i2 j} d(μ̂_{i2 j})``,
   ``j ∈ Ô_{i2} \\ {î}``, is ``≥ ln t`` (vacuous when fewer remain).
2. **Which set in (3)**: line (8) prints ``R_î`` (the CW-RMED set) for both algorithms; ECW-RMED
   tests ``R^E_î`` (L204), the set whose optimum it explores towards (and the one in the proof
   of Theorem 4).  Since ``R^E ⊆ R`` (L625) this exploits no earlier than ``R`` would.
3. **"for some î* ∈ C_cop"** (L8): candidates are tried in increasing index; the first that
   passes is exploited.
4. **Exact empirical ties** (line (4), L152, and β = 0, L289): an arm with a pair at
   ``μ̂ = 1/2`` exactly (an unobserved pair included) fails the test — a tie is neither a
   certified win nor a certified loss, so its losses are not bounded by ``L̂_î`` — and line (4)
   always draws a tied pair, whatever β.  For β > 0 the second rule is implied by the
   β-condition (``0 < β/…``); for β = 0 it replaces the strict test ``|μ̂ − 1/2| < 0``, which
   never fires and lets a tie make a wrong arm the empirical Copeland winner with a vacuous
   certificate.  A tie in any other row only lowers that arm's ``L̂``, which keeps the
   certificate sound.
5. **Line (4) frequency** ("Draw all pairs such that …", L152): once per iteration of the outer
   loop, pairs in lexicographic order, each pair's condition evaluated with the current t and
   counts just before deciding (so a pair drawn by line (4) is drawn once per iteration).
6. **log log t guard** (L152; ``log log t ≤ 0`` for t ≤ e): ``β / max(ln ln t, 1)``, i.e. β
   for t ≤ e^e ≈ 15.2 and ``β / ln ln t`` after (no log of a non-positive number, threshold
   non-increasing in t); ``α √(ln t)`` is 0 at t = 1.  With this guard, the tie rule and
   ``μ̂ = 1/2`` for unobserved pairs, the first line-(4) visit draws every pair once.
7. **"i1 ∈ [C]" in line (11)** (L170) is read as the empirical Copeland winner set
   ``C_cop(μ̂(t))`` (by losses): the true ``[C]`` is unknown to the algorithm and
   ``R^E_{i1}``, ``C^{E*}_{i1}`` are defined for ``i1 ∈ C_cop`` only (L202).
8. **Ties in argmin and in R^{E*}** ("ties are broken arbitrarily", L170): lowest index for î;
   for q* the rules of :mod:`duelbench.bounds.ecw` (sort by (cost, index), smallest h).
9. **"q*_ab > N_ab / log t"** (L11) is evaluated as ``e*_ab ln t > N_ab d_ab`` with the
   normalised target ``e* = q* d`` (1 on the pairs of (4), ``1/(h − k)`` on those Theorem 5
   selects): the same inequality multiplied by ``d_ab > 0``, without a division per pair
   (:func:`duelbench.bounds.ecw.ecw_support_from_rows`).  **d = 0 guards** (``1/d``, L204, is
   infinite at ``μ̂ = 1/2``): those of :mod:`duelbench.bounds.ecw`; ``d = 0`` on a pair of the
   target (possible only by underflow) makes it "below target" for every ``t > 1``.
10. **Fixed orders** ("an arbitrarily fixed order", line (5), L153): L_C is traversed in
    increasing pair id (pairs (i, i) included); L_N is sorted at the end of each pass.  The
    engine relabels arms at random per run, so the orders carry no information.
11. **How t counts** ("t ← t + 1 for each draw", lines (4) and (16), L152, L184): every draw
    is one step — line (4) draws, L_C draws and (i, i) draws alike; the run stops at T,
    possibly mid-pass.  The test after the draw of step t uses the counts including that draw's
    outcome and ``ln t`` of that step (as in :mod:`duelbench.algorithms.rmed`); line (4) at
    step t uses the counts before it.

Caching (per-step cost)
-----------------------
The test and the target depend on μ̂ through its sign pattern (``Ô``, ``Ĥ``, ``L̂``, ``C_cop``,
``r̂``) and, row by row, through ``N d`` and ``d``.  A draw of {a, b} changes ``N_ab`` and
``μ̂_ab`` only, so the row caches of :mod:`duelbench.bounds.ecw` are kept between steps and only
the rows whose inputs changed are marked stale:

* always rows a and b (their evidence ``N_ab d_ab`` and cost ``r̂_ab / d_ab``);
* if the sign of ``μ̂_ab − 1/2`` changed and ``L̂^(1)`` and ``C_cop`` did not: also every
  target row having a or b among its superiors (``L̂_a``, ``L̂_b`` enter their costs);
* if ``L̂^(1)`` or ``C_cop`` changed: every row of both caches.

Stale rows are recomputed lazily — covering rows at each L_C step (the test runs there), target
rows only when the test fails — and re-sorted from their previous order.  The assembled numbers
are bit-identical to recomputing everything from μ̂ (``tests/test_algorithms_ecw_rmed.py``
checks this after every step).  Remaining per-step work: O(K·|C_cop|) for the test plus the
stale rows (O(K) each); when the test fails, the target (O(K·|C_cop|)) and a walk over the
support of q* (up to K(K − 1)/2 pairs, O(K²) when L̂^(1) is large); and the O(K²) line-(4) scan
at the start of each outer iteration.

Speed: the kernels of this module are compiled with ``inline="always"`` (a call numba does not
inline costs an atomic reference-count update per array handed over; see
:mod:`duelbench.stats.confident_beats`), which made a step 1.5–2.1× faster; the hot functions
also take the few arrays they use rather than the state tuple, and the cache kernels of
:mod:`duelbench.bounds.ecw` loop over rows internally.  The first ~10^5 steps at K = 64, where
every pair is still being drawn and μ̂ changes sign often, are the slowest.  Current figures:
``duelbench bench`` and the README's speed table.
"""

import math

import numba
import numpy as np

from duelbench.bounds.ecw import (
    cover_cache_new,
    cover_margins,
    cover_refresh,
    divergences_into,
    ecw_support_from_rows,
    ecw_values_from_rows,
    pair_divergence,
    target_cache_new,
    target_refresh,
)
from duelbench.stats.copeland import losses_into, min_losses, move_loss, pair_sign, winner_mask_into
from duelbench.stats.counts import empirical_mean, n_pair, new_counts, record_outcome

from .registry import AlgorithmSpec
from .sorting import sort_prefix

ALPHA, BETA = 0, 1  # indices in the params array

# The state is one flat tuple (numba increfs every array of a tuple it unpacks, so hot
# functions take the arrays they use as arguments instead of the whole state).
(S_W, S_MU, S_D, S_E, S_L, S_WIN, S_COVER, S_COVER_STALE, S_TARGET, S_TARGET_STALE, S_PA, S_PB,
 S_LC, S_LN, S_IN_LR, S_IN_LN, S_COUNTERS, S_SUP_A, S_SUP_B, S_SUP_Q, S_VALUES, S_PARAMS) = range(22)
# counters
MODE, SCAN_PTR, PASS_PTR, LC_LEN, LN_LEN, MIN_LOSS = 0, 1, 2, 3, 4, 5  # MIN_LOSS: L̂^(1)
SCAN, PASS = 0, 1  # MODE values: line (4) scan, or the loop over L_C (lines 5-17)


@numba.njit(cache=True, inline="always")
def init(K, params):
    """Flat state tuple, indexed by the ``S_*`` constants:

    * W, μ̂, D = d(μ̂) per pair, E = N·d(μ̂), L̂, C_cop mask;
    * the covering and target row caches of :mod:`duelbench.bounds.ecw` with stale flags;
    * the lexicographic pairs (a, b), L_C, L_N, membership of L_R and L_N by pair id;
    * counters (mode, scan pointer, pass pointer, |L_C|, |L_N|, L̂^(1));
    * buffers for the sparse optimal q* and for per-candidate values, and the parameters.
    """
    W = new_counts(K)
    mu = np.full((K, K), 0.5)
    D = np.zeros((K, K))
    E = np.zeros((K, K))
    L = np.zeros(K, dtype=np.int64)
    winners = np.ones(K, dtype=np.bool_)
    n_pairs = K * (K - 1) // 2
    pa = np.zeros(n_pairs, dtype=np.int64)
    pb = np.zeros(n_pairs, dtype=np.int64)
    p = 0
    for a in range(K):
        for b in range(a + 1, K):
            pa[p] = a
            pb[p] = b
            p += 1
    LC = np.zeros(K * K, dtype=np.int64)
    LN = np.zeros(K * K, dtype=np.int64)
    in_LR = np.zeros(K * K, dtype=np.bool_)
    in_LN = np.zeros(K * K, dtype=np.bool_)
    for p in range(n_pairs):  # (2): L_C, L_R ← P_{i≠j}
        LC[p] = pa[p] * K + pb[p]
        in_LR[LC[p]] = True
    counters = np.zeros(6, dtype=np.int64)
    counters[MODE] = SCAN
    counters[LC_LEN] = n_pairs
    if n_pairs == 0:  # K = 1: the only pair is (0, 0)
        counters[LC_LEN] = 1
    cap = n_pairs + 1
    return (W, mu, D, E, L, winners,
            cover_cache_new(K), np.ones(K, dtype=np.bool_), target_cache_new(K), np.ones(K, dtype=np.bool_),
            pa, pb, LC, LN, in_LR, in_LN, counters,
            np.zeros(cap, dtype=np.int64), np.zeros(cap, dtype=np.int64), np.zeros(cap, dtype=np.float64),
            np.zeros(K, dtype=np.float64), params)


# --------------------------------------------------------------------------- statistics


@numba.njit(cache=True, inline="always")
def _mark_all(flags):
    for i in range(flags.shape[0]):
        flags[i] = True


@numba.njit(cache=True, inline="always")
def refresh_pair(W, mu, D, E, L, winners, cover_stale, target_stale, counters, a, b):
    """After the counts of {a, b} changed: μ̂, d, N·d of the pair, L̂, C_cop and stale rows."""
    K = W.shape[0]
    old = pair_sign(mu, a, b)
    mu[a, b] = empirical_mean(W, a, b)
    mu[b, a] = empirical_mean(W, b, a)
    d = pair_divergence(mu, a, b)
    D[a, b] = d
    D[b, a] = d
    e = n_pair(W, a, b) * d
    E[a, b] = e
    E[b, a] = e
    new = pair_sign(mu, a, b)
    cover_stale[a] = True
    cover_stale[b] = True
    target_stale[a] = True
    target_stale[b] = True
    if new == old:
        return
    move_loss(L, a, b, old, new)
    L1 = min_losses(L)
    changed = L1 != counters[MIN_LOSS]
    counters[MIN_LOSS] = L1
    for i in range(K):
        w = L[i] == L1
        if w != winners[i]:
            changed = True
            winners[i] = w
    if changed:  # every need, r̂ or candidate set may have changed
        _mark_all(cover_stale)
        _mark_all(target_stale)
    else:  # L̂_a, L̂_b changed: the costs r̂_{j i2}/d of rows with a or b among their superiors
        for i2 in range(K):
            if mu[i2, a] < 0.5 or mu[i2, b] < 0.5:
                target_stale[i2] = True


@numba.njit(cache=True, inline="always")
def rebuild(state):
    """Recompute every statistic from W and mark every cached row stale (tests, resets)."""
    W, mu, D, E = state[S_W], state[S_MU], state[S_D], state[S_E]
    L, winners, counters = state[S_L], state[S_WIN], state[S_COUNTERS]
    K = W.shape[0]
    for i in range(K):
        for j in range(K):
            mu[i, j] = empirical_mean(W, i, j)
    divergences_into(mu, D)
    for i in range(K):
        for j in range(K):
            E[i, j] = n_pair(W, i, j) * D[i, j] if i != j else 0.0
    losses_into(mu, L)
    counters[MIN_LOSS] = min_losses(L)
    winner_mask_into(L, counters[MIN_LOSS], winners)
    _mark_all(state[S_COVER_STALE])
    _mark_all(state[S_TARGET_STALE])


# --------------------------------------------------------------------------- line (4)


@numba.njit(cache=True, inline="always")
def is_forced(W, mu, a, b, thr_n, thr_gap):
    """Line (4): ``N_ab < α√(ln t)`` or ``|μ̂_ab − 1/2| < β/max(ln ln t, 1)`` or an exact tie."""
    if n_pair(W, a, b) < thr_n:
        return True
    x = mu[a, b]
    return x == 0.5 or abs(x - 0.5) < thr_gap


@numba.njit(cache=True, inline="always")
def next_forced_pair(W, mu, pa, pb, start, t, params):
    """Index (in lexicographic order) of the first pair at or after ``start`` that line (4)
    draws at step t, or −1 when the scan is over."""
    lt = math.log(t)
    thr_n = params[ALPHA] * math.sqrt(lt)
    thr_gap = params[BETA] / (math.log(lt) if lt > math.e else 1.0)  # decision 6
    for p in range(start, pa.shape[0]):
        if is_forced(W, mu, pa[p], pb[p], thr_n, thr_gap):
            return p
    return -1


# --------------------------------------------------------------------------- lines (8)-(12)


@numba.njit(cache=True, inline="always")
def has_exact_tie(mu, i):
    """Whether arm i has a pair with ``μ̂_ij == 1/2`` (j ≠ i; decision 4)."""
    for j in range(mu.shape[0]):
        if j != i and mu[i, j] == 0.5:
            return True
    return False


@numba.njit(cache=True, inline="always")
def exploit_candidate(cover, stale, mu, E, L, L1, winners, margins, log_t):
    """Line (8), test (3) in the covering reading of ``R^E`` (decisions 1–4): the first
    ``î ∈ C_cop(μ̂)`` without exact ties whose covering margin is ``≥ ln t``, or −1."""
    cover_refresh(cover, stale, mu, E, L, L1, winners)
    cover_margins(cover, mu, E, winners, margins)
    for i1 in range(mu.shape[0]):
        if winners[i1] and margins[i1] >= log_t and not has_exact_tie(mu, i1):
            return i1
    return -1


@numba.njit(cache=True, inline="always")
def best_candidate(target, stale, mu, D, L, L1, winners, values):
    """Line (11): ``î* = argmin_{i1 ∈ C_cop(μ̂)} C^{E*}_{i1}(μ̂)`` (lowest index on ties)."""
    target_refresh(target, stale, mu, D, L, L1, winners)
    ecw_values_from_rows(target, mu, D, L, L1, winners, values)
    best = -1
    for i1 in range(mu.shape[0]):
        if winners[i1] and (best < 0 or values[i1] < values[best]):
            best = i1
    return best


@numba.njit(cache=True, inline="always")
def add_next(LN, in_LR, in_LN, counters, K, a, b):
    """Line (15) for one pair of L_NC: ``L_N ← L_N ∪ {(a, b)}`` unless it is still in L_R."""
    pid = min(a, b) * K + max(a, b)
    if not in_LR[pid] and not in_LN[pid]:
        in_LN[pid] = True
        LN[counters[LN_LEN]] = pid
        counters[LN_LEN] += 1


@numba.njit(cache=True, inline="always")
def end_of_pass(LC, LN, in_LR, in_LN, counters):
    """Line (18): ``L_C, L_R ← L_N`` (sorted: decision 10), ``L_N ← ∅``; back to line (4)."""
    n = counters[LN_LEN]
    sort_prefix(LN, n)
    for m in range(n):
        LC[m] = LN[m]
    for m in range(n):
        in_LR[LC[m]] = True
        in_LN[LC[m]] = False
    counters[LC_LEN] = n
    counters[LN_LEN] = 0
    counters[PASS_PTR] = 0
    counters[SCAN_PTR] = 0
    counters[MODE] = SCAN


@numba.njit(cache=True, inline="always")
def pass_step(state, i, j, t):
    """Lines (7)–(16) after the draw of ``p(t) = (i, j)`` from L_C."""
    mu, D, E, L, winners = state[S_MU], state[S_D], state[S_E], state[S_L], state[S_WIN]
    LN, in_LR, in_LN, counters = state[S_LN], state[S_IN_LR], state[S_IN_LN], state[S_COUNTERS]
    K = mu.shape[0]
    L1 = counters[MIN_LOSS]
    log_t = math.log(t)
    in_LR[min(i, j) * K + max(i, j)] = False  # (14): L_R ← L_R \ {p(t)}
    values = state[S_VALUES]
    star = exploit_candidate(state[S_COVER], state[S_COVER_STALE], mu, E, L, L1, winners, values, log_t)  # (8)
    if star < 0:  # (11): explore towards the optimal q* of R^{E*}_{î*}(μ̂)
        target = state[S_TARGET]
        star = best_candidate(target, state[S_TARGET_STALE], mu, D, L, L1, winners, values)
        sa, sb = state[S_SUP_A], state[S_SUP_B]
        n = ecw_support_from_rows(target, mu, D, L, L1, star, E, log_t, sa, sb, state[S_SUP_Q])
        for m in range(n):  # the pairs below target: q*_ab d_ab ln t > N_ab d_ab (decision 9)
            add_next(LN, in_LR, in_LN, counters, K, sa[m], sb[m])
    add_next(LN, in_LR, in_LN, counters, K, star, star)  # (9) / (12)
    counters[PASS_PTR] += 1
    if counters[PASS_PTR] >= counters[LC_LEN]:
        end_of_pass(state[S_LC], LN, in_LR, in_LN, counters)


# --------------------------------------------------------------------------- engine interface


@numba.njit(cache=True, inline="always")
def select(state, t, rng):
    """The pair of step t: the next line-(4) pair, else the next pair of L_C."""
    counters = state[S_COUNTERS]
    K = state[S_W].shape[0]
    if counters[MODE] == SCAN:
        pa, pb = state[S_PA], state[S_PB]
        p = next_forced_pair(state[S_W], state[S_MU], pa, pb, counters[SCAN_PTR], t, state[S_PARAMS])
        if p >= 0:
            counters[SCAN_PTR] = p + 1
            return pa[p], pb[p]
        counters[MODE] = PASS
        counters[PASS_PTR] = 0
    pid = state[S_LC][counters[PASS_PTR]]
    return pid // K, pid % K


@numba.njit(cache=True, inline="always")
def update(state, i, j, i_won, t):
    """Count the outcome; after an L_C draw, run lines (7)–(18)."""
    if i != j:
        W = state[S_W]
        record_outcome(W, i, j, i_won)
        refresh_pair(W, state[S_MU], state[S_D], state[S_E], state[S_L], state[S_WIN],
                     state[S_COVER_STALE], state[S_TARGET_STALE], state[S_COUNTERS], i, j)
    if state[S_COUNTERS][MODE] == PASS:
        pass_step(state, i, j, t)


# --------------------------------------------------------------------------- inspection (tests)


@numba.njit(cache=True, inline="always")
def current_constants(state, out):
    """``out[i] = C^{E*}_i(μ̂)`` from the (refreshed) cache for i ∈ C_cop(μ̂), NaN otherwise."""
    mu, D, L, winners = state[S_MU], state[S_D], state[S_L], state[S_WIN]
    L1 = state[S_COUNTERS][MIN_LOSS]
    target = state[S_TARGET]
    target_refresh(target, state[S_TARGET_STALE], mu, D, L, L1, winners)
    ecw_values_from_rows(target, mu, D, L, L1, winners, out)


@numba.njit(cache=True, inline="always")
def current_margins(state, out):
    """``out[i]`` = covering margin of ``R^E_i(μ̂)`` at ``E = N·d`` from the (refreshed) cache for
    i ∈ C_cop(μ̂), NaN otherwise."""
    mu, E, L, winners = state[S_MU], state[S_E], state[S_L], state[S_WIN]
    cover = state[S_COVER]
    cover_refresh(cover, state[S_COVER_STALE], mu, E, L, state[S_COUNTERS][MIN_LOSS], winners)
    cover_margins(cover, mu, E, winners, out)


def _validate(p):
    if not p["alpha"] > 0:
        raise ValueError(f"ecw_rmed: alpha must be > 0 (paper 000 L133/L216), got {p['alpha']}")
    if not p["beta"] >= 0:
        raise ValueError(f"ecw_rmed: beta must be ≥ 0 (β = 0 is the L289 variant), got {p['beta']}")


ALGORITHM = AlgorithmSpec(
    name="ecw_rmed",
    title="ECW-RMED",
    reference="Komiyama, Honda & Nakagawa (ICML 2016), Algorithm 1 (ECW); alpha = 3.0, beta = 0.01 (L305)",
    defaults={"alpha": 3.0, "beta": 0.01},
    steps=(init, select, update),
    validate=_validate,
)

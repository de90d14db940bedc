"""Copeland SAVAGE — Sensitivity Analysis of VAriables for Generic Exploration (Urvoy et al., ICML 2013).

Run by Komiyama et al. (2016) as "Copeland SAVAGE with δ = 1/T" (paper 000 L305) and by Zoghi
et al. (2015) as a horizon-dependent baseline (paper 001 L385, L392).  Neither paper restates
the algorithm; this is the generic SAVAGE explore-then-exploit scheme of Urvoy et al.
specialised to the Copeland winner, as implemented here::

    W ← all N = K(K−1)/2 unordered pairs {i, j} (the "variables", p_ij for i < j)
    c(n) = sqrt( ln(K(K−1)·T/δ) / (2n) ),  δ = 1/T          (Hoeffding radius)
    while W ≠ ∅ and t ≤ T:                                   (exploration)
        draw the pair of W with the fewest samples; update mû_ij and c(n_ij)
        remove from W every pair whose interval [mû − c, mû + c] excludes 1/2
        remove from W every pair {i, j} for which both i and j satisfy
            Cpld_up(a) = #{k ≠ a : interval of p_ak not below 1/2}
                       ≤ max_b Cpld_lo(b) = max_b #{k : interval of p_bk above 1/2}   ("Indep"/"Cop")
    for the rest of the horizon: compare (î, î), î the empirical Copeland winner (exploitation)

The horizon T enters through δ, so the algorithm is registered with ``needs_horizon=True``: the
engine runs it once per checkpoint with that checkpoint as T (each curve point is an independent
run, as in paper 001 L392).

Decisions
---------
* Radius constant.  Urvoy et al.'s union bound is over N = K(K−1)/2 variables and T sample
  sizes: ``c(n) = sqrt(ln(2NT/δ)/(2n))``; since 2N = K(K−1) this is exactly
  ``sqrt(ln(K(K−1)T/δ)/(2n))`` (the two forms are equal), i.e. with δ = 1/T
  ``ln_term = ln(K(K−1)) + 2 ln T`` (natural log), computed once per run.  The test "interval
  excludes 1/2" is :func:`duelbench.stats.hoeffding.hoeffding_side` (strict: an interval end
  exactly on 1/2 does not exclude it).
* Exploration order.  "The pair of W with the fewest samples", ties broken by the lowest pair in
  lexicographic order (i, j), i < j; the pair is compared as (i, j).  Because every pair in W
  starts at 0 samples and only the minimum is ever sampled, the counts of pairs in W always
  differ by at most one, so this rule is exactly a round-robin over W in lexicographic order that
  skips removed pairs; it is implemented as such (O(1) per step, a linked list over W).
* Removal test ("Indep").  A pair is removed when its interval excludes 1/2, or when *both* of
  its arms have ``Cpld_up ≤ max_b Cpld_lo`` (non-strict "≤", the declared reading): such an arm
  can at best tie with an arm whose Copeland score is already certified, so its remaining pairs
  cannot change *whether the certified arm is a Copeland winner*.  The reading follows SAVAGE's
  own definition: a variable is dropped once no value it can still take changes the answer, and
  the answer here is one arm to exploit (a Copeland winner), not the set of all Copeland
  winners.  Neither paper prints the test (paper 000 L305, paper 001 L385).  The parameter
  ``strict_independence = 1`` is the other reading, ``Cpld_up < max_b Cpld_lo``: arms that can
  still tie with the best certified score stay until their pairs are decided, i.e. the test
  identifies every Copeland winner; it is run only as a labelled variant.  Cpld_up(a) = K − 1 − #{k : k certainly beats a}, Cpld_lo(b) =
  #{k : b certainly beats k}, "certainly" = the pair's interval excludes 1/2.  Intervals depend
  only on a pair's own samples (not on t), so both counts change only when a pair is resolved;
  an arm that satisfies the condition keeps satisfying it (Cpld_up never rises, the maximum of
  Cpld_lo never falls), and the test is re-evaluated only then: O(K) per resolution, at most
  N resolutions.
* Exploitation.  When W = ∅, every arm has Cpld_up ≤ M = max_b Cpld_lo, and an arm b attaining
  M has all its pairs resolved (otherwise its Cpld_up > M), so with probability ≥ 1 − δ every
  arm attaining M is a Copeland winner.  "Empirical Copeland winner" is read as: the arm with the
  most empirical wins #{k : mû_ak > 1/2} (``0/0 := 1/2``, :mod:`duelbench.stats.counts`; an
  empirical 1/2 is a win for neither), ties broken first by the most certified wins Cpld_lo,
  then by the lowest index.  Every arm has empirical wins ≤ Cpld_up ≤ M and the certified arms
  have exactly M, so this rule always returns a certified arm (a plain argmax of empirical wins
  could pick an uncertified arm that ties with M).  The pair (î, î) is then played until T; its
  regret is added in closed form by :func:`duelbench.algorithms.kernels.recorder_commit` (``run``),
  so a horizon of 2×10^7 costs only the exploration steps.  ``run_stepwise`` plays the same
  pairs one step at a time (for tests).
* If T ends during exploration there is no exploitation phase.
* Self-comparisons never occur during exploration; a pair's outcome updates only its own
  interval (W is the only state that depends on the outcomes).

Complexity: O(K²) memory; O(1) per exploration step plus O(K) per resolved pair (each pair is
removed once); O(K²) once at the commitment; O(1) for the whole exploitation phase.
"""

import math

import numba
import numpy as np

from duelbench.algorithms.kernels import duel, recorder_commit, recorder_new, recorder_step
from duelbench.stats.counts import empirical_mean, new_counts, n_pair, record_outcome
from duelbench.stats.hoeffding import hoeffding_side

from .registry import AlgorithmSpec

# indices into the int64 scalar array ``sc``
HEAD = 0  # first pair of W in lexicographic order (−1 if W = ∅)
CUR = 1  # next pair to draw (−1: wrap around to HEAD)
N_ACTIVE = 2  # |W|
M_LO = 3  # max_b Cpld_lo(b)
WINNER = 4  # the arm played after exploration (−1 until chosen)
STRICT = 5  # 1: the strict removal test Cpld_up < max Cpld_lo (parameter strict_independence)


@numba.njit(cache=True, inline="always")
def savage_log_term(K, T):
    """``ln(K(K−1)T/δ)`` with δ = 1/T, i.e. ``ln(K(K−1)) + 2 ln T``."""
    return math.log(K * (K - 1.0)) + 2.0 * math.log(T)


@numba.njit(cache=True, inline="always")
def init(K, T, params):
    """State for horizon T: counts, pair list, linked list over W, certified counts."""
    N = K * (K - 1) // 2
    W = new_counts(K)
    pa = np.zeros(N, dtype=np.int64)
    pb = np.zeros(N, dtype=np.int64)
    pid = np.full((K, K), -1, dtype=np.int64)
    p = 0
    for i in range(K):
        for j in range(i + 1, K):
            pa[p] = i
            pb[p] = j
            pid[i, j] = p
            pid[j, i] = p
            p += 1
    nxt = np.arange(1, N + 1, dtype=np.int64)
    if N > 0:
        nxt[N - 1] = -1
    prv = np.arange(-1, N - 1, dtype=np.int64)
    active = np.ones(N, dtype=np.bool_)
    lost = np.zeros(K, dtype=np.int64)  # #{k : k certainly beats a}
    won = np.zeros(K, dtype=np.int64)  # Cpld_lo(a)
    out = np.zeros(K, dtype=np.bool_)  # Cpld_up(a) ≤ M_LO
    newly = np.zeros(K, dtype=np.int64)
    sc = np.zeros(6, dtype=np.int64)
    sc[STRICT] = 1 if params.shape[0] > 0 and params[0] > 0.5 else 0
    sc[HEAD] = 0 if N > 0 else -1
    sc[CUR] = sc[HEAD]
    sc[N_ACTIVE] = N
    sc[WINNER] = -1
    log_term = np.array([savage_log_term(K, T)])
    return W, pa, pb, pid, nxt, prv, active, lost, won, out, newly, sc, log_term


@numba.njit(cache=True, inline="always")
def _deactivate(state, q):
    """Remove pair q from W (unlink it; move the draw pointer past it)."""
    W, pa, pb, pid, nxt, prv, active, lost, won, out, newly, sc, log_term = state
    active[q] = False
    if prv[q] >= 0:
        nxt[prv[q]] = nxt[q]
    else:
        sc[HEAD] = nxt[q]
    if nxt[q] >= 0:
        prv[nxt[q]] = prv[q]
    if sc[CUR] == q:
        sc[CUR] = nxt[q]
    sc[N_ACTIVE] -= 1


@numba.njit(cache=True, inline="always")
def next_pair(state):
    """The pair of W with the fewest samples (lowest lexicographic on ties); −1 if W = ∅."""
    sc = state[11]
    if sc[N_ACTIVE] == 0:
        return -1
    if sc[CUR] < 0:
        sc[CUR] = sc[HEAD]
    return sc[CUR]


@numba.njit(cache=True, inline="always")
def _cannot_win_alone(cpld_up, m_lo, strict):
    """The Indep test of an arm: ``Cpld_up ≤ max Cpld_lo`` (``<`` when ``strict``)."""
    return cpld_up < m_lo if strict else cpld_up <= m_lo


@numba.njit(cache=True, inline="always")
def _resolve(state, q, winner, loser):
    """Pair q is decided (winner certainly beats loser): remove it, apply the "Cop" test."""
    W, pa, pb, pid, nxt, prv, active, lost, won, out, newly, sc, log_term = state
    K = W.shape[0]
    _deactivate(state, q)
    won[winner] += 1
    lost[loser] += 1
    m = 0
    if won[winner] > sc[M_LO]:
        sc[M_LO] = won[winner]
        for a in range(K):  # the threshold rose: any arm may drop out
            if not out[a] and _cannot_win_alone(K - 1 - lost[a], sc[M_LO], sc[STRICT]):
                out[a] = True
                newly[m] = a
                m += 1
    elif not out[loser] and _cannot_win_alone(K - 1 - lost[loser], sc[M_LO], sc[STRICT]):  # only the loser's fell
        out[loser] = True
        newly[0] = loser
        m = 1
    for k in range(m):
        a = newly[k]
        for x in range(K):
            if x != a and out[x]:
                r = pid[a, x]
                if active[r]:
                    _deactivate(state, r)


@numba.njit(cache=True, inline="always")
def update(state, q, i_won):
    """Count the outcome of pair q = (i, j), i < j, and apply the removal tests."""
    W, pa, pb, pid, nxt, prv, active, lost, won, out, newly, sc, log_term = state
    i = pa[q]
    j = pb[q]
    record_outcome(W, i, j, i_won)
    side = hoeffding_side(W[i, j], n_pair(W, i, j), log_term[0])
    if side == 0:
        sc[CUR] = nxt[q]
    elif side > 0:
        _resolve(state, q, i, j)
    else:
        _resolve(state, q, j, i)


@numba.njit(cache=True, inline="always")
def copeland_choice(state):
    """The empirical Copeland winner: most empirical wins, then most certified wins, then lowest index."""
    W, pa, pb, pid, nxt, prv, active, lost, won, out, newly, sc, log_term = state
    K = W.shape[0]
    best = -1
    best_score = -1
    best_won = -1
    for a in range(K):
        score = 0
        for k in range(K):
            if k != a and empirical_mean(W, a, k) > 0.5:
                score += 1
        if score > best_score or (score == best_score and won[a] > best_won):
            best = a
            best_score = score
            best_won = won[a]
    return best


@numba.njit(cache=True)
def _run(P, regret, checkpoints, params, rng, record_pairs, closed_form):
    K = P.shape[0]
    T = checkpoints[-1]
    state = init(K, T, params)
    pa = state[1]
    pb = state[2]
    sc = state[11]
    rec = recorder_new(regret, checkpoints, record_pairs)
    for t in range(1, T + 1):
        q = next_pair(state)
        if q >= 0:
            i = pa[q]
            j = pb[q]
            update(state, q, duel(P, i, j, rng))
            recorder_step(rec, t, i, j)
            continue
        if sc[WINNER] < 0:
            sc[WINNER] = copeland_choice(state)
        w = sc[WINNER]
        if closed_form:
            recorder_commit(rec, t - 1, w, w)
            break
        duel(P, w, w, rng)
        recorder_step(rec, t, w, w)
    return rec[3], rec[4]


@numba.njit(cache=True)
def run(P, regret, checkpoints, params, rng, record_pairs):
    """One run with horizon ``checkpoints[-1]`` (see :mod:`duelbench.algorithms.kernels`)."""
    return _run(P, regret, checkpoints, params, rng, record_pairs, True)


@numba.njit(cache=True)
def run_stepwise(P, regret, checkpoints, params, rng, record_pairs):
    """As :func:`run`, but the exploitation phase is played step by step (for tests)."""
    return _run(P, regret, checkpoints, params, rng, record_pairs, False)


def _validate(params: dict) -> None:
    if params["strict_independence"] not in (0.0, 1.0):
        raise ValueError("copeland_savage: strict_independence must be 0 (the Indep test with <=, declared) "
                         f"or 1 (with <), got {params['strict_independence']!r}")


ALGORITHM = AlgorithmSpec(
    name="copeland_savage",
    title="Copeland SAVAGE",
    reference="Urvoy et al. (ICML 2013), SAVAGE with the Copeland Indep test; delta = 1/T as in Komiyama et al. (2016) L305",
    defaults={"strict_independence": 0.0},
    run=run,
    needs_horizon=True,
    validate=_validate,
)

"""Beat-the-Mean (BTM) — online explore-then-exploit version (Yue & Joachims, ICML 2011, Algorithm 1).

Run by Wu & Liu (2016) as a baseline: "For BTM, we set the relaxed factor γ = 1.3 as [16]"
(paper 004 L893–894, [16] = Yue & Joachims 2011) and "For the 'explore-then-exploit' algorithms,
BTM and SAVAGE, each point is obtained by resetting the time horizon as the corresponding
value" (L896–897).  The online algorithm, as implemented here::

    W ← all K arms (the working set); per ordered pair (b, x): cmp_bx, win_bx = 0
    n_b = Σ_{x∈W} cmp_bx,  w_b = Σ_{x∈W} win_bx,  P̂_b = w_b / n_b     (b's record against "the mean of W")
    n* = min_{b∈W} n_b,  c* = c_{δ,γ}(n*) = f · γ² · sqrt(ln(1/δ) / n*),  δ = 1/(2KT)
    while |W| > 1 and t ≤ T:                                           (exploration)
        b  ← argmin_{b∈W} n_b                    (ties uniformly at random)
        b′ ← uniform on W                         (on W ∖ {b} if opponent_excludes_self = 1)
        compare (b, b′); cmp_bb′ += 1; win_bb′ += 1 if b won  (only b's record changes)
        if min_{b∈W} P̂_b + c* ≤ max_{b∈W} P̂_b − c*:
            W ← W ∖ {b_min}, b_min = argmin_{b∈W} P̂_b; its comparisons leave every record
    for the rest of the horizon: compare (b̂, b̂), W = {b̂}                    (exploitation)

Parameters (floats, in the order of the kernel's ``params`` array): ``gamma`` = 1.3 (Wu & Liu
L893–894), the relaxation γ ≥ 1 of stochastic transitivity; ``confidence_factor`` = 3 (f in
Yue & Joachims' c_{δ,γ}(n) = 3γ² sqrt(log(1/δ)/n); Wu & Liu's code uses the same 3); and
``opponent_excludes_self`` = 0 (see Decisions).

The horizon T enters through δ = 1/(2KT), so the algorithm is registered with
``needs_horizon=True``: the engine runs it once per horizon point with that point as T.

Decisions
---------
* Confidence radius.  ``c(n) = f·γ²·sqrt(ln(2KT)/n)`` (natural log), i.e. Yue & Joachims'
  online choice δ = 1/(2KT) with f = 3; Wu & Liu's code evaluates the same expression,
  ``3γ²·sqrt(log(2KT)/n)``.  f·γ² is formed once as ``f·(γ·γ)``.  While n* = 0 no arm is
  removed (Yue & Joachims set c* = 1 there, which no pair of estimates in [0, 1] can pass).
  A removal needs ``max − min ≥ 2c``, impossible when ``c > 1/2``; the test is skipped then
  (exactly, also in floating point: ``max − c ≤ 1 − c < c ≤ min + c``).
* Records.  BTM counts a comparison only for the first candidate b (Yue & Joachims, lines
  "if b wins, w_b ← w_b + 1; n_b ← n_b + 1"; Wu & Liu's code likewise), so the statistics are
  ordered per-pair counts ``cmp[b, x]`` and ``win[b, x]``, not the shared symmetric win counts
  of :mod:`duelbench.stats.counts` (whose N_ij counts a comparison for both arms).  The per-pair
  counts are kept so that removing an arm can delete "all comparisons with b′ from w_b, n_b"
  (Yue & Joachims): ``n_b`` and ``w_b`` are maintained incrementally and lose
  ``cmp[b, r]``, ``win[b, r]`` when r is removed.
* Opponent.  Yue & Joachims "select b′ ∈ W at random": b′ is uniform on W including b itself,
  and Wu & Liu's code draws it uniformly from the whole active set, so the default
  ``opponent_excludes_self = 0`` is what Wu & Liu ran.  ``opponent_excludes_self = 1`` (b′
  uniform on W ∖ {b}) is a labelled variant.
* Self-comparisons (b, b).  Their outcome is the engine's fair coin (P[b, b] = 1/2), and they
  count toward n_b and w_b: "the mean of W" includes b itself, whose preference over itself is
  1/2, and Wu & Liu's code counts them the same way.
* One removal per comparison, tested right after it with the current statistics (the order of
  Yue & Joachims' Algorithm 1).  Wu & Liu's code evaluates the test on the statistics from
  before the step's comparison, i.e. it applies each removal one comparison later; that lag is
  not reproduced.  Their code also reads the maximum through the position in the active set
  instead of the arm (``max_empi_prob = empi_beat_prob[ind]``, meant ``[ind_arm]``), which
  after the first removal compares against the wrong (possibly removed) arm's estimate; the
  intended rule, the maximum of P̂ over W, is implemented.
* Ties.  b: uniformly at random among the arms of W with the fewest comparisons (Yue &
  Joachims: "break ties randomly"), through :func:`duelbench.stats.choice.argmax_random_tie`
  on −n.  The removed arm on a tie in P̂: the lowest index (Yue & Joachims leave it open; Wu &
  Liu's code takes the first minimum in increasing arm order).
* Random stream, per exploration step: one uniform draw for the tie on b (only when several
  arms of W have the fewest comparisons), one for b′ (``uniform_index``), one for the duel.
  Exploitation draws nothing.
* Exploitation.  When |W| = 1 its arm b̂ is played as (b̂, b̂) for the rest of the horizon,
  its regret added in closed form by :func:`duelbench.algorithms.kernels.recorder_commit`
  (``run``), so a 10^7 horizon costs only the exploration steps; ``run_stepwise`` plays the
  same pairs step by step (for tests).  If T ends during exploration there is no exploitation.

Complexity: O(K²) memory; O(K) per exploration step and per removal; O(1) for the whole
exploitation phase.
"""

import math

import numba
import numpy as np

from duelbench.algorithms.kernels import duel, recorder_commit, recorder_new, recorder_step
from duelbench.stats.choice import argmax_random_tie, uniform_index

from .registry import AlgorithmSpec

# indices into the int64 scalar array ``sc``
N_ACTIVE = 0  # |W|
EXCL_SELF = 1  # 1: the opponent is drawn from W ∖ {b} (parameter opponent_excludes_self)
WINNER = 2  # the arm played after exploration (−1 until |W| = 1)

# indices into the float64 array ``fl``
LOG_TERM = 0  # ln(1/δ) = ln(2KT)
COEF = 1  # f·γ²


@numba.njit(cache=True, inline="always")
def btm_log_term(K, T):
    """``ln(1/δ)`` with δ = 1/(2KT), i.e. ``ln(2KT)`` (natural log)."""
    return math.log(2.0 * K * T)


@numba.njit(cache=True, inline="always")
def confidence_radius(coef, log_term, n):
    """``c(n) = coef·sqrt(log_term/n)`` with ``coef = f·γ²`` (n > 0)."""
    return coef * math.sqrt(log_term / n)


@numba.njit(cache=True, inline="always")
def init(K, T, params):
    """State for horizon T: ordered per-pair counts, per-arm records against W, W, scalars."""
    cmp = np.zeros((K, K), dtype=np.float64)  # comparisons with b first and x the opponent
    win = np.zeros((K, K), dtype=np.float64)  # those that b won
    n = np.zeros(K, dtype=np.float64)  # n_b = Σ_{x∈W} cmp[b, x]
    w = np.zeros(K, dtype=np.float64)  # w_b = Σ_{x∈W} win[b, x]
    active = np.ones(K, dtype=np.bool_)
    neg = np.zeros(K, dtype=np.float64)  # scratch: −n for the tie-broken argmin
    sc = np.zeros(3, dtype=np.int64)
    sc[N_ACTIVE] = K
    sc[EXCL_SELF] = 1 if params[2] > 0.5 else 0
    sc[WINNER] = 0 if K == 1 else -1
    fl = np.zeros(2, dtype=np.float64)
    fl[LOG_TERM] = btm_log_term(K, T)
    fl[COEF] = params[1] * (params[0] * params[0])
    return cmp, win, n, w, active, neg, sc, fl


@numba.njit(cache=True, inline="always")
def select(state, rng):
    """The exploration pair (b, b′): b the arm of W with the fewest comparisons (ties uniformly
    at random), b′ uniform on W (on W ∖ {b} when the opponent excludes b)."""
    cmp, win, n, w, active, neg, sc, fl = state
    K = n.shape[0]
    for a in range(K):
        neg[a] = -n[a]
    b = argmax_random_tie(neg, active, rng)
    excl = sc[EXCL_SELF] == 1
    k = uniform_index(sc[N_ACTIVE] - 1 if excl else sc[N_ACTIVE], rng)
    for a in range(K):
        if active[a] and not (excl and a == b):
            if k == 0:
                return b, a
            k -= 1
    return b, b  # unreachable while |W| ≥ 2


@numba.njit(cache=True, inline="always")
def remove(state, r):
    """Remove arm r from W and delete every comparison against r from the remaining records."""
    cmp, win, n, w, active, neg, sc, fl = state
    active[r] = False
    sc[N_ACTIVE] -= 1
    K = n.shape[0]
    for a in range(K):
        if active[a]:
            n[a] -= cmp[a, r]
            w[a] -= win[a, r]
            if sc[N_ACTIVE] == 1:
                sc[WINNER] = a


@numba.njit(cache=True, inline="always")
def update(state, b, b2, b_won):
    """Count the comparison (b, b′) for b and apply the removal test; returns the removed arm or −1."""
    cmp, win, n, w, active, neg, sc, fl = state
    cmp[b, b2] += 1.0
    n[b] += 1.0
    if b_won:
        win[b, b2] += 1.0
        w[b] += 1.0
    K = n.shape[0]
    n_star = np.inf
    for a in range(K):
        if active[a] and n[a] < n_star:
            n_star = n[a]
    if n_star == 0.0:
        return -1
    c = confidence_radius(fl[COEF], fl[LOG_TERM], n_star)
    if c > 0.5:  # max − min ≥ 2c is impossible (exact, see the module docstring)
        return -1
    p_min = np.inf
    p_max = -np.inf
    loser = -1
    for a in range(K):
        if active[a]:
            p = w[a] / n[a]
            if p < p_min:  # the first minimum: the lowest index on ties
                p_min = p
                loser = a
            if p > p_max:
                p_max = p
    if p_min + c <= p_max - c:
        remove(state, loser)
        return loser
    return -1


@numba.njit(cache=True)
def _run(P, regret, checkpoints, params, rng, record_pairs, closed_form):
    K = P.shape[0]
    T = checkpoints[-1]
    state = init(K, T, params)
    sc = state[6]
    rec = recorder_new(regret, checkpoints, record_pairs)
    for t in range(1, T + 1):
        if sc[N_ACTIVE] > 1:
            b, b2 = select(state, rng)
            update(state, b, b2, duel(P, b, b2, rng))
            recorder_step(rec, t, b, b2)
            continue
        h = sc[WINNER]
        if closed_form:
            recorder_commit(rec, t - 1, h, h)
            break
        recorder_step(rec, t, h, h)
    return rec[3], rec[4]


@numba.njit(cache=True)
def run(P, regret, checkpoints, params, rng, record_pairs):
    """One run with horizon ``checkpoints[-1]`` (see :mod:`duelbench.algorithms.kernels`)."""
    return _run(P, regret, checkpoints, params, rng, record_pairs, True)


@numba.njit(cache=True)
def run_stepwise(P, regret, checkpoints, params, rng, record_pairs):
    """As :func:`run`, but the exploitation phase is recorded step by step (for tests)."""
    return _run(P, regret, checkpoints, params, rng, record_pairs, False)


def _validate(params: dict) -> None:
    if not params["gamma"] >= 1.0:
        raise ValueError(f"btm: gamma must be >= 1 (relaxed stochastic transitivity), got {params['gamma']!r}")
    if not params["confidence_factor"] > 0.0:
        raise ValueError(f"btm: confidence_factor must be > 0, got {params['confidence_factor']!r}")
    if params["opponent_excludes_self"] not in (0.0, 1.0):
        raise ValueError("btm: opponent_excludes_self must be 0 (b' uniform on W, as Wu & Liu ran) "
                         f"or 1 (b' uniform on W without b), got {params['opponent_excludes_self']!r}")


ALGORITHM = AlgorithmSpec(
    name="btm",
    title="BTM",
    reference="Yue & Joachims (ICML 2011), Beat-the-Mean, online (Algorithm 1), delta = 1/(2KT); "
              "gamma = 1.3 as in Wu & Liu (2016) L893-894",
    defaults={"gamma": 1.3, "confidence_factor": 3.0, "opponent_excludes_self": 0.0},
    run=run,
    needs_horizon=True,
    validate=_validate,
)

"""Condorcet SAVAGE — SAVAGE (Urvoy, Clérot, Féraud & Naamane, ICML 2013) for the Condorcet winner.

Run by Wu & Liu (NIPS 2016) as the baseline "SAVAGE [17]" (paper 004 L892), an
explore-then-exploit algorithm whose every curve point is a run with that horizon (paper 004
L896–897); the paper does not say which SAVAGE variant it runs.  This module is the generic
SAVAGE explore-then-exploit scheme of :mod:`duelbench.algorithms.savage` (same variables, same
Hoeffding radius with δ = 1/T, same least-sampled-pair order, same closed-form exploitation)
with the independence test of the *Condorcet winner* problem instead of the Copeland one::

    W ← all N = K(K−1)/2 unordered pairs {i, j} (the variables p_ij, i < j)
    c(n) = sqrt( ln(K(K−1)·T/δ) / (2n) ),  δ = 1/T          (Hoeffding radius)
    L(a) = #{k : the interval of p_ak lies below 1/2}          (certain losses of a)
    while W ≠ ∅ and t ≤ T:                                     (exploration)
        draw the pair of W with the fewest samples; update mû_ij and c(n_ij)
        remove from W every pair whose interval [mû − c, mû + c] excludes 1/2
        remove from W every pair {i, j} with L(i) ≥ 1 and L(j) ≥ 1      ("Indep", Condorcet)
    for the rest of the horizon: compare (î, î), î = the arm with the fewest certain losses
        (then the most empirical wins, then the lowest index)       (exploitation)

The answer SAVAGE explores for is "which arm beats every other arm".  An arm a with L(a) ≥ 1
is certainly not that arm; if both i and j are certainly beaten, no value of p_ij can make i or
j the Condorcet winner, nor change whether any third arm beats everyone, so p_ij is independent
of the answer and leaves W (SAVAGE's definition of an independent variable: every value it can
still take gives the same answer).  A pair with an arm that is not yet beaten stays: its value
still decides whether that arm beats everyone.

Decisions
---------
* Building blocks.  The state, the radius (:func:`duelbench.algorithms.savage.savage_log_term`,
  ``ln(K(K−1)) + 2 ln T``), the round-robin list over W (:func:`~duelbench.algorithms.savage.next_pair`,
  ``_deactivate``), the interval test (:func:`duelbench.stats.hoeffding.hoeffding_side`, strict:
  an interval end exactly on 1/2 does not exclude it) and the closed-form exploitation
  (:func:`duelbench.algorithms.kernels.recorder_commit`) are those of Copeland SAVAGE, imported
  unchanged; see that module's Decisions for the radius constant and the exploration order
  (the pair of W with the fewest samples, lowest (i, j) on ties, compared as (i, j), i < j —
  exactly a lexicographic round robin over W).  Only the removal test and the exploited arm
  differ.  Of Copeland SAVAGE's state, ``lost`` (L) and ``won`` are used; its Copeland-only
  slots (``out``, ``newly``, ``M_LO``, ``STRICT``) stay unused.
* Existence of a Condorcet winner: the parameter ``assume_condorcet_winner``.  The test above
  (``assume_condorcet_winner = 0``) is exact for the answer "the Condorcet winner, or none"; it
  is also the Condorcet test of the ``Savage`` class in the public repository duelnlg (a pair
  leaves when both arms have an upper Copeland bound below K − 1).  In the *Condorcet dueling
  bandit* problem the matrix is known to have a Condorcet winner (paper 004 L890: "one for
  Condorcet dueling bandit"), and restricted to such matrices a pair with *one* certainly
  beaten arm is already independent: changing p_ij alone cannot move the winner from one arm
  to another without leaving that set.  Exploration then ends as soon as a single arm is not
  certainly beaten.  That reading (``assume_condorcet_winner = 1``, the default and the
  declared reading) is the problem the Condorcet variant is run on, and it is the removal rule
  of both implementations that the papers' experiments used: Wu & Liu's code
  (github HuasenWu/DuelingBandits, ``Alg_SAVAGE.cpp``, winner type "Condorcet": a pair leaves
  when either arm has a certain loss) and Komiyama et al.'s library (jkomiyama/duelingbanditlib,
  ``policy_savage.hpp``: arms with a certain loss are dropped).  The exact test runs as a
  labelled variant.  With ``assume_condorcet_winner = 1`` the removal line above reads
  "every pair {i, j} with L(i) ≥ 1 or L(j) ≥ 1".
* No ``≤``/``<`` switch.  Copeland SAVAGE's ``strict_independence`` chooses whether an arm
  that can at best *tie* with the best certified Copeland score keeps its pairs (one Copeland
  winner vs. all of them).  The Condorcet winner is unique when it exists and being beaten is
  a yes/no fact of one pair's interval, so there is no tie to keep or drop.
* Exploited arm.  When W = ∅, at most one arm is not certainly beaten (two such arms would
  share an unresolved pair, which is still in W); if there is one, every pair between it and
  another arm is resolved in its favour (such a pair cannot leave W otherwise), so it is the
  certified Condorcet winner (with probability ≥ 1 − δ).  If every arm is certainly beaten,
  the exploration has established (with probability ≥ 1 − δ) that there is no Condorcet winner
  and SAVAGE's answer names no arm; the arm exploited is then the one closest to the Condorcet
  criterion on the certified information: the fewest certain losses L (the largest upper
  Copeland bound K − 1 − L), ties broken by the most empirical wins #{k : mû_ak > 1/2}
  (``0/0 := 1/2``, :mod:`duelbench.stats.counts`; an empirical 1/2 is a win for neither), then
  by the lowest index.  One rule covers both cases: a certified Condorcet winner is the only arm
  with L = 0.  (Under the "assume a Condorcet winner" reading one arm always stays unbeaten:
  an arm is beaten only through a pair of W, whose arms are then both unbeaten, and resolving
  it leaves its winner unbeaten; the exploited arm is that arm.)
* If T ends during exploration there is no exploitation phase.
* Self-comparisons never occur during exploration; a pair's outcome updates only its own
  interval.

Complexity: O(K²) memory; O(1) per exploration step plus O(K) each time an arm receives its
first certain loss (at most K times); O(K²) once at the commitment; O(1) for the whole
exploitation phase.
"""

import numba

from duelbench.algorithms.kernels import duel, recorder_commit, recorder_new, recorder_step
from duelbench.algorithms.savage import CUR, WINNER, _deactivate, next_pair
from duelbench.algorithms.savage import init as savage_init
from duelbench.stats.counts import empirical_mean, n_pair, record_outcome
from duelbench.stats.hoeffding import hoeffding_side

from .registry import AlgorithmSpec


@numba.njit(cache=True, inline="always")
def init(K, T, params):
    """State for horizon T (Copeland SAVAGE's state; its Copeland switch is left off).

    Returns ``(state, assume_cw)``: ``assume_cw`` is True iff ``params[0] > 1/2``
    (``assume_condorcet_winner``, see the Decisions).
    """
    assume_cw = params.shape[0] > 0 and params[0] > 0.5
    return savage_init(K, T, params[:0]), assume_cw


@numba.njit(cache=True, inline="always")
def _resolve(state, q, winner, loser, assume_cw):
    """Pair q is decided (winner certainly beats loser): remove it, apply the Condorcet Indep test."""
    W, pa, pb, pid, nxt, prv, active, lost, won, out, newly, sc, log_term = state
    K = W.shape[0]
    _deactivate(state, q)
    won[winner] += 1
    lost[loser] += 1
    if lost[loser] == 1:  # the loser can no longer be the Condorcet winner
        for x in range(K):
            if x != loser and (assume_cw or lost[x] > 0):
                r = pid[loser, x]
                if active[r]:
                    _deactivate(state, r)


@numba.njit(cache=True, inline="always")
def update(state, q, i_won, assume_cw):
    """Count the outcome of pair q = (i, j), i < j, and apply the removal tests."""
    W, pa, pb, pid, nxt, prv, active, lost, won, out, newly, sc, log_term = state
    i = pa[q]
    j = pb[q]
    record_outcome(W, i, j, i_won)
    side = hoeffding_side(W[i, j], n_pair(W, i, j), log_term[0])
    if side == 0:
        sc[CUR] = nxt[q]
    elif side > 0:
        _resolve(state, q, i, j, assume_cw)
    else:
        _resolve(state, q, j, i, assume_cw)


@numba.njit(cache=True, inline="always")
def condorcet_choice(state):
    """The exploited arm: fewest certain losses, then most empirical wins, then lowest index."""
    W, pa, pb, pid, nxt, prv, active, lost, won, out, newly, sc, log_term = state
    K = W.shape[0]
    best = -1
    best_lost = K
    best_wins = -1
    for a in range(K):
        wins = 0
        for k in range(K):
            if k != a and empirical_mean(W, a, k) > 0.5:
                wins += 1
        if lost[a] < best_lost or (lost[a] == best_lost and wins > best_wins):
            best = a
            best_lost = lost[a]
            best_wins = wins
    return best


@numba.njit(cache=True)
def _run(P, regret, checkpoints, params, rng, record_pairs, closed_form):
    K = P.shape[0]
    T = checkpoints[-1]
    state, assume_cw = init(K, T, params)
    pa = state[1]
    pb = state[2]
    sc = state[11]
    rec = recorder_new(regret, checkpoints, record_pairs)
    for t in range(1, T + 1):
        q = next_pair(state)
        if q >= 0:
            i = pa[q]
            j = pb[q]
            update(state, q, duel(P, i, j, rng), assume_cw)
            recorder_step(rec, t, i, j)
            continue
        if sc[WINNER] < 0:
            sc[WINNER] = condorcet_choice(state)
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
    if params["assume_condorcet_winner"] not in (0.0, 1.0):
        raise ValueError("condorcet_savage: assume_condorcet_winner must be 0 (exact independence test) or 1 "
                         f"(a Condorcet winner exists), got {params['assume_condorcet_winner']!r}")


ALGORITHM = AlgorithmSpec(
    name="condorcet_savage",
    title="Condorcet SAVAGE",
    reference="Urvoy et al. (ICML 2013), SAVAGE with the Condorcet Indep test; delta = 1/T; "
              "run as 'SAVAGE' by Wu & Liu (2016) L892",
    defaults={"assume_condorcet_winner": 1.0},
    run=run,
    needs_horizon=True,
    validate=_validate,
)

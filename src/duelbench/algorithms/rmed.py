"""RMED1 — Relative Minimum Empirical Divergence (Komiyama, Honda, Kashima & Nakagawa, COLT 2015).

A Condorcet-winner algorithm; Komiyama et al. (2016) run it "with the same hyper-parameters as
in Komiyama et al. (2015a)" (paper 000 L305), which it does not restate.  As implemented here,
after the COLT-2015 algorithm and the authors' public library
(https://github.com/jkomiyama/duelingbanditlib, ``policy/policy_rmed.hpp``)::

    Î_i(t) = Σ_{j ∈ Ô_i(t)} N_ij d(mû_ij),   Ô_i(t) = {j ≠ i : mû_ij ≤ 1/2},   î* = argmin_i Î_i
    init: draw every pair (i < j) once;  L_C ← [K], L_R ← [K], L_N ← ∅
    loop: for l ∈ L_C in a fixed order:
            m ← î*                          if î* ∈ Ô_l
                argmin_{j ∈ Ô_l} mû_lj      elif Ô_l ≠ ∅
                l                           otherwise
            draw (l, m);  L_R ← L_R \\ {l}
            add to L_N every j ∉ L_R with Î_j − Î_î* ≤ ln t + f(K)
          L_C, L_R ← L_N;  L_N ← ∅
    f(K) = 0.3 K^1.01

Decisions
---------
* f(K) = 0.3·K^1.01 and one initial draw per pair (the authors' public library: ``kweight =
  0.3`` times ``pow(K, 1.01)``, and RMED1 draws any pair with ``N_ij = 0`` first); parameters
  ``f_scale = 0.3``, ``f_exponent = 1.01``.
* Ô_i uses ``mû_ij ≤ 1/2`` exactly (the library's 0.50001 slack is not used).
* "Fixed order": increasing arm index (arms are relabelled at random per run by the engine, so
  the order carries no information).  Ties in argmin Î and argmin mû: lowest index, for the
  same reason.
* The initial pairs are drawn in lexicographic order (0,1), (0,2), …, each counting as a step.
* The L_N test after the draw uses the statistics updated with that draw's outcome and ln t of
  the step just taken.
* d(·) is :func:`duelbench.stats.kl.kl_to_half`.
"""

import math

import numba
import numpy as np

from duelbench.stats.counts import empirical_mean, n_pair, new_counts, record_outcome
from duelbench.stats.kl import kl_to_half

from .registry import AlgorithmSpec

F_SCALE, F_EXPONENT = 0, 1


@numba.njit(cache=True, inline="always")
def init(K, params):
    """State: W, Î, the lists L_C/L_R/L_N as masks, the pass pointer, the initial-pair counter."""
    W = new_counts(K)
    I_hat = np.zeros(K, dtype=np.float64)
    in_LC = np.ones(K, dtype=np.bool_)
    in_LR = np.ones(K, dtype=np.bool_)
    in_LN = np.zeros(K, dtype=np.bool_)
    # counters: [0] next initial pair index, [1] pass pointer into L_C
    counters = np.zeros(2, dtype=np.int64)
    f_K = params[F_SCALE] * K ** params[F_EXPONENT]
    return W, I_hat, in_LC, in_LR, in_LN, counters, f_K


@numba.njit(cache=True, inline="always")
def divergence_of(W, i):
    """Î_i = Σ_{j ∈ Ô_i} N_ij d(mû_ij)."""
    total = 0.0
    for j in range(W.shape[0]):
        if j != i:
            mu = empirical_mean(W, i, j)
            if mu <= 0.5:
                total += n_pair(W, i, j) * kl_to_half(mu)
    return total


@numba.njit(cache=True, inline="always")
def best_arm(I_hat):
    """î* = argmin_i Î_i (lowest index on ties)."""
    best = 0
    for i in range(1, I_hat.shape[0]):
        if I_hat[i] < I_hat[best]:
            best = i
    return best


@numba.njit(cache=True, inline="always")
def initial_pair(k, K):
    """The k-th pair (i < j) in lexicographic order."""
    i = 0
    while k >= K - 1 - i:
        k -= K - 1 - i
        i += 1
    return i, i + 1 + k


@numba.njit(cache=True, inline="always")
def next_first_arm(state):
    """Next l ∈ L_C in increasing order; at the end of a pass, L_C, L_R ← L_N and L_N ← ∅."""
    W, I_hat, in_LC, in_LR, in_LN, counters, f_K = state
    K = W.shape[0]
    for _ in range(2):
        p = counters[1]
        while p < K and not in_LC[p]:
            p += 1
        if p < K:
            counters[1] = p
            return p
        for i in range(K):
            in_LC[i] = in_LN[i]
            in_LR[i] = in_LN[i]
            in_LN[i] = False
        counters[1] = 0
    return -1  # unreachable: L_N always receives î* during a pass


@numba.njit(cache=True, inline="always")
def choose_second_arm(state, l):
    """m: î* if it beats l empirically, else the arm beating l most, else l itself."""
    W, I_hat, in_LC, in_LR, in_LN, counters, f_K = state
    K = W.shape[0]
    star = best_arm(I_hat)
    if star != l and empirical_mean(W, l, star) <= 0.5:
        return star
    m = l
    lowest = 2.0
    for j in range(K):
        if j != l:
            mu = empirical_mean(W, l, j)
            if mu <= 0.5 and mu < lowest:
                lowest = mu
                m = j
    return m


@numba.njit(cache=True, inline="always")
def select(state, t, rng):
    W, I_hat, in_LC, in_LR, in_LN, counters, f_K = state
    K = W.shape[0]
    if counters[0] < K * (K - 1) // 2:
        return initial_pair(counters[0], K)
    l = next_first_arm(state)
    return l, choose_second_arm(state, l)


@numba.njit(cache=True, inline="always")
def update(state, i, j, i_won, t):
    """Count the outcome, refresh Î_i and Î_j, then the list bookkeeping of the main loop."""
    W, I_hat, in_LC, in_LR, in_LN, counters, f_K = state
    K = W.shape[0]
    if i != j:
        record_outcome(W, i, j, i_won)
        I_hat[i] = divergence_of(W, i)
        I_hat[j] = divergence_of(W, j)
    if counters[0] < K * (K - 1) // 2:
        counters[0] += 1
        return
    in_LR[i] = False
    counters[1] = i + 1
    threshold = I_hat[best_arm(I_hat)] + math.log(t) + f_K
    for a in range(K):
        if not in_LR[a] and I_hat[a] <= threshold:
            in_LN[a] = True


def _validate(p):
    if p["f_scale"] < 0:
        raise ValueError(f"rmed1: f_scale must be ≥ 0, got {p['f_scale']}")


ALGORITHM = AlgorithmSpec(
    name="rmed1",
    title="RMED1",
    reference="Komiyama et al. (COLT 2015), RMED1 with f(K) = 0.3 K^1.01 (paper 000 L305)",
    defaults={"f_scale": 0.3, "f_exponent": 1.01},
    steps=(init, select, update),
    validate=_validate,
)

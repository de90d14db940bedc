"""RUCB — Relative Upper Confidence Bound (Zoghi, Whiteson, Munos & de Rijke, ICML 2014).

A Condorcet-winner algorithm, run in this suite on every instance and scored with Copeland
regret.  Transcribed from the ICML 2014 version, with α = 0.51 as in Komiyama et al. (2016)
(paper 000 L305)::

    U = W/(W+Wᵀ) + sqrt(α ln t / (W+Wᵀ)),  u_ii = 1/2
    C = {c : u_cj ≥ 1/2 ∀ j}
    if C = ∅: c ← uniform from [K]
    B ← B ∩ C
    if |C| = 1: B ← C, c ← the element of C
    if |C| > 1: P(c) = 1/2 if c ∈ B, else 1/(2^|B| |C \\ B|)
    d ← argmax_j u_jc   (ties at random, d ≠ c if tied)
    compare (c, d)

Decisions
---------
* Variant: the ICML 2014 version (not the arXiv one); papers 000 and 004 do not say which they
  ran (the authors' COLT-2015 library, https://github.com/jkomiyama/duelingbanditlib, ships
  both).
* ``x/0 := 1`` for unobserved pairs gives u = 2 (:mod:`duelbench.stats.bounds`).
* ``C`` is read from the incremental relation of :mod:`duelbench.stats.confident_beats`
  (``u_cj ≥ 1/2`` ⇔ j does not confidently beat c); the boundary case u = 1/2 is documented
  there.
* "ties at random, d ≠ c if tied": among the maximisers of u_jc, c itself is excluded whenever
  another arm ties with it; the remaining ties are broken uniformly at random.
* "P(c) = 1/(2^|B| |C \\ B|)": after the coin that keeps c = b (probability 1/2 when B ≠ ∅),
  c is one uniform draw over C \\ B, drawn also when C \\ B has a single arm (one uniform
  draw consumed either way).
* ``ln t`` with t = 1, 2, … (the current step), natural log.
"""

import math

import numba
import numpy as np

from duelbench.stats.choice import argmax_random_tie, uniform_index
from duelbench.stats.bounds import ucb
from duelbench.stats.confident_beats import ALPHA, cb_advance, cb_new, cb_update_state
from duelbench.stats.counts import new_counts

from .registry import AlgorithmSpec, alpha_above_half


@numba.njit(cache=True, inline="always")
def init(K, params):
    """State: counts W, confident-beat relation, hypothesis set B (−1 = empty), scratch."""
    W = new_counts(K)
    cb = cb_new(K)
    hyp = np.full(1, -1, dtype=np.int64)
    u_col = np.zeros(K, dtype=np.float64)
    mask = np.zeros(K, dtype=np.bool_)
    return W, cb, params, hyp, u_col, mask


@numba.njit(cache=True, inline="always")
def choose_candidate(n_lost, hyp, mask, rng):
    """Lines "C = …" to "sample c": the candidate c and the update of the hypothesis set B.

    ``n_lost`` are the confident-loss counts of :mod:`duelbench.stats.confident_beats`
    (C = arms with none).  The step kernels are inlined into the run loop (``inline="always"``,
    see :mod:`duelbench.stats.confident_beats`).
    """
    K = n_lost.shape[0]
    size = 0
    for c in range(K):
        mask[c] = n_lost[c] == 0
        size += mask[c]
    b = hyp[0]
    if b >= 0 and not mask[b]:
        b = -1  # B ← B ∩ C
    if size == 0:
        hyp[0] = b
        return uniform_index(K, rng)
    if size == 1:
        for c in range(K):
            if mask[c]:
                hyp[0] = c
                return c
    hyp[0] = b
    if b >= 0:
        if rng.random() < 0.5:
            return b
        mask[b] = False
        size -= 1
    k = uniform_index(size, rng)
    for c in range(K):
        if mask[c]:
            if k == 0:
                return c
            k -= 1
    return -1


@numba.njit(cache=True, inline="always")
def choose_opponent(W, c, log_t, alpha, u_col, mask, rng):
    """d ← argmax_j u_jc, ties at random, excluding c when another arm ties with it."""
    K = W.shape[0]
    best = -np.inf
    for j in range(K):
        u_col[j] = ucb(W, j, c, log_t, alpha)
        mask[j] = True
        if j != c and u_col[j] > best:
            best = u_col[j]
    if best >= u_col[c]:
        mask[c] = False
    return argmax_random_tie(u_col, mask, rng)


@numba.njit(cache=True, inline="always")
def select(state, t, rng):
    """One step's pair (c, d) at time t."""
    W, cb, params, hyp, u_col, mask = state
    log_t = math.log(t)
    cb_advance(cb, log_t)
    c = choose_candidate(cb[1], hyp, mask, rng)
    d = choose_opponent(W, c, log_t, params[ALPHA], u_col, mask, rng)
    return c, d


#: Count the outcome and refresh the pair's confidence status (shared with D-TS).
update = cb_update_state


ALGORITHM = AlgorithmSpec(
    name="rucb",
    title="RUCB",
    reference="Zoghi et al. (ICML 2014), Algorithm 1; alpha = 0.51 as in Komiyama et al. (2016) L305",
    defaults={"alpha": 0.51},
    steps=(init, select, update),
    validate=alpha_above_half("rucb", "Zoghi et al. 2014"),
)

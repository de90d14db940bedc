"""RCS — Relative Confidence Sampling (Zoghi, Whiteson, de Rijke & Munos, WSDM 2014).

A Condorcet-winner algorithm that picks the first arm (the *champion*) by Thompson sampling and
the second (the *challenger*) by RUCB's upper bound, run as a baseline by Wu & Liu (NIPS 2016,
paper 004 L123–127, L892–895) with α = 0.51 ("For algorithms using RUCB and RLCB … we set the
scale factor α = 0.51", L894–895).  One step at time t = 1, 2, …::

    θ_ij ~ Beta(W_ij + 1, W_ji + 1) for i < j,  θ_ji = 1 − θ_ij,  θ_ii = 1/2
    c ← the arm with θ_cj > 1/2 for every j ≠ c (the Condorcet winner of the sample);
        if there is none: the arm that has been the champion the fewest times
    U = W/(W+Wᵀ) + sqrt(α ln t / (W+Wᵀ)),  "x/0 := 1",  u_cc = 1/2
    d ← argmax_j u_jc
    compare (c, d)

Decisions
---------
* The WSDM paper's own text could not be consulted for this implementation; the details below
  follow the authors' C++ code of Wu & Liu (https://github.com/HuasenWu/DuelingBandits, named
  at paper 004 L904, class ``CAlg_RCS``), i.e. RCS as it was run in their experiments, unless
  said otherwise.
* One sample of the matrix per step, read only through its Condorcet winner, so only what can
  decide it is drawn (the law of c is the paper's; only the consumption of the random stream
  differs): a knockout over the arms in index order, the champion replaced by j whenever
  θ_j,champion > 1/2, finds the only arm that can beat every other (each other arm lost a
  sampled comparison); it is the sample's Condorcet winner iff it also beats the arms before it
  it was not compared with — K − 1 to 2K − 3 pairs instead of K(K − 1)/2, each sampled once.
  A sample enters only through θ_ij > 1/2, drawn as that indicator
  (:func:`duelbench.stats.beta.above_half`: one uniform against the binomial tail of the
  Beta(W_ij + 1, W_ji + 1) posterior, cached until the pair is compared again and carried
  forward beyond :data:`duelbench.stats.beta.FRESH_SUM_COUNT` comparisons).
* Sample comparisons are strict: c is the sample's Condorcet winner iff θ_cj > 1/2 for every
  j ≠ c (as in the C++ code; another public implementation also compares strictly).  "≥" would
  differ only when a draw is exactly 1/2, an event of probability about 2⁻⁵³ per draw; the
  strict reading keeps the winner unique.
* The champion count is incremented at **every** step for the champion of that step, whether it
  won the sample or was chosen by the fallback (the C++ code; another public implementation
  counts only the fallback choices).  The fallback takes the arm with the fewest champion steps
  so far, ties to the lowest index (the C++ code; the engine permutes the arms of every run).
* Challenger: :func:`duelbench.algorithms.rucb.choose_opponent` is reused, so RCS follows RUCB's
  convention in this suite: the bound of :func:`duelbench.stats.bounds.ucb` ("x/0 := 1", so an
  unobserved pair has u = 2; u_cc = 1/2), ties broken uniformly at random, c excluded whenever
  another arm ties with it (the C++ code takes the lowest index among ties instead).  d = c
  happens only when every other u_jc < 1/2.
* ``ln t`` with t = 1, 2, … (the current step), natural log, as in the C++ code and
  :mod:`duelbench.stats.bounds`.
* α > 1/2 is required: RCS has no regret analysis of its own (paper 004 L127), and the bound it
  borrows is RUCB's, whose analysis needs α > 1/2 (Zoghi et al., ICML 2014).
* Self-comparisons are not counted (as in RUCB and D-TS here; the C++ code increments the
  diagonal, which it never reads).
"""

import math

import numba
import numpy as np

from duelbench.stats.beta import above_half, tail_cache_new
from duelbench.stats.counts import new_counts, record_outcome

from .registry import AlgorithmSpec, alpha_above_half
from .rucb import choose_opponent

#: Index of α in the ``params`` array.
ALPHA = 0


@numba.njit(cache=True, inline="always")
def init(K, params):
    """State: counts W, champion counts, scratch (challenger bounds and mask), cached tails."""
    W = new_counts(K)
    n_champion = np.zeros(K, dtype=np.int64)
    u_col = np.zeros(K, dtype=np.float64)
    mask = np.zeros(K, dtype=np.bool_)
    return W, params, n_champion, u_col, mask, tail_cache_new(K)


@numba.njit(cache=True, inline="always")
def sample_condorcet_winner(W, cache, rng):
    """The arm c with θ_cj > 1/2 for all j ≠ c in one sample θ_ij ~ Beta(W_ij + 1, W_ji + 1),
    θ_ji = 1 − θ_ij, or −1 if there is none; drawn as a knockout (module docstring).

    θ_ji > 1/2 exactly when θ_ij is not (a draw of exactly 1/2, probability zero, is a loss
    for the arm whose indicator is drawn).
    """
    K = W.shape[0]
    champion = 0
    beaten = -1  # the champion the current one took over from: their pair is already sampled
    for j in range(1, K):
        if above_half(W, cache, j, champion, rng):
            beaten = champion
            champion = j
    for j in range(champion):
        if j != beaten and not above_half(W, cache, champion, j, rng):
            return -1
    return champion


@numba.njit(cache=True, inline="always")
def least_champion(n_champion):
    """The arm that has been the champion the fewest times (lowest index among ties)."""
    best = 0
    for i in range(1, n_champion.shape[0]):
        if n_champion[i] < n_champion[best]:
            best = i
    return best


@numba.njit(cache=True, inline="always")
def select(state, t, rng):
    """One step's pair (c, d) at time t."""
    W, params, n_champion, u_col, mask, cache = state
    c = sample_condorcet_winner(W, cache, rng)
    if c < 0:
        c = least_champion(n_champion)
    n_champion[c] += 1
    d = choose_opponent(W, c, math.log(t), params[ALPHA], u_col, mask, rng)
    return c, d


@numba.njit(cache=True, inline="always")
def update(state, i, j, i_won, t):
    """Count the outcome of (i, j); a self-comparison is not counted."""
    if i != j:
        record_outcome(state[0], i, j, i_won)


ALGORITHM = AlgorithmSpec(
    name="rcs",
    title="RCS",
    reference="Zoghi et al. (WSDM 2014), Relative Confidence Sampling; alpha = 0.51 as in Wu & Liu (2016) L894-895",
    defaults={"alpha": 0.51},
    steps=(init, select, update),
    validate=alpha_above_half("rcs", "the RUCB bound it uses, Zoghi et al. 2014"),
)

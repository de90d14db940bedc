"""D-TS — Double Thompson Sampling for Copeland dueling bandits (Wu & Liu, NIPS 2016, Algorithm 1).

Transcribed from Algorithm 1 (paper 004 L272–363), α = 0.51::

    U, L: RUCB bounds with ln t;  ζ̂_i = #{j ≠ i : u_ij > 1/2}/(K−1);  C = argmax ζ̂
    Phase 1: θ(1)_ij ~ Beta(B_ij + 1, B_ji + 1) for i < j, θ(1)_ji = 1 − θ(1)_ij
             a(1) = argmax_{i ∈ C} Σ_{j≠i} 1(θ(1)_ij > 1/2)          (ties at random)
    Phase 2: θ(2)_{i a(1)} ~ Beta(B_{i a(1)} + 1, B_{a(1) i} + 1) for i ≠ a(1), θ(2)_{a(1)a(1)} = 1/2
             a(2) = argmax_{i : l_{i a(1)} ≤ 1/2} θ(2)_{i a(1)}
    compare (a(1), a(2))

Phase 2 reads **column** a(1) of the posterior — θ(2)_{i a(1)}, the probability that arm i beats
a(1) — as the paper does (a known third-party implementation reads the row instead).

Decisions
---------
* Only the Phase-1 samples that can change a(1) are drawn: the rows i ∈ C (each unordered pair
  once, mirrored); when |C| = 1 none is drawn.  Samples of pairs outside those rows are
  independent of the decision, so the law of (a(1), a(2)) is exactly the paper's; only the
  consumption of the random stream differs.
* Phase 1 reads a sample only through 1(θ(1)_ij > 1/2), so only that indicator is drawn:
  :func:`duelbench.stats.beta.above_half`, one uniform against P(θ_ij > 1/2), which for the
  integer posterior parameters is a binomial tail, cached until the pair is compared again.
  The indicator has the law of 1(θ_ij > 1/2) (θ = 1/2 exactly, of probability zero, is not a
  win; the mirrored θ_ji = 1 − θ_ij wins exactly when θ_ij does not).
* Phase 2 likewise draws first the indicators θ(2)_{i a(1)} > 1/2 of the eligible arms: an arm
  below 1/2 loses to θ(2)_{a(1)a(1)} = 1/2 and its value is never needed; with one arm above,
  it is a(2); only with two or more are their values drawn, each from its law given
  θ > 1/2 (:func:`duelbench.stats.beta.draw_above_half`), so a(2) has the law of line 14.
* Line 5's strict ``u_ij > 1/2`` and line 14's ``l_{i a(1)} ≤ 1/2`` are read from
  :mod:`duelbench.stats.confident_beats` (C = arms with the fewest confident losses); the
  boundary case u = 1/2 exactly is documented there.
* Line 14 ties have probability zero (θ(2) = 1/2 exactly included); a tie between two drawn
  values goes to the lower index, as in the authors' code, and an arm at exactly 1/2 does not
  displace a(1).  Line 11 ties: uniformly at random (explicit in the paper).
* Phase 2 draws θ(2)_{i a(1)} only for the arms eligible at line 14 (l_{i a(1)} ≤ 1/2), in index
  order; line 13 samples every i ≠ a(1), but the other samples cannot be chosen, so the law of
  a(2) is the paper's and only the consumption of the random stream differs.
* The binomial tail of a pair compared more than
  :data:`duelbench.stats.beta.FRESH_SUM_COUNT` times is carried forward from its cached value
  (:func:`duelbench.stats.beta.cached_tail`), so both phases draw indicators at every count.
* "x/0 := 1" and ln t with t = 1, 2, … as in :mod:`duelbench.stats.bounds`.
* Self-comparisons are not counted (the paper increments the unused diagonal B_aa).
"""

import math

import numba
import numpy as np

from duelbench.stats.beta import above_half, draw_above_half, sample_indicators, tail_cache_new
from duelbench.stats.choice import argmax_random_tie
from duelbench.stats.confident_beats import cb_advance, cb_new, cb_update_state
from duelbench.stats.counts import new_counts

from .registry import AlgorithmSpec, alpha_above_half


@numba.njit(cache=True, inline="always")
def init(K, params):
    """State: counts B, confident-beat relation, params, scratch (candidate mask, Phase-1
    indicators and values, scores, Phase-2 values), cached tails."""
    B = new_counts(K)
    cb = cb_new(K)
    in_C = np.zeros(K, dtype=np.bool_)
    above = np.zeros((K, K), dtype=np.bool_)
    theta = np.zeros((K, K), dtype=np.float64)
    score = np.zeros(K, dtype=np.float64)
    values = np.zeros(K, dtype=np.float64)
    return B, cb, params, in_C, above, theta, score, values, tail_cache_new(K)


@numba.njit(cache=True, inline="always")
def copeland_candidates(n_lost, in_C):
    """Lines 4–6: C = arms with the maximal optimistic Copeland count (the fewest confident
    losses); fills the mask ``in_C`` and returns |C| (one member of C if |C| = 1, via −size)."""
    fewest = n_lost[0]
    for i in range(1, n_lost.shape[0]):
        fewest = min(fewest, n_lost[i])
    size = 0
    member = -1
    for i in range(n_lost.shape[0]):
        in_C[i] = n_lost[i] == fewest
        if in_C[i]:
            size += 1
            member = i
    return member if size == 1 else -size


@numba.njit(cache=True, inline="always")
def first_candidate(B, n_lost, in_C, above, theta, score, cache, rng):
    """Lines 7–11: a(1) by majority vote of one posterior sample, restricted to C; the sample
    of the rows of C enters only through its indicators θ(1)_ij > 1/2
    (:func:`duelbench.stats.beta.sample_indicators`).

    Helpers receive only the arrays they use; all are inlined into the run loop
    (``inline="always"``, see :mod:`duelbench.stats.confident_beats`).
    """
    only = copeland_candidates(n_lost, in_C)
    if only >= 0:
        return only
    sample_indicators(B, cache, in_C, above, theta, rng)
    K = B.shape[0]
    for i in range(K):
        score[i] = 0.0
        if in_C[i]:
            for j in range(K):
                if j != i and above[i, j]:
                    score[i] += 1.0
    return argmax_random_tie(score, in_C, rng)


@numba.njit(cache=True, inline="always")
def second_candidate(B, beats, a1, cache, values, rng):
    """Lines 13–14: a(2) = argmax of fresh samples θ(2)_{i a(1)} of column a(1) among the arms
    not beating a(1), against θ(2)_{a(1)a(1)} = 1/2: indicators first, values only for a
    contest between two or more arms above 1/2 (``values[i]``: −1 for an arm above 1/2, NaN
    otherwise; the values are drawn in the second pass)."""
    n_above = 0
    last = a1
    for i in range(B.shape[0]):
        values[i] = np.nan
        if i == a1 or beats[i, a1] == 1:
            continue
        if above_half(B, cache, i, a1, rng):
            n_above += 1
            last = i
            values[i] = -1.0
    if n_above <= 1:
        return last
    best = 0.5
    a2 = a1
    for i in range(B.shape[0]):
        if math.isnan(values[i]):
            continue
        th = draw_above_half(B[i, a1], B[a1, i], cache[0][i, a1], rng)
        if th > best:
            best = th
            a2 = i
    return a2


@numba.njit(cache=True, inline="always")
def select(state, t, rng):
    B, cb, params, in_C, above, theta, score, values, cache = state
    cb_advance(cb, math.log(t))
    a1 = first_candidate(B, cb[1], in_C, above, theta, score, cache, rng)
    return a1, second_candidate(B, cb[0], a1, cache, values, rng)


#: Line 17 (off-diagonal only) and the refresh of the pair's confidence status (shared with RUCB).
update = cb_update_state


ALGORITHM = AlgorithmSpec(
    name="dts",
    title="D-TS",
    reference="Wu & Liu (NIPS 2016), Algorithm 1, alpha = 0.51 (L894-895)",
    defaults={"alpha": 0.51},
    steps=(init, select, update),
    validate=alpha_above_half("dts", "Wu & Liu, Proposition 1"),
)

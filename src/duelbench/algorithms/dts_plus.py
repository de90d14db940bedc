"""D-TS+ — Double Thompson Sampling with regret-minimising tie-breaking (Wu & Liu, NIPS 2016, §4.3).

D-TS+ "implement[s] the same operations as D-TS, except for the selection of the first
candidate (Line 11 in Algorithm 1)" (paper 004 L822–823); see :mod:`duelbench.algorithms.dts`
for Algorithm 1.  The replacement of line 11, rebuilt from the extracted text of §4.3
(L791–879, whose formulas are split over many lines)::

    with the Phase-1 samples θ(1) (lines 7–10 of Algorithm 1):
    ζ̃_i   = (1/(K−1)) Σ_{j≠i} 1(θ(1)_ij > 1/2)                     (L805–807, L812–814)
    ζ̃*    = max_i ζ̃_i                                               (L807, L815)
    r̃_ij  = ζ̃* − ½ [ζ̃_i + ζ̃_j]                                     (L825–827, L841)
    R̃(1)_i = Σ_{j : θ(1)_ij ≠ 1/2} r̃_ij / D(θ(1)_ij ‖ 1/2)           (L816–820, L829–835)
    A(1)  = {i ∈ C : Σ_{j≠i} 1(θ(1)_ij > 1/2) = max_{k∈C} Σ_{j≠k} 1(θ(1)_kj > 1/2)}  (L853–854, L843–851)
    a(1)  = argmin_{i ∈ A(1)} R̃(1)_i                                  (L856–863)

D is the Bernoulli KL divergence; r̃_ij / D(θ_ij ‖ 1/2) estimates the regret of the
Θ(log T / D(p_ij ‖ 1/2)) comparisons needed to tell p_ij from 1/2 (L816–819, the paper's
reference [5]).  The candidate set C (RUCB bounds, lines 4–6), Phase 2 (fresh samples of column a(1),
restricted to l_{i a(1)} ≤ 1/2, lines 13–14) and the update (line 17) are D-TS's and are taken
from :mod:`duelbench.algorithms.dts`.  α = 0.51 (L894–895).  Corollary 1 (L865–867): D-TS's
regret bound holds for D-TS+; L868–872 conjecture that D-TS+ focuses on one Copeland winner.

Decisions
---------
* **A(1).**  The printed set reads ``{i ∈ C : ζ_i = max_{i∈C} Σ_{j≠i} 1(θ(1)_ij > 1/2)}`` with
  the true score ζ_i on the left (L853); taken as a notation slip for the sampled win count,
  i.e. A(1) is exactly the set among which line 11 of D-TS breaks ties at random (L796;
  L865: "D-TS+ only changes the tie-breaking criterion").
* **ζ̃* over all arms** (L815, "max_i ζ̃_i(t)"), the default ``zeta_star_over_candidates = 0``.
  A known implementation by the authors takes the maximum over C instead (then ζ̃* = ζ̃_i for
  every i ∈ A(1) and r̃_ij can be negative for j ∉ C); ``zeta_star_over_candidates = 1`` is that
  reading, a labelled variant.  r̃ is formed in the normalised units of the paper (counts
  divided by K − 1); the argmin does not depend on the scale.
* **KL numerics.**  D(θ ‖ 1/2) is :func:`duelbench.stats.kl.kl_to_half` of θ clipped into
  [1e-7, 1 − 1e-7] (:data:`THETA_CLIP`), as the authors' implementation clips.  D(θ ‖ 1/2) is
  finite also at θ ∈ {0, 1}, so the clip only moves values within about 1e-6 of ln 2; it is kept
  for fidelity.  The clip is applied here, so the shared KL functions are unchanged.  Terms with
  θ(1)_ij = 1/2 exactly are skipped (L831: the sum runs over j with θ(1)_ij ≠ 1/2).
* **Ties of the argmin.**  Uniformly at random among the minimisers (one uniform draw, only
  when there is a tie), the rule of D-TS's line 11 (L228, L796): where the regret criterion
  does not discriminate D-TS+ falls back to D-TS.  Such ties are not of probability zero: when
  every arm has the same sampled win count (e.g. a regular sampled tournament on an odd number
  of arms) every r̃_ij = 0 and every R̃(1)_i = 0.  (The authors' implementation takes the lowest
  index.)  |A(1)| = 1 needs no draw.
* **Phase-1 draws.**  D-TS+ needs θ(1)_ij for every pair: ζ̃_j of every arm j enters r̃_ij, and
  ζ̃* is a maximum over all arms.  When |C| ≥ 2 every unordered pair is sampled once, i < j in
  row-major order (i increasing, then j increasing), θ(1)_ji = 1 − θ(1)_ij.  The win counts,
  A(1) and ζ̃* read only the indicators θ(1)_ij > 1/2, so those are drawn first
  (:func:`duelbench.stats.beta.above_half`, as in D-TS); the values enter only R̃(1)_i for
  i ∈ A(1), so they are drawn only when |A(1)| ≥ 2 and only in the rows of A(1), each from its
  law given the side of 1/2 its indicator fell on
  (:func:`duelbench.stats.beta.draw_given_side`).  (indicator, value) then has the law of
  (1(θ > 1/2), θ) for every pair, so the law of a(1) is the paper's.  A pair compared more than
  :data:`duelbench.stats.beta.FRESH_SUM_COUNT` times is drawn as its value outright (the value
  decides the indicator): given its side it would cost one Beta draw per side on average, and
  with |A(1)| ≥ 2 most values are needed.
  When |C| = 1, a(1) is the single member of C (D-TS+ and D-TS agree) and no sample is drawn,
  as in D-TS: the samples could not change a(1), so the law of (a(1), a(2)) is the paper's.
* Phase 2, the confidence bounds, "x/0 := 1", ln t with t = 1, 2, … and the uncounted
  self-comparisons are D-TS's (:mod:`duelbench.algorithms.dts`, its Decisions).
"""

import math

import numba
import numpy as np

from duelbench.stats.beta import draw_given_side, sample_indicators, tail_cache_new
from duelbench.stats.choice import argmax_random_tie
from duelbench.stats.confident_beats import cb_advance, cb_new, cb_update_state
from duelbench.stats.counts import new_counts
from duelbench.stats.kl import kl_to_half

from .dts import copeland_candidates, second_candidate
from .registry import AlgorithmSpec, alpha_above_half

#: θ is clipped into [THETA_CLIP, 1 − THETA_CLIP] before D(θ ‖ 1/2) (see Decisions).
THETA_CLIP = 1e-7

#: Index of ``zeta_star_over_candidates`` in the params array (``alpha`` is index 0, read by
#: :func:`duelbench.stats.confident_beats.cb_update_state`).
OVER_C = 1


@numba.njit(cache=True, inline="always")
def init(K, params):
    """State: counts B, confident-beat relation, params, scratch (masks of C and A(1), θ(1)
    (NaN where only its indicator is drawn), its indicators, sampled win counts, −R̃(1)),
    cached tails, Phase-2 values."""
    B = new_counts(K)
    cb = cb_new(K)
    in_C = np.zeros(K, dtype=np.bool_)
    in_A = np.zeros(K, dtype=np.bool_)
    theta = np.full((K, K), 0.5)
    wins = np.zeros(K, dtype=np.float64)
    neg_regret = np.zeros(K, dtype=np.float64)
    above = np.zeros((K, K), dtype=np.bool_)
    all_rows = np.ones(K, dtype=np.bool_)
    return B, cb, params, in_C, in_A, theta, wins, neg_regret, above, all_rows, tail_cache_new(K), np.zeros(K)


@numba.njit(cache=True, inline="always")
def divergence_to_half(theta):
    """D(θ ‖ 1/2) with θ clipped into [THETA_CLIP, 1 − THETA_CLIP]."""
    return kl_to_half(min(max(theta, THETA_CLIP), 1.0 - THETA_CLIP))


@numba.njit(cache=True, inline="always")
def draw_all_pairs(B, above, theta, wins, all_rows, cache, rng):
    """Lines 7–10 for every pair, indicators first (:func:`duelbench.stats.beta.sample_indicators`
    over all rows: θ(1)_ij for i < j in row-major order, θ(1)_ji = 1 − θ(1)_ij); ``theta``
    holds a value where one was drawn (NaN elsewhere); ``wins[i] = Σ_{j≠i} 1(θ(1)_ij > 1/2)``."""
    sample_indicators(B, cache, all_rows, above, theta, rng, True)
    K = B.shape[0]
    for i in range(K):
        wins[i] = 0.0
        for j in range(K):
            if j != i and above[i, j]:
                wins[i] += 1.0


@numba.njit(cache=True, inline="always")
def fill_row(B, above, theta, tails, i, rng):
    """The values θ(1)_ij of row i not drawn yet, each given its indicator (mirrored into θ(1)_ji);
    ``tails`` are the cached P(θ_ij > 1/2) of the pairs as drawn, (i, j) for i < j."""
    for j in range(B.shape[0]):
        if j != i and math.isnan(theta[i, j]):
            tail = tails[i, j] if i < j else 1.0 - tails[j, i]
            th = draw_given_side(B, i, j, above[i, j], tail, rng)
            theta[i, j] = th
            theta[j, i] = 1.0 - th


@numba.njit(cache=True, inline="always")
def estimated_regret(theta, wins, i, zeta_star):
    """R̃(1)_i = Σ_{j : θ_ij ≠ 1/2} r̃_ij / D(θ_ij ‖ 1/2), r̃_ij = ζ̃* − ½(ζ̃_i + ζ̃_j), ζ̃ = wins/(K − 1)."""
    K = theta.shape[0]
    zi = wins[i] / (K - 1)
    total = 0.0
    for j in range(K):
        if j == i or theta[i, j] == 0.5:
            continue
        r = zeta_star - 0.5 * (zi + wins[j] / (K - 1))
        total += r / divergence_to_half(theta[i, j])
    return total


@numba.njit(cache=True, inline="always")
def tie_break(B, above, theta, tails, wins, in_C, in_A, neg_regret, over_C, rng):
    """The two steps replacing line 11: A(1) (filled into ``in_A``), then a(1) = argmin of R̃(1)
    over A(1), ties uniformly at random; ``neg_regret[i] = −R̃(1)_i`` for i ∈ A(1), whose rows
    of θ(1) are completed first (:func:`fill_row`, rows in index order)."""
    K = theta.shape[0]
    top = -1.0
    for i in range(K):
        if in_C[i] and wins[i] > top:
            top = wins[i]
    size = 0
    member = -1
    for i in range(K):
        in_A[i] = in_C[i] and wins[i] == top
        if in_A[i]:
            size += 1
            member = i
    if size == 1:
        return member
    star = top
    if not over_C:
        for i in range(K):
            star = max(star, wins[i])
    zeta_star = star / (K - 1)
    for i in range(K):
        if in_A[i]:
            fill_row(B, above, theta, tails, i, rng)
    for i in range(K):
        neg_regret[i] = -estimated_regret(theta, wins, i, zeta_star) if in_A[i] else 0.0
    return argmax_random_tie(neg_regret, in_A, rng)


@numba.njit(cache=True, inline="always")
def first_candidate(B, n_lost, in_C, in_A, theta, wins, neg_regret, above, all_rows, cache, over_C, rng):
    """Lines 4–11 of D-TS+: C from the RUCB bounds, θ(1) for every pair, a(1) by the regret tie-break."""
    only = copeland_candidates(n_lost, in_C)
    if only >= 0:
        return only
    draw_all_pairs(B, above, theta, wins, all_rows, cache, rng)
    return tie_break(B, above, theta, cache[0], wins, in_C, in_A, neg_regret, over_C, rng)


@numba.njit(cache=True, inline="always")
def select(state, t, rng):
    B, cb, params, in_C, in_A, theta, wins, neg_regret, above, all_rows, cache, values = state
    cb_advance(cb, math.log(t))
    a1 = first_candidate(B, cb[1], in_C, in_A, theta, wins, neg_regret, above, all_rows, cache,
                         params[OVER_C] != 0.0, rng)
    return a1, second_candidate(B, cb[0], a1, cache, values, rng)


#: Line 17 (off-diagonal only) and the refresh of the pair's confidence status (D-TS's update).
update = cb_update_state


_alpha_above_half = alpha_above_half("dts_plus", "Wu & Liu, Proposition 1")


def validate(params: dict) -> None:
    """``alpha > 1/2`` (Wu & Liu, Proposition 1) and ``zeta_star_over_candidates`` ∈ {0, 1}."""
    _alpha_above_half(params)
    if params["zeta_star_over_candidates"] not in (0.0, 1.0):
        raise ValueError("dts_plus: zeta_star_over_candidates must be 0 (max over all arms, paper L815) or 1 "
                         f"(max over the candidate set C), got {params['zeta_star_over_candidates']}")


ALGORITHM = AlgorithmSpec(
    name="dts_plus",
    title="D-TS+",
    reference="Wu & Liu (NIPS 2016), Section 4.3 (D-TS+), alpha = 0.51 (L894-895)",
    defaults={"alpha": 0.51, "zeta_star_over_candidates": 0.0},
    steps=(init, select, update),
    validate=validate,
)

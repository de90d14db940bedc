"""Constants, thresholds and tie rules of the Thompson-sampling algorithms (D-TS, D-TS+, RCS) that
a golden trajectory can miss: the Beta(1, 1) prior of every posterior draw, the fixed 1/2 of
D-TS's second candidate, the candidate set C, and D-TS+'s regret tie-break inputs.  Each test
calls one compiled step function on a hand-made state."""

from __future__ import annotations

import numpy as np
import pytest

from duelbench.algorithms import dts, dts_plus, rcs
from duelbench.stats.beta import above_half, posterior_draw, tail_cache_new

#: Counts large enough that a Beta(B_ij + 1, B_ji + 1) draw lies within 0.002 of B_ij/(B_ij + B_ji):
#: a pair with a share 0.501 or further from 1/2 is above 1/2 with probability 1 − 1e-80 or more.
N = 1e6


def _rng(seed=0):
    return np.random.default_rng(np.random.SeedSequence(seed))


def _counts(K, shares):
    """Win counts ``B`` with ``B_ij = N·s``, ``B_ji = N·(1 − s)`` for ``shares = {(i, j): s}``."""
    B = np.zeros((K, K))
    for (i, j), s in shares.items():
        B[i, j], B[j, i] = N * s, N * (1.0 - s)
    return B


@pytest.mark.parametrize("wins, losses", [(0.0, 0.0), (3.0, 1.0), (0.0, 7.0)])
def test_posterior_draw_has_the_uniform_prior(wins, losses):
    """D-TS line 8 / RCS: θ_ij ~ Beta(B_ij + 1, B_ji + 1), one ``rng.beta`` call (Wu & Liu 2016, Alg. 1)."""
    B = np.array([[0.0, wins], [losses, 0.0]])
    got = [posterior_draw(B, 0, 1, r) for r in [_rng(s) for s in range(5)]]
    want = [_rng(s).beta(wins + 1.0, losses + 1.0) for s in range(5)]
    assert got == want


def test_copeland_candidates_keep_the_fewest_confident_losses():
    """D-TS lines 4–6: C = argmin of the confident losses; one member is returned, several as −|C|."""
    in_C = np.zeros(4, dtype=np.bool_)
    assert dts.copeland_candidates(np.array([2, 0, 1, 0]), in_C) == -2
    assert in_C.tolist() == [False, True, False, True]
    assert dts.copeland_candidates(np.array([1, 3, 0, 2]), in_C) == 2
    assert in_C.tolist() == [False, False, True, False]
    assert dts.copeland_candidates(np.array([0, 0, 0]), np.zeros(3, dtype=np.bool_)) == -3


@pytest.mark.parametrize("share, expected", [(0.55, 1), (0.45, 0), (0.501, 1)])
def test_second_candidate_must_beat_one_half(share, expected):
    """D-TS lines 13–14: a(2) is an arm whose sampled θ_{i a(1)} exceeds the fixed 1/2 of a(1)."""
    B = _counts(3, {(1, 0): share, (2, 0): 0.3})
    beats = np.zeros((3, 3), dtype=np.int64)
    assert dts.second_candidate(B, beats, 0, tail_cache_new(3), np.zeros(3), _rng()) == expected


def test_second_candidate_skips_arms_that_confidently_beat_the_first():
    """Line 14 ranges over arms i with l_{i a(1)} ≤ 1/2: a confident winner over a(1) is skipped."""
    B = _counts(3, {(1, 0): 0.9, (2, 0): 0.6})
    beats = np.zeros((3, 3), dtype=np.int64)

    def a2():
        return dts.second_candidate(B, beats, 0, tail_cache_new(3), np.zeros(3), _rng())

    assert a2() == 1
    beats[1, 0] = 1
    assert a2() == 2
    beats[2, 0] = 1
    assert a2() == 0


def test_first_candidate_counts_wins_above_one_half():
    """D-TS lines 7–11: the score of i counts the j with θ_ij > 1/2 (θ_ji = 1 − θ_ij within C)."""
    K = 3
    B = _counts(K, {(0, 1): 0.45, (0, 2): 0.45, (1, 2): 0.45})  # scores 0, 1, 2
    theta, score, above = np.zeros((K, K)), np.zeros(K), np.zeros((K, K), dtype=np.bool_)
    in_C = np.zeros(K, dtype=np.bool_)
    a1 = dts.first_candidate(B, np.zeros(K, dtype=np.int64), in_C, above, theta, score, tail_cache_new(K), _rng())
    assert a1 == 2 and score.tolist() == [0.0, 1.0, 2.0]
    assert all(np.isnan(theta[i, j]) for i in range(K) for j in range(K) if i != j)  # indicators only
    assert np.array_equal(above | above.T, ~np.eye(K, dtype=bool)) and not np.any(above & above.T)


def test_first_candidate_restricted_to_C():
    """Arms outside C get no score and cannot be a(1)."""
    K = 3
    B = _counts(K, {(0, 1): 0.45, (0, 2): 0.45, (1, 2): 0.45})
    theta, score, above = np.zeros((K, K)), np.zeros(K), np.zeros((K, K), dtype=np.bool_)
    a1 = dts.first_candidate(B, np.array([0, 0, 1]), np.zeros(K, dtype=np.bool_), above, theta, score,
                             tail_cache_new(K), _rng())
    assert a1 == 1 and score.tolist() == [0.0, 1.0, 0.0]


def test_dts_plus_draws_every_pair_and_counts_strict_wins():
    """D-TS+ lines 7–10: θ_ij for i < j row-major, θ_ji = 1 − θ_ij, wins count θ > 1/2; pairs
    compared this often are drawn as values outright (stats.beta.sample_indicators)."""
    K = 3
    B = _counts(K, {(0, 1): 0.6, (0, 2): 0.3, (1, 2): 0.45})
    theta, wins, above = np.full((K, K), 0.5), np.zeros(K), np.zeros((K, K), dtype=np.bool_)
    dts_plus.draw_all_pairs(B, above, theta, wins, np.ones(K, dtype=np.bool_), tail_cache_new(K), _rng(3))
    r = _rng(3)
    expect = [r.beta(B[i, j] + 1.0, B[j, i] + 1.0) for i, j in [(0, 1), (0, 2), (1, 2)]]
    assert [theta[0, 1], theta[0, 2], theta[1, 2]] == expect
    assert theta[1, 0] == 1.0 - expect[0] and theta[2, 1] == 1.0 - expect[2]
    assert wins.tolist() == [1.0, 0.0, 2.0]


def test_dts_plus_estimated_regret_by_hand():
    """R̃_i = Σ_{j: θ_ij ≠ 1/2} (ζ* − ½(ζ_i + ζ_j)) / D(θ_ij ‖ 1/2), ζ = wins/(K − 1) (Section 4.3)."""
    theta = np.array([[0.5, 0.7, 0.5], [0.3, 0.5, 0.2], [0.5, 0.8, 0.5]])
    wins = np.array([1.0, 0.0, 1.0])

    def kl(p):
        return p * np.log(2 * p) + (1 - p) * np.log(2 * (1 - p))

    zeta_star = 1.0 / 2
    want = (zeta_star - 0.5 * (0.5 + 0.0)) / kl(0.7)  # j = 2 skipped: θ_02 = 1/2
    assert dts_plus.estimated_regret(theta, wins, 0, zeta_star) == pytest.approx(want, rel=1e-12)
    want1 = (zeta_star - 0.25) / kl(0.3) + (zeta_star - 0.25) / kl(0.2)
    assert dts_plus.estimated_regret(theta, wins, 1, zeta_star) == pytest.approx(want1, rel=1e-12)
    assert dts_plus.divergence_to_half(0.0) == pytest.approx(kl(dts_plus.THETA_CLIP), rel=1e-12)
    assert dts_plus.divergence_to_half(1.0) == pytest.approx(kl(1 - dts_plus.THETA_CLIP), rel=1e-12)
    assert dts_plus.THETA_CLIP == 1e-7


@pytest.mark.parametrize("over_C", [False, True])
def test_dts_plus_tie_break_over_the_top_scored_candidates(over_C):
    """A(1) = the arms of C with the most sampled wins; ζ* over all arms (L815) or over C."""
    K = 4
    theta = np.array([[0.5, 0.7, 0.4, 0.6], [0.3, 0.5, 0.6, 0.1], [0.6, 0.4, 0.5, 0.1],
                      [0.4, 0.9, 0.9, 0.5]])
    wins = np.array([2.0, 1.0, 1.0, 2.0])
    in_C = np.array([True, True, True, False])
    in_A, neg = np.zeros(K, dtype=np.bool_), np.zeros(K)
    B, above = np.zeros((K, K)), theta > 0.5  # every value given: no row to complete

    def tie_break(wins):
        return dts_plus.tie_break(B, above, theta, np.zeros((K, K)), wins, in_C, in_A, neg, over_C, _rng())

    assert tie_break(wins) == 0  # A(1) = {0}
    assert in_A.tolist() == [True, False, False, False]
    wins = np.array([1.0, 1.0, 0.0, 3.0])
    a1 = tie_break(wins)
    assert in_A.tolist() == [True, True, False, False]
    zeta_star = (1.0 if over_C else 3.0) / (K - 1)
    want = [-dts_plus.estimated_regret(theta, wins, i, zeta_star) for i in (0, 1)]
    assert neg[:2].tolist() == want and neg[2:].tolist() == [0.0, 0.0]
    assert a1 == int(np.argmax(want))


def test_rcs_sample_winner_is_the_arm_beating_every_other():
    """RCS: c is the sample's Condorcet winner (θ_cj > 1/2 for every j ≠ c), none in a cycle."""
    K = 3
    W = _counts(K, {(0, 1): 0.3, (0, 2): 0.6, (1, 2): 0.7})  # 1 beats 0 and 2
    assert rcs.sample_condorcet_winner(W, tail_cache_new(K), _rng()) == 1
    W = _counts(K, {(0, 1): 0.3, (0, 2): 0.6, (1, 2): 0.3})  # a cycle
    assert rcs.sample_condorcet_winner(W, tail_cache_new(K), _rng()) == -1
    W = _counts(K, {(0, 1): 0.7, (0, 2): 0.6, (1, 2): 0.3})  # 0 beats both: met by the knockout only
    assert rcs.sample_condorcet_winner(W, tail_cache_new(K), _rng()) == 0


def test_rcs_least_champion_lowest_index_on_ties():
    """The fallback champion: fewest past champion turns, lowest index first."""
    assert rcs.least_champion(np.array([3, 1, 1, 2])) == 1
    assert rcs.least_champion(np.array([0, 0])) == 0
    assert rcs.least_champion(np.array([2, 5, 1])) == 2


# --- a posterior draw of exactly 1/2 ------------------------------------------------------------
# numpy's Beta(1, 1) sampler (Jöhnk's algorithm, also compiled by numba) returns U/(U + V) for its
# first two uniforms; with U = V = 1/4 the draw is exactly 1/2, the boundary of every "θ > 1/2"
# test.  ``_half_generator`` makes those two uniforms (SFC64 with a chosen state: its first
# outputs are a + b and (b ^ b >> 11) + 9c + 1).  The algorithms draw no such value for a
# decision: every indicator is one uniform below P(θ > 1/2), and a value is drawn only given its
# side, strictly above 1/2 (stats.beta.draw_above_half draws again at exactly 1/2).

_MASK = (1 << 64) - 1


def _half_generator():
    quarter = 1 << 62  # (2^62 >> 11)·2^-53 = 1/4
    a, b = quarter, 0
    c = ((quarter - (b ^ (b >> 11)) - 1) * pow(9, -1, 1 << 64)) & _MASK
    bg = np.random.SFC64(0)
    state = bg.state
    state["state"]["state"] = np.array([a, b, c, 0], dtype=np.uint64)
    state["has_uint32"], state["uinteger"] = 0, 0
    bg.state = state
    return np.random.Generator(bg)


def test_half_generator_draws_exactly_one_half():
    assert _half_generator().random(2).tolist() == [0.25, 0.25]
    assert posterior_draw(np.zeros((2, 2)), 0, 1, _half_generator()) == 0.5


def test_an_unobserved_pair_is_above_half_when_its_uniform_is_below_half():
    """No comparison yet: P(θ > 1/2) = 1/2 exactly, and the uniform 1/4 decides "above"; the
    mirrored pair is then below, and no value is drawn."""
    assert above_half(np.zeros((2, 2)), tail_cache_new(2), 0, 1, _half_generator())
    theta, wins, marks = np.zeros((2, 2)), np.zeros(2), np.zeros((2, 2), dtype=np.bool_)
    dts_plus.draw_all_pairs(np.zeros((2, 2)), marks, theta, wins, np.ones(2, dtype=np.bool_), tail_cache_new(2),
                            _half_generator())
    assert marks[0, 1] and not marks[1, 0] and wins.tolist() == [1.0, 0.0]


def test_dts_second_candidate_single_contender_needs_no_value():
    """Line 14 with one arm above 1/2 against a(1): it is a(2), whatever its value (none drawn)."""
    beats = np.zeros((2, 2), dtype=np.int64)
    rng = _half_generator()
    assert dts.second_candidate(np.zeros((2, 2)), beats, 1, tail_cache_new(2), np.zeros(2), rng) == 0
    assert rng.random() == 0.25  # one uniform used: the indicator

"""RMED1's list bookkeeping on hand-made states: the boundary of the L_N test, the pass pointer and
the second-arm rule (Komiyama et al., COLT 2015, as run by Komiyama et al. 2016, L305).

The reference test (tests/test_reference_rmed.py) compares whole trajectories; an exact tie of
``Î_j − Î_î*`` with ``ln t + f(K)`` never happens there, so the ``≤`` of the L_N test is pinned
here with values that are exact in floating point (dyadic ``Î``, ``t = 1`` so that ``ln t = 0``).
Each test calls one compiled step of :mod:`duelbench.algorithms.rmed` on a state from its
``init``.
"""

from __future__ import annotations

import numpy as np

from duelbench.algorithms import rmed

K = 4
PAIRS = K * (K - 1) // 2


def _state(f_scale, f_exponent=1.01):
    """A state past the initial pairs (``counters[0]`` = number of pairs)."""
    state = rmed.init(K, np.array([f_scale, f_exponent]))
    state[5][0] = PAIRS
    return state


def test_f_of_K_is_scale_times_K_to_the_exponent():
    """f(K) = 0.3 · K^1.01 (the defaults), formed once at init."""
    assert rmed.init(K, np.array([0.3, 1.01]))[6] == 0.3 * K ** 1.01
    assert rmed.init(K, np.array([0.5, 0.0]))[6] == 0.5


def test_list_admission_includes_the_threshold_itself():
    """L_N ← L_N ∪ {j ∉ L_R : Î_j − Î_î* ≤ ln t + f(K)}: an arm exactly at the threshold is admitted."""
    W, I_hat, in_LC, in_LR, in_LN, counters, f_K = state = _state(0.5, 0.0)  # f(K) = 1/2
    assert f_K == 0.5
    I_hat[:] = [0.75, 0.25, 1.0, 0.5]  # î* = 1, threshold 0.25 + ln 1 + 0.5 = 0.75
    in_LR[:] = [False, True, False, True]
    rmed.update(state, 3, 3, True, 1)  # a self-comparison: no count, Î unchanged
    assert in_LR.tolist() == [False, True, False, False]
    assert in_LN.tolist() == [True, False, False, True]  # 0 exactly at 0.75, 2 above, 1 still in L_R
    assert counters[1] == 4


def test_list_admission_of_ties_at_the_minimum():
    """With ln t + f(K) = 0 the threshold is Î_î* itself: every arm tied with î* outside L_R is admitted."""
    W, I_hat, in_LC, in_LR, in_LN, counters, f_K = state = _state(0.0)
    I_hat[:] = [0.5, 0.25, 0.25, 0.25]
    in_LR[:] = [False, False, True, True]
    rmed.update(state, 2, 2, False, 1)
    assert in_LN.tolist() == [False, True, True, False]


def test_update_counts_the_outcome_and_refreshes_both_divergences():
    """Î_i = Σ_{j: μ̂_ij ≤ 1/2} N_ij d(μ̂_ij) for the two arms of the comparison, after counting it."""
    W, I_hat, in_LC, in_LR, in_LN, counters, f_K = state = _state(0.3)
    W[0, 1], W[1, 0] = 3.0, 1.0
    rmed.update(state, 0, 1, False, 7)  # 1 beats 0: μ̂_01 = 3/5
    assert W[1, 0] == 2.0 and W[0, 1] == 3.0
    assert I_hat[0] == 0.0  # μ̂_01 = 0.6 > 1/2; μ̂_02 = μ̂_03 = 1/2 with N = 0
    assert I_hat[1] == rmed.divergence_of(W, 1) > 0.0
    assert in_LR.tolist() == [False, True, True, True]


def test_next_first_arm_walks_L_C_then_swaps_in_L_N():
    """Increasing index within a pass; at its end L_C, L_R ← L_N and L_N ← ∅."""
    W, I_hat, in_LC, in_LR, in_LN, counters, f_K = state = _state(0.3)
    in_LC[:] = [False, True, False, True]
    assert rmed.next_first_arm(state) == 1 and counters[1] == 1  # the pass pointer sits on l
    counters[1] = 2
    assert rmed.next_first_arm(state) == 3 and counters[1] == 3
    counters[1] = 4
    in_LN[:] = [True, False, True, False]
    assert rmed.next_first_arm(state) == 0 and counters[1] == 0  # the new pass starts at index 0
    assert in_LC.tolist() == [True, False, True, False] == in_LR.tolist()
    assert not in_LN.any()


def test_second_arm_prefers_the_best_arm_then_the_arm_beating_l_most():
    """m = î* if μ̂_l î* ≤ 1/2, else argmin_{j: μ̂_lj ≤ 1/2} μ̂_lj (lowest index on ties), else l."""
    W, I_hat, in_LC, in_LR, in_LN, counters, f_K = state = _state(0.3)
    W[:] = 0.0
    W[0, 1], W[1, 0] = 2.0, 2.0  # μ̂_01 = 1/2: Ô_0 ∋ 1
    W[0, 2], W[2, 0] = 1.0, 3.0  # μ̂_02 = 1/4
    W[0, 3], W[3, 0] = 3.0, 1.0  # μ̂_03 = 3/4
    I_hat[:] = [1.0, 0.5, 0.75, 0.25]  # î* = 3, not in Ô_0
    assert rmed.choose_second_arm(state, 0) == 2
    I_hat[:] = [1.0, 0.25, 0.75, 0.5]  # î* = 1 with μ̂_01 = 1/2 exactly
    assert rmed.choose_second_arm(state, 0) == 1
    W[0, 2], W[2, 0] = 2.0, 2.0  # μ̂_02 = 1/2 = μ̂_01: lowest index
    I_hat[:] = [1.0, 0.5, 0.75, 0.25]
    assert rmed.choose_second_arm(state, 0) == 1
    W[0, 1], W[0, 2] = 3.0, 3.0  # l beats every arm: m = l
    assert rmed.choose_second_arm(state, 0) == 0
    assert rmed.choose_second_arm(state, 3) == 0  # l = î* = 3: the arm beating it most, μ̂_30 = 1/4


def test_best_arm_lowest_index_on_ties():
    assert rmed.best_arm(np.array([0.5, 0.25, 0.25, 1.0])) == 1
    assert rmed.best_arm(np.array([0.0, 0.0])) == 0

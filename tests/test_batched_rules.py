"""Rules of the batched algorithms (Agarwal, Ghuge & Nagarajan, ICML 2022) on hand-made states:
the seed set's Bernoulli draw (Algorithms 2 and 3, line 3) and SCOMP2's candidate (Algorithm 3,
line 6, with the tie rules of :mod:`duelbench.algorithms.batched`).

Whole runs rarely reach these cases (a uniform exactly equal to the seed probability; a γ-cycle
that leaves no seed undefeated), so each test calls one compiled helper directly.  The state
passed to :func:`~duelbench.algorithms.batched._candidate` holds only the counts it reads.
"""

from __future__ import annotations

import numpy as np
import pytest

from duelbench.algorithms import batched
from duelbench.algorithms.registry import canonical_params, params_array

K = 4
T = 100_000


def _generator_starting_at(u64: int) -> np.random.Generator:
    """A generator whose first 64-bit output is ``u64`` (SFC64 with state a = u64, b = c = counter = 0),
    so its first ``random()`` is ``(u64 >> 11)·2⁻⁵³``."""
    bg = np.random.SFC64(0)
    state = bg.state
    state["state"]["state"] = np.array([u64, 0, 0, 0], dtype=np.uint64)
    state["has_uint32"], state["uinteger"] = 0, 0
    bg.state = state
    return np.random.Generator(bg)


def test_seed_set_draw_is_u_strictly_below_p():
    """Line 3: arm a joins S iff its uniform u_a < p = K^(−1/2) (= 1/2 for K = 4), in arm order."""
    u = _generator_starting_at(1 << 63).random(K)
    assert u.tolist()[:3] == [0.5, 0.0, 0.5] and u[3] > 0.5  # u = p exactly for arms 0 and 2
    log = np.zeros(batched.log_length(K, 16), dtype=np.int64)
    batched._log_init(log, K)
    seed = np.zeros(K, dtype=np.bool_)
    assert batched._draw_seed_set(_generator_starting_at(1 << 63), seed, 0.5, log) == 1
    assert seed.tolist() == [False, True, False, False]
    in_seed = [log[batched._arm_slot(log, batched.ARM_IN_SEED, a)] for a in range(K)]
    assert in_seed == [0, 1, 0, 0]


def _setting(all_kl=False):
    """The γ-rules (``elimination`` = 1), or the KL rule everywhere (``all_kl`` = 1)."""
    flags = {"all_kl": 1.0} if all_kl else {"elimination": 1.0}
    params = params_array("scomp2", canonical_params("scomp2", flags))
    return batched._setting(K, T, params, batched.SCOMP2)


def _candidate(wins, seed, all_kl=False):
    """SCOMP2's candidate for the counts ``wins`` (``wins[i, j]``: i beat j; the fresh counts and,
    with ``all_kl``, the KL counts) and the seed mask."""
    Wb = np.zeros((K, K))
    for (i, j), w in wins.items():
        Wb[i, j] = w
    st = batched._State(None, None, None, Wb.copy(), Wb, Wb, None, None, None)
    return batched._candidate(st, _setting(all_kl), np.array(seed, dtype=np.bool_))


def test_candidate_without_an_undefeated_seed_is_a_seed_of_least_worst_estimate():
    """A γ-cycle 0 → 1 → 2 → 0 in S = {0, 1, 2} leaves no arm undefeated: the candidate is the seed
    with the smallest max_{j ∈ S} P̂_{j,i} — never the arm outside S (which has no estimate)."""
    n = 1000.0
    # P̂_01 = 0.8, P̂_12 = 1.0, P̂_20 = 0.9: worst(0) = 0.9, worst(1) = 0.8, worst(2) = 1.0
    wins = {(0, 1): 0.8 * n, (1, 0): 0.2 * n, (1, 2): n, (2, 0): 0.9 * n, (0, 2): 0.1 * n}
    s = _setting()
    level = batched._gamma_level(batched.GAMMA_1_SQ, s.log_inv_delta)
    for i, j in ((0, 1), (1, 2), (2, 0)):
        Wb = np.zeros((K, K))
        for (a, b), w in wins.items():
            Wb[a, b] = w
        assert batched._gamma_beats(Wb, i, j, level)  # every seed is beaten by γ
    assert _candidate(wins, [True, True, True, False]) == 1


def test_candidate_is_an_undefeated_seed_when_there_is_one():
    n = 1000.0
    # 2 beats 0 and 1 by far more than γ; 0 against 1 is even
    wins = {(2, 0): n, (2, 1): n, (0, 1): 0.5 * n, (1, 0): 0.5 * n}
    assert _candidate(wins, [True, True, True, False]) == 2
    # among several undefeated seeds: the smallest worst estimate, then the lowest index
    assert _candidate({(0, 1): 0.55 * n, (1, 0): 0.45 * n}, [True, True, False, False]) == 0
    assert _candidate({(0, 1): 0.45 * n, (1, 0): 0.55 * n}, [True, True, False, False]) == 1
    assert _candidate({}, [False, True, True, True]) == 1  # every P̂ = 1/2 (0/0): a tie


@pytest.mark.parametrize("seed", [[True, False, False, False], [False, False, True, False]])
def test_single_seed_is_its_own_candidate(seed):
    assert _candidate({}, seed) == seed.index(True)


def test_undefeated_seed_beats_defeated_seeds_of_smaller_worst_estimate():
    """Undefeated arms first, whatever their estimates: with the KL counts of ``all_kl`` (all the
    run's comparisons, so N differs between pairs) arm 2 is undefeated with P̂_02 = 0.7 on 10
    comparisons, arm 0 is beaten by arm 1 with P̂_10 = 0.6 on 10⁴ — the candidate is 2, not 0."""
    wins = {(1, 0): 6000.0, (0, 1): 4000.0, (0, 2): 7.0, (2, 0): 3.0, (2, 1): 9000.0, (1, 2): 1000.0}
    assert _setting(True).all_kl
    assert _candidate(wins, [True, True, True, False], all_kl=True) == 2
    wins[(0, 2)], wins[(2, 0)] = 7000.0, 3000.0  # now 0 beats 2 too: nobody undefeated, least worst 0.6
    assert _candidate(wins, [True, True, True, False], all_kl=True) == 0


def test_candidate_reads_only_pairs_inside_the_seed_set():
    """max_{j ∈ S, j ≠ i} P̂_{j,i} and the beats of line 6 range over S only: counts of an arm
    outside S (left in the fresh counts by an earlier r(2) batch) do not count."""
    n = 1000.0
    wins = {(0, 1): 0.55 * n, (1, 0): 0.45 * n}
    assert _candidate(wins, [True, True, False, False]) == 0
    wins[(2, 0)] = n  # arm 2 ∉ S crushed arm 0 in an earlier batch
    assert _candidate(wins, [True, True, False, False]) == 0

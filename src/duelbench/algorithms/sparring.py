"""Sparring — two singleton bandit machines (SBMs) duelling each other (Ailon, Karnin & Joachims,
ICML 2014), with UCB machines, as Wu & Liu (NIPS 2016) ran it as a baseline (paper 004 L892–893).

Each machine m ∈ {1, 2} is an ordinary K-armed bandit algorithm with statistics of its own:
n_m(k), the number of steps at which it proposed arm k, and S_m(k), the reward it received for
them.  At step t = 1, 2, … (natural log of the current t)::

    index_m(k) = S_m(k)/n_m(k) + sqrt((α + 2) ln t / (2 n_m(k)))    if n_m(k) ≥ 1
    index_m(k) = 1                                                     if n_m(k) = 0
    a(m) = the lowest k with the largest index_m(k)        (m = 1, 2; each machine alone)
    compare (a(1), a(2)); w = 1 if a(1) wins, else 0
    machine 1: n_1(a(1)) += 1, S_1(a(1)) += w
    machine 2: n_2(a(2)) += 1, S_2(a(2)) += 1 − w

α = 3.0 by default, so the width is sqrt(2.5 ln t / n).  Ailon et al. analyse the reduction for
utility-based preferences (P_ij = (1 + u_i − u_j)/2) and conjecture its regret; on such
instances both machines concentrate on the arm of largest utility.

Decisions
---------
* **The machines and α.**  Wu & Liu list Sparring among their baselines without any parameter
  (L892–897) and Ailon et al. leave the choice of SBM open.  The UCB index above, the default
  α = 3.0 and the two conventions below are those of the authors' public experiment code
  (https://github.com/HuasenWu/DuelingBandits: ``SBM.cpp``; ``sbm_scale_factor = 3.0`` in
  ``DuelingBandit.cpp``), which produced Wu & Liu's figures.  ``alpha`` must be > 0.
* **Unplayed arms have index 1**, as in that code, not +∞: they are not played first.  At t = 1
  every index is 1 and both machines propose the lowest-labelled arm; a machine keeps proposing
  an arm while its index exceeds 1 — for an arm of empirical mean m̂ < 1 after n proposals, while
  n ≤ (α + 2) ln t / (2 (1 − m̂)²), i.e. n ≤ 10 ln t at m̂ = 1/2 and α = 3 (about 37 proposals of the
  first arm) — and turns to the lowest-labelled unplayed arm once every played arm's index has
  fallen below 1 (an arm whose rewards are all 1 keeps an index above 1).  Over the early steps
  the arms are thus explored in long blocks rather than once each.
* **Ties: the lowest arm index** (the code's strict comparison from arm 0 upwards), for the
  unplayed arms among themselves as for played ones.  The engine relabels the arms at random in
  every run (as Wu & Liu do, L898–899), so the rule favours no arm of the instance.  Sparring
  therefore draws no random number: given the duel outcomes it is deterministic.
* **a(1) = a(2).**  The engine's duel of an arm with itself is a fair coin (P_kk = 1/2);
  machine 1 receives its outcome w and machine 2 receives 1 − w, as at every other step (the
  authors' code does the same).  The two machines never read each other's statistics.
* **Exact statistics.**  The authors' code starts every count at 10⁻⁶ and every reward sum at
  5·10⁻⁶ (to avoid 0/0); here n and S are exact integers and an unplayed arm is a separate case.
  The difference moves an index by less than 5·10⁻⁶/n and can only change a comparison of two
  indices closer than that.
* ``ln t`` with t = 1, 2, … as in :mod:`duelbench.stats.bounds` (the code's
  ``log(ind_slot + 1)`` with ``ind_slot`` = 0, 1, … is the same), computed once per step for
  both machines.
"""

import math

import numba
import numpy as np

from .registry import AlgorithmSpec

#: Position of α in the parameter array.
ALPHA = 0
#: Index of an arm the machine has never proposed (the authors' code; see Decisions).
UNPLAYED_INDEX = 1.0


@numba.njit(cache=True, inline="always")
def init(K, params):
    """State: proposals n (2 × K, row m − 1 for machine m), reward sums S (2 × K), params."""
    plays = np.zeros((2, K), dtype=np.float64)
    rewards = np.zeros((2, K), dtype=np.float64)
    return plays, rewards, params


@numba.njit(cache=True, inline="always")
def sbm_choose(plays, rewards, m, level):
    """The arm proposed by machine ``m`` (row ``m`` of the statistics): the lowest k with the
    largest ``S/n + sqrt(level/n)`` (index 1 if n = 0), ``level = (α + 2) ln t / 2``.

    ``level / n`` equals ``(α + 2) ln t / (2 n)`` bit for bit (halving is exact).
    """
    best = -np.inf
    arm = -1
    for k in range(plays.shape[1]):
        n = plays[m, k]
        if n == 0.0:
            v = UNPLAYED_INDEX
        else:
            v = rewards[m, k] / n + math.sqrt(level / n)
        if v > best:
            best = v
            arm = k
    return arm


@numba.njit(cache=True, inline="always")
def select(state, t, rng):
    """a(1) from machine 1, a(2) from machine 2, independently (no random draw)."""
    plays, rewards, params = state
    level = (params[ALPHA] + 2.0) * math.log(t) / 2.0
    return sbm_choose(plays, rewards, 0, level), sbm_choose(plays, rewards, 1, level)


@numba.njit(cache=True, inline="always")
def update(state, i, j, i_won, t):
    """Machine 1 proposed i and is rewarded iff i won; machine 2 proposed j, rewarded iff i lost."""
    plays, rewards, params = state
    plays[0, i] += 1.0
    plays[1, j] += 1.0
    if i_won:
        rewards[0, i] += 1.0
    else:
        rewards[1, j] += 1.0


def validate(params: dict) -> None:
    """``alpha`` > 0."""
    if not params["alpha"] > 0.0:
        raise ValueError(f"sparring: alpha must be > 0, got {params['alpha']}")


ALGORITHM = AlgorithmSpec(
    name="sparring",
    title="Sparring",
    reference=("Ailon, Karnin & Joachims (ICML 2014), Sparring with UCB machines, a baseline of Wu & Liu "
               "(NIPS 2016, L892-893); alpha = 3.0 from the authors' code (no value printed)"),
    defaults={"alpha": 3.0},
    steps=(init, select, update),
    validate=validate,
)

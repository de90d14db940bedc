"""Random — uniformly random comparisons (the baseline of Komiyama et al. 2016, paper 000 L305).

"Uniformly random sampling among pairs" (L305) does not say whether a pair may repeat an arm.

Decisions
---------
* Both arms are drawn independently and uniformly from [K], so (i, i) has probability 1/K —
  the convention of the authors' public COLT-2015 library
  (https://github.com/jkomiyama/duelingbanditlib, ``policy/policy_random.hpp``).
  Its per-step expected Copeland regret is the mean of r over all K² ordered pairs.
"""

import numba

from duelbench.stats.choice import uniform_index

from .registry import AlgorithmSpec


@numba.njit(cache=True, inline="always")
def init(K, params):
    return (K,)


@numba.njit(cache=True, inline="always")
def select(state, t, rng):
    K = state[0]
    i = uniform_index(K, rng)
    j = uniform_index(K, rng)
    return i, j


@numba.njit(cache=True, inline="always")
def update(state, i, j, i_won, t):
    return


ALGORITHM = AlgorithmSpec(
    name="random",
    title="Random",
    reference="Komiyama et al. (2016) L305: uniformly random pairs (ordered, with replacement)",
    defaults={},
    steps=(init, select, update),
)

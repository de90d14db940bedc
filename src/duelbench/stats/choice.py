"""Random choices made the same way by every algorithm, on both code paths.

Each consumes a fixed, documented number of uniform draws from the run's generator, so the
compiled and the pure-Python path (``NUMBA_DISABLE_JIT=1``) stay on the same random stream.
"""

import numba
import numpy as np


@numba.njit(cache=True, inline="always")
def uniform_index(n, rng):
    """A uniform integer in ``[0, n)`` from one uniform draw (identical on both code paths)."""
    k = int(rng.random() * n)
    return k if k < n else n - 1


@numba.njit(cache=True, inline="always")
def argmax_random_tie(values, mask, rng):
    """Index of the maximum of ``values[mask]``, ties broken uniformly at random; −1 if none.

    One uniform draw is consumed only when there is a tie.
    """
    best = -np.inf
    count = 0
    for k in range(values.shape[0]):
        if not mask[k]:
            continue
        if values[k] > best:
            best = values[k]
            count = 1
        elif values[k] == best:
            count += 1
    if count == 0:
        return -1
    pick = 0 if count == 1 else uniform_index(count, rng)
    for k in range(values.shape[0]):
        if mask[k] and values[k] == best:
            if pick == 0:
                return k
            pick -= 1
    return -1

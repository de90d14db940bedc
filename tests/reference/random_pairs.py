"""Reference for ``random`` (Komiyama et al. 2016, L305): both arms uniform on [K], independently.

A uniform integer on [0, K) is ``floor(u·K)`` of one uniform draw u (clipped to K − 1).
"""

import math


class ReferenceRandom:
    def __init__(self, K, horizon, params):
        self.K = K

    def _uniform(self, rng):
        return min(int(math.floor(rng.random() * self.K)), self.K - 1)

    def select(self, t, rng):
        return self._uniform(rng), self._uniform(rng)

    def update(self, i, j, i_won, t):
        pass

"""Reference for ``sparring``: Sparring (Ailon, Karnin & Joachims, ICML 2014) with two UCB
machines, as Wu & Liu (NIPS 2016, paper 004 L892–893) ran it, recomputed at every step.

Machine m ∈ {1, 2} keeps its own list of proposals and rewards per arm; at step t every index
of both machines is computed afresh from those integers (natural log of the current t)::

    index_m(k) = S_m(k)/n_m(k) + sqrt((α + 2) ln t / (2 n_m(k))),   index_m(k) = 1 if n_m(k) = 0
    a(m) = min { k : index_m(k) = max_l index_m(l) }
    compare (a(1), a(2)); machine 1 is rewarded w = 1{a(1) wins}, machine 2 gets 1 − w

The module's documented decisions are reproduced: index 1 for an unplayed arm, ties to the
lowest arm index, a self-duel's coin rewarding machine 1 with w and machine 2 with 1 − w.  No
random number is drawn.  ``events`` counts the branches taken: a tie among several maximal
indices, the choice of an unplayed arm while some arm is played, a(1) = a(2), a(1) ≠ a(2).

Only the standard library is used: no ``duelbench`` helper.
"""

import math


class ReferenceSparring:
    def __init__(self, K, horizon, params):
        self.K = K
        self.alpha = float(params["alpha"])
        self.n = [[0] * K, [0] * K]  # proposals per machine and arm (integers)
        self.S = [[0] * K, [0] * K]  # rewards per machine and arm (integers)
        self.events = dict.fromkeys(("tie", "unplayed_chosen", "same_arm", "different_arms"), 0)

    def indices(self, m, t):
        """All K indices of machine m (0 or 1) at time t."""
        log_t = math.log(t)
        out = []
        for k in range(self.K):
            n = self.n[m][k]
            if n == 0:
                out.append(1.0)
            else:
                out.append(self.S[m][k] / n + math.sqrt((self.alpha + 2) * log_t / (2 * n)))
        return out

    def choose(self, m, t):
        idx = self.indices(m, t)
        top = max(idx)
        winners = [k for k in range(self.K) if idx[k] == top]
        if len(winners) > 1:
            self.events["tie"] += 1
        k = winners[0]
        if self.n[m][k] == 0 and any(self.n[m]):
            self.events["unplayed_chosen"] += 1
        return k

    def select(self, t, rng):
        a1, a2 = self.choose(0, t), self.choose(1, t)
        self.events["same_arm" if a1 == a2 else "different_arms"] += 1
        return a1, a2

    def update(self, i, j, i_won, t):
        self.n[0][i] += 1
        self.n[1][j] += 1
        self.S[0][i] += 1 if i_won else 0
        self.S[1][j] += 0 if i_won else 1

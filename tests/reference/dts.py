"""Reference for ``dts``: D-TS (Wu & Liu, NIPS 2016, Algorithm 1, paper 004 L272–363), α = 0.51,
recomputed from the win counts B at every step.

One step at time t = 1, 2, … (natural log of the current t)::

    4:  u_ij, l_ij = B_ij/(B_ij+B_ji) ± sqrt(α ln t/(B_ij+B_ji)),  u_ii = l_ii = 1/2,
        "x/0 := 1" (unobserved pair: u = 1 + 1 = 2, l = 1 − 1 = 0)
    5:  ζ̂_i = #{j ≠ i : u_ij ≥ 1/2}/(K − 1)
    6:  C = argmax ζ̂
    7–10: θ(1)_ij ~ Beta(B_ij + 1, B_ji + 1), θ(1)_ji = 1 − θ(1)_ij, read only as 1(θ(1)_ij > 1/2)
    11: a(1) = argmax_{i ∈ C} #{j ≠ i : θ(1)_ij > 1/2}, ties uniformly at random
    13: θ(2)_{i a(1)} ~ Beta(B_{i a(1)} + 1, B_{a(1) i} + 1) for i ≠ a(1), θ(2)_{a(1) a(1)} = 1/2
    14: a(2) = argmax_{i : l_{i a(1)} ≤ 1/2} θ(2)_{i a(1)}, ties to the lowest index
    16–17: compare (a(1), a(2)); B[winner, loser] += 1 (a self-comparison is not counted)

The module's documented decisions are reproduced: line 5's "u_ij > 1/2" is read with the suite's
boundary convention (a bound exactly 1/2 does not exclude 1/2, so it counts as ≥); Phase 2 reads
column a(1) of the posterior; line 14 ties go to the lowest index.

Random stream (the order in which the compiled code draws; a posterior sample is drawn as its
indicator 1(θ > 1/2) and, where needed, its value given that side, by
:mod:`reference.beta_sampling`; ``rng.random()`` for a uniform index):

* Phase 1 draws nothing when |C| = 1.  Otherwise only the rows i ∈ C are sampled, row by row in
  increasing i and, within a row, in increasing j ≠ i: the indicator of θ(1)_ij is mirrored
  (θ(1)_ji not above 1/2) when θ(1)_ji was already drawn at this step (that is, j ∈ C and
  j < i), else drawn fresh;
* line 11: a uniform index ``floor(n · rng.random())`` on the n tied arms of C (increasing
  order), drawn only when n ≥ 2;
* line 13: the indicators θ(2)_{i a(1)} > 1/2 for the arms eligible at line 14 (i ≠ a(1) with
  l_{i a(1)} ≤ 1/2), in increasing i; with two or more above 1/2, their values given θ > 1/2
  (in increasing i).

Only the standard library is used (plus the generator passed in): no ``duelbench`` helper.
"""

import math

from .beta_sampling import draw_above_half, indicator
from .driver import count_expiries
from .rucb_bounds import lower, upper


class ReferenceDTS:
    def __init__(self, K, horizon, params):
        self.K = K
        self.alpha = float(params["alpha"])
        self.B = [[0] * K for _ in range(K)]  # B[i][j] = wins of i over j (integers)
        self.events = dict.fromkeys(
            ("C_single", "C_multi", "mirrored", "vote_tie", "excluded", "a2_is_a1", "expired"), 0)
        self.expiry_times = []  # the steps t at which such expiries were seen
        self._resolved = set()
        self._compared = None

    def _u(self, i, j, log_t):
        return upper(self.B, i, j, self.alpha, log_t)

    def _l(self, i, j, log_t):
        return lower(self.B, i, j, self.alpha, log_t)

    def select(self, t, rng):
        K, Bc = self.K, self.B
        log_t = math.log(t)

        # Phase 1, lines 4–6.
        U = [[self._u(i, j, log_t) for j in range(K)] for i in range(K)]
        self._count_expiries(U, t)
        zeta = [sum(1 for j in range(K) if j != i and U[i][j] >= 0.5) / (K - 1) for i in range(K)]
        C = [i for i in range(K) if zeta[i] == max(zeta)]

        # Lines 7–11.
        if len(C) == 1:
            self.events["C_single"] += 1
            a1 = C[0]
        else:
            self.events["C_multi"] += 1
            above = {}
            for i in C:
                for j in range(K):
                    if j == i:
                        continue
                    if (j, i) in above:
                        above[i, j] = not above[j, i]
                        self.events["mirrored"] += 1
                    else:
                        above[i, j] = indicator(Bc, i, j, rng)
            votes = {i: sum(1 for j in range(K) if j != i and above[i, j]) for i in C}
            top = max(votes.values())
            ties = [i for i in C if votes[i] == top]
            if len(ties) == 1:
                a1 = ties[0]
            else:
                self.events["vote_tie"] += 1
                a1 = ties[min(int(math.floor(rng.random() * len(ties))), len(ties) - 1)]

        return a1, self._second(a1, log_t, rng)

    def _second(self, a1, log_t, rng):
        """Phase 2, lines 13–14: the second arm against the first candidate ``a1``."""
        K, Bc = self.K, self.B
        eligible = [i for i in range(K) if i == a1 or self._l(i, a1, log_t) <= 0.5]
        self.events["excluded"] += K - len(eligible)
        drawn = {i: indicator(Bc, i, a1, rng) for i in eligible if i != a1}
        contenders = [i for i in sorted(drawn) if drawn[i]]
        if len(contenders) <= 1:
            a2 = contenders[0] if contenders else a1
        else:
            theta2 = {}
            for i in contenders:
                theta2[i] = draw_above_half(Bc[i][a1], Bc[a1][i], rng)
            top = max(theta2.values())
            a2 = min(i for i in contenders if theta2[i] == top)
        if a2 == a1:
            self.events["a2_is_a1"] += 1
        return a2

    def _count_expiries(self, U, t):
        count_expiries(self, U, t)

    def update(self, i, j, i_won, t):
        self._compared = (min(i, j), max(i, j))
        if i == j:
            return
        if i_won:
            self.B[i][j] += 1
        else:
            self.B[j][i] += 1

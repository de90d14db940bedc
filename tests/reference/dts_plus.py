"""Reference for ``dts_plus``: D-TS+ (Wu & Liu, NIPS 2016, Section 4.3, paper 004 L791–879), α = 0.51,
recomputed from the win counts B at every step.

One step at time t = 1, 2, … (natural log of the current t)::

    4:  u_ij, l_ij = B_ij/(B_ij+B_ji) ± sqrt(α ln t/(B_ij+B_ji)),  u_ii = l_ii = 1/2,
        "x/0 := 1" (unobserved pair: u = 2, l = 0)
    5–6: C = argmax_i #{j ≠ i : u_ij ≥ 1/2}
    7–10: θ(1)_ij ~ Beta(B_ij + 1, B_ji + 1), θ(1)_ji = 1 − θ(1)_ij
    11 (replaced, L822–863):
        w_i = #{j ≠ i : θ(1)_ij > 1/2},  ζ̃_i = w_i/(K − 1)
        A(1) = {i ∈ C : w_i = max_{k ∈ C} w_k}
        ζ̃* = max over all arms of ζ̃ (or over C: variant zeta_star_over_candidates = 1)
        r̃_ij = ζ̃* − ½(ζ̃_i + ζ̃_j)
        R̃_i = Σ_{j ≠ i, θ(1)_ij ≠ 1/2} r̃_ij / D(θ(1)_ij ‖ 1/2), θ clipped into [1e-7, 1 − 1e-7]
        a(1) = argmin_{i ∈ A(1)} R̃_i, ties uniformly at random
    13: θ(2)_{i a(1)} ~ Beta(B_{i a(1)} + 1, B_{a(1) i} + 1) for i ≠ a(1), θ(2)_{a(1) a(1)} = 1/2
    14: a(2) = argmax_{i : l_{i a(1)} ≤ 1/2} θ(2)_{i a(1)}, ties to the lowest index
    16–17: compare (a(1), a(2)); B[winner, loser] += 1 (a self-comparison is not counted)

Random stream (the order in which the compiled code draws; ``rng.beta(a, b)`` with float
arguments for a posterior sample, ``rng.random()`` for a uniform index):

* Phase 1 draws nothing when |C| = 1 (a(1) is the member of C).  Otherwise the indicator of
  every unordered pair once, i < j, i increasing then j increasing (the value, for a pair
  compared more than 4096 times: :func:`reference.beta_sampling.indicator_or_value`); when
  |A(1)| ≥ 2, the values of the rows of A(1) still
  missing, rows in increasing i, each given its indicator's side;
* the argmin: a uniform index ``floor(n · rng.random())`` on the n minimisers (increasing
  order), drawn only when |A(1)| ≥ 2 and n ≥ 2;
* line 13: fresh samples only for the arms eligible at line 14 (i ≠ a(1) with l_{i a(1)} ≤ 1/2),
  in increasing i.

Sums are accumulated left to right in a plain loop (``sum`` of floats may compensate rounding).
Only the standard library is used (plus the generator passed in): no ``duelbench`` helper.
"""

import math

from .beta_sampling import draw_given_side, indicator_or_value
from .driver import count_expiries
from .dts import ReferenceDTS

CLIP = 1e-7


def divergence_to_half(x):
    """D(x ‖ 1/2) = x ln(2x) + (1 − x) ln(2(1 − x)), x clipped into [1e-7, 1 − 1e-7]."""
    x = min(max(x, CLIP), 1.0 - CLIP)
    return x * math.log(2.0 * x) + (1.0 - x) * math.log(2.0 * (1.0 - x))


class ReferenceDTSPlus(ReferenceDTS):
    """D-TS+: D-TS's bounds, phase 2 and counts (:class:`reference.dts.ReferenceDTS`), its own
    first candidate (Section 4.3)."""

    def __init__(self, K, horizon, params):
        super().__init__(K, horizon, params)
        self.over_C = float(params["zeta_star_over_candidates"]) == 1.0
        self.events = dict.fromkeys(
            ("C_single", "C_multi", "A_single", "A_multi", "argmin_not_lowest", "argmin_tie", "excluded",
             "a2_is_a1", "expired"), 0)
        self.negative_r = 0  # r̃_ij < 0 met in an R̃ (only possible with ζ̃* over C)

    def sampled_regret(self, theta, wins, i, zeta_star):
        """R̃_i from the sampled matrix ``theta`` and win counts ``wins``."""
        K = self.K
        total = 0.0
        for j in range(K):
            if j == i or theta[i][j] == 0.5:
                continue
            r = zeta_star - 0.5 * (wins[i] / (K - 1) + wins[j] / (K - 1))
            if r < 0:
                self.negative_r += 1
            total += r / divergence_to_half(theta[i][j])
        return total

    def select(self, t, rng):
        K, Bc = self.K, self.B
        log_t = math.log(t)

        U = [[self._u(i, j, log_t) for j in range(K)] for i in range(K)]
        count_expiries(self, U, t)
        optimistic = [sum(1 for j in range(K) if j != i and U[i][j] >= 0.5) for i in range(K)]
        C = [i for i in range(K) if optimistic[i] == max(optimistic)]

        if len(C) == 1:
            self.events["C_single"] += 1
            a1 = C[0]
        else:
            self.events["C_multi"] += 1
            theta = [[None] * K for _ in range(K)]
            above = [[False] * K for _ in range(K)]
            for i in range(K):
                for j in range(i + 1, K):
                    above[i][j], value = indicator_or_value(Bc, i, j, rng)
                    above[j][i] = not above[i][j] and value != 0.5
                    if value is not None:
                        theta[i][j], theta[j][i] = value, 1.0 - value
            wins = [sum(1 for j in range(K) if j != i and above[i][j]) for i in range(K)]
            top = max(wins[i] for i in C)
            A = [i for i in C if wins[i] == top]
            if len(A) == 1:
                self.events["A_single"] += 1
                a1 = A[0]
            else:
                self.events["A_multi"] += 1
                zeta_star = (top if self.over_C else max(wins)) / (K - 1)
                for i in A:
                    for j in range(K):
                        if j != i and theta[i][j] is None:
                            theta[i][j] = draw_given_side(Bc, i, j, above[i][j], rng)
                            theta[j][i] = 1.0 - theta[i][j]
                R = {i: self.sampled_regret(theta, wins, i, zeta_star) for i in A}
                low = min(R.values())
                ties = [i for i in A if R[i] == low]
                if len(ties) == 1:
                    a1 = ties[0]
                else:
                    self.events["argmin_tie"] += 1
                    a1 = ties[min(int(math.floor(rng.random() * len(ties))), len(ties) - 1)]
                if a1 != A[0]:
                    self.events["argmin_not_lowest"] += 1

        return a1, self._second(a1, log_t, rng)

"""Reference for ``rucb``: RUCB, ICML 2014 version (Zoghi, Whiteson, Munos & de Rijke), α = 0.51
as in Komiyama et al. (2016) L305, recomputed from the win counts at every step.

One step at time t = 1, 2, … (natural log of the current t)::

    U = W/(W+Wᵀ) + sqrt(α ln t / (W+Wᵀ)),  u_ii = 1/2,  "x/0 := 1" (u = 1 + 1 = 2 if unobserved)
    C = {c : u_cj ≥ 1/2 ∀ j}
    B ← B ∩ C
    C = ∅:   c uniform on [K]
    |C| = 1: B ← C, c ← the element of C
    |C| > 1: P(c) = 1/2 if c ∈ B, else 1/(2^|B| |C \\ B|)
    d ← argmax_j u_jc, ties uniformly at random, with c left out of a tie it is part of
    compare (c, d); W[winner, loser] += 1 (a self-comparison is not counted)

The module's documented decisions are reproduced: a bound exactly 1/2 counts as ``u ≥ 1/2``
(not confidently beaten); the hypothesis set B holds at most one arm.

Random stream (the order in which the compiled code draws, one ``rng.random()`` per draw):

* a uniform index on n items is ``floor(n · rng.random())`` (capped at n − 1), drawn even when n = 1;
* C = ∅: one uniform index on K;  |C| = 1: nothing;
* |C| > 1 and B = {b}: one coin ``rng.random() < 1/2`` for b, else a uniform index on C \\ {b}
  in increasing arm order;  |C| > 1 and B = ∅: a uniform index on C;
* d: a uniform index on the tied maximisers (increasing order) only when there are two or more.

Only the standard library is used: no ``duelbench`` helper (bounds, confident beats, kernels).
"""

import math

from .driver import count_expiries
from .rucb_bounds import upper


class ReferenceRUCB:
    def __init__(self, K, horizon, params):
        self.K = K
        self.alpha = float(params["alpha"])
        self.W = [[0] * K for _ in range(K)]  # W[i][j] = wins of i over j (integers)
        self.B = None  # the hypothesis set: None (empty) or one arm
        # How often each branch was taken, and how often a pair resolved at t − 1 is unresolved
        # at t without having been compared (the ln t growth alone): for tests of coverage.
        self.events = dict.fromkeys(
            ("C_empty", "C_single", "coin_B", "coin_rest", "C_uniform", "d_tie", "d_is_c", "expired"), 0)
        self.expiry_times = []  # the steps t at which such expiries were seen
        self._resolved = set()
        self._compared = None

    def _u(self, i, j, log_t):
        return upper(self.W, i, j, self.alpha, log_t)

    @staticmethod
    def _uniform(n, rng):
        return min(int(math.floor(rng.random() * n)), n - 1)

    def select(self, t, rng):
        K = self.K
        log_t = math.log(t)
        U = [[self._u(i, j, log_t) for j in range(K)] for i in range(K)]
        self._count_expiries(U, t)

        C = [c for c in range(K) if all(U[c][j] >= 0.5 for j in range(K))]
        if self.B is not None and self.B not in C:
            self.B = None
        if not C:
            self.events["C_empty"] += 1
            c = self._uniform(K, rng)
        elif len(C) == 1:
            self.events["C_single"] += 1
            self.B = C[0]
            c = C[0]
        elif self.B is not None:
            if rng.random() < 0.5:
                self.events["coin_B"] += 1
                c = self.B
            else:
                self.events["coin_rest"] += 1
                rest = [x for x in C if x != self.B]
                c = rest[self._uniform(len(rest), rng)]
        else:
            self.events["C_uniform"] += 1
            c = C[self._uniform(len(C), rng)]

        column = [U[j][c] for j in range(K)]
        top = max(column)
        ties = [j for j in range(K) if column[j] == top]
        if len(ties) > 1 and c in ties:
            ties.remove(c)
        if len(ties) == 1:
            d = ties[0]
        else:
            self.events["d_tie"] += 1
            d = ties[self._uniform(len(ties), rng)]
        if d == c:
            self.events["d_is_c"] += 1
        return c, d

    def _count_expiries(self, U, t):
        count_expiries(self, U, t)

    def update(self, i, j, i_won, t):
        self._compared = (min(i, j), max(i, j))
        if i == j:
            return
        if i_won:
            self.W[i][j] += 1
        else:
            self.W[j][i] += 1

"""Reference for ``rcs``: Relative Confidence Sampling (Zoghi, Whiteson, de Rijke & Munos, WSDM
2014) as run by Wu & Liu (NIPS 2016, paper 004 L892–895) with α = 0.51, recomputed from the win
counts W at every step.

One step at time t = 1, 2, … (natural log of the current t)::

    θ_ij ~ Beta(W_ij + 1, W_ji + 1) for i < j,  θ_ji = 1 − θ_ij,  θ_ii = 1/2
    c = the arm with θ_cj > 1/2 for all j ≠ c, if any;
        else the arm that has been the champion the fewest times (lowest index among ties)
    champion count of c += 1 (at every step, whichever way c was chosen)
    U = W/(W+Wᵀ) + sqrt(α ln t/(W+Wᵀ)),  "x/0 := 1" (u = 1 + 1 = 2 if unobserved),  u_cc = 1/2
    d = argmax_j u_jc, ties uniformly at random, with c left out of a tie it is part of
    compare (c, d); W[winner, loser] += 1 (a self-comparison is not counted)

The module's documented decisions are reproduced (strict comparisons with 1/2 in the sample,
champion count at every step, lowest index among fallback ties, RUCB's tie rule for d).

Random stream (the order in which the compiled code draws):

* the sample's Condorcet winner by a knockout (the module's Decisions): the indicators
  1(θ_j,champion > 1/2) for j = 1, …, K − 1, then 1(θ_c,j > 1/2) for the arms j < c the final
  champion c did not meet, stopping at the first loss (:mod:`reference.beta_sampling`); that
  this has the law of the whole sample's winner is tested apart (``test_algorithms_rcs.py``);
* d: a uniform index ``floor(n · rng.random())`` (capped at n − 1) on the n tied maximisers in
  increasing order, drawn only when n ≥ 2.

Only the standard library is used (plus the generator passed in): no ``duelbench`` helper.
"""

import math

from .beta_sampling import indicator
from .rucb_bounds import upper


class ReferenceRCS:
    def __init__(self, K, horizon, params):
        self.K = K
        self.alpha = float(params["alpha"])
        self.W = [[0] * K for _ in range(K)]  # W[i][j] = wins of i over j (integers)
        self.champion_steps = [0] * K
        # How often each branch was taken: for tests of coverage.
        self.events = dict.fromkeys(
            ("sample_winner", "fallback", "fallback_tie", "d_tie", "c_left_out", "d_is_c"), 0)

    def _u(self, i, j, log_t):
        return upper(self.W, i, j, self.alpha, log_t)

    def _sample_winner(self, rng):
        """The sample's Condorcet winner or None, by the documented knockout: the champion is
        replaced by j (increasing) when θ_j,champion > 1/2; then it must beat the arms before it
        that it did not meet; every indicator from :mod:`reference.beta_sampling`."""
        K, W = self.K, self.W
        champion, met = 0, None
        for j in range(1, K):
            if indicator(W, j, champion, rng):
                champion, met = j, champion
        for j in range(champion):
            if j != met and not indicator(W, champion, j, rng):
                return None
        return champion

    def select(self, t, rng):
        K = self.K
        winner = self._sample_winner(rng)
        if winner is not None:
            self.events["sample_winner"] += 1
            c = winner
        else:
            self.events["fallback"] += 1
            fewest = min(self.champion_steps)
            least = [i for i in range(K) if self.champion_steps[i] == fewest]
            if len(least) > 1:
                self.events["fallback_tie"] += 1
            c = least[0]
        self.champion_steps[c] += 1

        log_t = math.log(t)
        column = [self._u(j, c, log_t) for j in range(K)]
        top = max(column)
        ties = [j for j in range(K) if column[j] == top]
        if len(ties) > 1 and c in ties:
            self.events["c_left_out"] += 1
            ties.remove(c)
        if len(ties) == 1:
            d = ties[0]
        else:
            self.events["d_tie"] += 1
            d = ties[min(int(math.floor(rng.random() * len(ties))), len(ties) - 1)]
        if d == c:
            self.events["d_is_c"] += 1
        return c, d

    def update(self, i, j, i_won, t):
        if i == j:
            return
        if i_won:
            self.W[i][j] += 1
        else:
            self.W[j][i] += 1

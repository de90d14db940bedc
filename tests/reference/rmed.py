"""Reference RMED1 (Komiyama, Honda, Kashima & Nakagawa, COLT 2015), for tests only.

RMED1 is the Condorcet-winner algorithm that Komiyama, Honda & Nakagawa (ICML 2016) run "with
the same hyper-parameters as in Komiyama et al. (2015a)" (Komiyama et al. 2016, L305), i.e.
``f(K) = 0.3 K^1.01``.  With ``N_ij`` the comparisons of {i, j}, ``μ̂_ij = N_{i>j} / N_ij``
(``0/0 := 1/2``, Komiyama et al. 2016, L67) and ``d(x) = d_KL(x, 1/2)`` (L83)::

    Ô_i(t) = {j ≠ i : μ̂_ij(t) ≤ 1/2},   Î_i(t) = Σ_{j ∈ Ô_i(t)} N_ij(t) d(μ̂_ij(t)),
    î*(t) = argmin_i Î_i(t)

    draw every pair i < j once;  L_C ← [K], L_R ← [K], L_N ← ∅
    loop: for l ∈ L_C:
            m ← î*                     if î* ∈ Ô_l
                argmin_{j ∈ Ô_l} μ̂_lj  elif Ô_l ≠ ∅
                l                      otherwise
            draw (l, m);  L_R ← L_R \\ {l}
            L_N ← L_N ∪ {j ∉ L_R : Î_j − Î_î* ≤ ln t + f(K)}
          L_C, L_R ← L_N;  L_N ← ∅

Implementation decisions of :mod:`duelbench.algorithms.rmed` reproduced here (they fix what the
pseudo-code leaves open): the initial pairs are drawn in lexicographic order, one step each;
``L_C`` is traversed in increasing arm index; ties of both argmins go to the lowest index; the
``L_N`` test after a draw uses the counts including that draw's outcome and ``ln t`` of that
step.  The algorithm makes no random draw of its own (only the duel's one uniform per step).

Every statistic (``μ̂``, ``d``, ``Ô``, ``Î``, ``î*``) is recomputed from the win counts at every
step, in plain Python.
"""

from __future__ import annotations

import math

from .kl import kl_half


class ReferenceRMED1:
    """Step-wise RMED1 for :func:`tests.reference.driver.reference_pairs`.

    Parameters
    ----------
    K : int
        Number of arms.
    horizon : int
        Unused (RMED1 is anytime).
    params : dict
        ``f_scale`` and ``f_exponent``: ``f(K) = f_scale · K ** f_exponent``.

    Attributes
    ----------
    branches : dict
        How often each branch ran: ``initial`` (initial pairs), ``second_best`` (m = î*),
        ``second_beats_most`` (m = argmin μ̂_lj), ``second_self`` (m = l), ``admitted`` /
        ``rejected`` (arms outside L_R that pass / fail the L_N test), ``passes`` (completed
        passes over L_C).
    """

    def __init__(self, K, horizon, params):
        self.K = int(K)
        self.f_K = params["f_scale"] * self.K ** params["f_exponent"]
        self.wins = [[0] * self.K for _ in range(self.K)]  # wins[i][j]: times i beat j
        self.initial = [(i, j) for i in range(self.K) for j in range(i + 1, self.K)]
        self.LC = list(range(self.K))
        self.pos = 0  # index into LC of the next first arm
        self.LR = set(range(self.K))
        self.LN = set()
        self.branches = dict.fromkeys(
            ("initial", "second_best", "second_beats_most", "second_self", "admitted", "rejected", "passes"), 0)

    # ------------------------------------------------------------------ statistics

    def n(self, i, j):
        return self.wins[i][j] + self.wins[j][i]

    def mu(self, i, j):
        """``μ̂_ij`` with ``0/0 := 1/2``."""
        n = self.n(i, j)
        if n == 0:
            return 0.5
        return self.wins[i][j] / n

    def superiors(self, i):
        """``Ô_i = {j ≠ i : μ̂_ij ≤ 1/2}`` in increasing order."""
        return [j for j in range(self.K) if j != i and self.mu(i, j) <= 0.5]

    def divergence(self, i):
        """``Î_i = Σ_{j ∈ Ô_i} N_ij d(μ̂_ij)`` (summed in increasing j)."""
        total = 0.0
        for j in self.superiors(i):
            total += self.n(i, j) * kl_half(self.mu(i, j))
        return total

    def best(self, I):
        """``î* = argmin_i Î_i``, lowest index on ties."""
        m = min(I)
        return I.index(m)

    # ------------------------------------------------------------------ driver interface

    def select(self, t, rng):
        if t <= len(self.initial):
            self.branches["initial"] += 1
            return self.initial[t - 1]
        l = self.LC[self.pos]
        I = [self.divergence(i) for i in range(self.K)]
        star = self.best(I)
        O_l = self.superiors(l)
        if star in O_l:
            self.branches["second_best"] += 1
            return l, star
        if O_l:
            self.branches["second_beats_most"] += 1
            lowest = min(self.mu(l, j) for j in O_l)
            return l, next(j for j in O_l if self.mu(l, j) == lowest)
        self.branches["second_self"] += 1
        return l, l

    def update(self, i, j, i_won, t):
        if i != j:
            if i_won:
                self.wins[i][j] += 1
            else:
                self.wins[j][i] += 1
        if t <= len(self.initial):
            return
        self.LR.discard(i)  # i is the first arm l of the pair just drawn
        I = [self.divergence(a) for a in range(self.K)]
        star = self.best(I)
        bound = math.log(t) + self.f_K
        for a in range(self.K):
            if a in self.LR:
                continue
            if I[a] - I[star] <= bound:
                self.LN.add(a)
                self.branches["admitted"] += 1
            else:
                self.branches["rejected"] += 1
        self.pos += 1
        if self.pos == len(self.LC):  # end of the pass: L_C, L_R ← L_N, L_N ← ∅
            self.LC = sorted(self.LN)
            self.LR = set(self.LN)
            self.LN = set()
            self.pos = 0
            self.branches["passes"] += 1

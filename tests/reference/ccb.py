"""Reference for ``ccb``: Copeland Confidence Bound (Zoghi, Karnin, Whiteson & de Rijke 2015,
Algorithm 1, paper L82–111), α = 0.51 as in Komiyama et al. (2016) L305, recomputed from the
win counts at every step.

One step at time t = 1, 2, … (natural log of the current t), as printed (paper line numbers
on the right; initialisation, lines 1–4: W = 0, B = [K], B^i = ∅, L̄_C = K, L83–86)::

    6   U = W/(W+Wᵀ) + sqrt(α ln t/(W+Wᵀ)),  L = W/(W+Wᵀ) − sqrt(α ln t/(W+Wᵀ)),    (L88)
        u_ii = l_ii = 1/2
    7   Cpld_up(i) = #{k ≠ i : u_ik ≥ 1/2},  Cpld_lo(i) = #{k ≠ i : l_ik ≥ 1/2}    (L89)
    8   C_t = {i : Cpld_up(i) = max_j Cpld_up(j)}                                    (L90)
    9A  if l_ij > 1/2 for some i and j ∈ B^i: B ← [K], B^k ← ∅ for every k, L̄_C ← K  (L94)
    9B  every i ∈ B with Cpld_up(i) < Cpld_lo(j) for some j leaves B, and if        (L98)
        |B^i| ≠ L̄_C + 1, B^i ← {k : u_ik < 1/2};  if then B = ∅: reset as in 9A
    9C  every i ∈ C_t with Cpld_up(i) = Cpld_lo(i) joins B with B^i ← ∅,            (L102)
        L̄_C ← K − 1 − Cpld_up(i); every other B^j is emptied if |B^j| < L̄_C + 1 and
        cut to L̄_C + 1 random arms if larger
    10  w.p. 1/4: (c, d) uniform on S = {(i, j) : j ∈ B^i, l_ij ≤ 1/2 ≤ u_ij}      (L104)
        if S ≠ ∅, and go to 14
    11  if B ∩ C_t ≠ ∅: w.p. 2/3, C_t ← B ∩ C_t                                    (L105)
    12  c uniform on C_t                                                             (L106)
    13  w.p. 1/2 the set is B^c, else [K]; d = argmax_{j in the set, l_jc ≤ 1/2}    (L107)
        u_jc, and on a tie d ≠ c
    14  compare (c, d); W[winner, loser] += 1                                        (L108)

Readings of the compiled module that are reproduced (its docstring lists them):

* an unexplored pair (N = 0) has u = 2 and l = 0 ("x/0 := 1" for both ratios), so it is
  unresolved, counts in Cpld_up and not in Cpld_lo;
* line 13 "B^i" is B^c; if no arm of B^c is admissible, [K] is used instead;
* 9B rebuilds the shortlist of an arm only when that arm leaves B, with the scores of line 7;
  after the "B = ∅" reset 9B is not repeated in the same step;
* 9C: first every qualifying arm joins B (index order), then every shortlist is fitted once,
  in increasing arm index; a random (L̄_C + 1)-subset is a partial Fisher–Yates shuffle of the
  shortlist's stored order (a shortlist built by 9B is stored in increasing index): for
  r = 0 … m − 1, s = r + uniform(n − r), swap positions r and s; keep positions 0 … m − 1;
* self-comparisons are not counted.

Every comparison with 1/2 is evaluated on the bounds of line 6 as printed (``u ≥ 1/2``,
``l ≥ 1/2``, ``l > 1/2``, ``u < 1/2``); the compiled module reads them through its confident-beat
relation, which differs only if a bound equals 1/2 to the last bit.

Random stream (one ``rng.random()`` per draw; a uniform index on n items is
``min(floor(n · rng.random()), n − 1)``), in this order within a step:

1. 9C: the Fisher–Yates draws of every shortlist longer than L̄_C + 1;
2. line 10: the 1/4 coin (always); a uniform index on S (lexicographic order) if |S| ≥ 2;
3. line 11: the 2/3 coin, only if B ∩ C_t ≠ ∅;  line 12: a uniform index if the set has ≥ 2 arms
   (increasing index);
4. line 13: the 1/2 coin (always); a uniform index on the maximisers (increasing index) if
   there are two or more — in each argmax that is evaluated (B^c, then possibly [K]).

Only numpy and the standard library are used: no ``duelbench`` helper (bounds, confident
beats, kernels).
"""

import math

import numpy as np


class ReferenceCCB:
    """CCB (Zoghi et al. 2015, Algorithm 1) in the step-wise shape of :mod:`reference.driver`.

    Parameters
    ----------
    K : int
        Number of arms.
    horizon : int
        Horizon (unused: CCB is anytime).
    params : dict
        Canonical parameters; ``params["alpha"]`` is the α of line 6.

    Attributes
    ----------
    W : numpy.ndarray
        ``W[i, j]`` = wins of i over j (self-comparisons are not counted).
    B, Bi, Lbar : set, list of list, int
        B, the shortlists B^i (in stored order) and L̄_C.
    last : (int, int)
        The pair compared at the previous step.
    events : dict
        How often each branch was taken, for coverage tests: the resets of 9A (and those
        triggered by the shortlist of the previous opponent d) and of 9B, arms removed by 9B and
        shortlists rebuilt, arms added by 9C, shortlists emptied and trimmed by 9C, line-10
        draws, the 2/3 restriction of line 11, line 13 on B^c and its fall-back to [K], random
        ties for d and d = c.
    """

    def __init__(self, K, horizon, params):
        self.K = K
        self.alpha = float(params["alpha"])
        self.W = np.zeros((K, K))
        self.last = (-1, -1)
        self.events = dict.fromkeys(
            ("reset_9A", "reset_9A_owner_d", "reset_9B", "removed", "rebuilt", "added", "emptied", "trimmed", "line10",
             "restricted", "shortlist_d", "fallback", "d_tie", "d_is_c"), 0)
        self._reset()

    # ------------------------------------------------------------------ lines 2–4
    def _reset(self):
        """Lines 2–4 (L84–86): B = [K], B^i = ∅ for every i, L̄_C = K."""
        self.B = set(range(self.K))
        self.Bi = [[] for _ in range(self.K)]
        self.Lbar = self.K

    @staticmethod
    def _uniform(n, rng):
        """A uniform index on n items from one draw: ``min(floor(n · u), n − 1)``."""
        return min(int(math.floor(rng.random() * n)), n - 1)

    # ------------------------------------------------------------------ line 6
    def _bounds(self, t):
        """Line 6 (L88): the bound matrices at time t, recomputed from W.

        Parameters
        ----------
        t : int
            The current step (natural log ln t).

        Returns
        -------
        U, L : numpy.ndarray
            ``W/N ± sqrt(α ln t / N)`` with N = W + Wᵀ; an unexplored pair has u = 2, l = 0;
            the diagonal is 1/2.
        """
        K, W = self.K, self.W
        N = W + W.T
        explored = N > 0
        safe = np.where(explored, N, 1.0)
        mean = W / safe
        width = np.sqrt(self.alpha * math.log(t) / safe)
        U = np.where(explored, mean + width, 2.0)
        L = np.where(explored, mean - width, 0.0)
        idx = np.arange(K)
        U[idx, idx] = 0.5
        L[idx, idx] = 0.5
        return U, L

    def select(self, t, rng):
        """Lines 6–13 at time t.

        Parameters
        ----------
        t : int
            The current step (1-based).
        rng : numpy.random.Generator
            The run's stream (draws in the order of the module docstring).

        Returns
        -------
        (int, int)
            The pair (c, d) to compare.
        """
        K = self.K
        U, L = self._bounds(t)
        off = ~np.eye(K, dtype=bool)
        # lines 7-8
        up = [int(np.sum((U[i] >= 0.5) & off[i])) for i in range(K)]
        lo = [int(np.sum((L[i] >= 0.5) & off[i])) for i in range(K)]
        C = [i for i in range(K) if up[i] == max(up)]
        # 9A: a shortlist member that its owner now confidently beats
        violated = [(i, j) for i in range(K) for j in self.Bi[i] if L[i, j] > 0.5]
        if violated:
            self.events["reset_9A"] += 1
            if any(i == self.last[1] for i, j in violated):  # the owner was the opponent d
                self.events["reset_9A_owner_d"] += 1
            self._reset()
        # 9B
        leaving = [i for i in sorted(self.B) if any(up[i] < lo[j] for j in range(K))]
        for i in leaving:
            self.B.discard(i)
            self.events["removed"] += 1
            if len(self.Bi[i]) != self.Lbar + 1:
                self.Bi[i] = [k for k in range(K) if U[i, k] < 0.5]
                self.events["rebuilt"] += 1
        if not self.B:
            self.events["reset_9B"] += 1
            self._reset()
        # 9C
        settled = [i for i in C if up[i] == lo[i]]
        if settled:
            for i in settled:
                self.B.add(i)
                self.Bi[i] = []
                self.Lbar = K - 1 - up[i]
                self.events["added"] += 1
            m = self.Lbar + 1
            for j in range(K):
                short = self.Bi[j]
                if 0 < len(short) < m:
                    self.Bi[j] = []
                    self.events["emptied"] += 1
                elif len(short) > m:
                    short = list(short)
                    n = len(short)
                    for r in range(m):
                        s = r + self._uniform(n - r, rng)
                        short[r], short[s] = short[s], short[r]
                    self.Bi[j] = short[:m]
                    self.events["trimmed"] += 1
        # 10
        if rng.random() < 0.25:
            S = sorted((i, j) for i in range(K) for j in self.Bi[i] if L[i, j] <= 0.5 <= U[i, j])
            if S:
                self.events["line10"] += 1
                return S[0] if len(S) == 1 else S[self._uniform(len(S), rng)]
        # 11-12
        cands = C
        both = [i for i in C if i in self.B]
        if both and rng.random() < 2.0 / 3.0:
            self.events["restricted"] += 1
            cands = both
        c = cands[0] if len(cands) == 1 else cands[self._uniform(len(cands), rng)]
        # 13
        if rng.random() < 0.5:
            admissible = [j for j in self.Bi[c] if L[j, c] <= 0.5]
            if admissible:
                self.events["shortlist_d"] += 1
                return c, self._argmax(admissible, U, c, rng)
            self.events["fallback"] += 1
        return c, self._argmax([j for j in range(K) if L[j, c] <= 0.5], U, c, rng)

    def _argmax(self, arms, U, c, rng):
        """Line 13's argmax of u_jc over ``arms`` (L107).

        Parameters
        ----------
        arms : list of int
            The admissible arms (l_jc ≤ 1/2).
        U : numpy.ndarray
            Upper bounds at the current step.
        c : int
            The candidate.
        rng : numpy.random.Generator
            Drawn once (uniform index, increasing arm order) if two or more arms remain tied
            after c is left out of a tie.

        Returns
        -------
        int
            The opponent d.
        """
        top = max(U[j, c] for j in arms)
        ties = sorted(j for j in arms if U[j, c] == top)
        if len(ties) > 1 and c in ties:
            ties.remove(c)
        if len(ties) == 1:
            d = ties[0]
        else:
            self.events["d_tie"] += 1
            d = ties[self._uniform(len(ties), rng)]
        if d == c:
            self.events["d_is_c"] += 1
        return d

    # ------------------------------------------------------------------ line 14
    def update(self, i, j, i_won, t):
        """Line 14 (L108): count the outcome of (i, j); a self-comparison is not counted."""
        self.last = (i, j)
        if i == j:
            return
        if i_won:
            self.W[i, j] += 1.0
        else:
            self.W[j, i] += 1.0

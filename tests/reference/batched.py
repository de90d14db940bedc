"""Reference for ``pcomp``, ``scomp`` and ``scomp2``: the batched algorithms of Agarwal, Ghuge &
Nagarajan (ICML 2022, paper 003; offsets ``@N`` into its one-line text), written top-down from
Algorithms 1-3 (@18682, @21578, @24450) with the KL elimination of Section 5 (@32491) and the
readings declared in :mod:`duelbench.algorithms.batched`; a whole run (``play``).

Structure, as printed::

    PCOMP(A, τ):  round r = 1, 2, …: every pair of A, c = q^{r+τ−1} times; drop b_j if some
                  b_i ∈ A beats it (γ-rule P̂_ij > 1/2 + γ, or the KL rule)
    SCOMP:        S ~ each arm w.p. K^{−e}; round r: S × A, c_r times; drop b_j from A and S if
                  some b_i ∈ S beats it (3γ_r); switch to PCOMP(A', τ = r) if some b_j beats every
                  b_i ∈ S by 3γ_r, A' = {b_j : P̂_ji > 1/2 + γ_r ∀ b_i ∈ S}
    SCOMP2:       round r: r(1) all pairs of S → undefeated candidate i*; r(2) i* × A; drop b_j
                  if P̂_{i*,j} > 1/2 + 5γ_r; switch if some P̂_{j,i*} > 1/2 + 5γ_r,
                  A' = {b_j : P̂_{j,i*} > 1/2 + 3γ_r}

Everything is recomputed at the end of each batch from this reference's own win counts (a
nested list of cumulative wins and a dict of the batch's wins per pair): estimates, radii,
KL divergences, the elimination counts, the switch sets.  The random stream: one
``rng.random()`` per arm in arm order for the seed set (SCOMP, SCOMP2), then one
``rng.random() < P[i, j]`` per comparison; the closing block of (a, a) draws nothing.

Only numpy (for the returned array) and the standard library are used: no ``duelbench`` helper.
"""

from __future__ import annotations

import math

import numpy as np


def _kl_half(p):
    """Bernoulli KL divergence d(p, 1/2), natural log, 0 log 0 = 0."""
    out = 0.0
    if p > 0.0:
        out += p * math.log(p / 0.5)
    if p < 1.0:
        out += (1.0 - p) * math.log((1.0 - p) / 0.5)
    return out


class _Cut(Exception):
    """The horizon ended inside a batch."""


class ReferenceBatched:
    """Common machinery; subclasses set ``name`` and implement ``_algorithm``.

    Parameters
    ----------
    K, horizon : number of arms and T.
    params : canonical parameters of the registered algorithm.

    Attributes
    ----------
    batches : list of (kind, size) per batch played.
    switch : (r', sorted A') or None.
    seeds : the seed set drawn (SCOMP, SCOMP2).
    eliminated : list of (batch index, arm).
    candidates : SCOMP2's candidate of each round.
    events : branch counters.
    """

    name = ""

    def __init__(self, K, horizon, params):
        self.K = K
        self.T = horizon
        self.B = int(params["batches"])
        self.gamma_rule = params["elimination"] == 1.0
        self.fresh_kl = params["kl_counts"] == 1.0
        self.rounding = params["rounding"]
        self.all_kl = (not self.gamma_rule) and params.get("all_kl", 0.0) == 1.0
        self.seed_exponent = params.get("seed_exponent", 0.5)
        if params["delta"] == 0.0:
            delta = 1.0 / (horizon * K * K)
        else:
            delta = 1.0 / (6.0 * horizon * K * K * self.B)
        self.log_inv_delta = -math.log(delta)
        self.level = {0.0: self.log_inv_delta, 1.0: math.log(horizon * delta),
                      2.0: math.log(horizon / delta)}[params["threshold"]]
        self.q = horizon ** (1.0 / self.B)
        self.batches = []
        self.switch = None
        self.seeds = []
        self.eliminated = []
        self.candidates = []
        self.events = {"cut": 0, "self_play": 0, "eliminations": 0, "keep_fewest": 0, "switch": 0,
                       "empty_seed": 0, "single_seed": 0, "no_undefeated": 0, "several_undefeated": 0}

    # ------------------------------------------------------------------ batches
    def size(self, r):
        """c = q^r rounded (ceil with a 1e-9 slack, or to the nearest integer), capped at T."""
        x = self.q ** r
        c = math.ceil(x - 1e-9) if self.rounding == 0.0 else math.floor(x + 0.5)
        return min(max(c, 1), self.T)

    def batch(self, kind, pairs, c):
        """Play the sorted pairs round-robin c times; the batch's wins of the first arm of each
        pair, or raise _Cut when T is reached before the batch is complete (a batch that ends
        exactly at T is still evaluated)."""
        if len(self.played) == self.T:
            raise _Cut
        pairs = sorted(pairs)
        fresh = {p: 0 for p in pairs}
        start = len(self.played)
        for _ in range(c):
            for (i, j) in pairs:
                if len(self.played) == self.T:
                    self.batches.append((kind, len(self.played) - start))
                    self.events["cut"] += 1
                    raise _Cut
                won = self.rng.random() < self.P[i, j]
                self.played.append((i, j))
                if won:
                    fresh[(i, j)] += 1
                    self.wins[i][j] += 1
                else:
                    self.wins[j][i] += 1
        self.batches.append((kind, len(self.played) - start))
        self.fresh = fresh
        self.c = c
        return fresh

    def self_play(self, arm):
        n = self.T - len(self.played)
        if n == 0:
            raise _Cut
        self.played.extend([(arm, arm)] * n)
        self.batches.append(("self", n))
        self.events["self_play"] += 1
        raise _Cut

    # ------------------------------------------------------------------ statistics
    def fresh_p(self, i, j):
        """Eq. (1): P̂_ij of the last batch."""
        if (i, j) in self.fresh:
            return self.fresh[(i, j)] / self.c
        return (self.c - self.fresh[(j, i)]) / self.c

    def kl_stats(self, i, j):
        """(P̂_ij, N_ij) for the KL rule: cumulative counts, or the last batch's."""
        if self.fresh_kl:
            return self.fresh_p(i, j), float(self.c)
        n = self.wins[i][j] + self.wins[j][i]
        return (0.5 if n == 0 else self.wins[i][j] / n), float(n)

    def gamma(self):
        return math.sqrt(self.log_inv_delta / (2.0 * self.c))

    def gamma_beats(self, i, j, m):
        return self.fresh_p(i, j) > 0.5 + m * self.gamma()

    def kl_beats(self, i, j, level):
        p, n = self.kl_stats(i, j)
        return p > 0.5 and n * _kl_half(p) > level

    def kl_loses(self, i, j, level):
        p, n = self.kl_stats(i, j)
        return p < 0.5 and n * _kl_half(p) > level

    def beaten(self, eliminator, victim, m):
        """The elimination test of the batch (γ-rule with multiple m, or the KL rule)."""
        if self.gamma_rule:
            return self.gamma_beats(eliminator, victim, m)
        return self.kl_loses(victim, eliminator, self.level)

    def eliminate(self, A, eliminators, victims, m):
        """Simultaneous eliminations; if all of A would go, those beaten by the fewest stay."""
        count = {j: sum(1 for i in eliminators if i != j and self.beaten(i, j, m)) for j in victims}
        out = {j for j, n in count.items() if n > 0}
        if out and out == set(A):
            fewest = min(count[j] for j in out)
            out = {j for j in out if count[j] > fewest}
            self.events["keep_fewest"] += 1
        for j in sorted(out):
            self.eliminated.append((len(self.batches) - 1, j))
        self.events["eliminations"] += len(out)
        return out

    # ------------------------------------------------------------------ algorithms
    def pcomp(self, A, tau):
        """Algorithm 1 from round 1 with c = q^{r+τ−1}."""
        r = 1
        while True:
            if len(A) == 1:
                self.self_play(A[0])
            c = self.size(r + tau - 1)
            self.batch("pcomp", [(i, j) for i in A for j in A if i < j], c)
            out = self.eliminate(A, A, A, 1)
            A = [a for a in A if a not in out]
            r += 1

    def play(self, P, horizon, rng):
        assert horizon == self.T
        self.P = P
        self.rng = rng
        self.played = []
        self.wins = [[0] * self.K for _ in range(self.K)]
        try:
            self._algorithm()
        except _Cut:
            pass
        assert len(self.played) == self.T
        return np.array(self.played, dtype=np.int64).reshape(self.T, 2)

    def draw_seeds(self):
        p = self.K ** (-self.seed_exponent)
        self.seeds = [a for a in range(self.K) if self.rng.random() < p]
        if not self.seeds:
            self.events["empty_seed"] += 1
            self.switch = (1, list(range(self.K)))
            self.pcomp(list(range(self.K)), 1)
        return list(self.seeds)

    def switch_to_pcomp(self, r, A_prime):
        self.events["switch"] += 1
        self.switch = (r, sorted(A_prime))
        self.pcomp(sorted(A_prime), r)


class ReferencePCOMP(ReferenceBatched):
    name = "pcomp"

    def _algorithm(self):
        self.pcomp(list(range(self.K)), 1)


class ReferenceSCOMP(ReferenceBatched):
    name = "scomp"

    def _algorithm(self):
        S = self.draw_seeds()
        A = list(range(self.K))
        r = 1
        while True:
            if len(A) == 1:
                self.self_play(A[0])
            c = self.size(r)
            self.batch("seeded", {(min(i, j), max(i, j)) for i in S for j in A if i != j}, c)
            out = self.eliminate(A, S, A, 3)
            A = [a for a in A if a not in out]
            S = [s for s in S if s not in out]
            if self.all_kl:
                def test(j, i, lvl):
                    return self.kl_beats(j, i, lvl)
                hi, lo = self.log_inv_delta, self.log_inv_delta / 9.0
            else:
                def test(j, i, m):
                    return self.gamma_beats(j, i, m)
                hi, lo = 3, 1
            others = [j for j in A if j not in S]  # a seed cannot beat itself
            triggers = [j for j in others if all(test(j, i, hi) for i in S)]
            if triggers:
                A_prime = [j for j in others if j in triggers or all(test(j, i, lo) for i in S)]
                self.switch_to_pcomp(r, A_prime)
            r += 1


class ReferenceSCOMP2(ReferenceBatched):
    name = "scomp2"

    def candidate(self, S):
        """Line 6: an undefeated arm of S; the one with the smallest worst estimate against it."""
        if self.all_kl:
            def defeats(j, i):
                return self.kl_beats(j, i, self.log_inv_delta)

            def est(j, i):
                return self.kl_stats(j, i)[0]
        else:
            def defeats(j, i):
                return self.gamma_beats(j, i, 1)

            def est(j, i):
                return self.fresh_p(j, i)
        undefeated = [i for i in S if not any(defeats(j, i) for j in S if j != i)]
        if not undefeated:
            self.events["no_undefeated"] += 1
        elif len(undefeated) > 1:
            self.events["several_undefeated"] += 1
        pool = undefeated or S
        return min(pool, key=lambda i: (max(est(j, i) for j in S if j != i), i))

    def _algorithm(self):
        S = self.draw_seeds()
        A = list(range(self.K))
        r = 1
        while True:
            if len(A) == 1:
                self.self_play(A[0])
            c = self.size(r)
            if len(S) == 1:
                self.events["single_seed"] += 1
                cand = S[0]
            else:
                self.batch("seed_pairs", [(i, j) for i in S for j in S if i < j], c)
                cand = self.candidate(S)
            self.candidates.append(cand)
            self.batch("candidate", [(min(cand, j), max(cand, j)) for j in A if j != cand], c)
            out = self.eliminate(A, [cand], [j for j in A if j != cand], 5)
            A = [a for a in A if a not in out]
            S = [s for s in S if s not in out]
            others = [j for j in A if j != cand]
            if self.all_kl:
                triggers = [j for j in others if self.kl_beats(j, cand, self.log_inv_delta)]
                keep = [j for j in others if j in triggers or self.kl_beats(j, cand, self.log_inv_delta * 9.0 / 25.0)]
            else:
                triggers = [j for j in others if self.gamma_beats(j, cand, 5)]
                keep = [j for j in others if self.gamma_beats(j, cand, 3)]
            if triggers:
                self.switch_to_pcomp(r, keep)
            r += 1


REFERENCES = {"pcomp": ReferencePCOMP, "scomp": ReferenceSCOMP, "scomp2": ReferenceSCOMP2}

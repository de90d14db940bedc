"""Reference for ``copeland_savage``: Copeland SAVAGE (Urvoy, Clerot, Féraud & Naamane 2013),
as run by Komiyama et al. (2016) L305 ("Copeland SAVAGE with δ = 1/T") and Zoghi et al. (2015)
L385, L392 (a horizon-dependent baseline); a whole run, recomputed from the win counts at every
step.

Neither paper restates the algorithm; the compiled module's reading of the generic SAVAGE
explore-then-exploit scheme for the Copeland winner is reproduced::

    variables: the N = K(K − 1)/2 pairs {i, j}, i < j, each with a Hoeffding interval
        [p̂_ij − c(n), p̂_ij + c(n)],  c(n) = sqrt(ln(2NT/δ) / (2n)),  δ = 1/T,
        i.e. ln(2NT/δ) = ln(K(K − 1) T²) (union bound over N variables and T sample sizes)
    i certainly beats k: the interval of p_ik lies strictly above 1/2
    Cpld_up(a) = K − 1 − #{k : k certainly beats a},  Cpld_lo(b) = #{k : b certainly beats k}
    W = the pairs whose interval contains 1/2, less those {a, b} for which both a and b have
        Cpld_up ≤ max_x Cpld_lo(x) (the Copeland "Indep" test: neither can change which arm is
        a Copeland winner)
    exploration, t = 1, 2, …: while W ≠ ∅, compare (i, j) for the pair of W with the fewest
        samples (the lexicographically lowest on ties)
    exploitation: once W = ∅, compare (w, w) until T, w the empirical Copeland winner: the most
        arms k with p̂_wk > 1/2 (an unsampled pair counts 1/2, a win for neither), ties broken
        by the larger Cpld_lo, then the lower index.

W is recomputed from the counts at every step: a pair leaves W only when it is resolved or
when both of its arms fail the "Indep" test, it is never sampled afterwards, and resolutions
only accumulate, so the set computed from the current counts is the set the algorithm keeps.

Random stream: one ``rng.random() < p_ij`` per exploration step; nothing else (the
exploitation comparisons are not drawn: their outcome is never read).

Only numpy and the standard library are used: no ``duelbench`` helper (Hoeffding, counts,
kernels).
"""

import math

import numpy as np


class ReferenceSavage:
    """Copeland SAVAGE with δ = 1/T in the whole-run shape of :mod:`reference.driver`.

    Parameters
    ----------
    K : int
        Number of arms.
    horizon : int
        The horizon T, known in advance (it sets δ = 1/T and the radius).
    params : dict
        Canonical parameters: ``strict_independence`` (1: the Indep test with ``<`` instead of
        ``<=``).

    Attributes
    ----------
    W : numpy.ndarray
        ``W[i, j]`` = wins of i over j.
    winner : int or None
        The arm played after the exploration (None if the horizon ends it).
    explored : int
        Number of exploration steps.
    events : dict
        Pairs resolved by their interval, pairs removed by the "Indep" test only, whether the
        run reached exploitation, ties in empirical wins at the choice and ties that Cpld_lo
        broke, for coverage tests.
    """

    def __init__(self, K, horizon, params):
        self.K = K
        self.T = int(horizon)
        N = K * (K - 1) / 2.0
        delta = 1.0 / self.T
        self.log_term = math.log(2.0 * N * self.T / delta)
        self.strict = bool(params.get("strict_independence", 0.0))
        self.W = np.zeros((K, K))
        self.winner = None
        self.explored = 0
        self.events = dict.fromkeys(("resolved", "indep_removed", "exploit", "wins_tied", "lo_decides"), 0)

    def _certain(self):
        """The certain-beat relation.

        Returns
        -------
        numpy.ndarray of bool
            ``beats[i, k]``: pair (i, k) has been sampled and ``p̂_ik − c(n_ik) > 1/2``.
        """
        N = self.W + self.W.T
        sampled = N > 0
        n = np.where(sampled, N, 1.0)
        return sampled & (self.W / n - 0.5 > np.sqrt(self.log_term / (2.0 * n)))

    def _state(self):
        """W and the Copeland counts, recomputed from the counts.

        Returns
        -------
        active : list of (int, int)
            The pairs of W, i < j, in lexicographic order.
        lo : numpy.ndarray
            Cpld_lo of every arm.
        resolved, indep : int
            Pairs removed because their interval excludes 1/2, and pairs removed by the
            "Indep" test only.
        """
        K = self.K
        beats = self._certain()
        up = K - 1 - beats.sum(axis=0)
        lo = beats.sum(axis=1)
        # the arm can at best tie with a certified Copeland score (strict: it cannot even tie)
        out = up < lo.max() if self.strict else up <= lo.max()
        active, resolved, indep = [], 0, 0
        for i in range(K):
            for j in range(i + 1, K):
                if beats[i, j] or beats[j, i]:
                    resolved += 1
                elif out[i] and out[j]:
                    indep += 1
                else:
                    active.append((i, j))
        return active, lo, resolved, indep

    def _choose(self, lo):
        """The empirical Copeland winner: most empirical wins, then most Cpld_lo, then lowest index."""
        K, W = self.K, self.W
        wins = []
        for a in range(K):
            wins.append(sum(1 for k in range(K)
                            if k != a and W[a, k] + W[k, a] > 0 and W[a, k] / (W[a, k] + W[k, a]) > 0.5))
        top = [a for a in range(K) if wins[a] == max(wins)]
        if len(top) > 1:
            self.events["wins_tied"] += 1
            if len({int(lo[a]) for a in top}) > 1:
                self.events["lo_decides"] += 1
        return max(top, key=lambda a: (int(lo[a]), -a))

    def play(self, P, horizon, rng):
        """Explore the least-sampled pair of W until W = ∅, then play (w, w) to the horizon.

        Parameters
        ----------
        P : numpy.ndarray
            Preference matrix (the run's arm labels).
        horizon : int
            Number of steps (equal to the T given at construction in the engine's use).
        rng : numpy.random.Generator
            The run's stream: one draw per exploration step.

        Returns
        -------
        list of (int, int)
            The pair of every step.
        """
        pairs = []
        while len(pairs) < horizon:
            active = self._state()[0]
            if not active:
                break
            n = [self.W[i, j] + self.W[j, i] for i, j in active]
            i, j = active[int(np.argmin(n))]  # the first minimum: lexicographically lowest
            if rng.random() < P[i, j]:
                self.W[i, j] += 1.0
            else:
                self.W[j, i] += 1.0
            pairs.append((i, j))
        self.explored = len(pairs)
        _, score, self.events["resolved"], self.events["indep_removed"] = self._state()
        if len(pairs) < horizon:
            self.winner = self._choose(score)
            self.events["exploit"] += 1
            pairs.extend([(self.winner, self.winner)] * (horizon - len(pairs)))
        return pairs

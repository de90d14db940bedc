"""Reference for ``condorcet_savage``: SAVAGE (Urvoy, Clerot, Féraud & Naamane 2013) with the
independence test of the Condorcet winner, as run by Wu & Liu (2016) L892 ("SAVAGE [17]") with
δ = 1/T; a whole run, recomputed from the win counts at every step.

The compiled module's reading is reproduced::

    variables: the N = K(K − 1)/2 pairs {i, j}, i < j, each with a Hoeffding interval
        [p̂_ij − c(n), p̂_ij + c(n)],  c(n) = sqrt(ln(2NT/δ) / (2n)),  δ = 1/T
    i certainly beats k: the interval of p_ik lies strictly above 1/2
    L(a) = #{k : k certainly beats a}   (a is certainly not the Condorcet winner iff L(a) ≥ 1)
    W = the pairs whose interval contains 1/2, less those {a, b} with
        L(a) ≥ 1 or L(b) ≥ 1    (``assume_condorcet_winner = 1``, the default: a Condorcet
                                  winner exists, so one certainly beaten arm settles the pair)
        L(a) ≥ 1 and L(b) ≥ 1   (``assume_condorcet_winner = 0``: the exact test)
    exploration, t = 1, 2, …: while W ≠ ∅, compare (i, j) for the pair of W with the fewest
        samples (the lexicographically lowest on ties)
    exploitation: once W = ∅, compare (w, w) until T, w the arm with the smallest L, ties
        broken by the most arms k with p̂_wk > 1/2 (an unsampled pair counts 1/2, a win for
        neither), then the lower index.

W is recomputed from the counts at every step: a pair leaves W only when it is resolved or
when the test above removes it, it is never sampled afterwards (so its interval no longer
changes), and L only grows, so the set computed from the current counts is the set the
algorithm keeps.

Random stream: one ``rng.random() < p_ij`` per exploration step; nothing else.

Only numpy and the standard library are used: no ``duelbench`` helper.  The radius, the
certain-beat relation and the exploration loop (``play``) are those of Copeland SAVAGE's
reference (:mod:`reference.savage`), which this one extends with its own W (``_state``) and its
own exploitation choice (``_choose``).
"""

from .savage import ReferenceSavage


class ReferenceCondorcetSavage(ReferenceSavage):
    """Condorcet SAVAGE with δ = 1/T in the whole-run shape of :mod:`reference.driver`.

    Parameters
    ----------
    K : int
        Number of arms.
    horizon : int
        The horizon T, known in advance (it sets δ = 1/T and the radius).
    params : dict
        Canonical parameters: ``assume_condorcet_winner`` is 1 (a pair leaves W as soon as one
        of its arms is certainly beaten) or 0 (only when both are); any other value is refused.

    Attributes
    ----------
    W : numpy.ndarray
        ``W[i, j]`` = wins of i over j.
    winner : int or None
        The arm played after the exploration (None if the horizon ends it).
    explored : int
        Number of exploration steps.
    events : dict
        Pairs resolved by their interval, pairs removed by the Condorcet test only, runs that
        reached exploitation, choices made with every arm certainly beaten, ties in L broken by
        the empirical wins, ties in both broken by the index.
    """

    def __init__(self, K, horizon, params):
        super().__init__(K, horizon, {})
        assume = params["assume_condorcet_winner"]
        if assume not in (0.0, 1.0):
            raise ValueError(f"assume_condorcet_winner must be 0 or 1, got {assume!r}")
        self.assume = assume == 1.0
        self.events = dict.fromkeys(
            ("resolved", "indep_removed", "exploit", "all_beaten", "wins_decide", "index_decides"), 0)

    def _state(self):
        """W (pairs i < j, lexicographic), L per arm, and the numbers of resolved and removed pairs."""
        K = self.K
        beats = self._certain()
        losses = beats.sum(axis=0)
        beaten = losses >= 1
        active, resolved, indep = [], 0, 0
        for i in range(K):
            for j in range(i + 1, K):
                if beats[i, j] or beats[j, i]:
                    resolved += 1
                elif (beaten[i] or beaten[j]) if self.assume else (beaten[i] and beaten[j]):
                    indep += 1
                else:
                    active.append((i, j))
        return active, losses, resolved, indep

    def _choose(self, losses):
        """Fewest certain losses, then most empirical wins, then the lowest index."""
        K, W = self.K, self.W
        wins = [sum(1 for k in range(K)
                    if k != a and W[a, k] + W[k, a] > 0 and W[a, k] / (W[a, k] + W[k, a]) > 0.5)
                for a in range(K)]
        if losses.min() > 0:
            self.events["all_beaten"] += 1
        top = [a for a in range(K) if losses[a] == losses.min()]
        if len(top) > 1:
            best = max(wins[a] for a in top)
            if len({wins[a] for a in top}) > 1:
                self.events["wins_decide"] += 1
            if sum(1 for a in top if wins[a] == best) > 1:
                self.events["index_decides"] += 1
        return min(top, key=lambda a: (-wins[a], a))

"""Reference for ``btm``: Beat-the-Mean, online (Yue & Joachims, ICML 2011, Algorithm 1), as run
by Wu & Liu (2016) with γ = 1.3 (paper 004 L893–894) and a horizon reset per curve point
(L896–897); a whole run, recomputed from the per-pair counts at every step.

One exploration step (W the working set, cmp[b][x] / win[b][x] the comparisons in which b was
the first candidate and x the opponent, and those b won)::

    n_b = Σ_{x∈W} cmp[b][x],  w_b = Σ_{x∈W} win[b][x]      (comparisons with removed arms deleted)
    b  = argmin_{b∈W} n_b, ties uniformly at random
    b′ uniform on W (on W ∖ {b} if opponent_excludes_self = 1); compare (b, b′); count it for b only
    then, with the counts after the comparison:
    n* = min_{b∈W} n_b;  if n* > 0:  c = f·γ²·sqrt(ln(1/δ)/n*), δ = 1/(2KT), P̂_b = w_b/n_b
        if min P̂ + c ≤ max P̂ − c: remove from W the arm of lowest P̂ (the lowest index on ties)
    once |W| = 1: compare (b̂, b̂) until T

The compiled module's documented decisions are reproduced: a self-comparison (b, b) is counted
for b (a fair coin); one removal at most per comparison; ln(1/δ) = ln(2KT) (natural log); f·γ²
is formed as f·(γ·γ).

Random stream (the order in which the compiled code draws, each a ``rng.random()``):

* the tie on b: a uniform index ``floor(m · u)`` (capped at m − 1) on the m arms of W with the
  fewest comparisons, in increasing order, drawn only when m ≥ 2;
* b′: a uniform index ``floor(k · u)`` (capped) on the k candidate opponents in increasing order;
* the duel: ``u < P[b][b′]``.

Exploitation draws nothing (its outcomes are never read).

Only the standard library is used (plus the generator passed in): no ``duelbench`` helper.
"""

import math


def _index(n, rng):
    """A uniform index in [0, n) from one draw, as the engine forms it."""
    return min(int(math.floor(rng.random() * n)), n - 1)


class ReferenceBTM:
    """Beat-the-Mean with horizon T in the whole-run shape of :mod:`reference.driver`.

    Parameters
    ----------
    K : int
        Number of arms.
    horizon : int
        The horizon T, known in advance (δ = 1/(2KT)).
    params : dict
        Canonical parameters ``gamma``, ``confidence_factor``, ``opponent_excludes_self``.

    Attributes
    ----------
    cmp, win : list of list of int
        Per ordered pair (b, x): comparisons with b first and x the opponent, and those b won.
    W : list of int
        The working set, in increasing order.
    removed : list of (int, int)
        (step, arm) of every removal, in order.
    winner : int or None
        The arm played after exploration (None if the horizon ends it).
    explored : int
        Number of exploration steps.
    events : dict
        Counters of the branches taken, for coverage tests.
    """

    def __init__(self, K, horizon, params):
        self.K = K
        self.T = int(horizon)
        self.gamma = float(params["gamma"])
        self.f = float(params["confidence_factor"])
        self.excl = bool(params["opponent_excludes_self"])
        self.log_inv_delta = math.log(2 * K * self.T)  # δ = 1/(2KT)
        self.cmp = [[0] * K for _ in range(K)]
        self.win = [[0] * K for _ in range(K)]
        self.W = list(range(K))
        self.removed = []
        self.winner = None
        self.explored = 0
        self.events = dict.fromkeys(("b_tie", "self", "removal", "loser_tie", "exploit"), 0)

    def records(self):
        """``{b: (n_b, w_b)}`` for b ∈ W, summed over the opponents still in W."""
        return {b: (sum(self.cmp[b][x] for x in self.W), sum(self.win[b][x] for x in self.W)) for b in self.W}

    def radius(self, n_star):
        """c_{δ,γ}(n*) = f·γ²·sqrt(ln(1/δ)/n*)."""
        return self.f * self.gamma ** 2 * math.sqrt(self.log_inv_delta / n_star)

    def _step(self, P, rng):
        rec = self.records()
        fewest = min(n for n, _ in rec.values())
        tied = [b for b in self.W if rec[b][0] == fewest]
        if len(tied) > 1:
            self.events["b_tie"] += 1
            b = tied[_index(len(tied), rng)]
        else:
            b = tied[0]
        opponents = [x for x in self.W if not (self.excl and x == b)]
        b2 = opponents[_index(len(opponents), rng)]
        if b2 == b:
            self.events["self"] += 1
        b_won = rng.random() < P[b][b2]
        self.cmp[b][b2] += 1
        if b_won:
            self.win[b][b2] += 1
        rec = self.records()
        n_star = min(n for n, _ in rec.values())
        if n_star > 0:
            c = self.radius(n_star)
            p = {a: w / n for a, (n, w) in rec.items()}
            lo, hi = min(p.values()), max(p.values())
            if lo + c <= hi - c:
                losers = [a for a in self.W if p[a] == lo]
                if len(losers) > 1:
                    self.events["loser_tie"] += 1
                self.W.remove(losers[0])
                self.removed.append((self.explored + 1, losers[0]))
                self.events["removal"] += 1
        return b, b2

    def play(self, P, horizon, rng):
        """Explore until |W| = 1, then play (b̂, b̂) to the horizon.

        Parameters
        ----------
        P : numpy.ndarray
            Preference matrix (the run's arm labels).
        horizon : int
            Number of steps (equal to the T given at construction in the engine's use).
        rng : numpy.random.Generator
            The run's stream.

        Returns
        -------
        list of (int, int)
            The pair of every step.
        """
        pairs = []
        while len(pairs) < horizon and len(self.W) > 1:
            pairs.append(self._step(P, rng))
            self.explored += 1
        if len(pairs) < horizon:
            self.winner = self.W[0]
            self.events["exploit"] += 1
            pairs.extend([(self.winner, self.winner)] * (horizon - len(pairs)))
        return pairs

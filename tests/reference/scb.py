"""Reference for ``scb``: Scalable Copeland Bandits (Zoghi, Karnin, Whiteson & de Rijke 2015,
Algorithms 2–4, paper L112–131 and L905–920), with the readings declared by the compiled module
and by Z4 of ``data/published/zoghi2015.yaml``; a whole run, written top-down as printed.

Algorithm 3 (L126–131), the squaring trick: for r = 1, 2, …, T = 2^(2^r) (L129); run
Algorithm 2 with failure probability δ = ln(T)/T (natural log) and ε = 0, force-terminated once
it has used T queries; T_0 its number of queries, a its output; query (a, a) T − T_0 times
(L130).  Each phase starts from scratch; the horizon cuts the phase in progress.

Algorithm 2 (L112–116): Algorithm 4 on K arms with the oracle of line 1 (L114)::

    reward(i): j uniform on [K] \\ {i}; query (i, j) until the sign of p_ij − 1/2 is known with
    probability ≥ 1 − δ/K², read as the anytime Hoeffding test on the n outcomes of this call:
    stop at the first n with |p̂_n − 1/2| > sqrt(ln(4K²n²/δ) / (2n)); return 1{p̂_n > 1/2}.

Algorithm 4 (L905–920), KL best-arm identification::

    1–5   S_i ← reward(i) for i = 1 … K (in index order), I_i ← [0, 1]
    6–7   B ← [K], t ← 2
    8     while not stop(B, I):
    9       S_i ← S_i + reward(i) for i ∈ B (in index order)
    10      I_i ← {q ∈ [0, 1] : t · d(S_i/t, q) ≤ ln(4tK/δ) + 2 ln ln t} for i ∈ B
    11      remove every i ∈ B with max I_i < min I_j for some j ∈ B (all tested before removal)
    12      t ← t + 1
    13    return argmax_{i ∈ B} min I_i (lowest index on ties)

with d the Bernoulli KL divergence of L903 (``0 ln 0 = 0``) and the declared stopping rule
(line 8, L914, with ε = 0 cannot stop): with a = argmax_{i∈B} min I_i, stop when |B| = 1 or every other
j ∈ B has max I_j < min I_a + 1/(K − 1).  A force-terminated run returns argmax_{i∈B} min I_i
with the B and I of that moment; the reward call it cuts is discarded.

Numerical readings reproduced: each end of I_i is found by bisection between S_i/t and 0 (or 1)
until the bracket is at most 10⁻¹⁰ wide, and the outer end of the bracket is returned (the end
is 0 or 1 at once if t · d(S_i/t, 0), resp. t · d(S_i/t, 1), is within the level); q is clipped to
[10⁻¹², 1 − 10⁻¹²] inside d.

Random stream (one ``rng.random()`` per draw): one uniform index on K − 1 per reward call for
the opponent (``min(floor((K − 1) · rng.random()), K − 2)``, shifted past i), drawn only when a
query is still allowed; one ``rng.random() < p_ij`` per query.  The exploitation queries
(a, a) draw nothing.

Only the standard library is used: no ``duelbench`` helper (Hoeffding, KL, kernels).
"""

import math

from .kl import bernoulli_kl as _kl

#: Bisection tolerance of the KL intervals and the clipping of q inside d (declared readings).
KL_TOL = 1e-10
KL_CLIP = 1e-12


class _OutOfQueries(Exception):
    """The phase's budget (or the horizon) allows no further query."""


def bernoulli_kl(p, q):
    """Bernoulli KL divergence of Zoghi et al. (2015), Appendix I, L903.

    Parameters
    ----------
    p, q : float
        Bernoulli means; q is clipped to ``[KL_CLIP, 1 − KL_CLIP]``.

    Returns
    -------
    float
        ``d(p, q) = (1 − p) ln((1 − p)/(1 − q)) + p ln(p/q)`` with ``0 ln 0 = 0``.
    """
    return _kl(p, min(max(q, KL_CLIP), 1.0 - KL_CLIP))


def kl_confidence_interval(p_hat, n, level, tol=KL_TOL):
    """The set I of Algorithm 4, line 10 (Zoghi et al. 2015, L916), by bisection.

    Parameters
    ----------
    p_hat : float
        Empirical mean S_i / t.
    n : int
        Number of rewards t.
    level : float
        Right-hand side ``ln(4tK/δ) + 2 ln ln t``.
    tol : float
        Width of the final bisection bracket.

    Returns
    -------
    (float, float)
        ``(min I, max I)`` of ``I = {q ∈ [0, 1] : n · d(p̂, q) ≤ level}``; each end is the outer
        end of a bracket of width at most ``tol`` (0 or 1 when that end of [0, 1] is inside).
    """
    def inside(q):
        return n * bernoulli_kl(p_hat, q) <= level

    if p_hat <= 0.0 or inside(0.0):
        low = 0.0
    else:
        out_, in_ = 0.0, p_hat
        for _ in range(64):
            if in_ - out_ <= tol:
                break
            mid = 0.5 * (out_ + in_)
            if inside(mid):
                in_ = mid
            else:
                out_ = mid
        low = out_
    if p_hat >= 1.0 or inside(1.0):
        high = 1.0
    else:
        in_, out_ = p_hat, 1.0
        for _ in range(64):
            if out_ - in_ <= tol:
                break
            mid = 0.5 * (in_ + out_)
            if inside(mid):
                in_ = mid
            else:
                out_ = mid
        high = out_
    return low, high


class ReferenceSCB:
    """SCB (Zoghi et al. 2015, Algorithms 2–4) in the whole-run shape of :mod:`reference.driver`.

    Parameters
    ----------
    K : int
        Number of arms (at least 2).
    horizon : int
        Experimental horizon (it truncates the phase in progress).
    params : dict
        Canonical parameters (SCB has none).

    Attributes
    ----------
    phases : list of tuple
        One row ``(r, start, T_0, arm, how)`` per phase reached: steps before the phase,
        queries of Algorithm 2, the arm returned (``None`` if the horizon cut the phase) and how
        the exploration ended (``"stop"``, ``"forced"`` or ``"cut"``).
    between_calls : list of int
        Phases whose budget (or the horizon) ran out between two reward calls.
    events : dict
        How often each branch was taken (decided rewards 1 and 0, rounds of Algorithm 4,
        eliminations of line 11, stops, force-terminations, cuts, exploitation blocks that end
        inside the horizon), for coverage tests.
    """

    def __init__(self, K, horizon, params):
        self.K = K
        self.horizon = horizon
        self.phases = []
        self.between_calls = []
        self.events = dict.fromkeys(
            ("reward_1", "reward_0", "rounds", "eliminated", "stop_single", "stop_separated", "forced",
             "cut", "budget_between_calls", "exploit_block"), 0)

    # ---------------------------------------------------------------- one phase
    def _phase(self, P, T, delta, budget, rng, pairs):
        """Algorithm 2 (L112–116) run through Algorithm 4 (L905–920) with at most ``budget`` queries.

        Parameters
        ----------
        P : list of list of float
            Preference matrix (the run's arm labels).
        T : int
            Phase length 2^(2^r) (the force-termination threshold of Algorithm 3, L129).
        delta : float
            Failure probability ln(T)/T.
        budget : int
            Queries allowed: T, or fewer if the horizon ends inside the phase.
        rng : numpy.random.Generator
            The run's stream.
        pairs : list
            Receives every query (i, j).

        Returns
        -------
        arm : int or None
            The output of Algorithm 4 (line 13), of the force-termination, or None if the
            horizon cut the phase.
        how : str
            ``"stop"``, ``"forced"`` or ``"cut"``.
        T0 : int
            Queries used.
        """
        K = self.K
        used = [0]

        def query(i, j):
            if used[0] >= budget:
                raise _OutOfQueries
            used[0] += 1
            pairs.append((i, j))
            return rng.random() < P[i][j]

        def reward(i):
            if used[0] >= budget:  # no query left: the opponent is never drawn
                self.events["budget_between_calls"] += 1
                self.between_calls.append(len(self.phases) + 1)
                raise _OutOfQueries
            j = min(int(math.floor((K - 1) * rng.random())), K - 2)
            if j >= i:
                j += 1
            n = wins = 0
            while True:
                wins += 1 if query(i, j) else 0
                n += 1
                radius = math.sqrt(math.log(4.0 * K * K * n * n / delta) / (2.0 * n))
                if abs(wins / n - 0.5) > radius:
                    won = wins / n > 0.5
                    self.events["reward_1" if won else "reward_0"] += 1
                    return 1 if won else 0

        def best(B, I):
            a = B[0]
            for i in B:
                if I[i][0] > I[a][0]:
                    a = i
            return a

        def stop(B, I):
            if len(B) == 1:
                self.events["stop_single"] += 1
                return True
            a = best(B, I)
            if all(I[j][1] < I[a][0] + 1.0 / (K - 1) for j in B if j != a):
                self.events["stop_separated"] += 1
                return True
            return False

        B = list(range(K))
        I = [(0.0, 1.0)] * K
        try:
            S = [0] * K
            for i in range(K):
                S[i] = reward(i)
            t = 2
            while not stop(B, I):
                for i in B:
                    S[i] += reward(i)
                level = math.log(4.0 * t * K / delta) + 2.0 * math.log(math.log(t))
                for i in B:
                    I[i] = kl_confidence_interval(S[i] / t, t, level)
                top = max(I[j][0] for j in B)
                keep = [i for i in B if not I[i][1] < top]
                self.events["eliminated"] += len(B) - len(keep)
                B = keep
                self.events["rounds"] += 1
                t += 1
            return best(B, I), "stop", used[0]
        except _OutOfQueries:
            if used[0] < T:  # the horizon, not the phase, ran out
                return None, "cut", used[0]
            return best(B, I), "forced", used[0]

    # ---------------------------------------------------------------- Algorithm 3
    def play(self, P, horizon, rng):
        """Algorithm 3 (L126–131): phases r = 1, 2, … until the horizon.

        Parameters
        ----------
        P : numpy.ndarray
            Preference matrix (the run's arm labels).
        horizon : int
            Number of steps.
        rng : numpy.random.Generator
            The run's stream.

        Returns
        -------
        list of (int, int)
            The pair of every step.
        """
        P = [[float(x) for x in row] for row in P]
        pairs = []
        r = 1
        while len(pairs) < horizon:
            T = 2 ** (2 ** r)
            delta = min(math.log(T) / T, 1.0)
            start = len(pairs)
            budget = min(T, horizon - start)
            arm, how, T0 = self._phase(P, T, delta, budget, rng, pairs)
            self.phases.append((r, start, T0, arm, how))
            if how != "stop":
                self.events[how] += 1
            if arm is None:
                break
            m = min(T - T0, horizon - len(pairs))
            if m == T - T0 and m > 0:
                self.events["exploit_block"] += 1
            pairs.extend([(arm, arm)] * m)
            r += 1
        return pairs

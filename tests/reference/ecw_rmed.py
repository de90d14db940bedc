"""Reference ECW-RMED (Komiyama, Honda & Nakagawa, ICML 2016, Algorithm 1, ECW branch), for tests.

Paper: Komiyama et al. 2016, Algorithm 1 (L145–L190), the set ``R^E`` (L202–L212) and its
efficient computation, LP (6) and Theorem 5 (L220–L232); hyper-parameters α = 3.0, β = 0.01
(L305), β = 0 being the variant of L289.  Notation (0-based arms): ``N_ab`` comparisons of the
unordered pair {a, b}; ``μ̂_ab = N_{a>b} / N_ab`` with ``0/0 := 1/2`` (L67);
``d(x) = d_KL(x, 1/2)`` (L83); for a matrix ν: superiors ``Ô_i = {j : ν_ij < 1/2}``, inferiors
``Ĥ_i = {j : ν_ij > 1/2}``, ``L̂_i = |Ô_i|``, ``L̂^(1) = min_i L̂_i``, Copeland winners
``C_cop = {i : L̂_i = L̂^(1)}`` and ``r̂_ij = (L̂_i + L̂_j − 2 L̂^(1)) / (2(K − 1))`` (L95–L101).

The loop (lines (2)–(18) of Algorithm 1)::

    L_C, L_R ← {pairs a < b};  L_N ← ∅
    repeat
      line (4): for each pair a < b in lexicographic order, draw it if
                N_ab < α √(ln t)  or  μ̂_ab = 1/2  or  |μ̂_ab − 1/2| < β / max(ln ln t, 1)
      for p ∈ L_C in increasing (a, b) order:
          draw p;  L_R ← L_R \\ {p}
          if some î ∈ C_cop(μ̂) passes test (3):        L_NC ← {(î, î)}
          else:  î ← argmin_{i1 ∈ C_cop} C^{E*}_{i1}(μ̂),  q* ∈ R^{E*}_î(μ̂)
                 L_NC ← {pairs with q*_ab ln t > N_ab} ∪ {(î, î)}
          L_N ← L_N ∪ (L_NC \\ L_R)
      L_C, L_R ← L_N;  L_N ← ∅

``C^{E*}_{i1}`` and ``q*`` are recomputed at every step, from the counts, by Theorem 5: for
``i1 ∈ C_cop`` the constraints (4) fix ``q_{i1 j} = 1/d_{i1 j}`` for ``j ∈ Ĥ_{i1}``, and the
constraints (5) split into one LP (6) per row ``i2 ≠ i1`` over ``𝒪 = Ô_{i2} \\ {i1}`` with costs
``c_j = r̂_{j i2} / d_{j i2}``, ``need = L̂_{i2} − L̂_{i1} + 1`` and ``k = |𝒪| − need``: no
constraint if ``k < 0``; otherwise ``V = min_{h ∈ {k+1..|𝒪|}} (c_σ1 + … + c_σh) / (h − k)``
over the costs sorted increasingly, attained by ``e = q d = 1/(h − k)`` on the h cheapest
(Theorem 5, L228–L232; ``k = 0`` is the same formula with the single constraint
``Σ_{j ∈ 𝒪} e_j ≥ 1``).  :func:`ecw_constant_lp` solves the same LP directly (all subsets of (5)
enumerated, ``scipy.optimize.linprog``) so that the closed form can be checked.

Implementation decisions of :mod:`duelbench.algorithms.ecw_rmed` reproduced here (they fix
what the paper leaves open; see that module's docstring):

* test (3) in its covering reading on ``R^E``: î passes iff ``N_îj d_îj ≥ ln t`` for every
  ``j ∈ Ĥ_î`` and, for every ``i2 ≠ î``, the sum of the ``L̂_{i2} − L̂_î + 1`` smallest
  ``N_{i2 j} d_{i2 j}``, ``j ∈ Ô_{i2} \\ {î}``, is ``≥ ln t`` (vacuous when fewer remain); an
  arm with an exact empirical tie ``μ̂_îj = 1/2`` fails; candidates are tried in increasing
  index and the first that passes is exploited;
* ``[C]`` of line (11) is ``C_cop(μ̂)``; ``î`` ties → lowest index; in Theorem 5 the costs are
  sorted by (cost, arm index) and the smallest minimising h is taken; a pair with ``r̂ = 0``
  costs 0 and one with ``r̂ > 0``, ``d = 0`` costs ``+inf``;
* ``d`` of a pair is computed from the entry ``μ̂_ab`` with ``a < b``;
* "q*_ab > N_ab / ln t" is evaluated as ``e_ab ln t > N_ab d_ab`` with ``e = q* d``;
* line (4) runs once per outer iteration, pair by pair, each condition evaluated with the
  current t and counts; every draw (line (4), L_C, (i, i)) is one step; the test after the
  draw of step t uses the counts including that draw and ``ln t`` of that step; ``L_N`` is
  traversed sorted.

No random draw besides the duel's one uniform per step.
"""

from __future__ import annotations

import itertools
import math

from .kl import kl_half

INF = math.inf


class Structure:
    """The empirical quantities of Komiyama et al. 2016 (L95–L101, L202–L232) for a matrix ν.

    Parameters
    ----------
    nu : list of list of float
        K × K preference values (``ν_ij``); the diagonal is never read.
    counts : list of list of float, optional
        ``N_ij`` (symmetric); the evidence ``E_ij = N_ij d_ij`` of test (3).  Zero if omitted.
    """

    def __init__(self, nu, counts=None):
        K = len(nu)
        self.K = K
        self.nu = nu
        self.sup = [[j for j in range(K) if j != i and nu[i][j] < 0.5] for i in range(K)]
        self.inf = [[j for j in range(K) if j != i and nu[i][j] > 0.5] for i in range(K)]
        self.L = [len(s) for s in self.sup]
        self.L1 = min(self.L)
        self.winners = [i for i in range(K) if self.L[i] == self.L1]
        self.d = [[0.0] * K for _ in range(K)]
        for a in range(K):
            for b in range(a + 1, K):
                self.d[a][b] = self.d[b][a] = kl_half(nu[a][b])
        N = counts if counts is not None else [[0.0] * K for _ in range(K)]
        self.E = [[N[i][j] * self.d[i][j] if i != j else 0.0 for j in range(K)] for i in range(K)]

    def regret(self, i, j):
        """``r̂_ij = (L̂_i + L̂_j − 2 L̂^(1)) / (2(K − 1))`` (L101)."""
        return (self.L[i] + self.L[j] - 2 * self.L1) / (2.0 * (self.K - 1))

    def cost(self, i, j):
        """``r̂_ij / d_ij``: 0 if ``r̂ = 0``, ``+inf`` if ``r̂ > 0`` and ``d = 0``."""
        r = self.regret(i, j)
        if r == 0.0:
            return 0.0
        if self.d[i][j] > 0.0:
            return r / self.d[i][j]
        return INF

    def need(self, i2):
        """``|O|`` in (5): ``L̂_{i2} − L̂_{i1} + 1`` with ``L̂_{i1} = L̂^(1)``."""
        return self.L[i2] - self.L1 + 1

    # ---------------------------------------------------------------- test (3), covering reading

    def margin(self, i1):
        """Smallest left-hand side of the covering constraints of ``R^E_{i1}`` at ``q d = E``:
        ``E_{i1 j}`` for ``j ∈ Ĥ_{i1}`` (4) and, per row ``i2 ≠ i1``, the sum of the ``need``
        smallest ``E_{i2 j}``, ``j ∈ Ô_{i2} \\ {i1}`` (5); ``+inf`` without constraints."""
        m = INF
        for j in self.inf[i1]:
            m = min(m, self.E[i1][j])
        for i2 in range(self.K):
            if i2 == i1:
                continue
            vals = sorted(self.E[i2][j] for j in self.sup[i2] if j != i1)
            need = self.need(i2)
            if len(vals) < need:
                continue
            s = 0.0
            for v in vals[:need]:
                s += v
            m = min(m, s)
        return m

    # ---------------------------------------------------------------- C^{E*} and R^{E*} (Theorem 5)

    def row(self, i1, i2):
        """LP (6) of row i2 for candidate i1: ``(V, chosen, e, k)`` with ``chosen`` the h cheapest
        arms of ``𝒪`` (sorted by (cost, index); the smallest minimising h) and ``e = 1/(h − k)``;
        ``(0, [], 0, k)`` if k < 0 (no constraint)."""
        O = sorted((j for j in self.sup[i2] if j != i1), key=lambda j: (self.cost(j, i2), j))
        k = len(O) - self.need(i2)
        if k < 0:
            return 0.0, [], 0.0, k
        best, best_h, s = INF, k + 1, 0.0
        for h, j in enumerate(O, start=1):
            s += self.cost(j, i2)
            if h > k and s / (h - k) < best:
                best, best_h = s / (h - k), h
        return best, O[:best_h], 1.0 / (best_h - k), k

    def constant(self, i1):
        """``C^{E*}_{i1} = Σ_{j ∈ Ĥ_{i1}} r̂_{i1 j}/d_{i1 j} + Σ_{i2 ≠ i1} V_{i2}(i1)`` (L208)."""
        total = 0.0
        for j in self.inf[i1]:
            total += self.cost(i1, j)
        for i2 in range(self.K):
            if i2 != i1:
                total += self.row(i1, i2)[0]
        return total

    def target(self, i1):
        """The optimal point of ``R^{E*}_{i1}`` as ``{(a, b): e_ab}`` with ``e = q d`` (1 on the pairs
        of (4), ``1/(h − k)`` on the pairs Theorem 5 selects), and ``(k, h)`` of each constrained row."""
        e = {}
        for j in self.inf[i1]:
            e[(i1, j)] = 1.0
        rows = []
        for i2 in range(self.K):
            if i2 == i1:
                continue
            _, chosen, value, k = self.row(i1, i2)
            if chosen:
                rows.append((k, len(chosen)))
            for j in chosen:
                e[(j, i2)] = value
        return e, rows


def ecw_constant_lp(P, i1):
    """``C^{E*}_{i1}(P)`` by a direct LP over ``R^E_{i1}`` (L204–L208) with scipy's HiGHS: box
    ``0 ≤ q ≤ 1/d``, (4) as equalities, every subset O of (5) enumerated (small K only)."""
    from scipy.optimize import linprog

    nu = [list(map(float, row)) for row in P]
    S = Structure(nu)
    K = S.K
    pairs = [(a, b) for a in range(K) for b in range(a + 1, K)]
    col = {p: n for n, p in enumerate(pairs)}

    def var(i, j):
        return col[(min(i, j), max(i, j))]

    cost = [S.regret(a, b) for a, b in pairs]
    bounds = [(0.0, 1.0 / S.d[a][b] if S.d[a][b] > 0.0 else None) for a, b in pairs]
    for j in S.inf[i1]:
        v = var(i1, j)
        bounds[v] = (1.0 / S.d[i1][j], 1.0 / S.d[i1][j])
    A, b_ub = [], []
    for i2 in range(K):
        if i2 == i1:
            continue
        O = [j for j in S.sup[i2] if j != i1]
        for sub in itertools.combinations(O, S.L[i2] - S.L[i1] + 1):
            row = [0.0] * len(pairs)
            for j in sub:
                row[var(j, i2)] = -S.d[j][i2]
            A.append(row)
            b_ub.append(-1.0)
    res = linprog(cost, A_ub=A or None, b_ub=b_ub or None, bounds=bounds, method="highs")
    assert res.status == 0, res.message
    return float(res.fun)


class ReferenceECWRMED:
    """Step-wise ECW-RMED for :func:`tests.reference.driver.reference_pairs`.

    Parameters
    ----------
    K : int
        Number of arms (≥ 2).
    horizon : int
        Unused (ECW-RMED is anytime).
    params : dict
        ``alpha`` and ``beta`` of line (4).

    Attributes
    ----------
    branches : dict
        How often each branch ran: line-(4) draws forced by ``N < α√ln t`` (``scan_alpha``), by an
        exact tie (``scan_tie``), by the β gap only (``scan_beta``); L_C draws (``pass``);
        test (3) passed (``exploit``), for several candidates at once (``several_pass``), or not
        (``explore``); a candidate passing the covering constraints but refused for an exact tie
        (``tie_refused``); pairs of the target below
        their count put into L_NC (``target_pairs``) or already at it (``target_met``);
        constrained rows of (5) in the chosen target with ``k = 0`` (``rows_k0``), ``k > 0``
        (``rows_kpos``) and ``h > k + 1`` (``rows_wide``); C_cop with several arms when
        exploring (``multi_candidates``) and exact ties of ``C^{E*}`` among them
        (``candidate_ties``); completed passes (``passes``).
    """

    def __init__(self, K, horizon, params):
        self.K = int(K)
        self.alpha = float(params["alpha"])
        self.beta = float(params["beta"])
        self.wins = [[0] * self.K for _ in range(self.K)]
        self.pairs = [(a, b) for a in range(self.K) for b in range(a + 1, self.K)]
        self.LC = list(self.pairs)
        self.LR = set(self.pairs)
        self.LN = set()
        self.scanning = True
        self.scan_pos = 0
        self.pass_pos = 0
        self.branches = dict.fromkeys(
            ("scan_alpha", "scan_tie", "scan_beta", "pass", "exploit", "several_pass", "explore",
             "tie_refused", "target_pairs", "target_met", "rows_k0", "rows_kpos", "rows_wide",
             "multi_candidates", "candidate_ties", "passes"), 0)

    # ------------------------------------------------------------------ statistics from counts

    def n(self, a, b):
        return self.wins[a][b] + self.wins[b][a]

    def mu(self, a, b):
        n = self.n(a, b)
        if n == 0:
            return 0.5
        return self.wins[a][b] / n

    def structure(self):
        K = self.K
        nu = [[self.mu(i, j) if i != j else 0.5 for j in range(K)] for i in range(K)]
        N = [[float(self.n(i, j)) for j in range(K)] for i in range(K)]
        return Structure(nu, N)

    # ------------------------------------------------------------------ line (4)

    def forced(self, a, b, t):
        """Which condition of line (4) draws pair (a, b) at step t (None if none)."""
        lt = math.log(t)
        if self.n(a, b) < self.alpha * math.sqrt(lt):
            return "scan_alpha"
        x = self.mu(a, b)
        if x == 0.5:
            return "scan_tie"
        gap = self.beta / max(math.log(lt), 1.0) if lt > 1.0 else self.beta
        if abs(x - 0.5) < gap:
            return "scan_beta"
        return None

    # ------------------------------------------------------------------ driver interface

    def select(self, t, rng):
        if self.scanning:
            for p in range(self.scan_pos, len(self.pairs)):
                why = self.forced(*self.pairs[p], t)
                if why is not None:
                    self.branches[why] += 1
                    self.scan_pos = p + 1
                    return self.pairs[p]
            self.scanning = False
            self.pass_pos = 0
        self.branches["pass"] += 1
        return self.LC[self.pass_pos]

    def update(self, i, j, i_won, t):
        if i != j:
            if i_won:
                self.wins[i][j] += 1
            else:
                self.wins[j][i] += 1
        if self.scanning:
            return
        self.LR.discard((min(i, j), max(i, j)))  # line (14)
        S = self.structure()
        lt = math.log(t)
        NC = []
        passing = []
        for i1 in S.winners:  # line (8)
            if S.margin(i1) < lt:
                continue
            if any(S.nu[i1][j] == 0.5 for j in range(self.K) if j != i1):
                self.branches["tie_refused"] += 1
                continue
            passing.append(i1)
        if passing:  # line (9): the first candidate (lowest index) that passes
            star = passing[0]
            self.branches["exploit"] += 1
            self.branches["several_pass"] += len(passing) > 1
        else:  # line (11)
            self.branches["explore"] += 1
            if len(S.winners) > 1:
                self.branches["multi_candidates"] += 1
            values = [S.constant(i1) for i1 in S.winners]
            star = S.winners[values.index(min(values))]
            self.branches["candidate_ties"] += values.count(min(values)) > 1
            e, rows = S.target(star)
            self.branches["rows_k0"] += sum(k == 0 for k, h in rows)
            self.branches["rows_kpos"] += sum(k > 0 for k, h in rows)
            self.branches["rows_wide"] += sum(h > k + 1 for k, h in rows)
            for (a, b), value in e.items():
                if value * lt > S.E[a][b]:  # q*_ab > N_ab / ln t, multiplied by d_ab ln t
                    NC.append((min(a, b), max(a, b)))
                    self.branches["target_pairs"] += 1
                else:
                    self.branches["target_met"] += 1
        NC.append((star, star))  # lines (9) / (12)
        for p in NC:  # line (15)
            if p not in self.LR:
                self.LN.add(p)
        self.pass_pos += 1
        if self.pass_pos == len(self.LC):  # line (18)
            self.LC = sorted(self.LN)
            self.LR = set(self.LN)
            self.LN = set()
            self.scanning = True
            self.scan_pos = 0
            self.branches["passes"] += 1

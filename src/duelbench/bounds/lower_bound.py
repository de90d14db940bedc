"""Copeland regret lower-bound constant (Komiyama, Honda & Nakagawa, ICML 2016, Theorem 2).

Paper text: ``shared/papers/000_f9a3afa5eda552a1.txt`` ("paper 000"); line numbers ``Lnnn``
below refer to that file.  Arm indices are 0-based in code (the paper's arm ``k`` is index
``k - 1``).

The constant
------------
For a preference matrix ``mu`` write ``O_i = {j : mu_ij < 1/2}`` (superiors), ``H_i =
{j : mu_ij > 1/2}`` (inferiors), ``L_i = |O_i|``, ``L^(a)`` the a-th smallest of the ``L_i``
(with multiplicity), ``d_ij = d_KL(mu_ij, 1/2)`` and ``r_ij = (L_i + L_j - 2 L^(1)) /
(2 (K - 1))`` (L69, L71, L83, L95, L101).  For a Copeland winner ``i1`` (``L_i1 = L^(1)``)

    C*_i1 = min  sum_{i>j} r_ij q_ij                                          (L103)
            over q in R_i1 = { q_ij in [0, 1/d_ij] :                          (eq. (2), L97)
                for all i2 != i1,
                    l in {max(0, L^(1) - 1), ..., L^(2)},
                    H subset of H_i1 with |H| = l + 1 - L^(1),
                    O subset of O_i2 \\ {i1} with |O| = max(0, L_i2 - l - 1[i2 in H]):
                sum_{j in H} d_{i1 j} q_{i1 j} + sum_{j in O} d_{i2 j} q_{i2 j} >= 1 }

and Theorem 2 (L111-L113) states ``E[R(T)] >= min_{i1 in [C]} C*_i1 log T - o(log T)``.
:func:`lower_bound_constant` returns ``C*_i1`` for a given ``i1`` and ``LB = min_{i1} C*_i1``
for ``i1=None``; :func:`lower_bound` returns a :class:`LowerBoundResult` with the value of
every Copeland winner and an optimal ``q`` for each.

Two exact solution methods
--------------------------
``method="enumerated"``
    The LP exactly as eq. (2) is printed: one variable ``q_ij`` per unordered pair ``i > j``
    with the box ``[0, 1/d_ij]``, one constraint per ``(i2, l, H, O)``.  The number of
    constraints grows like binomial coefficients in K (the paper says so, L196); the size is
    computed before anything is built and :class:`EnumerationTooLargeError` is raised above
    ``max_constraints``.
``method="reformulated"`` (default)
    A polynomial-size LP with the same optimum (derived below; the paper remarks that the
    problem can be solved in polynomial time through a separation oracle, L196-L198).  With
    ``x_j = d_{i1 j} q_{i1 j}`` (j in ``H_i1``), ``y_j = d_{i2 j} q_{i2 j}`` (j in ``O_i2 \\
    {i1}``), ``H- = H_i1 \\ {i2}``, ``a = l + 1 - L^(1)`` and ``S_k(z)`` = the sum of the k
    smallest entries of ``z``, the constraints of one ``(i2, l)`` are equivalent to

    * case A (``i2 not in H``): ``S_a(x|H-) + S_b(y) >= 1`` with ``b = max(0, L_i2 - l)``,
      present iff ``a <= |H-|`` and ``b <= |O_i2 \\ {i1}|``;
    * case B (``i2 in H``; only if ``i2 in H_i1`` and ``a >= 1``):
      ``x_i2 + S_{a-1}(x|H-) + S_b(y) >= 1`` with ``b = max(0, L_i2 - l - 1)``, present iff
      ``b <= |O_i2 \\ {i1}|``,

    because the minimum of a sum over all subsets of fixed size is attained by the smallest
    entries.  By LP duality ``S_k(z) = max_tau { k tau - sum_j (tau - z_j)^+ }``, so
    ``S_k(z) >= ...`` becomes linear with one free ``tau`` and one ``s_j >= tau - z_j, s_j >= 0``
    per entry.  An ``S_k`` of the same vector and the same k is used by several constraints
    (e.g. ``S_b(y)`` by case A at ``l`` and case B at ``l - 1``); its auxiliary variables are
    created once and shared, which is exact because every user of it is best served by the same
    maximiser (``tau`` = the k-th smallest entry).  ``S_k`` of all entries is written as the
    plain sum.  The variables are ``e_ij = d_ij q_ij`` in ``[0, 1]`` with costs ``r_ij / d_ij``
    (only the pairs that occur in some constraint; every other ``q_ij`` is 0 at the optimum
    since ``r_ij >= 0``), plus the auxiliaries: O(K^2 (L^(2) - L^(1) + 2)) variables and
    constraints in the worst case, sparse.

Both are solved with HiGHS through :func:`scipy.optimize.linprog` (``method="highs"``) with
tightened feasibility tolerances (:data:`HIGHS_OPTIONS`).  The test suite checks that the two
methods agree to 1e-7 relative on the paper's small matrices and on random ones.

Speed (reformulated, one CPU core, HiGHS via scipy 1.17): about 6 ms per ``C*_i1`` on random
16-arm submatrices of the MSLR informational matrix (gap filter 0.005; at most ~1,000 variables
and rows) and about 0.1 s at K = 64 (gap filter 0.0005; ~18,000 variables, ~16,000 rows); about
half of the time is spent building the model in Python.

Decisions on ambiguities (each is named in the code where it acts)
------------------------------------------------------------------
D1 (range of l).  Eq. (2) (L97) and Lemma 1 (L85) print ``l in {max(0, L^(1) - 1), ...,
    L^(2)}``; the proof of Lemma 11 (L723) uses ``..., L_i2``.  Default ``l_range="eq2"``
    follows eq. (2).  ``l_range="lemma11"`` extends the range per ``i2`` to ``L_i2 (>= L^(2))``;
    it gives the same value, because every extra constraint is implied: for ``l > L^(2)`` take
    the arm ``i2' != i1`` with ``L_i2' = L^(2)`` and any ``H'' subset of H`` with ``|H''| =
    L^(2) + 1 - L^(1) < |H|``; the eq.-(2) constraint ``(i2', L^(2), H'', O = {})`` reads
    ``sum_{H''} x >= 1`` and implies the extra one since all terms are non-negative.  (Tested.)
D2 (indicator).  ``|O| = max(0, L_i2 - l - 1[i2 in H])`` as in eq. (2) (L97, OCR "1 \\ {...}");
    the ``1[i1 in H]`` of L492 is a typo (``i1`` is never in ``H_i1``; L85, L97 and L773 have
    ``1[i2 in H]``).
D3 (ties, ``mu_ij = 1/2`` for ``i != j``).  The paper assumes none (L65); the ArXiv matrix
    (Table 3(d), L427/L429) has ``mu_46 = 1/2``.  We apply eq. (2) literally: a tied pair is in
    neither ``O_i`` nor ``H_i`` (``L_i`` counts strict losses, so Copeland winners are the arms
    with the fewest strict losses, ``copeland_winners(by="losses")``), it occurs in no
    constraint, its box is ``[0, 1/d) = [0, inf)`` (unbounded, no upper bound is passed to the
    solver) and its optimal ``q`` is 0.  Caveat: a tie involving a winner ``i1`` could be
    broken against ``i1`` at zero KL cost, which the literal eq. (2) does not see; that cannot
    matter for ArXiv (the tie is between the non-winners 4 and 6, and breaking it only adds a
    loss to one of them).  :attr:`LowerBoundResult.tied_pairs` lists the ties.
D4 (logarithm).  ``d`` is the Bernoulli KL divergence in nats (natural log, L83), so the
    constant multiplies ``ln T`` (Theorem 2, L113, writes ``log T``).
D5 (which i1).  ``R_i1`` is defined for ``i1 in C_cop`` only (L95); a non-winner ``i1`` raises
    ``ValueError``.  ``LB = min`` over all Copeland winners (Theorem 2, L113).
D6 (reported q).  The LP optimum need not be unique (Theorems 3/4 assume uniqueness, L133);
    :attr:`LowerBoundResult.q` is the optimal vertex HiGHS returns, in the paper's units
    (``q_ij``, the coefficient of ``log T`` in the number of draws of pair ``{i, j}``).
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from duelbench.problems.matrix import square_values
from duelbench.problems.regret import regret_matrix
from duelbench.stats.kl import kl_to_half

__all__ = [
    "lower_bound_constant",
    "lower_bound",
    "LowerBoundResult",
    "EnumerationTooLargeError",
    "LowerBoundSolverError",
    "enumerated_constraint_count",
    "kl_half_matrix",
    "METHODS",
    "L_RANGES",
    "DEFAULT_MAX_CONSTRAINTS",
    "HIGHS_OPTIONS",
]

METHODS = ("reformulated", "enumerated")
L_RANGES = ("eq2", "lemma11")
#: Largest enumerated LP :func:`lower_bound` builds with ``method="enumerated"``.
DEFAULT_MAX_CONSTRAINTS = 200_000
#: HiGHS options passed to :func:`scipy.optimize.linprog` (defaults are 1e-7).
HIGHS_OPTIONS = {"primal_feasibility_tolerance": 1e-9, "dual_feasibility_tolerance": 1e-9}


class EnumerationTooLargeError(ValueError):
    """The fully enumerated LP of eq. (2) would have more constraints than allowed."""


class LowerBoundSolverError(RuntimeError):
    """HiGHS did not return an optimal solution."""


@dataclass(frozen=True)
class LowerBoundResult:
    """Theorem-2 lower-bound constants of one preference matrix.

    Attributes
    ----------
    value : float
        ``LB = min_{i1} C*_i1`` over the Copeland winners considered (all of them unless
        ``winners`` was restricted); multiply by ``ln T``.
    winner : int
        A minimising ``i1`` (the smallest index among ties).
    per_winner : dict[int, float]
        ``C*_i1`` for every Copeland winner considered.
    q : dict[int, numpy.ndarray]
        For every ``i1`` an optimal solution as a symmetric (K, K) array, ``q[i, j] = q_ij``,
        zero diagonal (decision D6).
    copeland_winners : tuple[int, ...]
        All Copeland winners (fewest strict losses, decision D3).
    method, l_range : str
        How the constants were computed.
    n_variables, n_constraints : dict[int, int]
        LP size per ``i1``.
    solve_seconds : dict[int, float]
        Wall time per ``i1`` (model building plus HiGHS).
    tied_pairs : tuple[tuple[int, int], ...]
        Off-diagonal pairs with ``mu_ij == 1/2`` (decision D3).
    """

    value: float
    winner: int
    per_winner: dict
    q: dict = field(repr=False)
    copeland_winners: tuple
    method: str
    l_range: str
    n_variables: dict = field(repr=False)
    n_constraints: dict = field(repr=False)
    solve_seconds: dict = field(repr=False)
    tied_pairs: tuple = ()


# --------------------------------------------------------------------------- problem data
def kl_half_matrix(P) -> np.ndarray:
    """``d_ij = d_KL(mu_ij, 1/2)`` in nats (paper 000 L83) as a symmetric (K, K) array, zero diagonal."""
    a = square_values(P)
    K = a.shape[0]
    d = np.zeros((K, K))
    for i in range(K):
        for j in range(i + 1, K):
            d[i, j] = d[j, i] = kl_to_half(float(a[i, j]))
    return d


class _Data:
    """Quantities of eq. (2) for one matrix (all 0-based)."""

    def __init__(self, P):
        a = square_values(P)
        self.a = a
        self.K = K = a.shape[0]
        self.beats = a > 0.5  # beats[i, j]: j in H_i
        self.loses = a < 0.5  # loses[i, j]: j in O_i
        self.L = self.loses.sum(axis=1)
        Ls = np.sort(self.L)
        self.L1, self.L2 = int(Ls[0]), int(Ls[1])
        self.winners = tuple(int(i) for i in np.flatnonzero(self.L == self.L1))
        self.d = kl_half_matrix(a)
        self.r = regret_matrix(a, "copeland")
        iu = np.triu_indices(K, 1)
        self.ties = tuple((int(i), int(j)) for i, j in zip(*iu) if a[i, j] == 0.5)

    def check_winner(self, i1: int) -> int:
        i1 = int(i1)
        if not 0 <= i1 < self.K:
            raise IndexError(f"i1 must be a 0-based arm index in [0, {self.K - 1}], got {i1}")
        if i1 not in self.winners:
            raise ValueError(
                f"arm {i1} (0-based) is not a Copeland winner (L_{i1} = {int(self.L[i1])} strict losses, the "
                f"minimum is {self.L1}; winners: {self.winners}); C*_i1 is defined for Copeland winners only "
                "(paper 000 L95)"
            )
        return i1

    def l_values(self, i2: int, l_range: str) -> range:
        lo = max(0, self.L1 - 1)
        hi = self.L2 if l_range == "eq2" else max(self.L2, int(self.L[i2]))  # decision D1
        return range(lo, hi + 1)


def _check_options(method: str, l_range: str) -> None:
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if l_range not in L_RANGES:
        raise ValueError(f"l_range must be one of {L_RANGES}, got {l_range!r}")


def _solve(c, A_ub, b_ub, bounds, what: str):
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, bounds=bounds, method="highs", options=HIGHS_OPTIONS)
    if res.status != 0:
        raise LowerBoundSolverError(f"HiGHS failed on the {what} LP: status {res.status} ({res.message})")
    return res


# --------------------------------------------------------------------------- enumerated LP
def _enumerated_count(D: _Data, i1: int, l_range: str) -> int:
    """Number of (i2, l, H, O) of eq. (2) (L97) for ``i1``: per ``(i2, l)`` the binomial counts of
    the subsets H and O of cases A and B in the module docstring."""
    h_all = int(D.beats[i1].sum())
    total = 0
    for i2 in range(D.K):
        if i2 == i1:
            continue
        h = int(D.beats[i1, i2])
        o = int(D.L[i2]) - int(D.loses[i2, i1])  # |O_i2 \ {i1}|
        for l in D.l_values(i2, l_range):
            a = l + 1 - D.L1
            bA = max(0, int(D.L[i2]) - l)
            bB = max(0, int(D.L[i2]) - l - 1)
            total += math.comb(h_all - h, a) * math.comb(o, bA)
            if h and a >= 1:
                total += math.comb(h_all - 1, a - 1) * math.comb(o, bB)
    return total


def enumerated_constraint_count(P, i1: int | None = None, l_range: str = "eq2") -> int:
    """Number of constraints of the fully enumerated eq.-(2) LP (summed over winners if ``i1`` is None)."""
    _check_options("enumerated", l_range)
    D = _Data(P)
    winners = D.winners if i1 is None else (D.check_winner(i1),)
    return sum(_enumerated_count(D, w, l_range) for w in winners)


def _solve_enumerated(D: _Data, i1: int, l_range: str, max_constraints: int):
    n_rows = _enumerated_count(D, i1, l_range)
    if n_rows > max_constraints:
        raise EnumerationTooLargeError(
            f"the enumerated eq.-(2) LP for i1 = {i1} (K = {D.K}) would have {n_rows:,} constraints, more than "
            f"max_constraints = {max_constraints:,}; use method='reformulated' (exact, polynomial size) or raise "
            "max_constraints"
        )
    K = D.K
    pairs = [(i, j) for i in range(K) for j in range(i)]  # the paper's index set i > j (L65)
    col = {}
    for k, (i, j) in enumerate(pairs):
        col[(i, j)] = col[(j, i)] = k
    H1 = [int(j) for j in np.flatnonzero(D.beats[i1])]
    rows, cols = [], []
    vals = []
    n = 0
    for i2 in range(K):
        if i2 == i1:
            continue
        Oset = [int(j) for j in np.flatnonzero(D.loses[i2]) if j != i1]
        for l in D.l_values(i2, l_range):
            size_h = l + 1 - D.L1
            for H in itertools.combinations(H1, size_h):
                size_o = max(0, int(D.L[i2]) - l - (1 if i2 in H else 0))  # decision D2
                for O in itertools.combinations(Oset, size_o):
                    for j in H:
                        rows.append(n)
                        cols.append(col[(i1, j)])
                        vals.append(-D.d[i1, j])
                    for j in O:
                        rows.append(n)
                        cols.append(col[(i2, j)])
                        vals.append(-D.d[i2, j])
                    n += 1
    assert n == n_rows
    m = len(pairs)
    c = np.array([D.r[i, j] for i, j in pairs])
    # box [0, 1/d] (L97); a tied pair has d = 0 and an unbounded box (decision D3)
    bounds = [(0.0, (1.0 / D.d[i, j]) if D.d[i, j] > 0 else None) for i, j in pairs]
    if n == 0:
        x = np.zeros(m)
        value = 0.0
    else:
        A = sp.csr_matrix((vals, (rows, cols)), shape=(n, m))
        res = _solve(c, A, -np.ones(n), bounds, f"enumerated (i1 = {i1})")
        x, value = res.x, float(res.fun)
    q = np.zeros((K, K))
    for k, (i, j) in enumerate(pairs):
        q[i, j] = q[j, i] = x[k]
    return value, q, m, n


# --------------------------------------------------------------------------- reformulated LP
class _Builder:
    """Sparse rows ``A x <= b`` of the reformulated LP, built block-wise."""

    def __init__(self, n_base: int, base_cost: np.ndarray, base_ub: np.ndarray):
        self.n = n_base
        self.cost = [base_cost]
        self.lb = [np.zeros(n_base)]
        self.ub = [base_ub]
        self.r_idx, self.c_idx, self.v = [], [], []
        self.m = 0
        self.b = []

    def new_vars(self, count: int, lo: float, hi: float) -> np.ndarray:
        idx = np.arange(self.n, self.n + count)
        self.n += count
        self.cost.append(np.zeros(count))
        self.lb.append(np.full(count, lo))
        self.ub.append(np.full(count, hi))
        return idx

    def add_rows(self, row_of_entry: np.ndarray, cols: np.ndarray, vals: np.ndarray, rhs: np.ndarray) -> None:
        self.r_idx.append(row_of_entry + self.m)
        self.c_idx.append(cols)
        self.v.append(vals)
        self.b.append(rhs)
        self.m += len(rhs)

    def smallest_sum(self, z: np.ndarray, k: int):
        """Linear representation ``(cols, coefs)`` of a lower bound on ``S_k(z)`` that is tight at the optimum.

        ``z`` are base-variable indices with values in [0, 1].  For ``0 < k < len(z)``:
        ``S_k(z) = max { k tau - sum_j s_j : s_j >= tau - z_j, s_j >= 0 }``; the maximiser has
        ``tau`` = the k-th smallest ``z`` in [0, 1] and ``s_j <= 1``, so both get the box [0, 1].
        """
        m = len(z)
        if k <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        if k >= m:  # all entries (k > m never reaches here: such constraints are absent)
            return np.asarray(z, dtype=np.int64), np.ones(m)
        tau = self.new_vars(1, 0.0, 1.0)[0]
        s = self.new_vars(m, 0.0, 1.0)
        # rows: tau - s_j - z_j <= 0
        rr = np.repeat(np.arange(m), 3)
        cc = np.column_stack([np.full(m, tau), s, z]).ravel()
        vv = np.tile([1.0, -1.0, -1.0], m)
        self.add_rows(rr, cc, vv, np.zeros(m))
        return np.concatenate([[tau], s]).astype(np.int64), np.concatenate([[float(k)], -np.ones(m)])

    def model(self):
        A = sp.csr_matrix(
            (np.concatenate(self.v), (np.concatenate(self.r_idx), np.concatenate(self.c_idx))), shape=(self.m, self.n)
        )
        bounds = np.column_stack([np.concatenate(self.lb), np.concatenate(self.ub)])
        return np.concatenate(self.cost), A, np.concatenate(self.b), bounds


def _solve_reformulated(D: _Data, i1: int, l_range: str):
    K = D.K
    # Base variables e_p = d_p q_p in [0, 1] for the pairs that occur in a constraint:
    # (i1, j), j in H_i1, and (i2, j), j in O_i2 \ {i1}, i2 != i1 (every untied pair not lost by i1).
    var = -np.ones((K, K), dtype=np.int64)
    pairs = []
    for j in np.flatnonzero(D.beats[i1]):
        var[i1, j] = var[j, i1] = len(pairs)
        pairs.append((i1, int(j)))
    for i2 in range(K):
        if i2 == i1:
            continue
        for j in np.flatnonzero(D.loses[i2]):
            if j != i1:
                var[i2, j] = var[j, i2] = len(pairs)
                pairs.append((i2, int(j)))
    n_base = len(pairs)
    pi = np.array([p[0] for p in pairs], dtype=np.int64)
    pj = np.array([p[1] for p in pairs], dtype=np.int64)
    dp = D.d[pi, pj]
    cost = D.r[pi, pj] / dp  # d > 0 for every base pair (ties are in no constraint, decision D3)
    B = _Builder(n_base, cost, np.ones(n_base))

    H1 = np.flatnonzero(D.beats[i1])
    x_all = var[i1, H1]
    S_x, S_y = {}, {}  # shared S_k blocks (exact, see the module docstring)

    def sx(excluded: int, k: int):
        key = (excluded, k)
        if key not in S_x:
            z = x_all if excluded < 0 else var[i1, H1[H1 != excluded]]
            S_x[key] = B.smallest_sum(z, k)
        return S_x[key]

    for i2 in range(K):
        if i2 == i1:
            continue
        Li2 = int(D.L[i2])
        Oi2 = np.flatnonzero(D.loses[i2])
        y = var[i2, Oi2[Oi2 != i1]]
        n_y = len(y)
        h = bool(D.beats[i1, i2])  # i2 in H_i1
        excl = i2 if h else -1
        n_hminus = len(H1) - (1 if h else 0)

        def sy(k: int, i2=i2, y=y):
            key = (i2, k)
            if key not in S_y:
                S_y[key] = B.smallest_sum(y, k)
            return S_y[key]

        for l in D.l_values(i2, l_range):  # decision D1
            a = l + 1 - D.L1
            terms = []
            # case A: i2 not in H
            bA = max(0, Li2 - l)
            if a <= n_hminus and bA <= n_y:
                terms.append([sx(excl, a), sy(bA)])
            # case B: i2 in H (decision D2: |O| drops by one)
            bB = max(0, Li2 - l - 1)
            if h and a >= 1 and a - 1 <= n_hminus and bB <= n_y:
                xi2 = (np.array([var[i1, i2]], dtype=np.int64), np.ones(1))
                terms.append([xi2, sx(excl, a - 1), sy(bB)])
            for parts in terms:
                cols = np.concatenate([p[0] for p in parts])
                vals = -np.concatenate([p[1] for p in parts])  # -(...) <= -1
                B.add_rows(np.zeros(len(cols), dtype=np.int64), cols, vals, np.array([-1.0]))

    c, A, b, bounds = B.model()
    if A.shape[0] == 0:
        e = np.zeros(n_base)
        value = 0.0
    else:
        res = _solve(c, A, b, bounds, f"reformulated (i1 = {i1})")
        e, value = res.x[:n_base], float(res.fun)
    q = np.zeros((K, K))
    q[pi, pj] = q[pj, pi] = e / dp
    return value, q, A.shape[1], A.shape[0]


# --------------------------------------------------------------------------- public API
def lower_bound(
    P,
    *,
    method: str = "reformulated",
    winners=None,
    l_range: str = "eq2",
    max_constraints: int = DEFAULT_MAX_CONSTRAINTS,
) -> LowerBoundResult:
    """All Theorem-2 constants ``C*_i1`` of ``P`` and their minimum ``LB`` (paper 000 L103, L113).

    Parameters
    ----------
    P : PreferenceMatrix or array_like
        Preference matrix (a raw array is not validated).
    method : {"reformulated", "enumerated"}
        Exact polynomial-size LP (default) or the literal eq.-(2) LP; see the module docstring.
    winners : iterable of int, optional
        Restrict to these Copeland winners (0-based); default all.
    l_range : {"eq2", "lemma11"}
        Range of ``l`` (decision D1); both give the same value.
    max_constraints : int
        Size guard for ``method="enumerated"``.

    Raises
    ------
    EnumerationTooLargeError
        ``method="enumerated"`` and the LP for some winner has more than ``max_constraints`` rows.
    ValueError
        A requested ``i1`` is not a Copeland winner, or an unknown option.
    LowerBoundSolverError
        HiGHS reports anything but optimality (should not happen: ``R_i1`` is non-empty and the
        objective is bounded below by 0, L99).
    """
    _check_options(method, l_range)
    D = _Data(P)
    chosen = D.winners if winners is None else tuple(D.check_winner(w) for w in winners)
    if not chosen:
        raise ValueError("winners must name at least one Copeland winner")
    per, qs, nv, nc, secs = {}, {}, {}, {}, {}
    if method == "enumerated":  # check every size before solving anything
        for i1 in chosen:
            n = _enumerated_count(D, i1, l_range)
            if n > max_constraints:
                _solve_enumerated(D, i1, l_range, max_constraints)  # raises with the message
    for i1 in chosen:
        t0 = time.perf_counter()
        if method == "reformulated":
            value, q, n_var, n_con = _solve_reformulated(D, i1, l_range)
        else:
            value, q, n_var, n_con = _solve_enumerated(D, i1, l_range, max_constraints)
        secs[i1] = time.perf_counter() - t0
        per[i1], qs[i1], nv[i1], nc[i1] = value, q, n_var, n_con
    best = min(chosen, key=lambda w: (per[w], w))
    return LowerBoundResult(
        value=per[best],
        winner=best,
        per_winner=per,
        q=qs,
        copeland_winners=D.winners,
        method=method,
        l_range=l_range,
        n_variables=nv,
        n_constraints=nc,
        solve_seconds=secs,
        tied_pairs=D.ties,
    )


def lower_bound_constant(P, i1: int | None = None, method: str = "reformulated", **kwargs) -> float:
    """``C*_i1`` (paper 000 L103) for a Copeland winner ``i1``, or ``LB = min_{i1} C*_i1`` if ``i1`` is None.

    The lower bound of Theorem 2 (L113) is ``LB * ln T``.  Keyword arguments are passed to
    :func:`lower_bound` (``l_range``, ``max_constraints``).
    """
    winners = None if i1 is None else (i1,)
    return lower_bound(P, method=method, winners=winners, **kwargs).value

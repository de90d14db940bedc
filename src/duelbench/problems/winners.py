"""Winner notions of a preference matrix: Copeland, Condorcet, Borda, von Neumann, random walk.

This module is the single source of truth for these quantities; the algorithms
and the regret definitions import them from here.  Every function accepts a
:class:`~duelbench.problems.matrix.PreferenceMatrix` or a raw square float
array.  Raw arrays are **not** validated (so that the functions stay cheap in
sampling loops over many submatrices); they are assumed to satisfy
``p_ij + p_ji = 1`` and ``p_ii = 1/2``.  Raw arrays with K = 1 are accepted
where the result is well defined (every arm is then trivially a winner).

Comparisons with 1/2 are exact (no tolerance): a tie ``p_ij == 1/2`` is
neither a win nor a loss, as in paper 001 L44 ("the number of arms a_j for
which p_ij > 0.5") and paper 000 L69 (``O_i = {j : mu_ij < 1/2}``).

Indices are 0-based; winner sets are returned as sorted tuples of Python ints.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linprog
from scipy.sparse.csgraph import connected_components

from .matrix import square_values

__all__ = [
    "copeland_scores",
    "losses",
    "normalized_copeland_scores",
    "copeland_winners",
    "condorcet_winner",
    "borda_scores",
    "borda_winners",
    "von_neumann_winner",
    "von_neumann_support",
    "random_walk_transition_matrix",
    "random_walk_stationary",
    "random_walk_winners",
    "RANDOM_WALK_CHAINS",
]


def _argmax_set(x: np.ndarray, tol: float = 0.0) -> tuple[int, ...]:
    return tuple(np.flatnonzero(x >= x.max() - tol).tolist())


# --------------------------------------------------------------------------- Copeland
def copeland_scores(P) -> np.ndarray:
    """Copeland scores ``Cpld(a_i) = #{j : p_ij > 1/2}`` (paper 001 L44).

    Returns an int64 array of shape (K,).  Ties (``p_ij == 1/2``) and the
    diagonal are not counted.
    """
    return np.count_nonzero(square_values(P, min_arms=1) > 0.5, axis=1)


def losses(P) -> np.ndarray:
    """Numbers of losses ``L_i = |O_i| = #{j : mu_ij < 1/2}`` (paper 000 L69).

    Returns an int64 array of shape (K,).  Without ties
    ``L_i = K - 1 - copeland_scores(P)[i]``; a tie counts in neither.
    """
    return np.count_nonzero(square_values(P, min_arms=1) < 0.5, axis=1)


def normalized_copeland_scores(P) -> np.ndarray:
    """Normalised Copeland scores ``cpld(a_i) = Cpld(a_i)/(K-1)`` (paper 001 L44).

    This is ``zeta_i`` of paper 004 §1.  Requires K >= 2.
    """
    a = square_values(P, min_arms=1)
    K = a.shape[0]
    if K < 2:
        raise ValueError("normalized Copeland scores need K >= 2")
    return np.count_nonzero(a > 0.5, axis=1) / (K - 1)


def copeland_winners(P, by: str = "score") -> tuple[int, ...]:
    """The Copeland winners, as a sorted tuple of 0-based indices.

    Parameters
    ----------
    P : PreferenceMatrix or array_like
    by : {"score", "losses"}
        ``"score"`` (default): arms with maximal Copeland score
        ``#{j : p_ij > 1/2}`` (paper 001 L44, paper 004 §1).
        ``"losses"``: arms with minimal number of losses ``L_i`` (paper 000
        L69, the definition behind the default regret of
        :func:`duelbench.problems.regret.regret_matrix`).

    Notes
    -----
    The two definitions coincide when no off-diagonal entry equals 1/2
    (then ``L_i = K - 1 - Cpld(a_i)``).  With ties they may differ: for K = 3
    with ``p_01 = p_02 = 1/2`` and ``p_12 > 1/2``, arm 0 has score 0 and no
    loss, arm 1 has score 1 and no loss, so ``by="score"`` gives ``(1,)`` and
    ``by="losses"`` gives ``(0, 1)``.
    """
    a = square_values(P, min_arms=1)
    if by == "score":
        s = np.count_nonzero(a > 0.5, axis=1)
        return tuple(np.flatnonzero(s == s.max()).tolist())
    if by == "losses":
        L = np.count_nonzero(a < 0.5, axis=1)
        return tuple(np.flatnonzero(L == L.min()).tolist())
    raise ValueError(f"by must be 'score' or 'losses', got {by!r}")


def condorcet_winner(P) -> int | None:
    """The Condorcet winner (``p_ij > 1/2`` for all ``j != i``; paper 001 L42), or None.

    A tie with any arm disqualifies an arm.  It is the arm with
    ``L_i = 0`` of paper 000 L69 only when there are no ties.
    """
    a = square_values(P, min_arms=1)
    s = np.count_nonzero(a > 0.5, axis=1)
    i = int(np.argmax(s))
    return i if s[i] == a.shape[0] - 1 else None


# --------------------------------------------------------------------------- Borda
def borda_scores(P) -> np.ndarray:
    """Borda scores: the mean of ``p_ij`` over ``j != i``.

    Paper 001 Appendix C.2 (L433) defines the Borda ("sum of expectations")
    winner as the maximiser of ``sum_{j != i} p_ij``; the mean (the sum divided
    by K - 1) has the same maximisers and lies in [0, 1].  Requires K >= 2.
    """
    a = square_values(P, min_arms=1)
    K = a.shape[0]
    if K < 2:
        raise ValueError("Borda scores need K >= 2")
    return (a.sum(axis=1) - np.diagonal(a)) / (K - 1)


def borda_winners(P, tol: float = 1e-12) -> tuple[int, ...]:
    """Arms whose Borda score is within ``tol`` of the maximum (sorted tuple).

    Borda scores are floating-point sums, so mathematically equal scores can
    differ in the last bits; the absolute tolerance ``tol`` (default 1e-12)
    treats them as tied.  Use ``tol=0`` for exact argmax.
    """
    a = square_values(P, min_arms=1)
    if a.shape[0] == 1:
        return (0,)
    return _argmax_set(borda_scores(a), tol)


# --------------------------------------------------------------------------- von Neumann
def _vn_plain(a: np.ndarray) -> np.ndarray:
    K = a.shape[0]
    if K == 1:
        return np.ones(1)
    G = a - 0.5  # payoff of the row player: p_ij - 1/2 (skew-symmetric)
    # variables x = (w_0..w_{K-1}, v); maximise v  s.t.  sum_i w_i G_ij >= v  for all j
    c = np.zeros(K + 1)
    c[-1] = -1.0
    A_ub = np.empty((K, K + 1))
    A_ub[:, :K] = -G.T
    A_ub[:, K] = 1.0
    b_ub = np.zeros(K)
    A_eq = np.ones((1, K + 1))
    A_eq[0, K] = 0.0
    bounds = [(0.0, 1.0)] * K + [(-0.5, 0.5)]
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=[1.0], bounds=bounds, method="highs")
    if res.status != 0:
        raise RuntimeError(f"von Neumann LP failed: {res.message}")
    w = np.clip(res.x[:K], 0.0, None)
    return w / w.sum()


def von_neumann_winner(P) -> np.ndarray:
    """An optimal mixed strategy of the symmetric zero-sum game with payoff ``p_ij - 1/2``.

    The von Neumann winner (paper 001 L433: "a distribution over arms such that
    playing it will maximize the probability to beat any fixed arm") is a
    distribution ``w`` with ``sum_i w_i (p_ij - 1/2) >= 0`` for every arm
    ``j``; the game is skew-symmetric, so its value is 0 and every such ``w``
    is optimal.

    Computed by one LP with ``scipy.optimize.linprog(method="highs")``:
    maximise ``v`` over ``(w, v)`` subject to ``sum_i w_i (p_ij - 1/2) >= v``
    for all ``j``, ``sum_i w_i = 1``, ``w >= 0``.  Tiny negative solver
    round-off in ``w`` is clipped to 0 and ``w`` renormalised to sum 1.

    Returns
    -------
    numpy.ndarray, shape (K,)
        The strategy found by the solver (a vertex of the optimal set).

    Notes
    -----
    The optimal strategy need not be unique (e.g. with ties, or for MultiSol-
    like matrices with several "equivalent" arms); the LP then returns one
    vertex of the optimal polytope, determined by the solver.  Use
    :func:`von_neumann_support` with ``method="union"`` for a solver-
    independent support.  If a Condorcet winner ``c`` exists, the unique
    optimal strategy is the pure strategy ``e_c``.
    """
    return _vn_plain(square_values(P, min_arms=1))


def _vn_union_support(a: np.ndarray, tol: float) -> tuple[int, ...]:
    K = a.shape[0]
    if K == 1:
        return (0,)
    G = a - 0.5
    # Optimal strategies are exactly the normalised non-zero points of the cone
    # C = {y >= 0 : G^T y >= 0}.  Maximise sum_i t_i with 0 <= t_i <= 1,
    # t_i <= y_i, y in C, sum y <= 1/tol: t_i = 1 iff some optimal strategy puts
    # mass on i (up to the scale cap), 0 otherwise.
    c = np.concatenate([np.zeros(K), -np.ones(K)])
    A_ub = np.zeros((2 * K + 1, 2 * K))
    A_ub[:K, :K] = -G.T
    A_ub[K : 2 * K, :K] = -np.eye(K)
    A_ub[K : 2 * K, K:] = np.eye(K)
    A_ub[2 * K, :K] = 1.0
    b_ub = np.zeros(2 * K + 1)
    b_ub[2 * K] = 1.0 / tol
    bounds = [(0.0, None)] * K + [(0.0, 1.0)] * K
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, bounds=bounds, method="highs")
    if res.status != 0:
        raise RuntimeError(f"von Neumann support LP failed: {res.message}")
    t = res.x[K:]
    return tuple(np.flatnonzero(t > 0.5).tolist())


def von_neumann_support(P, tol: float = 1e-9, method: str = "union") -> tuple[int, ...]:
    """Support of the von Neumann winner, as a sorted tuple of arm indices.

    Parameters
    ----------
    P : PreferenceMatrix or array_like
    tol : float, default 1e-9
        Mass threshold (see ``method``).  1e-9 is the threshold this suite
        uses for paper 001 Table 1, which gives none (L433; reading Z6 of
        ``docs/zoghi2015.md``).
    method : {"union", "solution"}
        ``"union"`` (default): the union of the supports of *all* optimal
        strategies, i.e. every arm ``i`` such that some von Neumann winner puts
        positive mass on ``i``.  This set is independent of the solver.  It is
        computed with a single HiGHS LP instead of maximising each ``w_i``
        over the optimal set (K LPs): since the game value is 0, the optimal
        strategies are the normalised non-zero points of the cone
        ``{y >= 0 : sum_i y_i (p_ij - 1/2) >= 0 for all j}``; maximising
        ``sum_i t_i`` with ``0 <= t_i <= min(1, y_i)`` over that cone (scale
        capped by ``sum_i y_i <= 1/tol``) gives ``t_i = 1`` exactly on the
        union.  An arm whose largest mass in any optimal strategy is below
        about ``|union| * tol`` may be left out.  A convex combination of
        optimal strategies is optimal, so the union is itself the support of
        one (maximal-support) optimal strategy.
        ``"solution"``: ``{i : w_i > tol}`` for the strategy ``w`` returned by
        :func:`von_neumann_winner` (depends on the solver's vertex when the
        optimum is not unique; equal to ``"union"`` when it is unique).

    Notes
    -----
    Paper 001 Table 1 uses "the support of the distribution (i.e., the set of
    arms with non-zero probability)" (L433) without saying which optimal
    strategy; the two methods agree whenever the von Neumann winner is unique.
    """
    if not tol > 0:
        raise ValueError(f"tol must be positive, got {tol!r}")
    a = square_values(P, min_arms=1)
    if method == "union":
        return _vn_union_support(a, tol)
    if method == "solution":
        w = _vn_plain(a)
        return tuple(np.flatnonzero(w > tol).tolist())
    raise ValueError(f"method must be 'union' or 'solution', got {method!r}")


# --------------------------------------------------------------------------- random walks
RANDOM_WALK_CHAINS = ("C", "A", "B")


def random_walk_transition_matrix(P, chain: str = "C") -> np.ndarray:
    """Row-stochastic transition matrix ``S`` of a random walk on the arms.

    Paper 001 L433 defines the Random Walk (PageRank) winner as "the arm we are
    most likely to visit in some Markov Chain determined by the preference
    matrix" without giving the chain.  Three candidate chains are
    implemented; in all of them the walk moves from ``i`` towards arms ``j``
    that beat ``i``, with weight ``p_ji = 1 - p_ij``.

    ``chain="C"`` (default; reading Z6 of ``docs/zoghi2015.md``, chosen with
    knowledge of Table 1, so its random-walk cells are reported as calibrated)::

        S_ij = p_ji / sum_{l != i} p_li   (j != i),    S_ii = 0.

      If no arm beats ``i`` with positive probability (denominator 0), ``i``
      is absorbing: ``S_ii = 1``.

    ``chain="A"`` (self term included in the normalisation, ``p_ii = 1/2``)::

        S_ij = p_ji / sum_l p_li   (all j, including S_ii = (1/2) / sum_l p_li).

    ``chain="B"`` (lazy "Rank Centrality" chain on the complete comparison
    graph, maximal degree K - 1)::

        S_ij = p_ji / (K - 1)   (j != i),    S_ii = 1 - sum_{j != i} p_ji / (K - 1).

      It fits paper 001 Table 1 (L435-L440) worst of the three: in the
      committed results (``figures/zoghi2015/table1_overlap_long.csv``) its
      three random-walk cells are the farthest from the printed ones.

    Labels "A", "B", "C" are those of ``docs/zoghi2015.md`` (RW-A, RW-B,
    RW-C); "RW-C" etc. are accepted too (case-insensitive).
    """
    a = square_values(P, min_arms=1)
    ch = _chain_name(chain)
    K = a.shape[0]
    W = (1.0 - a).T  # W[i, j] = 1 - p_ji = p_ij ... transposed below
    W = 1.0 - a.T  # W[i, j] = p_ji: probability that j beats i  (exact: 1 - p_ji)
    W = a.T.copy()  # W[i, j] = p_ji
    if ch == "C":
        np.fill_diagonal(W, 0.0)
        den = W.sum(axis=1)
        S = np.zeros_like(W)
        ok = den > 0
        S[ok] = W[ok] / den[ok, None]
        S[~ok, :] = 0.0
        idx = np.flatnonzero(~ok)
        S[idx, idx] = 1.0
        return S
    if ch == "A":
        np.fill_diagonal(W, 0.5)
        return W / W.sum(axis=1, keepdims=True)
    # "B"
    if K == 1:
        return np.ones((1, 1))
    np.fill_diagonal(W, 0.0)
    S = W / (K - 1)
    S[np.diag_indices(K)] = 1.0 - S.sum(axis=1)
    return S


def _chain_name(chain: str) -> str:
    c = str(chain).upper()
    if c.startswith("RW-"):
        c = c[3:]
    if c not in RANDOM_WALK_CHAINS:
        raise ValueError(f"chain must be one of {RANDOM_WALK_CHAINS} (or 'RW-A', 'RW-B', 'RW-C'), got {chain!r}")
    return c


def _stationary_irreducible(S: np.ndarray) -> np.ndarray:
    """Solve pi S = pi, sum pi = 1 for an irreducible chain by one linear solve."""
    n = S.shape[0]
    if n == 1:
        return np.ones(1)
    M = S.T - np.eye(n)
    M[-1, :] = 1.0  # replace one (redundant) balance equation by the normalisation
    b = np.zeros(n)
    b[-1] = 1.0
    pi = np.linalg.solve(M, b)
    pi = np.clip(pi, 0.0, None)
    return pi / pi.sum()


def _stationary_general(S: np.ndarray) -> np.ndarray:
    """Stationary distribution of a chain with exactly one closed communicating class."""
    K = S.shape[0]
    adj = S > 0
    ncomp, lab = connected_components(adj, directed=True, connection="strong")
    # a strongly connected component is closed iff no edge leaves it
    leaves = np.zeros(ncomp, dtype=bool)
    src, dst = np.nonzero(adj)
    cross = lab[src] != lab[dst]
    leaves[lab[src[cross]]] = True
    closed = np.flatnonzero(~leaves)
    if closed.size != 1:
        raise ValueError(
            f"the random-walk chain has {closed.size} closed classes, so its stationary distribution is "
            "not unique; this cannot happen for a valid preference matrix (p_ij + p_ji = 1)"
        )
    members = np.flatnonzero(lab == closed[0])
    pi = np.zeros(K)
    pi[members] = _stationary_irreducible(S[np.ix_(members, members)])
    return pi


def random_walk_stationary(P, chain: str = "C") -> np.ndarray:
    """Stationary distribution ``pi`` (``pi S = pi``, ``sum pi = 1``) of a random-walk chain.

    ``S`` is :func:`random_walk_transition_matrix` ``(P, chain)``.  If every
    off-diagonal ``p_ij`` lies strictly in (0, 1), all chains are irreducible
    and ``pi`` is the unique solution of the linear system
    ``(S^T - I) pi = 0`` with one balance row replaced by ``sum pi = 1``
    (one ``numpy.linalg.solve``; tiny negative round-off is clipped and
    ``pi`` renormalised).

    With entries 0 or 1 the chain may be reducible (``i -> j`` is possible
    iff ``p_ji > 0``).  It still has exactly one closed communicating class:
    two disjoint closed classes would each have to beat the other with
    probability 1.  The stationary distribution is then unique, zero outside
    that class, and found by the same linear solve restricted to the class
    (classes from :func:`scipy.sparse.csgraph.connected_components`).
    """
    a = square_values(P, min_arms=1)
    S = random_walk_transition_matrix(a, chain)
    K = a.shape[0]
    off = ~np.eye(K, dtype=bool)
    if np.all((a[off] > 0.0) & (a[off] < 1.0)):
        return _stationary_irreducible(S)
    return _stationary_general(S)


def random_walk_winners(P, chain: str = "C", tol: float = 1e-9) -> tuple[int, ...]:
    """Random Walk winners: arms with maximal stationary mass (sorted tuple).

    An arm is a winner if ``pi_i >= max(pi) - tol`` (absolute tolerance,
    default 1e-9, to absorb linear-solve round-off between mathematically
    equal masses).  See :func:`random_walk_transition_matrix` for the chains
    (default ``"C"``) and :func:`random_walk_stationary` for ``pi``.
    """
    return _argmax_set(random_walk_stationary(P, chain), tol)

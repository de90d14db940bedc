"""The offline Condorcet problem of Chen et al. 2020 (Eq. 6, L235–L244) solved exactly by one LP.

CAR-Cond (Algorithm 2) calls an oracle ``O_ε(A1, R1, A2, R2, Q)`` that returns, up to ``ε``,

    OPT = max_{x ∈ 𝒫(ℳ, A1, R1)} min_{y ∈ 𝒫(ℳ, A2, R2)} (1/ℓ) xᵀ Q y          (Eq. 6, L237)

where ``𝒫(ℳ, A, R) = conv{χ_M : M ∈ ℳ, A ⊆ M, R ∩ M = ∅}`` (L239).  The paper builds an FPTAS for
it (Algorithms 6–7, :mod:`duelbench.cpe.fptas`).  It can be solved exactly in polynomial time:
``𝒫(ℳ, A, R)`` is the face ``{x ∈ [0,1]^m : Σ_{e ∈ E_j} x_e = 1 ∀j, Σ_{e ∋ c} x_e ≤ 1 ∀c,
x_e = 1 (e ∈ A), x_e = 0 (e ∈ R)}`` of the bipartite matching polytope, integral because its
constraint matrix is totally unimodular, so its vertices are exactly the admissible maximum
matchings.  Removing ``R`` and the edges that conflict with ``A`` leaves a graph ``G_Y`` whose
position-saturating matching polytope is ``𝒫(ℳ, A2, R2)``; LP duality turns the inner minimum
into a maximum, and Eq. (6) becomes the single LP

    max_{x, u, v}  Σ_j u_j − Σ_c v_c
    s.t.  u_{s(e)} − v_{c(e)} − (1/ℓ) Σ_{e′ ∈ G_X} Q[e′, e] x_{e′} ≤ 0     ∀ e ∈ G_Y
          Σ_{e′ ∈ E_j ∩ G_X} x_{e′} = 1 ∀j,   Σ_{e′ ∈ G_X, e′ ∋ c} x_{e′} ≤ 1 ∀c,
          0 ≤ x ≤ 1,  v ≥ 0,  u free,

solved by HiGHS (``highspy``, the solver behind :func:`scipy.optimize.linprog`, called directly).  This oracle is exact (``ε = 0``, so it
is an ``O_ε`` for every ``ε``) and is the suite's reference for the FPTAS and the exhaustive
oracle.

Decisions
---------
* An empty ``𝒫(ℳ, A1, R1)`` (the max over an empty set) has value ``-inf``; an empty
  ``𝒫(ℳ, A2, R2)`` with a non-empty first polytope (a min over an empty set) has ``+inf``.
  CAR-Cond's comparisons treat both as ordinary extended reals (Algorithm 2, L272–L276).
* The value is returned rounded to nothing: HiGHS' tolerances (about 1e-9) are the oracle's
  accuracy; comparisons with a margin ``ε_q`` of at least 2^-30 are unaffected.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from scipy.sparse import csc_matrix

from .instance import BipartiteInstance
from .matching import _allowed, mwmc

__all__ = ["OracleSolution", "lp_oracle", "lp_value"]


@dataclass(frozen=True)
class OracleSolution:
    """Value of Eq. (6) and a maximising ``x`` (length ``m``; None when the value is infinite)."""

    value: float
    x: np.ndarray | None


def _feasible_edges(inst: BipartiteInstance, forced: Iterable[int], forbidden: Iterable[int]) -> np.ndarray | None:
    """Indices of the edges of the reduced graph, or None if no admissible maximum matching exists."""
    forced, forbidden = tuple(forced), tuple(forbidden)
    allowed = _allowed(inst, forced, forbidden)
    if allowed is None or mwmc(inst, np.zeros(inst.m), forced, forbidden) is None:
        return None
    return np.flatnonzero(allowed)


def lp_oracle(inst: BipartiteInstance, A1: Iterable[int], R1: Iterable[int], A2: Iterable[int],
              R2: Iterable[int], Q: np.ndarray) -> OracleSolution:
    """Exact value of Eq. (6) for the admissible sets ``(A1, R1)`` (maximiser) and ``(A2, R2)``
    (minimiser) and the matrix ``Q`` (``m × m``), with a maximising ``x``."""
    X = _feasible_edges(inst, A1, R1)
    if X is None:
        return OracleSolution(-np.inf, None)
    Y = _feasible_edges(inst, A2, R2)
    if Y is None:
        return OracleSolution(np.inf, None)
    Q = np.asarray(Q, dtype=np.float64)
    nx, ell, n = len(X), inst.ell, inst.n
    # variables: x (nx), u (ell), v (n); rows: one per e in Y, one per candidate, one per position
    #   u_{s(e)} - v_{c(e)} - (1/ell) sum_{e' in X} Q[e', e] x_{e'} <= 0        (e in Y)
    #   sum_{e' in X at c} x_{e'} <= 1                                          (candidates)
    #   sum_{e' in X at j} x_{e'} = 1                                           (positions)
    qx = -Q[np.ix_(X, Y)].T / ell  # (|Y|, nx)
    r_i, r_j = np.nonzero(qx)
    ny = len(Y)
    rows = np.concatenate([r_i, np.arange(ny), np.arange(ny), ny + inst.candidate[X], ny + n + inst.position[X]])
    cols = np.concatenate([r_j, nx + inst.position[Y], nx + ell + inst.candidate[Y], np.arange(nx), np.arange(nx)])
    vals = np.concatenate([qx[r_i, r_j], np.ones(ny), -np.ones(ny), np.ones(nx), np.ones(nx)])
    A = csc_matrix((vals, (rows, cols)), shape=(ny + n + ell, nx + ell + n))
    lower = np.concatenate([np.full(ny + n, -np.inf), np.ones(ell)])
    upper = np.concatenate([np.zeros(ny), np.ones(n), np.ones(ell)])
    cost = np.concatenate([np.zeros(nx), -np.ones(ell), np.ones(n)])  # minimise the negated objective
    col_lower = np.concatenate([np.zeros(nx), np.full(ell, -np.inf), np.zeros(n)])
    col_upper = np.concatenate([np.ones(nx), np.full(ell + n, np.inf)])
    value, solution = _solve(cost, col_lower, col_upper, A, lower, upper, inst.name)
    x = np.zeros(inst.m)
    x[X] = solution[:nx]
    return OracleSolution(-value, x)


def _solve(cost, col_lower, col_upper, A, row_lower, row_upper, name: str) -> tuple[float, np.ndarray]:
    """Minimise ``cost · z`` subject to ``row_lower ≤ A z ≤ row_upper`` and the column bounds with
    HiGHS, through ``highspy`` directly (scipy's ``linprog`` wrapper costs several times the
    solve on these small LPs); returns (optimal value, z)."""
    import highspy

    inf = highspy.kHighsInf
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = A.shape[1], A.shape[0]
    lp.col_cost_ = cost
    lp.col_lower_ = np.where(np.isfinite(col_lower), col_lower, -inf)
    lp.col_upper_ = np.where(np.isfinite(col_upper), col_upper, inf)
    lp.row_lower_ = np.where(np.isfinite(row_lower), row_lower, -inf)
    lp.row_upper_ = np.where(np.isfinite(row_upper), row_upper, inf)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = A.indptr
    lp.a_matrix_.index_ = A.indices
    lp.a_matrix_.value_ = A.data
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.passModel(lp)
    h.run()
    status = h.getModelStatus()
    if status != highspy.HighsModelStatus.kOptimal:
        raise RuntimeError(f"{name!r}: the Condorcet-oracle LP ended with status {h.modelStatusToString(status)}")
    return float(h.getInfo().objective_function_value), np.array(h.getSolution().col_value)


def lp_value(inst: BipartiteInstance, A1: Iterable[int], R1: Iterable[int], A2: Iterable[int],
             R2: Iterable[int], Q: np.ndarray, eps: float = 0.0) -> float:
    """``O_ε(A1, R1, A2, R2, Q)`` (the oracle signature of L235): the exact value of
    :func:`lp_oracle`, which is within any ``eps ≥ 0`` of OPT (``eps`` is accepted for the
    common oracle signature ``oracle(inst, A1, R1, A2, R2, Q, eps) -> float`` and unused)."""
    return lp_oracle(inst, A1, R1, A2, R2, Q).value

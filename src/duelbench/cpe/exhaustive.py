"""The offline Condorcet problem of Chen et al. 2020 (Eq. 6, L235–L244) by enumerating matchings.

Eq. (6) asks for

    OPT = max_{x ∈ 𝒫(ℳ, A1, R1)} min_{y ∈ 𝒫(ℳ, A2, R2)} (1/ℓ) xᵀ Q y,

with ``𝒫(ℳ, A, R)`` the convex hull of ``χ_M`` over the admissible maximum matchings
``{M ∈ ℳ : A ⊆ M, R ∩ M = ∅}`` (L239).  With ``X`` and ``Y`` the admissible matchings of the
two sides, a point of ``𝒫(ℳ, A1, R1)`` is ``x = Σ_a λ_a χ_{M_a}`` for a distribution ``λ`` on
``X`` (and likewise ``y`` with ``μ`` on ``Y``), and the objective is bilinear, so

    (1/ℓ) xᵀ Q y = Σ_{a, b} λ_a μ_b G[a, b],    G[a, b] = f(M_a, M_b, Q) = (1/ℓ) χ_{M_a}ᵀ Q χ_{M_b}

(Eq. 1, L70–L72): Eq. (6) is the value of the mixed extension of the finite matrix game ``G``.
The inner minimum of a linear function of ``μ`` is attained at a pure ``b``, which leaves the
linear program

    max_{λ, v} v   s.t.  v ≤ Σ_a λ_a G[a, b] ∀ b ∈ Y,   Σ_a λ_a = 1,   λ ≥ 0,

solved by HiGHS through :func:`scipy.optimize.linprog`.  This oracle needs ``|X| + |Y|``
enumerated matchings, so it serves small instances only: it is the independent check of the
one-LP oracle :func:`duelbench.cpe.oracles.lp_value` and of the FPTAS
(:mod:`duelbench.cpe.fptas`).

Decisions
---------
* An empty ``𝒫(ℳ, A1, R1)`` gives ``-inf`` and, when it is not empty, an empty
  ``𝒫(ℳ, A2, R2)`` gives ``+inf`` (the max and the min over an empty set; L237), as
  :func:`duelbench.cpe.oracles.lp_value` does.
* The enumeration budget ``limit`` bounds each side separately (``|X| ≤ limit`` and
  ``|Y| ≤ limit``; the default 5040 = 7! admits ``K_{7,7}``); past it the oracle raises
  ``ValueError`` rather than enumerating without bound.
* The oracle is exact (up to HiGHS' tolerances), so ``eps`` (L235) is accepted for the common
  oracle signature and unused.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

from .exact import indicator_products
from .instance import BipartiteInstance
from .matching import enumerate_matchings

__all__ = ["ExhaustiveSolution", "exhaustive_oracle", "exhaustive_value", "payoff_matrix", "DEFAULT_LIMIT"]

#: Default enumeration budget per side (7! = 5040 maximum matchings).
DEFAULT_LIMIT = 5040


@dataclass(frozen=True)
class ExhaustiveSolution:
    """Value of Eq. (6) by enumeration.

    Attributes
    ----------
    value : float
        The game value (``±inf`` when a side has no admissible matching).
    matchings_x, matchings_y : ndarray of shape (|X|, ℓ), (|Y|, ℓ)
        The admissible maximum matchings of the maximiser and the minimiser (edge indices in
        position order, lexicographic).
    strategy : ndarray of shape (|X|,) or None
        An optimal distribution ``λ`` on ``matchings_x`` (None when the value is infinite).
    """

    value: float
    matchings_x: np.ndarray
    matchings_y: np.ndarray
    strategy: np.ndarray | None


def _enumerate(inst: BipartiteInstance, forced, forbidden, limit: int, side: str) -> np.ndarray:
    try:
        return enumerate_matchings(inst, forced, forbidden, limit=limit)
    except ValueError:
        raise ValueError(f"exhaustive oracle on {inst.name!r}: the {side} has more than limit={limit} admissible "
                         "maximum matchings to enumerate; raise `limit` or use duelbench.cpe.oracles.lp_value") \
            from None


def payoff_matrix(inst: BipartiteInstance, X: np.ndarray, Y: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """``G[a, b] = f(M_a, M_b, Q) = (1/ℓ) χ_{M_a}ᵀ Q χ_{M_b}`` (Eq. 1) for the rows ``M_a`` of
    ``X`` and ``M_b`` of ``Y`` (arrays of edge indices, one matching per row): the sums of the
    entries ``Q[e, e′]``, ``e ∈ M_a``, ``e′ ∈ M_b``, in a fixed order
    (:func:`duelbench.cpe.exact.indicator_products`), divided by ``ℓ``."""
    X = np.ascontiguousarray(X, dtype=np.int64).reshape(-1, inst.ell)
    Y = np.ascontiguousarray(Y, dtype=np.int64).reshape(-1, inst.ell)
    return indicator_products(np.ascontiguousarray(Q, dtype=np.float64), X, Y) / inst.ell


def exhaustive_oracle(inst: BipartiteInstance, A1: Iterable[int], R1: Iterable[int], A2: Iterable[int],
                      R2: Iterable[int], Q: np.ndarray, eps: float = 0.0,
                      limit: int = DEFAULT_LIMIT) -> ExhaustiveSolution:
    """Eq. (6) as the matrix game between the admissible matchings of both sides.

    Parameters
    ----------
    inst : BipartiteInstance
        The graph (``Q`` replaces its ``P``).
    A1, R1, A2, R2 : iterables of edge indices
        Accepted and rejected edges of the maximiser (``x``) and of the minimiser (``y``).
    Q : array of shape (m, m)
        The preference matrix of the objective (entries in ``[0, 1]``, L235).
    eps : float
        Oracle accuracy of L235; unused (the oracle is exact).
    limit : int
        Largest number of admissible matchings enumerated per side; ``ValueError`` beyond.

    Returns
    -------
    ExhaustiveSolution
    """
    X = _enumerate(inst, A1, R1, limit, "maximiser (A1, R1)")
    if len(X) == 0:
        return ExhaustiveSolution(-np.inf, X, np.zeros((0, inst.ell), dtype=np.int64), None)
    Y = _enumerate(inst, A2, R2, limit, "minimiser (A2, R2)")
    if len(Y) == 0:
        return ExhaustiveSolution(np.inf, X, Y, None)
    G = payoff_matrix(inst, X, Y, Q)
    nx, ny = G.shape
    # variables (λ_1 … λ_nx, v); maximise v, i.e. minimise −v
    c = np.zeros(nx + 1)
    c[-1] = -1.0
    A_ub = np.hstack([-G.T, np.ones((ny, 1))])  # v − Σ_a λ_a G[a, b] ≤ 0
    A_eq = np.zeros((1, nx + 1))
    A_eq[0, :nx] = 1.0
    bounds = [(0.0, None)] * nx + [(None, None)]
    res = linprog(c, A_ub=A_ub, b_ub=np.zeros(ny), A_eq=A_eq, b_eq=[1.0], bounds=bounds, method="highs")
    if res.status != 0:
        raise RuntimeError(f"{inst.name!r}: the matrix-game LP ended with status {res.status}: {res.message}")
    return ExhaustiveSolution(float(-res.fun), X, Y, res.x[:nx])


def exhaustive_value(inst: BipartiteInstance, A1: Iterable[int], R1: Iterable[int], A2: Iterable[int],
                     R2: Iterable[int], Q: np.ndarray, eps: float = 0.0, limit: int = DEFAULT_LIMIT) -> float:
    """``O_ε(A1, R1, A2, R2, Q)`` (L235) by enumeration: the value of :func:`exhaustive_oracle`
    (``-inf`` / ``+inf`` for an empty first / second polytope)."""
    return exhaustive_oracle(inst, A1, R1, A2, R2, Q, eps, limit).value

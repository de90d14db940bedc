"""The FPTAS of Chen et al. 2020 for the offline Condorcet problem (Eq. 6; Section 4.2, Appendix C.2).

With ``f(x) = min_{y ∈ 𝒫(ℳ, A2, R2)} (1/ℓ) xᵀ Q y`` (concave: a minimum of linear functions,
L314; Lemma 7, L1121–L1147), Eq. (6) is ``max_{x ∈ 𝒫(ℳ, A1, R1)} f(x)``.  Algorithm 6
(L1082–L1092) runs projected sub-gradient ascent on it:

* the sub-gradient at ``x^(t)`` is ``g_t = (1/ℓ) Q y_t`` with ``y_t`` a minimiser of the inner
  problem (L316), a minimum-weight admissible maximum matching for the weights ``(1/ℓ) Qᵀ x^(t)``
  (the inner minimum of a linear function over ``𝒫(ℳ, A2, R2)`` is attained at a vertex, so
  ``f(x^(t)) = (1/ℓ) x^(t)ᵀ Q χ_{y_t}`` exactly);
* the ascent step ``x^(t) + η g_t`` (L1089) is projected back onto ``𝒫(ℳ, A1, R1)``
  approximately by Frank–Wolfe (Algorithm 7, L1093–L1103): minimise ``½‖v − z‖²`` over the
  polytope, whose linear minimisation step (L1099) is a min-cost admissible maximum matching
  for the cost ``v^(s) − z``, with steps ``2/(s + 1)`` (Proposition 2, L520–L524).

Lemma 9 (L1188–L1243) bounds ``OPT − max_{t ≤ T} f(x^(t))`` by ``ε`` for ``T = ⌈(4ℓK)²/ε²⌉``,
``η = 2ℓ/(K√T)`` and projection accuracy ``ε′ = ε/(2K√T)`` (L1086); Lemma 8 (L1166–L1186)
gives that accuracy after ``⌈16ℓ²/ε′²⌉`` Frank–Wolfe iterations.  Every iterate is a convex
combination of admissible matchings, so every value returned here is ``f`` at a feasible point
and never exceeds OPT.  The paper's counts (:func:`paper_budget`) grow like
``16384 ℓ⁶K⁶/ε⁶`` matching-oracle calls and cannot be run beyond toy cases; the suite runs
the algorithm with explicit budgets (``outer``, ``fw``) and reports the paper's count beside.

Decisions
---------
* Frank–Wolfe starts (Algorithm 7, L1096) from ``χ_M`` for an **admissible** maximum matching
  ``M`` (``A ⊆ M``, ``R ∩ M = ∅``), found once per call, since the projection is onto
  ``𝒫(ℳ, A, R)``; its linear minimisation (L1099, printed without ``A``/``R``) is over the
  admissible matchings as well.  Algorithm 6 starts (L1085) from the same matching.
* Algorithm 7 loops ``⌈16ℓ²/ε²⌉`` times (L1097, and the ``x_r`` of Lemma 8, L1172) but returns
  ``x^(⌈8ℓ²/ε²⌉+1)`` (L1103); the guarantee of Lemma 8 needs the former (with ``8ℓ²/ε²``
  iterations Proposition 2 only gives a distance ``√2·ε``), so the last iterate of the loop,
  ``x^(F+1)`` after ``F = ⌈16ℓ²/ε²⌉`` iterations, is returned.
* Algorithm 6's parameters (L1086) are printed with an undefined ``M``; it is read as ``T``
  (as the proof of Lemma 9 requires, L1230–L1241): ``η = 2ℓ/(K√T)``, ``ε′ = ε/(2K√T)``.  With
  ``T`` given as a budget, ``ε′`` uses that ``T``.
* Algorithm 6 returns ``f(x^(T+1))`` (L1092) while Lemma 9 proves the bound for
  ``max_{t ≤ T} f(x^(t))``; the value returned is the best of ``f(x^(1)), …, f(x^(T+1))``
  (at least as good as both), with its iterate.
* Step sizes: ``step="paper"`` is ``η = 2ℓ/(K√T)``; ``step="diameter"`` is the textbook
  ``η = D/(G√T)`` with ``D = 2ℓ`` (Lemma 6, L1107–L1120) and ``G = √m/ℓ``, the bound on
  ``‖(1/ℓ) Q χ_y‖₂`` when ``Q`` vanishes between incomparable edges as ``P`` and its confidence
  bounds do (each entry of ``Q χ_y`` then has one term), i.e. ``η = 2ℓ²/√(m·T)``; Lemma 7
  claims the Lipschitz constant ``K`` instead.  A positive number sets ``η`` directly.
* Warm start (``warm_start=True``, not in the paper): each projection starts from the current
  iterate ``x^(t)`` instead of ``χ_M``.  With the steps ``2/(s + 1)`` the first step (``= 1``)
  would discard any start, so a warm-started projection uses exact line search on ``½‖v − z‖²``
  (closed form), which keeps Proposition 2's bound (each step does at least as well as the
  step ``2/(s + 1)`` in the one-step inequality of its proof).
* The linear minimisations call :func:`scipy.optimize.linear_sum_assignment` on an
  ``ℓ × n`` position–candidate cost matrix laid out once per call (non-admissible edges
  ``+inf``), the computation of :func:`duelbench.cpe.matching.mwmc` without rebuilding the
  layout at each of the many calls.
* The inner weights ``(1/ℓ) Qᵀ x^(t)`` and the inner products of the line search are summed in
  a fixed order (:func:`duelbench.cpe.exact.matvec`, :func:`duelbench.cpe.exact.dot`), not by
  BLAS, whose order of terms depends on the processor: they choose the next matching, so the
  iterates and the value returned are the same on every machine.
* Matching-oracle calls are counted: one for the admissible start, then per outer iteration one
  for the sub-gradient and ``F`` for the projection, and one for ``f(x^(T+1))``:
  ``1 + T(F + 1) + 1`` in all.  The counts are computed in exact rationals, a float ``ε`` read
  as its shortest decimal (``ε = 0.1`` is ``1/10``, not the binary double just above it).
* An empty ``𝒫(ℳ, A1, R1)`` gives ``-inf`` (after one call); otherwise an empty
  ``𝒫(ℳ, A2, R2)`` gives ``+inf`` (after two), as :func:`duelbench.cpe.oracles.lp_value` does.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy.optimize import linear_sum_assignment

from .exact import dot, matvec
from .instance import BipartiteInstance
from .matching import _allowed

__all__ = ["PaperBudget", "paper_budget", "FWProjection", "fw_project", "FptasResult", "condorcet_fptas",
           "fptas_value", "fptas_oracle", "step_size", "MAX_CALLS"]

#: Default ceiling on the matching-oracle calls of one FPTAS run (refused beyond, before running).
MAX_CALLS = 10_000_000


# --- the paper's iteration counts -------------------------------------------------------------
@dataclass(frozen=True)
class PaperBudget:
    """Iteration counts of Algorithms 6–7 with the parameters of L1086 and L1097.

    Attributes
    ----------
    ell, K : int
        Positions and duel pairs of the instance.
    eps : Fraction
        The target accuracy ``ε`` (exactly the given number).
    outer : int
        ``T = ⌈(4ℓK)²/ε²⌉`` (L1086).
    fw : int
        Frank–Wolfe iterations per projection ``⌈16ℓ²/ε′²⌉`` (L1097) with ``ε′ = ε/(2K√T)``,
        i.e. ``⌈64ℓ²K²T/ε²⌉``.
    eta : float
        The step ``2ℓ/(K√T)``.
    matching_calls : int
        ``1 + T(fw + 1) + 1`` matching-oracle calls (about ``16384 ℓ⁶K⁶/ε⁶``).
    """

    ell: int
    K: int
    eps: Fraction
    outer: int
    fw: int
    eta: float
    matching_calls: int


def _as_fraction(eps) -> Fraction:
    """``ε`` as an exact rational; a float is read as its shortest decimal (``0.1`` is ``1/10``)."""
    return Fraction(repr(float(eps))) if isinstance(eps, (float, np.floating)) else Fraction(eps)


def _ceil(q: Fraction) -> int:
    return -((-q.numerator) // q.denominator)


def _fw_iterations(ell: int, eps_projection_sq: Fraction) -> int:
    """``⌈16ℓ²/ε²⌉`` (L1097) from ``ε²`` given exactly."""
    return _ceil(Fraction(16 * ell * ell) / eps_projection_sq)


def _paper_fw(ell: int, K: int, eps: Fraction, outer: int) -> int:
    """``⌈16ℓ²/ε′²⌉`` with ``ε′² = ε²/(4K²T)`` (L1086), exactly."""
    return _fw_iterations(ell, eps * eps / (4 * K * K * outer))


def paper_budget(ell: int, K: int, eps) -> PaperBudget:
    """The counts of Algorithm 6 run with the paper's parameters (L1086, L1097), exactly.

    Parameters
    ----------
    ell, K : int
        Positions and duel pairs (``K ≥ 1``).
    eps : float, int, Fraction or str
        The accuracy ``ε > 0``, as an exact rational (a float is read as its shortest decimal).

    Returns
    -------
    PaperBudget
    """
    eps = _as_fraction(eps)
    if eps <= 0 or ell < 1 or K < 1:
        raise ValueError(f"paper_budget needs ε > 0, ℓ ≥ 1 and K ≥ 1, got ε={eps}, ℓ={ell}, K={K}")
    outer = _ceil(Fraction(16 * ell * ell * K * K) / (eps * eps))
    fw = _paper_fw(ell, K, eps, outer)
    return PaperBudget(ell=ell, K=K, eps=eps, outer=outer, fw=fw, eta=2 * ell / (K * math.sqrt(outer)),
                       matching_calls=outer * (fw + 1) + 2)


def step_size(inst: BipartiteInstance, outer: int, step="paper") -> float:
    """The ascent step ``η`` of Algorithm 6 for ``outer`` iterations (see the module's Decisions).

    ``"paper"``: ``2ℓ/(K√T)`` (L1086); ``"diameter"``: ``2ℓ²/√(m·T)``; a positive number: itself.
    """
    if isinstance(step, str):
        if step == "paper":
            if inst.K < 1:
                raise ValueError(f"{inst.name!r} has K = 0 duel pairs: the paper's step 2ℓ/(K√T) is undefined")
            return 2 * inst.ell / (inst.K * math.sqrt(outer))
        if step == "diameter":
            return 2 * inst.ell ** 2 / math.sqrt(inst.m * outer)
        raise ValueError(f"unknown step {step!r}: use 'paper', 'diameter' or a positive number")
    eta = float(step)
    if not eta > 0:
        raise ValueError(f"the step must be positive, got {step!r}")
    return eta


# --- linear minimisation over 𝒫(ℳ, A, R) ------------------------------------------------------
class _LinearMinimiser:
    """``argmin_{M admissible} Σ_{e ∈ M} c_e`` on an ``ℓ × n`` layout built once; counts calls."""

    def __init__(self, inst: BipartiteInstance, forced: Iterable[int], forbidden: Iterable[int]):
        allowed = _allowed(inst, tuple(forced), tuple(forbidden))
        self.empty = allowed is None
        self.idx = np.flatnonzero(allowed) if allowed is not None else np.zeros(0, dtype=np.int64)
        self.flat = inst.position[self.idx] * inst.n + inst.candidate[self.idx]
        self.cost = np.full((inst.ell, inst.n), np.inf)
        self.lookup = np.full((inst.ell, inst.n), -1, dtype=np.int64)
        self.lookup[inst.position, inst.candidate] = np.arange(inst.m)
        self.calls = 0

    def __call__(self, c: np.ndarray) -> np.ndarray | None:
        """Edge indices (position order) of a minimum-cost admissible maximum matching; None if
        there is none."""
        self.calls += 1
        if self.empty:
            return None
        self.cost.flat[self.flat] = c[self.idx]
        try:
            rows, cols = linear_sum_assignment(self.cost)
        except ValueError:  # no assignment of finite cost: no admissible matching
            return None
        return self.lookup[rows, cols]


def _frank_wolfe(lmo: _LinearMinimiser, z: np.ndarray, start: np.ndarray, iterations: int,
                 line_search: bool) -> np.ndarray:
    """Algorithm 7's loop (L1097–L1102) from ``start``: ``iterations`` steps, last iterate."""
    x = start.copy()
    for s in range(1, iterations + 1):
        grad = x - z
        v = lmo(grad)
        if line_search:
            d = -x
            d[v] += 1.0  # χ_v − x
            dd = dot(d, d)
            gamma = 0.0 if dd == 0.0 else min(1.0, max(0.0, -dot(grad, d) / dd))
        else:
            gamma = 2.0 / (s + 1)
        x *= 1.0 - gamma
        x[v] += gamma
    return x


@dataclass(frozen=True)
class FWProjection:
    """Approximate projection by Algorithm 7.

    Attributes
    ----------
    x : ndarray of shape (m,)
        The returned point of ``𝒫(ℳ, A, R)``.
    iterations : int
        Frank–Wolfe iterations run.
    matching_calls : int
        Linear minimisations (min-cost admissible maximum matchings), the start included.
    """

    x: np.ndarray
    iterations: int
    matching_calls: int


def fw_project(inst: BipartiteInstance, z, A: Iterable[int] = (), R: Iterable[int] = (), *, eps=None,
               iterations: int | None = None, start=None) -> FWProjection:
    """``Π_ε(z, 𝒫(ℳ, A, R))`` by Frank–Wolfe (Algorithm 7, L1093–L1103).

    Parameters
    ----------
    inst : BipartiteInstance
    z : array of shape (m,)
        The point to project.
    A, R : iterables of edge indices
        Accepted and rejected edges defining the polytope.
    eps : float, optional
        Accuracy ``ε``: ``⌈16ℓ²/ε²⌉`` iterations (L1097), computed exactly.
    iterations : int, optional
        Explicit budget (overrides ``eps``).
    start : array of shape (m,), optional
        A point of the polytope to start from (warm start; exact line search is then used);
        by default ``χ_M`` for an admissible maximum matching and the steps ``2/(s + 1)``.

    Returns
    -------
    FWProjection
        ``ValueError`` when ``𝒫(ℳ, A, R)`` is empty.
    """
    if iterations is None:
        if eps is None:
            raise ValueError("fw_project needs eps or iterations")
        eps = _as_fraction(eps)
        if eps <= 0:
            raise ValueError(f"fw_project needs ε > 0, got {eps}")
        iterations = _fw_iterations(inst.ell, eps * eps)
    lmo = _LinearMinimiser(inst, A, R)
    z = np.asarray(z, dtype=np.float64)
    if start is None:
        M = lmo(np.zeros(inst.m))
        if M is None:
            raise ValueError(f"{inst.name!r}: 𝒫(ℳ, A, R) is empty (no admissible maximum matching)")
        x0 = inst.indicator(M)
    else:
        x0 = np.asarray(start, dtype=np.float64)
        if lmo.empty:
            raise ValueError(f"{inst.name!r}: 𝒫(ℳ, A, R) is empty (no admissible maximum matching)")
    x = _frank_wolfe(lmo, z, x0, int(iterations), line_search=start is not None)
    return FWProjection(x=x, iterations=int(iterations), matching_calls=lmo.calls)


# --- Algorithm 6 --------------------------------------------------------------------------------
@dataclass(frozen=True)
class FptasResult:
    """Output of Algorithm 6 with Algorithm 7 as projection.

    Attributes
    ----------
    value : float
        ``max_t f(x^(t))`` over ``t = 1 … T + 1`` (``-inf``/``+inf`` for an empty first/second
        polytope); never above OPT.
    x : ndarray of shape (m,) or None
        The best iterate (None when the value is infinite).
    best_iterate : int
        Its index ``t`` (1-based; 0 when the value is infinite).
    outer : int
        Outer iterations ``T`` run.
    fw : int
        Frank–Wolfe iterations per projection.
    eta : float
        The ascent step.
    matching_calls : int
        Matching-oracle calls made (sub-gradients, projections, start and final value).
    """

    value: float
    x: np.ndarray | None
    best_iterate: int
    outer: int
    fw: int
    eta: float
    matching_calls: int


def _budgets(inst: BipartiteInstance, eps, outer, fw) -> tuple[int, int]:
    if outer is None or fw is None:
        if eps is None or not _as_fraction(eps) > 0:
            raise ValueError("the paper's budgets (outer or fw left None) need an accuracy eps > 0")
        if inst.K < 1:
            raise ValueError(f"{inst.name!r} has K = 0 duel pairs: the paper's budgets are undefined")
        e = _as_fraction(eps)
        if outer is None:
            outer = paper_budget(inst.ell, inst.K, e).outer
        if fw is None:
            fw = _paper_fw(inst.ell, inst.K, e, int(outer))
    outer, fw = int(outer), int(fw)
    if outer < 1 or fw < 1:
        raise ValueError(f"budgets must be positive, got outer={outer}, fw={fw}")
    return outer, fw


def condorcet_fptas(inst: BipartiteInstance, A1: Iterable[int], R1: Iterable[int], A2: Iterable[int],
                    R2: Iterable[int], Q: np.ndarray, eps=None, *, outer: int | None = None,
                    fw: int | None = None, step="paper", warm_start: bool = False,
                    max_calls: int = MAX_CALLS) -> FptasResult:
    """Algorithm 6 (L1082–L1092) with Algorithm 7 as approximate projection.

    Parameters
    ----------
    inst : BipartiteInstance
    A1, R1, A2, R2 : iterables of edge indices
        Accepted/rejected edges of the maximiser ``x`` and of the minimiser ``y`` (Eq. 6).
    Q : array of shape (m, m)
        Objective matrix (entries in ``[0, 1]``).
    eps : float, optional
        Accuracy ``ε``; sets the budgets left None by the paper's formulas (L1086, L1097).
    outer : int, optional
        Outer iterations ``T``.
    fw : int, optional
        Frank–Wolfe iterations per projection.
    step : {"paper", "diameter"} or float
        The ascent step (see :func:`step_size`).
    warm_start : bool
        Start each projection at the current iterate (exact line search); default off.
    max_calls : int
        Refuse (``ValueError``) a run planned to make more matching-oracle calls.

    Returns
    -------
    FptasResult
    """
    outer, fw = _budgets(inst, eps, outer, fw)
    planned = outer * (fw + 1) + 2
    if planned > max_calls:
        raise ValueError(f"{inst.name!r}: the FPTAS with outer={outer}, fw={fw} would make {planned} "
                         f"matching-oracle calls (max_calls={max_calls}); give smaller budgets")
    eta = step_size(inst, outer, step)
    lmo_x = _LinearMinimiser(inst, A1, R1)
    lmo_y = _LinearMinimiser(inst, A2, R2)
    M0 = lmo_x(np.zeros(inst.m))
    if M0 is None:
        return FptasResult(-np.inf, None, 0, outer, fw, eta, lmo_x.calls)
    Q = np.asarray(Q, dtype=np.float64)
    QT = np.ascontiguousarray(Q.T) / inst.ell  # (1/ℓ) Qᵀ: the inner weights are matvec(QT, x)
    chi0 = inst.indicator(M0)
    x = chi0.copy()
    best_val, best_x, best_t = -np.inf, None, 0
    for t in range(1, outer + 2):
        w = matvec(QT, x)  # f(x) = min_y w·y
        y = lmo_y(w)
        if y is None:
            return FptasResult(np.inf, None, 0, outer, fw, eta, lmo_x.calls + lmo_y.calls)
        val = float(w[y].sum())
        if val > best_val:
            best_val, best_x, best_t = val, x, t
        if t == outer + 1:
            break
        g = Q[:, y].sum(axis=1) / inst.ell  # (1/ℓ) Q χ_y ∈ ∂f(x) (L316)
        x = _frank_wolfe(lmo_x, x + eta * g, x if warm_start else chi0, fw, line_search=warm_start)
    return FptasResult(best_val, best_x, best_t, outer, fw, eta, lmo_x.calls + lmo_y.calls)


def fptas_value(inst: BipartiteInstance, A1: Iterable[int], R1: Iterable[int], A2: Iterable[int],
                R2: Iterable[int], Q: np.ndarray, eps=None, *, outer: int | None = None, fw: int | None = None,
                step="paper", warm_start: bool = False, max_calls: int = MAX_CALLS) -> float:
    """``O_ε(A1, R1, A2, R2, Q)`` (L235) by :func:`condorcet_fptas`: its value only."""
    return condorcet_fptas(inst, A1, R1, A2, R2, Q, eps, outer=outer, fw=fw, step=step,
                           warm_start=warm_start, max_calls=max_calls).value


def fptas_oracle(outer: int | None = None, fw: int | None = None, step="paper", warm_start: bool = False,
                 max_calls: int = MAX_CALLS) -> Callable[..., float]:
    """An oracle ``oracle(inst, A1, R1, A2, R2, Q, eps) -> float`` running :func:`condorcet_fptas`
    with these budgets (a budget left None follows the paper's formula for the call's ``eps``)."""

    def oracle(inst, A1, R1, A2, R2, Q, eps=None):
        return fptas_value(inst, A1, R1, A2, R2, Q, eps, outer=outer, fw=fw, step=step, warm_start=warm_start,
                           max_calls=max_calls)

    oracle.__name__ = f"fptas_oracle_outer{outer}_fw{fw}_{step}"
    return oracle

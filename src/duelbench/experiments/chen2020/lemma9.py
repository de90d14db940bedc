"""X5b: Lemma 9 (the minimax oracle, L1188-L1243) where it predicts something.

Lemma 9 bounds the error of Algorithm 6 (projected sub-gradient ascent on
``f(x) = min_{y ∈ 𝒫(ℳ)} (1/ℓ) xᵀ Q y``, L1082-L1092) after ``T = ⌈(4ℓK)²/ε²⌉`` steps of size
``η = 2ℓ/(K√T)`` (L1086): ``OPT − max_{t ≤ T} f(x^(t)) ≤ ε``.  Its proof (L1230-L1241) splits ``ε``
into ``4ℓ²/(2Tη) + ηK²/2 = 2ℓK/√T`` (the ascent; ``ε/2`` at that ``T``) and ``2ℓε′/η`` (the
approximate projection of Algorithm 7; ``ε/2``).  With the paper's projection accuracy ``ε′`` the
Frank-Wolfe counts are out of reach (about ``16384 ℓ⁶K⁶/ε⁶`` matching calls,
:func:`duelbench.cpe.fptas.paper_budget`), so this study runs Algorithm 6 with an **exact**
projection (``ε′ = 0``, which meets any accuracy the lemma asks for) at the paper's ``T`` and
``η`` for each declared ``ε``, and records the error against ``OPT`` (the exact LP,
:func:`duelbench.cpe.oracles.lp_value`).  The lemma then predicts, for every case,
``error ≤ ε`` at ``T(ε)`` and, from its proof, ``error ≤ 2ℓK/√T`` at every ``T``.

Cases (sample ``i`` of a cell, drawn from ``SeedSequence(seed, spawn_key=(cell key, i))`` as every
run of the package, :func:`.runs.run_seed`): the complete graph ``K_{n,ℓ}`` of an F2 draw
(margin 0.3; only the graph is used), no accepted or rejected edges (``𝒫(ℳ)`` is the whole
matching polytope, so the optimum is generally mixed), and ``Q`` with every comparable
off-diagonal entry an independent ``U[0, 1]`` draw (``Q ∈ [0, 1]^{m×m}`` as Lemma 9 allows; the
confidence-bound matrices of CAR-Cond are not consistent either), ``1/2`` on the diagonal and 0
between incomparable edges.

Decisions
---------
* L9-1 - exact projection.  ``Π(z, 𝒫(ℳ)) = V λ*`` with ``V`` the ``m × k`` matrix of the ``k``
  maximum matchings and ``λ*`` minimising ``‖V λ − z‖`` over the simplex.  With ``W = V − z 1ᵀ``,
  ``min_{μ ≥ 0} ‖W μ‖² + (1ᵀμ − 1)²`` (one non-negative least-squares problem) equals
  ``min_λ ‖Wλ‖²/(1 + ‖Wλ‖²)`` over ``μ = tλ``, an increasing function of ``‖Wλ‖``, so
  ``λ* = μ*/1ᵀμ*`` (exact up to the solver's rounding).  The problem is solved by
  :func:`duelbench.cpe.exact.nnls` (Lawson & Hanson's active-set method, as
  :func:`scipy.optimize.nnls`, with its Householder QR in plain compiled loops), ``1ᵀμ*`` by
  :func:`math.fsum` and ``V λ*`` by :func:`duelbench.cpe.exact.matvec`: scipy's solver runs on
  BLAS and LAPACK, whose last bits depend on the processor, and each iterate of the ascent
  starts from the previous projection, so the written values would depend on the processor
  too.  The inner weights ``(1/ℓ) Qᵀ x`` are summed in a fixed order as well
  (:func:`duelbench.cpe.exact.matvec`).
* L9-2 - as :func:`duelbench.cpe.fptas.condorcet_fptas` otherwise: the start ``χ_M`` of the
  first admissible matching, the sub-gradient ``(1/ℓ) Q χ_y`` of a minimising matching ``y``, the
  best of ``f(x^(1)) … f(x^(T+1))`` returned (the value Lemma 9 bounds).
* L9-3 - the budgets are computed exactly (:func:`duelbench.cpe.fptas.paper_budget`; ``ε`` read
  as its shortest decimal).

The table and the figure of the study are written by :func:`.studies.lemma9` (this module holds
the sample function only, so that its code hash covers what the cases depend on).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

#: Margin of the F2 draw whose graph a case uses (its preferences are not used).
CASE_MARGIN = 0.3

def eps_key(eps: float) -> str:
    """The column suffix of one ``ε``, spelled as the cell names spell numbers (``0.1`` -> ``0p1``)."""
    eps = float(eps)
    text = f"{eps:g}" if eps >= 0.01 else f"{eps:.0e}"
    return text.replace(".", "p").replace("-", "m")


def lemma9_case(job: Mapping, i: int):
    """Case ``i`` of a cell: (instance, Q) on ``K_{n,ℓ}`` (see the module docstring)."""
    from duelbench.cpe import families

    from .runs import run_seed

    rng = np.random.default_rng(run_seed(job, i))
    inst, _ = families.draw("planted_condorcet", {"n": int(job["n"]), "ell": int(job["ell"]), "margin": CASE_MARGIN},
                            rng, None)
    U = rng.uniform(0.0, 1.0, (inst.m, inst.m))
    Q = np.where(inst.comparable_mask, U, 0.0)
    np.fill_diagonal(Q, 0.5)
    return inst, Q


class ExactProjection:
    """``Π(·, 𝒫(ℳ))`` onto the convex hull of the given matchings (decision L9-1)."""

    def __init__(self, inst, matchings: np.ndarray):
        k = len(matchings)
        self.V = np.zeros((inst.m, k))
        for j, M in enumerate(matchings):
            self.V[np.asarray(M, dtype=np.int64), j] = 1.0
        self.A = np.vstack([self.V, np.ones((1, k))])
        self.b = np.zeros(inst.m + 1)
        self.b[-1] = 1.0
        self.calls = 0

    def __call__(self, z: np.ndarray) -> np.ndarray:
        from duelbench.cpe.exact import matvec, nnls

        self.calls += 1
        A = self.A.copy()
        A[:-1] -= z[:, None]
        mu = nnls(A, self.b, maxiter=50 * A.shape[1])
        return matvec(self.V, mu / math.fsum(mu.tolist()))


def exact_projection_ascent(inst, Q: np.ndarray, T: int, eta: float) -> tuple[float, int]:
    """Algorithm 6 with an exact projection (decisions L9-1, L9-2): (best value, its iterate)."""
    from duelbench.cpe.exact import matvec
    from duelbench.cpe.fptas import _LinearMinimiser
    from duelbench.cpe.matching import enumerate_matchings

    lmo_x, lmo_y = _LinearMinimiser(inst, (), ()), _LinearMinimiser(inst, (), ())
    x = inst.indicator(lmo_x(np.zeros(inst.m)))
    project = ExactProjection(inst, enumerate_matchings(inst))
    Q = np.asarray(Q, dtype=np.float64)
    QT = np.ascontiguousarray(Q.T) / inst.ell
    best, best_t = -np.inf, 0
    for t in range(1, int(T) + 2):
        w = matvec(QT, x)
        y = lmo_y(w)
        val = float(w[y].sum())
        if val > best:
            best, best_t = val, t
        if t == T + 1:
            break
        x = project(x + eta * (Q[:, y].sum(axis=1) / inst.ell))
    return best, best_t


def run_case(job: Mapping, a: int, b: int) -> dict[str, np.ndarray]:
    """Cases ``a … b − 1`` of a Lemma 9 cell: ``opt`` (the LP), ``matchings`` and, per ``ε``,
    ``T_<ε>``, ``value_<ε>``, ``error_<ε>`` (``opt − value``) and ``best_iterate_<ε>``."""
    from duelbench.cpe.fptas import paper_budget, step_size
    from duelbench.cpe.matching import MatchingCounter
    from duelbench.cpe.oracles import lp_value

    rows = []
    for i in range(a, b):
        inst, Q = lemma9_case(job, i)
        opt = lp_value(inst, (), (), (), (), Q)
        row = {"opt": opt, "matchings": float(MatchingCounter(inst).total)}
        for eps in job["eps"]:
            T = paper_budget(inst.ell, inst.K, eps).outer
            value, best_t = exact_projection_ascent(inst, Q, T, step_size(inst, T, "paper"))
            key = eps_key(eps)
            row.update({f"T_{key}": float(T), f"value_{key}": value, f"error_{key}": opt - value,
                        f"best_iterate_{key}": float(best_t)})
        rows.append(row)
    out = {"sample": np.arange(a, b, dtype=np.int64)}
    for k in rows[0]:
        out[k] = np.array([r[k] for r in rows], dtype=np.float64)
    return out

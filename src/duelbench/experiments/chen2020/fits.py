"""Regressions of the Chen et al. 2020 studies: within-instance slopes with a fixed effect per
instance (or per θ-draw), capped runs as right-censored observations, and slopes of mean curves.

Decisions
---------
* F1 - fixed effects.  Instances (or θ-draws) differ by orders of magnitude in hardness, so a
  slope pooled over them mixes the scaling within an instance with the differences between
  instances.  :func:`fe_slope` fits ``log T_ir = a_g(i) + b·log x_i + σ·ε_ir`` on every run ``r``
  of every cell ``i``, one intercept ``a_g`` per group ``g`` (instance or draw): the slope ``b``
  comes from the variation within groups only.
* F2 - censoring (Tobit).  A capped run stopped at ``cap`` samples: its count is a lower bound,
  ``log T ≥ log cap``.  :func:`fe_slope` maximises the censored-normal likelihood (uncensored
  runs: the normal density of the residual; censored runs: ``P(log T ≥ log cap)``) by Newton's
  method in Olsen's parameters (mean/σ, 1/σ; the log-likelihood is concave in them), started from
  OLS on the uncensored runs; without censored runs it is OLS
  (:func:`duelbench.report.numerics.within_slope`).  Both take correctly rounded sums and no
  BLAS product, so the slope is the same on every processor (a BLAS-based optimizer such as
  scipy's BFGS stops at a point that differs between processors in the 10th digit).  A group
  whose runs are all censored has an unidentified intercept and says nothing about ``b`` under
  F1: it is left out and reported (:class:`FEFit` ``censored_groups``); its cells are lower
  bounds only.
* F3 - slopes of mean curves.  :func:`duelbench.report.numerics.ols_slope` is the closed-form
  OLS slope of ``y`` on ``x`` (cell means against a cell regressor); the interval of every slope
  comes from bootstrap replicates over runs within cells
  (:func:`duelbench.report.verdict.bootstrap`), the design (the cells) held fixed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.special import log_ndtr

from duelbench.report.numerics import fdot, fexp, flog, fmean, fsum, ols_slope, solve, within_slope


@dataclass
class FEFit:
    """A fixed-effect slope: ``slope``, ``sigma`` (residual scale of log samples), the groups
    used and those left out because every run of theirs is censored (decision F2)."""
    slope: float
    sigma: float
    groups: list = field(default_factory=list)
    censored_groups: list = field(default_factory=list)
    runs: int = 0
    censored_runs: int = 0


#: Newton iterations of the censored-normal fit stop once every parameter moves by less than
#: this relative amount (a few units in the last place), or after :data:`TOBIT_MAX_STEPS`.
TOBIT_STEP_TOL = 1e-14
TOBIT_MAX_STEPS = 100
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


@dataclass
class _Censored:
    """The data of a censored-normal fit: group ``index`` (0 … G-1), regressor ``logx``,
    response ``y`` and the censored runs ``cens`` (``y`` is then the censoring point)."""
    index: np.ndarray
    logx: np.ndarray
    y: np.ndarray
    cens: np.ndarray
    groups: int

    def part(self, mask: np.ndarray) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
        """(positions of each group's runs, ``logx``, ``y``) of the runs of ``mask``."""
        index = self.index[mask]
        return [np.flatnonzero(index == g) for g in range(self.groups)], self.logx[mask], self.y[mask]


def _tobit_terms(data: _Censored, theta: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Log-likelihood (without its constant), gradient and Hessian of the censored-normal model
    in Olsen's parameters ``θ = (γ_1 … γ_G, β', τ)``: mean ``(γ_g + β'·logx)/τ``, ``σ = 1/τ``;
    the log-likelihood is concave in them.  Every sum is correctly rounded."""
    G = data.groups
    gamma, beta, tau = theta[:G], theta[G], theta[G + 1]
    (mu, lxu, yu), (mc, lxc, yc) = data.part(~data.cens), data.part(data.cens)
    r = tau * yu - (gamma[data.index[~data.cens]] + beta * lxu)  # standardised residuals
    u = (gamma[data.index[data.cens]] + beta * lxc) - tau * yc  # standardised distance above the cap
    log_cdf = log_ndtr(u)
    lam = fexp(-0.5 * u**2 - _HALF_LOG_2PI - log_cdf)  # φ(u)/Φ(u)
    w = lam * (u + lam)
    n_unc = yu.size
    loglik = n_unc * math.log(tau) - 0.5 * fsum(r**2) + fsum(log_cdf)
    grad = np.zeros(G + 2)
    hess = np.zeros((G + 2, G + 2))
    for g in range(G):
        grad[g] = fsum(np.concatenate([r[mu[g]], lam[mc[g]]]))
        hess[g, g] = -(mu[g].size + fsum(w[mc[g]]))
        hess[g, G] = hess[G, g] = -fsum(np.concatenate([lxu[mu[g]], (w * lxc)[mc[g]]]))
        hess[g, G + 1] = hess[G + 1, g] = fsum(np.concatenate([yu[mu[g]], (w * yc)[mc[g]]]))
    grad[G] = fsum(np.concatenate([r * lxu, lam * lxc]))
    grad[G + 1] = n_unc / tau - fsum(np.concatenate([r * yu, lam * yc]))
    hess[G, G] = -fsum(np.concatenate([lxu**2, w * lxc**2]))
    hess[G, G + 1] = hess[G + 1, G] = fsum(np.concatenate([yu * lxu, w * yc * lxc]))
    hess[G + 1, G + 1] = -(n_unc / tau**2 + fsum(np.concatenate([yu**2, w * yc**2])))
    return loglik, grad, hess


def _tobit_loglik(data: _Censored, theta: np.ndarray) -> float:
    """The log-likelihood of :func:`_tobit_terms` alone (``-inf`` for ``τ <= 0``)."""
    if theta[-1] <= 0:
        return -math.inf
    return _tobit_terms(data, theta)[0]


def _tobit(data: _Censored, intercepts: np.ndarray, slope: float, sigma: float) -> tuple[np.ndarray, float, float]:
    """Censored-normal MLE (decision F2) by Newton's method with backtracking in Olsen's
    parameters (:func:`_tobit_terms`), started from least squares on the uncensored runs; a
    fixed sequence of IEEE operations and correctly rounded sums, hence the same optimum on
    every processor.  Returns (intercepts, slope, σ)."""
    theta = np.concatenate([intercepts / sigma, [slope / sigma, 1.0 / sigma]])
    for _ in range(TOBIT_MAX_STEPS):
        loglik, grad, hess = _tobit_terms(data, theta)
        step = solve(-hess, grad)
        decrement = fdot(grad, step)
        t = 1.0
        while t > 1e-12 and _tobit_loglik(data, theta + t * step) < loglik + 1e-4 * t * decrement:
            t *= 0.5
        theta = theta + t * step
        if np.all(np.abs(t * step) <= TOBIT_STEP_TOL * np.maximum(np.abs(theta), 1.0)):
            break
    tau = theta[-1]
    return theta[:-2] / tau, theta[-2] / tau, 1.0 / tau


def fe_slope(cells: Sequence[tuple], cap: float | None = None) -> FEFit:
    """The fixed-effect slope of log samples on log ``x`` (decisions F1, F2).

    Without a censored run it is least squares with one intercept per group
    (:func:`duelbench.report.numerics.within_slope`); with censored runs, the censored-normal
    MLE (:func:`_tobit`) started from least squares on the uncensored runs.

    Parameters
    ----------
    cells : sequence of (group, x, samples)
        One entry per cell: its group (instance or draw), its regressor ``x > 0`` and the sample
        counts of its runs.
    cap : float, optional
        Runs with ``samples >= cap`` are right-censored at ``cap``.
    """
    names = list(dict.fromkeys(g for g, _, _ in cells))
    codes, logx, y, cens = [], [], [], []
    for g, x, samples in cells:
        s = np.asarray(samples, dtype=np.float64)
        codes.append(np.full(s.size, names.index(g), dtype=np.int64))
        logx.append(np.full(s.size, math.log(x)))
        y.append(flog(s))
        cens.append(s >= cap if cap is not None else np.zeros(s.size, dtype=bool))
    codes, logx, y, cens = np.concatenate(codes), np.concatenate(logx), np.concatenate(y), np.concatenate(cens)
    full = [bool(cens[codes == k].all()) for k in range(len(names))]
    dropped = [g for g, all_censored in zip(names, full) if all_censored]
    used = [g for g, all_censored in zip(names, full) if not all_censored]
    renumber = np.cumsum([not f for f in full]) - 1  # old code -> position among the used groups
    keep = ~np.asarray(full)[codes]
    index, logx, y, cens = renumber[codes[keep]], logx[keep], y[keep], cens[keep]
    fit = FEFit(math.nan, math.nan, used, dropped, int(keep.sum()), int(cens.sum()))
    if not used or np.ptp(logx) == 0:
        return fit
    unc = ~cens
    slope, a = within_slope(index[unc], logx[unc], y[unc])
    resid = y[unc] - (a[index[unc]] + slope * logx[unc])
    sigma = math.sqrt(fmean(resid**2)) if resid.size else 1.0
    if cens.any():
        _, slope, sigma = _tobit(_Censored(index, logx, y, cens, len(used)), a, slope, max(sigma, 1e-3))
    fit.slope, fit.sigma = float(slope), float(sigma)
    return fit


def group_slopes(cells: Sequence[tuple], cap: float | None = None) -> dict:
    """OLS slope of log mean samples on log ``x`` within each group, over its cells without a
    capped run (shown beside the fixed-effect fit)."""
    by: dict = {}
    for g, x, samples in cells:
        s = np.asarray(samples, dtype=np.float64)
        if cap is not None and np.any(s >= cap):
            continue
        by.setdefault(g, []).append((math.log(x), math.log(fmean(s))))
    return {g: (ols_slope([p[0] for p in pts], [p[1] for p in pts]), len(pts)) for g, pts in by.items()}

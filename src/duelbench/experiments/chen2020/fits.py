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
  runs: the normal density of the residual; censored runs: ``P(log T ≥ log cap)``) with
  ``scipy.optimize.minimize`` (BFGS, analytic gradient), started from OLS on the uncensored runs;
  without censored runs it is OLS.  A group whose runs are all censored has an unidentified
  intercept and says nothing about ``b`` under F1: it is left out and reported
  (:class:`FEFit` ``censored_groups``); its cells are lower bounds only.
* F3 - slopes of mean curves.  :func:`duelbench.experiments.fits.ols_slope` is the closed-form
  OLS slope of ``y`` on ``x`` (cell means against a cell regressor); the interval of every slope
  comes from bootstrap replicates over runs within cells
  (:func:`duelbench.report.verdict.bootstrap`), the design (the cells) held fixed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import minimize
from scipy.special import log_ndtr

from ..fits import ols_slope


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


def _design(groups: Sequence, logx: np.ndarray) -> np.ndarray:
    names = list(dict.fromkeys(groups))
    X = np.zeros((len(groups), len(names) + 1))
    for i, g in enumerate(groups):
        X[i, names.index(g)] = 1.0
    X[:, -1] = logx
    return X


def _tobit(X: np.ndarray, y: np.ndarray, cens: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Censored-normal MLE (decision F2): parameters (β, log σ)."""
    unc = ~cens

    def nll(theta):
        beta, ls = theta[:-1], theta[-1]
        s = math.exp(ls)
        z = (y - X @ beta) / s
        zu, zc = z[unc], z[cens]
        log_sf = log_ndtr(-zc)
        val = float(np.sum(ls + 0.5 * zu**2) - np.sum(log_sf))
        mills = np.exp(-0.5 * zc**2 - 0.5 * math.log(2 * math.pi) - log_sf)  # φ(z)/Φ̄(z)
        g_beta = -(X[unc].T @ zu) / s - (X[cens].T @ mills) / s
        g_ls = float(np.sum(1.0 - zu**2) - np.sum(mills * zc))
        return val, np.concatenate([g_beta, [g_ls]])

    res = minimize(nll, start, jac=True, method="BFGS", options={"gtol": 1e-9, "maxiter": 2000})
    return res.x


def fe_slope(cells: Sequence[tuple], cap: float | None = None) -> FEFit:
    """The fixed-effect slope of log samples on log ``x`` (decisions F1, F2).

    Parameters
    ----------
    cells : sequence of (group, x, samples)
        One entry per cell: its group (instance or draw), its regressor ``x > 0`` and the sample
        counts of its runs.
    cap : float, optional
        Runs with ``samples >= cap`` are right-censored at ``cap``.
    """
    groups, logx, y, cens = [], [], [], []
    for g, x, samples in cells:
        s = np.asarray(samples, dtype=np.float64)
        groups += [g] * s.size
        logx.append(np.full(s.size, math.log(x)))
        y.append(np.log(s))
        cens.append(s >= cap if cap is not None else np.zeros(s.size, dtype=bool))
    logx, y, cens = np.concatenate(logx), np.concatenate(y), np.concatenate(cens)
    groups = np.asarray(groups, dtype=object)
    names = list(dict.fromkeys(groups.tolist()))
    dropped = [g for g in names if cens[groups == g].all()]
    keep = ~np.isin(groups, dropped)
    groups, logx, y, cens = groups[keep], logx[keep], y[keep], cens[keep]
    used = [g for g in names if g not in dropped]
    fit = FEFit(math.nan, math.nan, used, dropped, int(keep.sum()), int(cens.sum()))
    if not used or np.ptp(logx) == 0:
        return fit
    X = _design(groups.tolist(), logx)
    unc = ~cens
    beta, *_ = np.linalg.lstsq(X[unc], y[unc], rcond=None)
    resid = y[unc] - X[unc] @ beta
    sigma = float(np.sqrt(np.mean(resid**2))) if resid.size else 1.0
    if cens.any():
        theta = _tobit(X, y, cens, np.concatenate([beta, [math.log(max(sigma, 1e-3))]]))
        beta, sigma = theta[:-1], math.exp(theta[-1])
    fit.slope, fit.sigma = float(beta[-1]), float(sigma)
    return fit


def group_slopes(cells: Sequence[tuple], cap: float | None = None) -> dict:
    """OLS slope of log mean samples on log ``x`` within each group, over its cells without a
    capped run (shown beside the fixed-effect fit)."""
    by: dict = {}
    for g, x, samples in cells:
        s = np.asarray(samples, dtype=np.float64)
        if cap is not None and np.any(s >= cap):
            continue
        by.setdefault(g, []).append((math.log(x), math.log(s.mean())))
    return {g: (ols_slope([p[0] for p in pts], [p[1] for p in pts]), len(pts)) for g, pts in by.items()}

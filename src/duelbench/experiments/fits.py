"""Slopes and intervals the experiments' tables show: ordinary least squares of a curve (closed
form, or on log-log axes with its standard error) and the Clopper-Pearson interval of a share.

The intervals that decide a check are the statistics contract's (:mod:`duelbench.report.verdict`);
these are the point estimates and bars a table or figure shows beside them.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import linregress

from duelbench.report.verdict import proportion


def ols_slope(x, y) -> float:
    """OLS slope of ``y`` on ``x`` (NaN with fewer than two distinct ``x``)."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if x.size < 2 or np.ptp(x) == 0:
        return math.nan
    xc = x - x.mean()
    return float(xc @ (y - y.mean()) / (xc @ xc))


def loglog_fit(x, y) -> dict:
    """OLS of ``log y`` on ``log x`` over the points with both positive and finite
    (:func:`scipy.stats.linregress`).

    Returns
    -------
    dict
        ``slope``, ``se`` (its standard error; NaN below three points), ``intercept`` (of the
        natural-log line) and ``points``; the slope and intercept are NaN below two points or
        without two distinct ``x``.
    """
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    keep = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    x, y = np.log(x[keep]), np.log(y[keep])
    out = {"slope": math.nan, "se": math.nan, "intercept": math.nan, "points": int(x.size)}
    if x.size < 2 or np.ptp(x) == 0:
        return out
    r = linregress(x, y)
    out.update(slope=float(r.slope), intercept=float(r.intercept), se=float(r.stderr) if x.size > 2 else math.nan)
    return out


def clopper_pearson(k: int, n: int) -> tuple[float, float]:
    """The Clopper-Pearson interval of ``k`` successes in ``n`` trials at the level of the
    statistics contract (:func:`duelbench.report.verdict.proportion`, 95 %); NaN for ``n = 0``."""
    if int(n) <= 0:
        return math.nan, math.nan
    e = proportion(int(k), int(n))
    return e.lower, e.upper

"""Slopes and intervals the experiments' tables show: ordinary least squares of a curve (closed
form, :func:`ols_slope`, or on log-log axes with its standard error) and the Clopper-Pearson
interval of a share.  The sums are those of :mod:`duelbench.report.numerics` (correctly
rounded), so the slopes are the same on every processor.

The intervals that decide a check are the statistics contract's (:mod:`duelbench.report.verdict`);
these are the point estimates and bars a table or figure shows beside them.
"""

from __future__ import annotations

import math

import numpy as np

from duelbench.report.numerics import flog, ols
from duelbench.report.verdict import proportion


def loglog_fit(x, y) -> dict:
    """Least squares of ``log y`` on ``log x`` over the points with both positive and finite
    (the formulas of :func:`scipy.stats.linregress`, by :func:`duelbench.report.numerics.ols`).

    Returns
    -------
    dict
        ``slope``, ``se`` (its standard error; NaN below three points), ``intercept`` (of the
        natural-log line) and ``points``; the slope and intercept are NaN below two points or
        without two distinct ``x``.
    """
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    keep = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    x, y = flog(x[keep]), flog(y[keep])
    out = {"slope": math.nan, "se": math.nan, "intercept": math.nan, "points": int(x.size)}
    if x.size < 2 or np.ptp(x) == 0:
        return out
    r = ols(x, y)
    out.update(slope=r["slope"], intercept=r["intercept"], se=r["stderr"] if x.size > 2 else math.nan)
    return out


def clopper_pearson(k: int, n: int) -> tuple[float, float]:
    """The Clopper-Pearson interval of ``k`` successes in ``n`` trials at the level of the
    statistics contract (:func:`duelbench.report.verdict.proportion`, 95 %); NaN for ``n = 0``."""
    if int(n) <= 0:
        return math.nan, math.nan
    e = proportion(int(k), int(n))
    return e.lower, e.upper

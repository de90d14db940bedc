"""Processor-independent arithmetic of the written statistics.

numpy picks its SIMD kernels and its BLAS (OpenBLAS) picks its kernels for the processor it runs
on, so the last bits of ``np.dot``, ``@``, ``np.linalg.lstsq``, ``np.polyfit``, ``np.cov`` and of
what is built on them (``scipy.stats.linregress``, scipy's optimizers) differ between two
machines of the same kind; a plain sum's last bits also depend on the order of its terms (the
order of the runs, of the shards).  Every statistic that a table, a check or a figure writes
is computed from the functions here instead:

* every sum is :func:`fsum` (:func:`math.fsum`): the float nearest to the exact sum of its float
  terms, the same whatever their order and whatever the processor;
* every product, quotient and square root is one IEEE-754 operation on two floats (correctly
  rounded, hence the same on every processor); numpy's element-wise arithmetic is such;
* logarithms, exponentials and powers are correctly rounded in decimal arithmetic (:func:`flog`,
  :func:`fexp`, :func:`fpow`): numpy's vectorised ``np.log``, ``np.exp`` and ``np.power`` take
  other code paths on processors with AVX-512, and the C library's (``math.log``) other code
  paths on processors without FMA, and both differ there in the last bit.

Accuracy (``u = 2**-53``, the unit roundoff): :func:`fsum` errs by at most ``u·|sum|``;
:func:`fmean` by at most about ``2u`` relative; :func:`fdot` by at most ``u·(|x·y| + Σ|x_i·y_i|)``
(each product rounded once, the sum once).  The least-squares functions use the same centred
formulas as numpy and scipy (:func:`ols`, :func:`ols_slope`, :func:`within_slope`); they are
at least as accurate as the BLAS summation they replace, whose error grows with the number of
terms.
"""

from __future__ import annotations

import decimal
import functools
import math

import numba
import numpy as np


def fsum(values) -> float:
    """The correctly rounded sum of ``values`` (any order; NaN where it holds both infinities).

    Parameters
    ----------
    values : array_like
        Floats, flattened.

    Returns
    -------
    float
        :func:`math.fsum` of the values; NaN for ``inf + (-inf)``, as numpy's sum gives.
    """
    x = np.asarray(values, dtype=np.float64).ravel().tolist()
    try:
        return math.fsum(x)
    except ValueError:  # inf - inf
        return math.nan


#: Logarithms, exponentials and powers are computed in decimal arithmetic (:mod:`decimal`, which
#: is software and rounds ``ln``, ``log10`` and ``exp`` correctly) at 34 significant digits, then
#: rounded to the nearest double: the result is the correctly rounded value for every argument
#: that is not within 10**-34 relative of a midpoint between two doubles, on every processor.
#: The C library's ``log``, ``exp`` and ``pow`` are not: glibc picks an FMA or a non-FMA variant
#: for the processor at run time, and they differ in the last bit for a few arguments in 10**5.
#: A decimal logarithm costs about 25 µs, so results are cached per argument (a bootstrap takes
#: the logarithms of the same few hundred values thousands of times).
_DECIMAL = decimal.Context(prec=34, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)
_LN2 = _DECIMAL.ln(decimal.Decimal(2))


@functools.lru_cache(maxsize=1 << 20)
def _log(v: float, base: float | None = None) -> float:
    """Logarithm of ``v`` (natural for None or ``math.e``; else to ``base``), rounded to the
    nearest double; numpy's conventions: ``-inf`` at 0, NaN below 0 and for NaN."""
    if not v > 0:
        return -math.inf if v == 0 else math.nan
    if v == math.inf:
        return math.inf
    d = decimal.Decimal(v)  # exact
    if base is None or base == math.e:
        return float(_DECIMAL.ln(d))
    if base == 10:
        return float(_DECIMAL.log10(d))
    b = _LN2 if base == 2 else _DECIMAL.ln(decimal.Decimal(base))
    return float(_DECIMAL.divide(_DECIMAL.ln(d), b))


@functools.lru_cache(maxsize=1 << 20)
def _exp(v: float) -> float:
    """``e ** v`` rounded to the nearest double (``inf`` on overflow, 0 on underflow)."""
    if not math.isfinite(v):
        return v if v != -math.inf else 0.0
    return float(_DECIMAL.exp(decimal.Decimal(v)))


def _elementwise(f, x) -> np.ndarray:
    """``f`` applied to every element of ``x`` (an array of the same shape)."""
    x = np.asarray(x, dtype=np.float64)
    return np.array([f(v) for v in x.ravel().tolist()], dtype=np.float64).reshape(x.shape)


def flog(x, base: float | None = None) -> np.ndarray:
    """Logarithm of every element of ``x``, natural or to ``base`` (as ``np.log``, ``np.log10``,
    ``np.log2``: ``-inf`` at 0, NaN below 0), correctly rounded (:data:`_DECIMAL`)."""
    return _elementwise(lambda v: _log(v, base), x)


def fexp(x) -> np.ndarray:
    """Exponential of every element of ``x``, correctly rounded (:data:`_DECIMAL`; ``inf`` on
    overflow)."""
    return _elementwise(_exp, x)


@functools.lru_cache(maxsize=1 << 20)
def _pow(v: float, p: float) -> float:
    """``v ** p`` with numpy's conventions: ``inf`` on overflow and for 0 to a negative power,
    NaN for a negative base to a non-integer power.  Finite non-zero ``v`` and finite ``p`` in
    decimal arithmetic (:data:`_DECIMAL`); the special values (0, infinities, NaN) by
    :func:`math.pow`, whose results there are exact and fixed by IEEE 754."""
    if v != 0 and math.isfinite(v) and math.isfinite(p):
        if v < 0 and p != math.floor(p):
            return math.nan
        return float(_DECIMAL.power(decimal.Decimal(v), decimal.Decimal(p)))
    try:
        return math.pow(v, p)
    except OverflowError:
        return math.inf
    except ValueError:
        return math.inf if v == 0 else math.nan


def fpow(x, p) -> np.ndarray:
    """``x ** p`` element by element (``x`` and ``p`` broadcast against each other), rounded to
    the nearest double (:func:`_pow`)."""
    x, p = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(p, dtype=np.float64))
    return np.array([_pow(a, b) for a, b in zip(x.ravel().tolist(), p.ravel().tolist())],
                    dtype=np.float64).reshape(x.shape)


def significant(x, digits: int):
    """``x`` rounded to ``digits`` significant digits (a float, or every element of an array;
    NaN and infinities as they are).

    For a value whose last bits depend on the processor (computed by code that cannot take the
    functions here), written or used further at a declared precision: two values a few units in
    the last place apart round to the same number unless they straddle a rounding boundary
    (chance about ``10**digits`` times their relative distance).
    """
    if isinstance(x, np.ndarray):
        return _elementwise(lambda v: significant(v, digits), x)
    x = float(x)
    return float(f"{x:.{digits - 1}e}") if math.isfinite(x) else x


def fmean(x) -> float:
    """Mean of ``x`` (flattened) from its correctly rounded sum: ``fsum(x) / n`` (NaN if empty)."""
    return fmean_last(np.ravel(np.asarray(x, dtype=np.float64)))


def fvar(x, ddof: int = 1) -> float:
    """Variance ``Σ(x - mean)² / (n - ddof)`` of ``x`` (flattened) by correctly rounded sums;
    NaN for ``n <= ddof``."""
    return fvar_last(np.ravel(np.asarray(x, dtype=np.float64)), ddof)


def fstd(x, ddof: int = 1) -> float:
    """Standard deviation ``sqrt(fvar(x, ddof))``."""
    return fstd_last(np.ravel(np.asarray(x, dtype=np.float64)), ddof)


def fsem(x) -> float:
    """Standard error of the mean, ``s / sqrt(n)`` with the sample s.d. ``s`` (ddof = 1); NaN
    below two values."""
    x = np.asarray(x, dtype=np.float64).ravel()
    return fstd(x) / math.sqrt(x.size) if x.size > 1 else math.nan


@numba.njit(cache=True, nogil=True)
def _row_fsums(a):  # pragma: no cover - compiled
    """Correctly rounded sum of each row of the 2-D float64 array ``a`` (Shewchuk's partials,
    then the exact half-even rounding of their sum, as :func:`math.fsum` does); ``ok[r]`` is False
    where row ``r`` holds a non-finite term or overflows on the way (then recomputed by
    :func:`fsum`). Additions, subtractions and comparisons only: IEEE-exact on every processor."""
    rows, n = a.shape
    out = np.empty(rows)
    ok = np.ones(rows, np.bool_)
    partials = np.empty(n + 1)
    for r in range(rows):
        m = 0
        for k in range(n):
            x = a[r, k]
            if not np.isfinite(x):
                ok[r] = False
                break
            i = 0
            for j in range(m):
                y = partials[j]
                if abs(x) < abs(y):
                    x, y = y, x
                hi = x + y
                lo = y - (hi - x)
                if lo != 0.0:
                    partials[i] = lo
                    i += 1
                x = hi
            m = i
            if x != 0.0:
                if not np.isfinite(x):
                    ok[r] = False
                    break
                partials[m] = x
                m += 1
        if not ok[r]:
            out[r] = np.nan
            continue
        hi = 0.0
        lo = 0.0
        if m > 0:
            m -= 1
            hi = partials[m]
            while m > 0:
                x = hi
                m -= 1
                y = partials[m]
                hi = x + y
                lo = y - (hi - x)
                if lo != 0.0:
                    break
            if m > 0 and ((lo < 0.0 and partials[m - 1] < 0.0) or (lo > 0.0 and partials[m - 1] > 0.0)):
                y = lo * 2.0
                x = hi + y
                if y == x - hi:
                    hi = x
        out[r] = hi
    return out, ok


def fsum_last(x):
    """:func:`fsum` along the last axis: a float for a 1-D ``x``, one correctly rounded sum per
    row for a 2-D ``x`` (compiled; the same bits as :func:`fsum` of each row)."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim < 2:
        return fsum(x)
    a = np.ascontiguousarray(x.reshape(-1, x.shape[-1]))
    out, ok = _row_fsums(a)
    for r in np.flatnonzero(~ok):
        out[r] = fsum(a[r])
    return out.reshape(x.shape[:-1])


def _nan_last(x: np.ndarray):
    """NaN in the shape of a reduction of ``x`` along its last axis."""
    return math.nan if x.ndim < 2 else np.full(x.shape[:-1], math.nan)


def fmean_last(x):
    """The mean along the last axis, ``fsum_last(x) / n`` (a float for a 1-D ``x``, an array for
    a 2-D one; NaN for ``n = 0``); :func:`fmean` is this on the flattened ``x``."""
    x = np.asarray(x, dtype=np.float64)
    return fsum_last(x) / x.shape[-1] if x.shape[-1] else _nan_last(x)


def fvar_last(x, ddof: int = 1):
    """The variance along the last axis, ``Σ(x - mean)² / (n - ddof)`` by correctly rounded sums
    (NaN for ``n <= ddof``); :func:`fvar` is this on the flattened ``x``."""
    x = np.asarray(x, dtype=np.float64)
    n = x.shape[-1]
    if n <= ddof:
        return _nan_last(x)
    m = fmean_last(x)
    return fsum_last((x - (m if x.ndim < 2 else m[..., None])) ** 2) / (n - ddof)


def fstd_last(x, ddof: int = 1):
    """The standard deviation along the last axis, ``sqrt(fvar_last(x, ddof))``."""
    v = fvar_last(x, ddof)
    return math.sqrt(v) if isinstance(v, float) else np.sqrt(v)


def div_or_nan(a, b):
    """``a / b``, NaN where ``b = 0`` (floats, or arrays element-wise): a bootstrap replicate
    without spread, dropped from the interval."""
    if isinstance(a, float) and isinstance(b, float):
        return a / b if b else math.nan
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(b != 0, a / np.where(b != 0, b, 1.0), math.nan)


def fdot(x, y) -> float:
    """Inner product ``Σ x_i·y_i``: each product rounded once, their sum correctly rounded."""
    x, y = np.asarray(x, dtype=np.float64).ravel(), np.asarray(y, dtype=np.float64).ravel()
    if x.shape != y.shape:
        raise ValueError(f"fdot of vectors of lengths {x.size} and {y.size}")
    return fsum(x * y)


def row_fdots(a, v) -> np.ndarray:
    """``a @ v`` row by row with :func:`fdot` (``a``: rows x n, ``v``: n)."""
    a = np.atleast_2d(np.asarray(a, dtype=np.float64))
    v = np.asarray(v, dtype=np.float64)
    return np.array([fsum(p) for p in (a * v).tolist()], dtype=np.float64).reshape(a.shape[0])


def column_fmeans(a) -> np.ndarray:
    """Mean of every column of ``a`` (rows = runs): :func:`fmean` per column, so the result does
    not depend on the order of the rows."""
    a = np.asarray(a, dtype=np.float64)
    return np.array([fsum(c) for c in a.T.tolist()], dtype=np.float64).reshape(a.shape[1:]) / a.shape[0]


def column_fstds(a, ddof: int = 1) -> np.ndarray:
    """Standard deviation of every column of ``a`` (as :func:`fstd`; NaN for ``rows <= ddof``)."""
    a = np.asarray(a, dtype=np.float64)
    n = a.shape[0]
    if n <= ddof:
        return np.full(a.shape[1:], math.nan)
    squares = (a - column_fmeans(a)) ** 2
    return np.sqrt(np.array([fsum(c) for c in squares.T.tolist()], dtype=np.float64) / (n - ddof))


def column_fsems(a) -> np.ndarray:
    """Standard error of the mean of every column of ``a`` (rows = runs): the column's
    :func:`fstd` over ``sqrt(rows)``, NaN below two rows."""
    a = np.asarray(a, dtype=np.float64)
    return column_fstds(a) / math.sqrt(a.shape[0]) if a.shape[0] > 1 else np.full(a.shape[1:], math.nan)


def ols_slope(x, y) -> float:
    """Least-squares slope of ``y`` on ``x``, ``Σ xc·yc / Σ xc²`` with ``xc = x - mean(x)`` and
    ``yc = y - mean(y)``; NaN with fewer than two distinct ``x``."""
    x, y = np.asarray(x, dtype=np.float64).ravel(), np.asarray(y, dtype=np.float64).ravel()
    if x.size < 2 or np.ptp(x) == 0:
        return math.nan
    xc = x - fmean(x)
    return fdot(xc, y - fmean(y)) / fdot(xc, xc)


def ols_slope_last(x, y):
    """:func:`ols_slope` of ``y`` on ``x`` along the last axis of ``y``: a float for a 1-D ``y``,
    one slope per row for a 2-D one (rows x n, on the common ``x`` of n values), with the same
    bits as :func:`ols_slope` of each row (the same products, each sum correctly rounded)."""
    y = np.asarray(y, dtype=np.float64)
    if y.ndim < 2:
        return ols_slope(x, y)
    x = np.asarray(x, dtype=np.float64).ravel()
    if x.size != y.shape[-1]:
        raise ValueError(f"ols_slope_last of {y.shape[-1]} values per row on {x.size} regressor values")
    if x.size < 2 or np.ptp(x) == 0:
        return np.full(y.shape[:-1], math.nan)
    xc = x - fmean(x)
    return fsum_last(xc * (y - fmean_last(y)[..., None])) / fdot(xc, xc)


def ols(x, y) -> dict:
    """Least squares of ``y`` on ``x`` with the formulas of :func:`scipy.stats.linregress`.

    Parameters
    ----------
    x, y : array_like
        At least two points, ``x`` not constant.

    Returns
    -------
    dict
        ``slope``, ``intercept``, ``r`` (correlation, clipped to [-1, 1]) and ``stderr`` (the
        slope's standard error, ``sqrt((1 - r²)·Syy / Sxx / (n - 2))``; 0 for two points).
    """
    x, y = np.asarray(x, dtype=np.float64).ravel(), np.asarray(y, dtype=np.float64).ravel()
    n = x.size
    if n < 2 or np.ptp(x) == 0:
        raise ValueError("least squares needs two distinct x")
    mx, my = fmean(x), fmean(y)
    xc, yc = x - mx, y - my
    sxx, syy, sxy = fdot(xc, xc) / n, fdot(yc, yc) / n, fdot(xc, yc) / n
    if syy == 0.0:
        r = math.nan if sxy == 0 else 0.0
    else:
        r = min(1.0, max(-1.0, sxy / math.sqrt(sxx * syy)))
    slope = sxy / sxx
    stderr = 0.0 if n == 2 else math.sqrt((1 - r**2) * syy / sxx / (n - 2))
    return {"slope": slope, "intercept": my - slope * mx, "r": r, "stderr": stderr}


def row_ols_slopes(x, rows) -> np.ndarray:
    """:func:`ols_slope` of every row of ``rows`` (rows x n) on the common ``x`` (n values):
    ``Σ w_i·y_i`` with the weights ``w = xc / Σ xc²``."""
    x = np.asarray(x, dtype=np.float64).ravel()
    xc = x - fmean(x)
    return row_fdots(rows, xc / fdot(xc, xc))


def within_slope(index, x, y) -> tuple[float, np.ndarray]:
    """Least squares of ``y = a_g + b·x`` with one intercept ``a_g`` per group (fixed effects).

    The slope comes from the deviations from the group means, ``b = Σ x̃·ỹ / Σ x̃²`` with
    ``x̃ = x - mean_g(x)``, ``ỹ = y - mean_g(y)``, and ``a_g = mean_g(y) - b·mean_g(x)``: the
    normal equations of the dummy-variable design solved in closed form (Frisch-Waugh-Lovell),
    the same solution as a least-squares solver on that design, without its rounding of the
    dummy columns.

    Parameters
    ----------
    index : array_like of int
        The group of every observation, ``0 … G-1``.
    x, y : array_like
        Regressor and response, one value per observation.

    Returns
    -------
    (float, ndarray)
        The slope ``b`` (NaN when ``x`` is constant within every group) and the ``G``
        intercepts (NaN for a group without observations).
    """
    index = np.asarray(index, dtype=np.int64).ravel()
    x, y = np.asarray(x, dtype=np.float64).ravel(), np.asarray(y, dtype=np.float64).ravel()
    groups = int(index.max()) + 1 if index.size else 0
    mx = np.array([fmean(x[index == g]) for g in range(groups)], dtype=np.float64)
    my = np.array([fmean(y[index == g]) for g in range(groups)], dtype=np.float64)
    xt = x - mx[index]
    sxx = fdot(xt, xt)
    b = fdot(xt, y - my[index]) / sxx if sxx > 0 else math.nan
    return b, my - b * mx


def solve(a, b) -> np.ndarray:
    """The solution ``v`` of ``a·v = b`` for a small square ``a``: Gaussian elimination with
    partial pivoting in Python floats (a fixed order of IEEE operations, no BLAS), backward
    stable like LAPACK's solver; raises ``ValueError`` for a singular ``a``.

    Parameters
    ----------
    a : array_like, n x n
    b : array_like, n
    """
    m = [list(map(float, row)) + [float(v)] for row, v in zip(np.asarray(a, dtype=np.float64).tolist(),
                                                               np.asarray(b, dtype=np.float64).ravel().tolist())]
    n = len(m)
    for k in range(n):
        p = max(range(k, n), key=lambda i: abs(m[i][k]))
        if m[p][k] == 0.0:
            raise ValueError("singular matrix")
        m[k], m[p] = m[p], m[k]
        for i in range(k + 1, n):
            f = m[i][k] / m[k][k]
            m[i] = [u - f * w for u, w in zip(m[i], m[k])]
    v = [0.0] * n
    for k in range(n - 1, -1, -1):
        v[k] = (m[k][n] - fsum([m[k][j] * v[j] for j in range(k + 1, n)])) / m[k][k]
    return np.array(v, dtype=np.float64)

"""The processor-independent arithmetic (duelbench.report.numerics): every sum correctly rounded
(checked against exact rational arithmetic), independent of the order of its terms, and the
least-squares formulas equal to numpy's and scipy's up to rounding."""

from __future__ import annotations

import math
import os
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import linregress

from duelbench.report import numerics as N


def _exact_sum(x) -> Fraction:
    return sum((Fraction(float(v)) for v in np.ravel(x)), Fraction(0))


def _ill_conditioned(n: int, seed: int) -> np.ndarray:
    """Terms of wildly different magnitudes that cancel: a plain sum loses every digit."""
    rng = np.random.default_rng(seed)
    big = rng.normal(0, 1e16, n // 2)
    return rng.permutation(np.concatenate([big, -big, rng.normal(0, 1.0, n - 2 * (n // 2))]))


@pytest.mark.parametrize("seed", range(5))
def test_fsum_is_the_correctly_rounded_exact_sum(seed):
    x = _ill_conditioned(1001, seed)
    assert N.fsum(x) == float(_exact_sum(x))
    assert float(np.sum(x)) != float(_exact_sum(x))  # the data defeat a plain sum


@pytest.mark.parametrize("seed", range(5))
def test_mean_variance_and_dot_equal_exact_rational_results_rounded(seed):
    rng = np.random.default_rng(seed)
    x, y = rng.lognormal(3, 2, 257), rng.normal(1e6, 1.0, 257)
    n = Fraction(x.size)
    mean = _exact_sum(x) / n
    assert N.fmean(x) == float(_exact_sum(x)) / x.size  # fsum, then one division
    assert abs(Fraction(N.fmean(x)) - mean) <= abs(mean) * Fraction(2, 2**53)
    m = N.fmean(x)
    exact_var = sum((Fraction(float(v)) - Fraction(m)) ** 2 for v in x) / (n - 1)
    assert abs(Fraction(N.fvar(x)) - exact_var) <= exact_var * Fraction(6, 2**53)
    exact_dot = sum((Fraction(float(a)) * Fraction(float(b)) for a, b in zip(x, y)), Fraction(0))
    bound = Fraction(3, 2**53) * sum(abs(Fraction(float(a)) * Fraction(float(b))) for a, b in zip(x, y))
    assert abs(Fraction(N.fdot(x, y)) - exact_dot) <= bound


@pytest.mark.parametrize("seed", range(5))
def test_every_result_is_independent_of_the_order_of_the_terms(seed):
    rng = np.random.default_rng(seed)
    x = rng.lognormal(0, 3, 500)
    y = 2.0 * x + rng.normal(0, 1, 500)
    p = rng.permutation(x.size)
    for f in (N.fsum, N.fmean, N.fvar, N.fstd, N.fsem):
        assert f(x[p]) == f(x), f.__name__
    assert N.fdot(x[p], y[p]) == N.fdot(x, y)
    assert N.ols_slope(x[p], y[p]) == N.ols_slope(x, y)
    assert N.ols(x[p], y[p]) == N.ols(x, y)
    runs = rng.lognormal(0, 3, (300, 7))  # runs x checkpoints
    q = rng.permutation(runs.shape[0])
    assert np.array_equal(N.column_fmeans(runs[q]), N.column_fmeans(runs))
    assert np.array_equal(N.column_fsems(runs[q]), N.column_fsems(runs))
    groups = rng.integers(0, 4, x.size)
    slope, intercepts = N.within_slope(groups, x, y)
    permuted = N.within_slope(groups[p], x[p], y[p])
    assert permuted[0] == slope and np.array_equal(permuted[1], intercepts)


def test_column_statistics_are_the_per_column_ones():
    rng = np.random.default_rng(1)
    runs = rng.normal(5, 2, (40, 3))
    for j in range(3):
        assert N.column_fmeans(runs)[j] == N.fmean(runs[:, j])
        assert N.column_fstds(runs)[j] == N.fstd(runs[:, j])
        assert N.column_fsems(runs)[j] == N.fsem(runs[:, j])
    np.testing.assert_allclose(N.column_fmeans(runs), runs.mean(axis=0), rtol=1e-15)
    np.testing.assert_allclose(N.column_fsems(runs), runs.std(axis=0, ddof=1) / math.sqrt(40), rtol=1e-14)
    assert np.isnan(N.column_fsems(runs[:1])).all() and np.isnan(N.fsem([1.0]))


def test_ols_has_the_formulas_of_linregress():
    rng = np.random.default_rng(2)
    x = np.log(np.arange(1.0, 60.0))
    y = 0.7 * x + 3.0 + rng.normal(0, 0.2, x.size)
    r, ref = N.ols(x, y), linregress(x, y)
    assert r["slope"] == pytest.approx(ref.slope, rel=1e-14)
    assert r["intercept"] == pytest.approx(ref.intercept, rel=1e-14)
    assert r["r"] == pytest.approx(ref.rvalue, rel=1e-14)
    assert r["stderr"] == pytest.approx(ref.stderr, rel=1e-12)
    assert N.ols_slope(x, y) == pytest.approx(ref.slope, rel=1e-14)
    assert N.ols([1.0, 2.0], [3.0, 7.0]) == {"slope": 4.0, "intercept": -1.0, "r": 1.0, "stderr": 0.0}
    assert math.isnan(N.ols_slope([2.0, 2.0], [1.0, 3.0]))
    with pytest.raises(ValueError):
        N.ols([2.0, 2.0], [1.0, 3.0])


def test_row_slopes_are_the_slopes_of_each_row():
    rng = np.random.default_rng(3)
    x = np.log(np.arange(10.0, 20.0))
    rows = rng.normal(0, 1, (5, x.size)) + 2.0 * x
    assert N.row_ols_slopes(x, rows).tolist() == pytest.approx([N.ols_slope(x, r) for r in rows], rel=1e-14)
    np.testing.assert_allclose(N.row_fdots(rows, x), rows @ x, rtol=1e-14)


def test_within_slope_is_least_squares_with_one_intercept_per_group():
    rng = np.random.default_rng(4)
    groups = np.repeat([0, 1, 2], [30, 20, 25])
    x = rng.uniform(0, 5, groups.size)
    y = np.array([0.0, 7.0, -3.0])[groups] + 1.5 * x + rng.normal(0, 0.3, x.size)
    slope, intercepts = N.within_slope(groups, x, y)
    design = np.zeros((x.size, 4))
    design[np.arange(x.size), groups] = 1.0
    design[:, 3] = x
    beta = np.linalg.lstsq(design, y, rcond=None)[0]
    assert slope == pytest.approx(beta[3], rel=1e-12)
    assert intercepts.tolist() == pytest.approx(beta[:3].tolist(), rel=1e-12)
    assert math.isnan(N.within_slope([0, 1], [1.0, 2.0], [0.0, 1.0])[0])  # no variation within a group


def test_nan_and_infinities_propagate_as_numpy_does():
    assert math.isnan(N.fsum([math.inf, -math.inf])) and N.fsum([math.inf, 1.0]) == math.inf
    assert math.isnan(N.fmean([1.0, math.nan])) and math.isnan(N.fmean([]))
    assert math.isnan(N.fvar([1.0]))
    with pytest.raises(ValueError):
        N.fdot([1.0, 2.0], [1.0])


def test_solve_is_gaussian_elimination_close_to_the_exact_rational_solution():
    rng = np.random.default_rng(5)
    a = rng.normal(0, 1, (6, 6)) + 6 * np.eye(6)
    b = rng.normal(0, 1, 6)
    v = N.solve(a, b)
    exact = _exact_solve([[Fraction(float(x)) for x in row] for row in a], [Fraction(float(x)) for x in b])
    assert [float(x) for x in exact] == pytest.approx(v.tolist(), rel=1e-14, abs=1e-15)
    np.testing.assert_allclose(v, np.linalg.solve(a, b), rtol=1e-13)
    assert N.solve([[0.0, 2.0], [3.0, 0.0]], [4.0, 3.0]).tolist() == [1.0, 2.0]  # needs a pivot
    with pytest.raises(ValueError):
        N.solve([[1.0, 2.0], [2.0, 4.0]], [1.0, 1.0])


def _exact_solve(a, b):
    """Gauss-Jordan elimination in rational arithmetic."""
    n = len(b)
    m = [row[:] + [v] for row, v in zip(a, b)]
    for k in range(n):
        p = next(i for i in range(k, n) if m[i][k] != 0)
        m[k], m[p] = m[p], m[k]
        m[k] = [x / m[k][k] for x in m[k]]
        for i in range(n):
            if i != k:
                m[i] = [x - m[i][k] * y for x, y in zip(m[i], m[k])]
    return [row[n] for row in m]


def test_log_exp_and_pow_are_the_c_library_ones_with_numpy_conventions():
    rng = np.random.default_rng(6)
    x = rng.lognormal(0, 4, 1000)
    assert N.flog(x).tolist() == [math.log(v) for v in x.tolist()]
    assert N.fexp(np.log(x)).tolist() == [math.exp(v) for v in np.log(x).tolist()]
    assert N.fpow(x, 0.37).tolist() == [math.pow(v, 0.37) for v in x.tolist()]
    np.testing.assert_allclose(N.flog(x), np.log(x), rtol=1e-15)  # numpy's own differ in the last bit at most
    np.testing.assert_allclose(N.fexp(np.log(x)), x, rtol=1e-14)
    assert N.flog(np.array([[1.0, 0.0], [-1.0, np.inf]])).tolist()[0] == [0.0, -math.inf]
    assert math.isnan(N.flog([-1.0])[0]) and N.fexp([1e4])[0] == math.inf
    assert N.fpow([0.0], -1.0)[0] == math.inf and math.isnan(N.fpow([-2.0], 0.5)[0])
    assert N.flog(np.ones((2, 3))).shape == (2, 3)


def _arguments():
    rng = np.random.default_rng(7)
    return np.concatenate([rng.uniform(1e-6, 1e7, 3000), rng.uniform(-40.0, 40.0, 3000)])


def test_log_exp_pow_are_correctly_rounded():
    """Against 60-digit decimal references rounded to the nearest double."""
    import decimal

    ctx = decimal.Context(prec=60)
    x = _arguments()
    pos = np.abs(x) + 0.25
    assert N.flog(pos).tolist() == [float(ctx.ln(decimal.Decimal(v))) for v in pos.tolist()]
    e = x[3000:]
    assert N.fexp(e).tolist() == [float(ctx.exp(decimal.Decimal(v))) for v in e.tolist()]
    assert N.flog(pos, 10).tolist() == [float(ctx.log10(decimal.Decimal(v))) for v in pos.tolist()]
    got = N.fpow(pos[:500], 1.7).tolist()
    assert got == [float(ctx.power(decimal.Decimal(v), decimal.Decimal(1.7))) for v in pos[:500].tolist()]


def test_log_exp_do_not_depend_on_the_c_library_variant():
    """glibc's FMA and non-FMA variants of log and exp differ for a few arguments in 10**5; the
    functions here give the same bits with the FMA variants switched off."""
    import subprocess
    import sys

    code = ("import sys, numpy as np; from duelbench.report.numerics import flog, fexp;"
            "x = np.random.default_rng(7).uniform(1e-6, 1e7, 40000);"
            "sys.stdout.write((flog(x).tobytes() + fexp(x / 1e6).tobytes()).hex())")
    out = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={**os.environ, **extra}).stdout
           for extra in ({}, {"GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX2,-FMA"})]
    assert out[0] == out[1]


def _hard_rows(seed: int) -> np.ndarray:
    """Rows that stress a sum: cancelling terms 30 orders of magnitude apart, half-way cases of
    round-half-even (1 + many 2**-53 + 2**-106), exact zeros, integers times powers of two."""
    rng = np.random.default_rng(seed)
    big = rng.normal(size=(40, 30)) * 10.0 ** rng.integers(-15, 16, size=(40, 30))
    halfway = rng.permuted(np.concatenate([np.ones((40, 10)), np.full((40, 20), 2.0**-53),
                                           np.full((40, 1), 2.0**-106), np.zeros((40, 29))], axis=1), axis=1)
    ints = rng.integers(-3, 4, size=(40, 60)) * 2.0 ** rng.integers(-60, 60, size=(40, 60))
    return np.concatenate([np.concatenate([big, -big], axis=1), halfway, ints,
                           rng.normal(size=(40, 60))], axis=0)


@pytest.mark.parametrize("seed", range(4))
def test_row_sums_are_the_correctly_rounded_sum_of_each_row(seed):
    a = _hard_rows(seed)
    got = N.fsum_last(a)
    assert got.shape == (a.shape[0],)
    assert [float(v) for v in got] == [float(_exact_sum(r)) for r in a]
    assert got.tobytes() == np.array([math.fsum(r) for r in a.tolist()]).tobytes()


def test_row_statistics_are_the_one_sample_ones_row_by_row():
    a = _hard_rows(9)[:, :50]
    assert N.fmean_last(a).tobytes() == np.array([N.fmean(r) for r in a]).tobytes()
    assert N.fvar_last(a).tobytes() == np.array([N.fvar(r) for r in a]).tobytes()
    assert N.fstd_last(a, ddof=0).tobytes() == np.array([N.fstd(r, ddof=0) for r in a]).tobytes()
    x = a[3]
    assert type(N.fmean_last(x)) is float and N.fmean_last(x) == N.fmean(x) and N.fstd_last(x) == N.fstd(x)
    assert N.div_or_nan(1.0, 0.0) != N.div_or_nan(1.0, 0.0)
    assert N.div_or_nan(np.array([1.0, 3.0]), np.array([0.0, 2.0])).tolist()[1] == 1.5


def test_row_slopes_are_the_one_sample_slopes_row_by_row():
    a = _hard_rows(5)[:40, :7]
    x = np.log(np.arange(1.0, 8.0)) * 3.1
    got = N.ols_slope_last(x, a)
    assert got.shape == (40,) and got.tobytes() == np.array([N.ols_slope(x, r) for r in a]).tobytes()
    assert type(N.ols_slope_last(x, a[2])) is float and N.ols_slope_last(x, a[2]) == N.ols_slope(x, a[2])
    assert np.isnan(N.ols_slope_last(np.ones(7), a)).all()
    with pytest.raises(ValueError, match="7 values per row on 6"):
        N.ols_slope_last(x[:6], a)


def test_row_sums_of_non_finite_rows_are_numpys_and_overflow_is_refused():
    a = np.array([[1.0, np.inf, 2.0], [np.nan, 1.0, 2.0], [np.inf, -np.inf, 0.0], [1.0, 2.0, 3.0]])
    got = N.fsum_last(a)
    assert got[0] == np.inf and np.isnan(got[1]) and np.isnan(got[2]) and got[3] == 6.0
    with pytest.raises(OverflowError):
        N.fsum_last(np.array([[1e308, 1e308, -1e308]]))


#: Calls whose last bits depend on the processor (BLAS and LAPACK kernels, numpy's SIMD reductions
#: behind them), with the one module allowed each and why.
PROCESSOR_DEPENDENT = r"np\.dot\(|np\.matmul|np\.vdot|np\.inner\(|np\.tensordot|np\.einsum|np\.linalg\.|np\.polyfit|np\.cov\(|linregress\(|lstsq\(|[\w)\]] @ [\w(]"
ALLOWED = {
    # the stationary law of a random-walk chain is only compared under a tolerance of 1e-9
    # (random_walk_winners): a last-bit difference cannot change the winners it names
    "problems/winners.py": {"np.linalg."},
}


def test_no_written_value_goes_through_blas_or_lapack():
    """A value the package writes is computed with the functions of this module, never with BLAS
    (``np.dot``, ``@``) or LAPACK, whose kernels and order of terms depend on the processor: an
    archived value recomputed on another machine must be bit-identical."""
    import re
    from pathlib import Path

    import duelbench

    root = Path(duelbench.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel == "report/numerics.py":
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            if code.lstrip().startswith("@"):
                continue
            for m in re.finditer(PROCESSOR_DEPENDENT, code):
                if not any(m.group(0).startswith(a) for a in ALLOWED.get(rel, ())):
                    found.append(f"{rel}:{n}: {line.strip()}")
    assert not found, "processor-dependent arithmetic (use duelbench.report.numerics):\n" + "\n".join(found)

"""Beta posteriors read through 1(θ > 1/2) (:mod:`duelbench.stats.beta`): the binomial tail
against exact rational sums, the indicator's and the conditional value's laws, and the laws of
the decisions of D-TS and D-TS+ that are drawn from indicators against drawing every value."""

import math
from decimal import Context, Decimal, getcontext, localcontext
from fractions import Fraction

import numba
import numpy as np
import pytest
from scipy import stats as sps

from duelbench.algorithms import dts, dts_plus
from duelbench.stats import beta
from duelbench.stats.beta import (FRESH_SUM_COUNT, above_half, binomial_half_pmf, cached_tail, draw_above_half,
                                  half_tail, sample_indicators, tail_cache_new)


def _exact_tail(w, l):
    n = w + l + 1
    return Fraction(sum(math.comb(n, k) for k in range(w + 1)), 2 ** n)


def _cases():
    rng = np.random.default_rng(1)
    grid = [(w, l) for w in range(30) for l in range(30)]
    drawn = [tuple(int(x) for x in pair) for pair in rng.integers(0, FRESH_SUM_COUNT // 2, size=(150, 2))]
    edges = [(2000, 2095), (1000, 1001), (2047, 2048), (4000, 95), (95, 4000), (3, 4092), (0, 4095), (4095, 0)]
    return grid + drawn + edges


def test_stirling_table_is_the_definition():
    getcontext().prec = 50
    pi = Decimal("3.14159265358979323846264338327950288419716939937510")
    for n in range(1, 16):
        log_factorial = sum(Decimal(k).ln() for k in range(1, n + 1))
        value = log_factorial - (Decimal(n) + Decimal("0.5")) * Decimal(n).ln() + n - (2 * pi).ln() / 2
        assert beta._STIRLING_ERROR_SMALL[n] == float(value)
    assert beta._STIRLING_ERROR_SMALL[0] == 0.0


def test_half_tail_against_exact_sums():
    """Absolute error below 1e-15 everywhere; relative error below 2e-13 wherever P > 1e-20."""
    worst_abs = worst_rel = Fraction(0)
    for w, l in _cases():
        exact = _exact_tail(w, l)
        got = Fraction(half_tail(float(w), float(l)))
        worst_abs = max(worst_abs, abs(got - exact))
        if exact > Fraction(1, 10 ** 20):
            worst_rel = max(worst_rel, abs(got - exact) / exact)
    assert worst_abs < Fraction(1, 10 ** 15), float(worst_abs)
    assert worst_rel < Fraction(2, 10 ** 13), float(worst_rel)
    assert half_tail(7.0, 7.0) == 0.5


def _binomial_half_pmfs(n: int, ks) -> dict[int, Decimal]:
    """C(n, k) / 2^n for each k in ``ks`` at 60 significant digits, by the recurrence
    pmf(k + 1) = pmf(k) (n - k) / (k + 1) from 2^-n (an error of about 1e-50 after 10^6 steps; an
    exact ``math.comb`` takes seconds for each k at n = 10^6)."""
    with localcontext(Context(prec=60, Emin=-10 ** 9)):
        want, out = set(ks), {}
        pmf = Decimal(2) ** -n
        for k in range(max(want) + 1):
            if k in want:
                out[k] = +pmf
            pmf = pmf * (n - k) / (k + 1)
    return out


def test_binomial_pmf_against_exact():
    worst = Decimal(0)
    for n in (1, 2, 5, 15, 16, 17, 36, 81, 100, 501, 1000, FRESH_SUM_COUNT + 1, 100_003, 1_000_003):
        for k, exact in _binomial_half_pmfs(n, range(0, n + 1, max(1, n // 60))).items():
            if exact > Decimal("1e-300"):
                worst = max(worst, abs(Decimal(binomial_half_pmf(float(n), float(k))) - exact) / exact)
    assert worst < Decimal("1e-12"), float(worst)


@numba.njit
def _indicators(B, i, j, n, rng):
    cache = tail_cache_new(B.shape[0])
    hits = 0
    for k in range(n):
        hits += above_half(B, cache, i, j, rng)
    return hits


@pytest.mark.parametrize("wins, losses", [(3.0, 5.0), (40.0, 31.0), (0.0, 0.0), (2000.0, 2060.0), (25000.0, 24800.0)])
def test_cached_indicator_has_the_tail_probability(wins, losses):
    B = np.array([[0.0, wins], [losses, 0.0]])
    n = 100_000
    hits = _indicators(B, 0, 1, n, np.random.default_rng(5))
    p = half_tail(wins, losses)
    assert abs(hits / n - p) <= 5 * math.sqrt(p * (1 - p) / n)


@numba.njit
def _tail_walk(w, l, p_win, steps, rng):
    """A pair compared ``steps`` more times from (w, l), i winning with probability ``p_win``, its
    tail read through the cache every ``1 + (k % 5)`` comparisons: (counts, cached, fresh)."""
    B = np.array([[0.0, w], [l, 0.0]])
    cache = tail_cache_new(2)
    n_reads = 0
    counts = np.empty((steps, 2))
    cached = np.empty(steps)
    fresh = np.empty(steps)
    k = 0
    while k < steps:
        for _ in range(1 + (k % 5)):
            if rng.random() < p_win:
                B[0, 1] += 1.0
            else:
                B[1, 0] += 1.0
        counts[n_reads, 0] = B[0, 1]
        counts[n_reads, 1] = B[1, 0]
        cached[n_reads] = cached_tail(B, cache, 0, 1)
        fresh[n_reads] = half_tail(B[0, 1], B[1, 0])
        n_reads += 1
        k += 1
    return counts[:n_reads], cached[:n_reads], fresh[:n_reads]


@pytest.mark.parametrize("w, l, p_win", [(1000.0, 1000.0, 0.5), (2040.0, 2040.0, 0.503), (3000.0, 1000.0, 0.7),
                                         (60.0, 4000.0, 0.02), (40000.0, 40100.0, 0.499)])
def test_carried_tail_stays_within_a_few_ulps_of_the_fresh_sum(w, l, p_win):
    """Across FRESH_SUM_COUNT and beyond: the tail carried forward by one-comparison recurrences
    (stats.beta.cached_tail) is the fresh sum itself up to FRESH_SUM_COUNT comparisons and within
    4e-15 of it beyond (each within about 2e-15 of the exact value at these counts), over 20 000
    reads along a random sequence of wins and losses."""
    counts, cached, fresh = _tail_walk(w, l, p_win, 20_000, np.random.default_rng(11))
    small = counts.sum(axis=1) <= FRESH_SUM_COUNT
    assert np.array_equal(cached[small], fresh[small])
    assert (~small).sum() > 10_000
    assert np.max(np.abs(cached[~small] - fresh[~small])) < 4e-15


def _exact_tail_fast(w, l):
    n = w + l + 1
    c = math.comb(n, w)
    total = c
    for k in range(w, 0, -1):
        c = c * k // (n - k + 1)
        total += c
    return Fraction(total, 2 ** n)


def test_carried_tail_against_exact_sums():
    """The carried tail against exact rational sums at counts up to about 16 000: absolute error
    below 3e-15 (the error of the fresh sum it was carried from and the carried part's 1e-15,
    module docstring)."""
    counts, cached, _ = _tail_walk(3000.0, 3100.0, 0.49, 3_000, np.random.default_rng(12))
    assert counts.sum(axis=1).max() > 3 * FRESH_SUM_COUNT
    worst = max(abs(Fraction(float(t)) - _exact_tail_fast(int(w), int(l)))
                for (w, l), t in list(zip(counts, cached))[::25])
    assert worst < Fraction(3, 10 ** 15), float(worst)


@numba.njit
def _above_draws(wins, losses, tail, n, rng):
    out = np.empty(n)
    for k in range(n):
        out[k] = draw_above_half(wins, losses, tail, rng)
    return out


@pytest.mark.parametrize("wins, losses", [(6.0, 4.0), (5.0, 5.0), (9.0, 13.0), (3.0, 30.0), (200.0, 260.0)])
def test_value_given_above_half_has_the_truncated_law(wins, losses):
    """Both branches (rejection when P(θ > 1/2) ≥ 1/4, the order-statistic form below): a KS test
    against the Beta conditioned on θ > 1/2."""
    law = sps.beta(wins + 1, losses + 1)
    tail = law.sf(0.5)

    def cdf(x):
        return (law.cdf(x) - law.cdf(0.5)) / tail

    x = _above_draws(wins, losses, half_tail(wins, losses), 20_000, np.random.default_rng(7))
    assert np.all(x > 0.5)
    assert sps.kstest(x, cdf).pvalue > 1e-4


def test_sample_indicators_mirrors_rows_drawn_together():
    rng = np.random.default_rng(8)
    K = 5
    B = rng.integers(0, 30, size=(K, K)).astype(np.float64)
    np.fill_diagonal(B, 0.0)
    rows = np.array([True, False, True, True, False])
    above = np.zeros((K, K), dtype=np.bool_)
    theta = np.zeros((K, K))
    sample_indicators(B, tail_cache_new(K), rows, above, theta, rng)
    for i in np.flatnonzero(rows):
        for j in np.flatnonzero(rows):
            if i != j:
                assert above[i, j] != above[j, i]
    for i in np.flatnonzero(rows):
        assert all(math.isnan(theta[i, j]) for j in range(K) if j != i)  # indicators only


# ------------------------------------------------------------------ the algorithms' laws
def _counts(K, seed):
    g = np.random.default_rng(seed)
    B = g.integers(0, 25, size=(K, K)).astype(np.float64)
    np.fill_diagonal(B, 0.0)
    return B


@numba.njit
def _dts_first(B, n, rng):
    K = B.shape[0]
    state = dts.init(K, np.array([0.51]))
    state[0][:] = B
    _, cb, _, in_C, above, theta, score, _, cache = state
    out = np.empty(n, dtype=np.int64)
    for k in range(n):
        out[k] = dts.first_candidate(state[0], cb[1], in_C, above, theta, score, cache, rng)
    return out


@numba.njit
def _dts_first_from_values(B, n, rng):
    """Line 11 from a whole sample of values (each pair's Beta drawn), ties at random."""
    K = B.shape[0]
    out = np.empty(n, dtype=np.int64)
    score = np.zeros(K)
    mask = np.ones(K, dtype=np.bool_)
    for k in range(n):
        score[:] = 0.0
        for i in range(K):
            for j in range(i + 1, K):
                th = rng.beta(B[i, j] + 1.0, B[j, i] + 1.0)
                if th > 0.5:
                    score[i] += 1.0
                elif th < 0.5:
                    score[j] += 1.0
        best = score.max()
        ties = np.flatnonzero(score == best)
        out[k] = ties[int(rng.random() * ties.shape[0])]
    return out


def _same_law(a, b, K):
    """Two samples of an arm index: every cell's frequencies within 5 standard errors."""
    fa = np.bincount(a, minlength=K) / a.size
    fb = np.bincount(b, minlength=K) / b.size
    se = np.sqrt(fa * (1 - fa) / a.size + fb * (1 - fb) / b.size)
    assert np.all(np.abs(fa - fb) <= 5 * se + 1e-12), (fa, fb)


def test_dts_first_candidate_has_the_law_of_a_whole_sample():
    """C = every arm (no pair resolved): a(1) from indicators has the law of line 11 on values."""
    B = _counts(5, 9)
    n = 100_000
    _same_law(_dts_first(B, n, np.random.default_rng(1)), _dts_first_from_values(B, n, np.random.default_rng(2)), 5)


@numba.njit
def _dts_second(B, a1, n, rng):
    K = B.shape[0]
    cache = tail_cache_new(K)
    beats = np.zeros((K, K), dtype=np.int8)
    values = np.zeros(K)
    out = np.empty(n, dtype=np.int64)
    for k in range(n):
        out[k] = dts.second_candidate(B, beats, a1, cache, values, rng)
    return out


@numba.njit
def _dts_second_from_values(B, a1, n, rng):
    K = B.shape[0]
    out = np.empty(n, dtype=np.int64)
    for k in range(n):
        best, a2 = 0.5, a1
        for i in range(K):
            if i != a1:
                th = rng.beta(B[i, a1] + 1.0, B[a1, i] + 1.0)
                if th > best:
                    best, a2 = th, i
        out[k] = a2
    return out


def test_dts_second_candidate_has_the_law_of_line_14():
    B = _counts(6, 10)
    B[:, 2] += 3.0  # several arms near 1/2 against a(1) = 2: contests between two or more
    n = 100_000
    _same_law(_dts_second(B, 2, n, np.random.default_rng(3)), _dts_second_from_values(B, 2, n, np.random.default_rng(4)), 6)


@numba.njit
def _dts_plus_first(B, n, rng, from_values):
    K = B.shape[0]
    state = dts_plus.init(K, np.array([0.51, 0.0]))
    state[0][:] = B
    _, cb, _, in_C, in_A, theta, wins, neg, above, all_rows, cache, _ = state
    for i in range(K):
        in_C[i] = True
    out = np.empty(n, dtype=np.int64)
    for k in range(n):
        if from_values:  # the whole sample's values, then the tie-break
            for i in range(K):
                wins[i] = 0.0
            for i in range(K):
                for j in range(i + 1, K):
                    th = rng.beta(B[i, j] + 1.0, B[j, i] + 1.0)
                    theta[i, j], theta[j, i] = th, 1.0 - th
                    above[i, j], above[j, i] = th > 0.5, th < 0.5
                    if th > 0.5:
                        wins[i] += 1.0
                    elif th < 0.5:
                        wins[j] += 1.0
        else:
            dts_plus.draw_all_pairs(state[0], above, theta, wins, all_rows, cache, rng)
        out[k] = dts_plus.tie_break(state[0], above, theta, cache[0], wins, in_C, in_A, neg, False, rng)
    return out


def test_dts_plus_first_candidate_has_the_law_of_a_whole_sample():
    """Indicators first, values of the rows of A(1) given their sides: the law of a(1) equals the
    tie-break on a whole sample of values."""
    B = _counts(5, 12)
    n = 60_000
    _same_law(_dts_plus_first(B, n, np.random.default_rng(5), False),
              _dts_plus_first(B, n, np.random.default_rng(6), True), 5)

"""Beta posteriors of pairwise preferences (the Thompson-sampling algorithms: D-TS, D-TS+, RCS).

With a uniform Beta(1, 1) prior on p_ij and B_ij wins of i over j, the posterior of p_ij is
Beta(B_ij + 1, B_ji + 1) (Wu & Liu, NIPS 2016, Algorithm 1 lines 8 and 13; Zoghi et al., WSDM
2014, RCS).  :func:`posterior_draw` draws θ_ij itself, consuming the generator as
``rng.beta(a, b)`` does.

Most decisions of these algorithms read a sample only through the indicator θ_ij > 1/2 (a
sampled Copeland score, a sampled Condorcet winner, whether an arm can beat the 1/2 of the first
candidate).  For the integer parameters of these posteriors that indicator has a closed form:
θ ~ Beta(a, b) is the a-th smallest of n = a + b − 1 independent uniforms, so with S the number
of those uniforms below 1/2, S ~ Binomial(n, 1/2) and

    θ > 1/2  ⇔  S ≤ a − 1,     P(θ_ij > 1/2) = P(Binomial(B_ij + B_ji + 1, 1/2) ≤ B_ij).

:func:`above_half` draws the indicator as one uniform against that probability
(:func:`half_tail`), cached per ordered pair until the pair's counts change (only the pair
compared at a step changes), instead of one Beta draw (two Gamma variates) per pair and step.
Where the value of θ is needed after all, it is drawn from its law given the side of 1/2 it fell
on (:func:`draw_above_half`), so (indicator, value) has exactly the law of (1(θ > 1/2), θ).

Numerical exactness: the Beta sampler computes θ in floating point, and the indicator's
probability is computed in floating point too: up to :data:`FRESH_SUM_COUNT` comparisons its
absolute error is below 1e-15, a few cells
of the 2⁻⁵³ grid of the uniform draw that decides it, and its relative error below 2e-13
wherever it exceeds 1e-20 (``tests/test_stats_beta.py`` checks both against exact rational
sums).

Large counts (:func:`cached_tail`).  Summing the tail afresh costs about 4.5 √n terms, too much to
repeat at every change of a pair compared n = 10^5–10^7 times (the T = 10^7 panels).  Up to
:data:`FRESH_SUM_COUNT` comparisons the tail is summed afresh whenever the pair's count has
changed; beyond, it is carried forward from the cached value by the exact recurrences of one more
comparison, with N = wins + losses + 1 and p(N, k) = P(Binomial(N, 1/2) = k):

    a win of i:   P(θ > 1/2 | wins + 1, losses) = P(θ > 1/2 | wins, losses) + p(N, wins + 1) / 2,
    a loss of i:  P(θ > 1/2 | wins, losses + 1) = P(θ > 1/2 | wins, losses) − p(N, wins) / 2

(S_{N+1} = S_N + one fair coin), accumulated in compensated (two-sum) arithmetic, and summed
afresh again once ⌊√n / 4⌋ comparisons have been carried.  Each carried step adds the pmf's
relative error (below 1e-14, tested up to n = 10^6) times p(N, k) / 2 ≤ 0.4 / √n, so the carried
part adds at most √n / 4 · 1e-14 · 0.4 / √n = 1e-15 to the error of the fresh sum it started
from (which grows slowly with the number of terms: about 2e-15 at n = 5·10^4).  The tests find
the carried tail within 3e-15 of exact rational sums; a decision u < P(θ > 1/2) on the 2⁻⁵³ grid
of the uniform is changed with that probability.  The cost per comparison of a pair is one pmf
(one exp, three logs) plus about 18 terms of a fresh sum.  Up to :data:`FRESH_SUM_COUNT`
comparisons every tail is a fresh sum, so a run in which no pair passes it draws the same
stream either way.
"""

import math

import numba
import numpy as np

#: Pairs compared at most this often have their tail summed afresh at every change of their count;
#: beyond, it is carried forward by one-comparison recurrences (:func:`cached_tail`).
FRESH_SUM_COUNT = 4096

#: ln(n!) − (n + 1/2) ln n + n − ln(2π)/2 for n = 0 … 15 (0 at n = 0); computed to 50 digits with
#: :mod:`decimal` and rounded (``tests/test_stats_beta.py`` recomputes them).
_STIRLING_ERROR_SMALL = np.array([
    0.0, 0.08106146679532726, 0.0413406959554093, 0.02767792568499834, 0.020790672103765093,
    0.016644691189821193, 0.013876128823070748, 0.01189670994589177, 0.010411265261972096,
    0.009255462182712733, 0.00833056343336287, 0.007573675487951841, 0.00694284010720953,
    0.006408994188004207, 0.0059513701127588475, 0.005554733551962801,
])

_LN_2PI = 1.8378770664093453


@numba.njit(cache=True, inline="always")
def posterior_draw(B, i, j, rng):
    """One sample θ_ij ~ Beta(B_ij + 1, B_ji + 1) from the win counts ``B`` (float64, K × K)."""
    return rng.beta(B[i, j] + 1.0, B[j, i] + 1.0)


@numba.njit(cache=True)
def stirling_error(n):
    """ln(n!) − ln(√(2πn) (n/e)^n) for an integer n ≥ 0: a table up to 15, the Stirling series
    beyond (enough terms for double precision at each range, as in Loader's binomial density)."""
    if n <= 15:
        return _STIRLING_ERROR_SMALL[int(n)]
    nn = n * n
    if n > 500:
        return (1.0 / 12 - (1.0 / 360) / nn) / n
    if n > 80:
        return (1.0 / 12 - (1.0 / 360 - (1.0 / 1260) / nn) / nn) / n
    if n > 35:
        return (1.0 / 12 - (1.0 / 360 - (1.0 / 1260 - (1.0 / 1680) / nn) / nn) / nn) / n
    return (1.0 / 12 - (1.0 / 360 - (1.0 / 1260 - (1.0 / 1680 - (1.0 / 1188) / nn) / nn) / nn) / nn) / n


@numba.njit(cache=True)
def deviance_term(x, mean):
    """x ln(x / mean) + mean − x, without cancellation when x is close to ``mean`` (x, mean > 0)."""
    if abs(x - mean) < 0.1 * (x + mean):
        v = (x - mean) / (x + mean)
        s = (x - mean) * v
        ej = 2.0 * x * v
        v2 = v * v
        for k in range(1, 1000):
            ej *= v2
            s1 = s + ej / (2 * k + 1)
            if s1 == s:
                return s1
            s = s1
        return s
    return x * math.log(x / mean) + mean - x


@numba.njit(cache=True)
def binomial_half_pmf(n, k):
    """P(Binomial(n, 1/2) = k) for integers 0 ≤ k ≤ n: Loader's saddle-point form
    exp(−Stirling and deviance terms) · √(n / (2π k (n − k))), 2⁻ⁿ at k ∈ {0, n}; the relative
    error grows with the exponent's size (below 1e-12 down to 1e-300)."""
    if k == 0 or k == n:
        return math.ldexp(1.0, -int(n))
    half = 0.5 * n
    lc = (stirling_error(n) - stirling_error(k) - stirling_error(n - k)
          - deviance_term(float(k), half) - deviance_term(float(n - k), half))
    lf = _LN_2PI + math.log(k) + math.log1p(-k / n)
    return math.exp(lc - 0.5 * lf)


@numba.njit(cache=True)
def binomial_half_cdf_low(n, m):
    """P(Binomial(n, 1/2) ≤ m) for 2m < n: the terms from k = m down, each the previous times
    k / (n − k + 1), until they no longer change the sum."""
    term = binomial_half_pmf(n, m)
    total = term
    k = m
    while k > 0 and term > total * 1e-18:
        term *= k / (n - k + 1.0)
        total += term
        k -= 1
    return total


@numba.njit(cache=True)
def half_tail(wins, losses):
    """P(θ > 1/2) for θ ~ Beta(wins + 1, losses + 1) with integer counts: P(Binomial(n, 1/2) ≤
    wins), n = wins + losses + 1 (module docstring).  The smaller tail is summed, the other
    side is its complement by the symmetry P(S ≤ m) = 1 − P(S ≤ n − m − 1); 1/2 exactly when
    wins = losses."""
    if wins == losses:
        return 0.5
    n = wins + losses + 1.0
    if wins < losses:
        return binomial_half_cdf_low(n, wins)
    return 1.0 - binomial_half_cdf_low(n, losses)


@numba.njit(cache=True, inline="always")
def tail_cache_new(K):
    """Per ordered pair (i, j): P(θ_ij > 1/2) (first, the value callers read), the comparison
    count and the wins of i it was computed at (−1: none), the low part of its compensated sum,
    and the count at which it is next summed afresh (:func:`cached_tail`)."""
    return (np.zeros((K, K), dtype=np.float64), np.full((K, K), -1.0), np.zeros((K, K), dtype=np.float64),
            np.zeros((K, K), dtype=np.float64), np.zeros((K, K), dtype=np.float64))


@numba.njit(cache=True, inline="always")
def _two_sum(hi, lo, x):
    """(hi, lo) + x in compensated arithmetic: the rounding error of hi + x goes into lo."""
    s = hi + x
    back = s - hi
    return s, lo + ((hi - (s - back)) + (x - back))


@numba.njit(cache=True)
def carry_tail(tail, low, wins0, losses0, wins, losses):
    """P(θ > 1/2) at (wins, losses) from its value ``tail + low`` at (wins0 ≤ wins, losses0 ≤
    losses): the wins first, then the losses, one comparison at a time (module docstring);
    returns the rounded value and its low part."""
    hi = tail
    lo = low
    w = wins0
    l = losses0
    while w < wins:
        hi, lo = _two_sum(hi, lo, 0.5 * binomial_half_pmf(w + l + 1.0, w + 1.0))
        w += 1.0
    while l < losses:
        hi, lo = _two_sum(hi, lo, -0.5 * binomial_half_pmf(w + l + 1.0, w))
        l += 1.0
    value = hi + lo
    return value, lo - (value - hi)


@numba.njit(cache=True, inline="always")
def cached_tail(B, cache, i, j):
    """P(θ_ij > 1/2) for θ_ij ~ Beta(B_ij + 1, B_ji + 1), recomputed only when the pair's count
    has changed: summed afresh (:func:`half_tail`) up to :data:`FRESH_SUM_COUNT` comparisons and
    every ⌊√n / 4⌋ comparisons beyond, carried forward from the cached value in between
    (:func:`carry_tail`, module docstring)."""
    tails, counts, wins, lows, fresh_at = cache
    w = B[i, j]
    n = w + B[j, i]
    c = counts[i, j]
    if c != n:
        if n <= FRESH_SUM_COUNT or c < 0.0 or n >= fresh_at[i, j]:
            tails[i, j] = half_tail(w, B[j, i])
            lows[i, j] = 0.0
            fresh_at[i, j] = n + max(1.0, math.floor(math.sqrt(n) / 4.0))
        else:
            w0 = wins[i, j]
            tails[i, j], lows[i, j] = carry_tail(tails[i, j], lows[i, j], w0, c - w0, w, B[j, i])
        counts[i, j] = n
        wins[i, j] = w
    return tails[i, j]


@numba.njit(cache=True, inline="always")
def above_half(B, cache, i, j, rng):
    """The indicator θ_ij > 1/2 of a draw θ_ij ~ Beta(B_ij + 1, B_ji + 1): one uniform draw
    below :func:`cached_tail`."""
    return rng.random() < cached_tail(B, cache, i, j)


@numba.njit(cache=True, inline="always")
def sample_indicators(B, cache, rows, above, theta, rng, values_beyond=False):
    """One posterior sample of the rows ``i`` with ``rows[i]``, read through its indicators:
    ``above[i, j] = 1(θ_ij > 1/2)`` (:func:`above_half`) and ``theta[i, j]`` NaN, a value to be
    drawn given the indicator where one is needed (:func:`draw_given_side`); rows in index order,
    each unordered pair once: θ_ij = 1 − θ_ji mirrors the draw of row j when both rows are
    sampled and j < i.

    ``values_beyond``: a pair compared more than :data:`FRESH_SUM_COUNT` times is drawn as its
    value θ_ij (:func:`posterior_draw`, which decides the indicator) instead, for a caller that
    goes on to need most values (D-TS+): a value given its side costs one Beta draw on average
    per side, two in all for a pair near 1/2, against one for the value drawn outright.

    One call per sample rather than one :func:`above_half` per pair: an inlined function with
    array arguments and branches keeps numba's atomic reference counting of those arrays at
    every call (about 12 ns a pair when measured), so the loop over pairs lives here.
    """
    K = B.shape[0]
    for i in range(K):
        if not rows[i]:
            continue
        for j in range(K):
            if j == i:
                continue
            if rows[j] and j < i:
                theta[i, j] = 1.0 - theta[j, i]
                above[i, j] = not above[j, i] and theta[i, j] != 0.5
            elif values_beyond and B[i, j] + B[j, i] > FRESH_SUM_COUNT:
                theta[i, j] = posterior_draw(B, i, j, rng)
                above[i, j] = theta[i, j] > 0.5
            else:
                theta[i, j] = np.nan
                above[i, j] = rng.random() < cached_tail(B, cache, i, j)


@numba.njit(cache=True)
def draw_above_half(wins, losses, tail, rng):
    """θ ~ Beta(wins + 1, losses + 1) conditioned on θ > 1/2, where ``tail`` is P(θ > 1/2) as
    :func:`half_tail` gives it (the caller's cached value: it only chooses the method).

    By rejection from the Beta when ``tail`` ≥ 1/4 (at most 4 draws expected); otherwise from
    the order-statistic form of the module docstring: S given S ≤ wins by inversion over its
    (few) terms, then θ = 1/2 + Beta(wins + 1 − S, losses + 1)/2, the (wins + 1 − S)-th
    smallest of the n − S uniforms above 1/2.  A value that rounds to 1/2 is drawn again
    (probability below 1e-12).  Either method draws the conditional law exactly.
    """
    a = wins + 1.0
    b = losses + 1.0
    if tail >= 0.25:
        while True:
            theta = rng.beta(a, b)
            if theta > 0.5:
                return theta
    n = wins + losses + 1.0
    m = wins
    target = rng.random() * binomial_half_cdf_low(n, m)
    term = binomial_half_pmf(n, m)
    cum = term
    s = m
    while s > 0 and cum <= target:
        term *= s / (n - s + 1.0)
        cum += term
        s -= 1
    while True:
        theta = 0.5 + 0.5 * rng.beta(a - s, b)
        if theta > 0.5:
            return theta


@numba.njit(cache=True, inline="always")
def draw_given_side(B, i, j, above, tail, rng):
    """θ_ij ~ Beta(B_ij + 1, B_ji + 1) conditioned on the side of 1/2 its indicator fell on:
    above, or below (θ_ij < 1/2 ⇔ θ_ji = 1 − θ_ij > 1/2, drawn as the mirror); ``tail`` is
    P(θ_ij > 1/2) (:func:`draw_above_half`)."""
    if above:
        return draw_above_half(B[i, j], B[j, i], tail, rng)
    return 1.0 - draw_above_half(B[j, i], B[i, j], 1.0 - tail, rng)

"""Reference posterior samples read through 1(θ > 1/2), for the Thompson-sampling references.

θ ~ Beta(w + 1, l + 1) with integer counts is the (w + 1)-th smallest of n = w + l + 1 uniforms,
so P(θ > 1/2) = P(Binomial(n, 1/2) ≤ w), here an exact rational sum rounded once to a float.
The stream is consumed as :mod:`duelbench.stats.beta` documents it:

* the indicator: one ``rng.random()`` below that probability, no value (at every count: the
  package sums the tail afresh up to 4096 comparisons and carries it forward beyond, within a
  few 1e-15 of the exact value);
* D-TS+'s Phase 1 (:func:`indicator_or_value`): a pair compared more than 4096 times is drawn as
  its value, one ``rng.beta(w + 1.0, l + 1.0)`` deciding the indicator;
* a value given θ > 1/2: ``rng.beta`` until it exceeds 1/2 when P(θ > 1/2) ≥ 1/4 (for a value
  below 1/2, drawn as the mirror above 1/2: when 1 − P(θ_ij > 1/2) ≥ 1/4); otherwise
  ``rng.random()`` picks S given S ≤ w by inversion (terms from S = w down), then
  θ = 1/2 + rng.beta(w + 1 − S, l + 1)/2, drawn again if it rounds to 1/2.

Only the standard library is used (plus the generator passed in).
"""

import functools
import math
from fractions import Fraction

@functools.lru_cache(maxsize=None)
def _binomial_terms(n, w):
    """The exact P(S = k), k = w, w − 1, …, 0, of S ~ Binomial(n, 1/2) (w < n)."""
    c = math.comb(n, w)
    terms = [c]
    for k in range(w, 0, -1):
        c = c * k // (n - k + 1)
        terms.append(c)
    return terms


@functools.lru_cache(maxsize=None)
def half_tail(w, l):
    """P(θ > 1/2), θ ~ Beta(w + 1, l + 1), exactly, then rounded to a float."""
    n = w + l + 1
    return float(Fraction(sum(_binomial_terms(n, w)), 2 ** n))


#: Beyond this many comparisons D-TS+'s Phase 1 draws a pair's value outright
#: (duelbench.stats.beta.FRESH_SUM_COUNT).
FRESH_SUM_COUNT = 4096


def indicator(B, i, j, rng):
    """1(θ_ij > 1/2) for θ_ij ~ Beta(B[i][j] + 1, B[j][i] + 1)."""
    return rng.random() < half_tail(B[i][j], B[j][i])


def indicator_or_value(B, i, j, rng):
    """``(above, value)``: the value (deciding the indicator) for a pair compared more than
    :data:`FRESH_SUM_COUNT` times, else the indicator and None."""
    w, l = B[i][j], B[j][i]
    if w + l > FRESH_SUM_COUNT:
        value = rng.beta(w + 1.0, l + 1.0)
        return value > 0.5, value
    return indicator(B, i, j, rng), None


def draw_above_half(w, l, rng, tail=None):
    """θ ~ Beta(w + 1, l + 1) given θ > 1/2, consuming the stream as documented above; ``tail``
    (default P(θ > 1/2)) chooses the method."""
    if (half_tail(w, l) if tail is None else tail) >= 0.25:
        while True:
            value = rng.beta(w + 1.0, l + 1.0)
            if value > 0.5:
                return value
    n = w + l + 1
    terms = _binomial_terms(n, w)
    target = rng.random() * float(Fraction(sum(terms), 2 ** n))
    cumulative = Fraction(0)
    s = w
    for k, c in enumerate(terms):
        s = w - k
        cumulative += Fraction(c, 2 ** n)
        if cumulative > target:
            break
    while True:
        value = 0.5 + 0.5 * rng.beta(w + 1.0 - s, l + 1.0)
        if value > 0.5:
            return value


def draw_given_side(B, i, j, above, rng):
    """θ_ij given the side of 1/2 its indicator fell on (below: the mirror of θ_ji above)."""
    if above:
        return draw_above_half(B[i][j], B[j][i], rng)
    return 1.0 - draw_above_half(B[j][i], B[i][j], rng, tail=1.0 - half_tail(B[i][j], B[j][i]))

"""Reference posterior samples read through 1(θ > 1/2), for the Thompson-sampling references.

θ ~ Beta(w + 1, l + 1) with integer counts is the (w + 1)-th smallest of n = w + l + 1 uniforms,
so P(θ > 1/2) = P(Binomial(n, 1/2) ≤ w), here an exact rational sum rounded once to a float.
The stream is consumed as :mod:`duelbench.stats.beta` documents it:

* a pair compared at most ``MAX_CACHED_COUNT`` times: one ``rng.random()`` below that
  probability (the indicator), no value;
* a pair compared more often: one ``rng.beta(w + 1.0, l + 1.0)``, the value deciding the
  indicator;
* a value given θ > 1/2: ``rng.beta`` until it exceeds 1/2 when P(θ > 1/2) ≥ 1/4 (for a value
  below 1/2, drawn as the mirror above 1/2: when 1 − P(θ_ij > 1/2) ≥ 1/4); otherwise
  ``rng.random()`` picks S given S ≤ w by inversion (terms from S = w down), then
  θ = 1/2 + rng.beta(w + 1 − S, l + 1)/2, drawn again if it rounds to 1/2.

Only the standard library is used (plus the generator passed in).
"""

import functools
import math
from fractions import Fraction

#: The count above which a pair is drawn from the Beta (duelbench.stats.beta.MAX_CACHED_COUNT).
MAX_CACHED_COUNT = 4096


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


def indicator(B, i, j, rng):
    """``(above, value)`` for θ_ij ~ Beta(B[i][j] + 1, B[j][i] + 1); value None unless drawn."""
    w, l = B[i][j], B[j][i]
    if w + l > MAX_CACHED_COUNT:
        value = rng.beta(w + 1.0, l + 1.0)
        return value > 0.5, value
    return rng.random() < half_tail(w, l), None


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

"""Bernoulli KL divergences of the slow references, in the standard library only (no
``duelbench`` helper, so that the references check the shared code instead of repeating it)."""

import math


def bernoulli_kl(p: float, q: float) -> float:
    """``d(p, q) = p ln(p/q) + (1 − p) ln((1 − p)/(1 − q))`` with ``0 ln 0 = 0``, unclipped
    (Komiyama et al. 2016, L83; Zoghi et al. 2015, Appendix I, L903)."""
    out = 0.0
    if p > 0.0:
        out += p * math.log(p / q)
    if p < 1.0:
        out += (1.0 - p) * math.log((1.0 - p) / (1.0 - q))
    return out


def kl_half(x: float) -> float:
    """``d(x) = d_KL(x, 1/2) = x ln(2x) + (1 − x) ln(2(1 − x))`` with ``0 ln 0 = 0``
    (Komiyama et al. 2016, L83)."""
    if x == 0.5:
        return 0.0
    out = 0.0
    if x > 0.0:
        out += x * math.log(2.0 * x)
    if x < 1.0:
        out += (1.0 - x) * math.log(2.0 * (1.0 - x))
    return out

"""Bernoulli Kullback–Leibler divergence (natural log, nats).

``d_KL(p, q) = p log(p/q) + (1 − p) log((1 − p)/(1 − q))`` — Komiyama et al. (2016), paper 000
L83.  ``kl_to_half(mu) = d_KL(mu, 1/2)``, the quantity ``d(mu)`` of that paper, used by RMED1,
ECW-RMED and the Copeland lower bound.
"""

import math

import numba

#: Probabilities are clipped to ``[EPS, 1 − EPS]`` before taking logs, so that a sampled or
#: empirical value of exactly 0 or 1 gives a large finite divergence instead of ``inf``.
EPS = 1e-12


@numba.njit(cache=True)
def kl_bernoulli(p, q):
    """``d_KL(p, q)`` for Bernoulli means, with ``0 log 0 = 0`` and q clipped away from 0 and 1."""
    q = min(max(q, EPS), 1.0 - EPS)
    out = 0.0
    if p > 0.0:
        out += p * math.log(p / q)
    if p < 1.0:
        out += (1.0 - p) * math.log((1.0 - p) / (1.0 - q))
    return out


@numba.njit(cache=True)
def kl_to_half(mu):
    """``d(mu) = d_KL(mu, 1/2)`` (paper 000 L83); zero exactly at ``mu = 1/2``."""
    if mu == 0.5:
        return 0.0
    return kl_bernoulli(mu, 0.5)

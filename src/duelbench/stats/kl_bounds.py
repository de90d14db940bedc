"""KL (Chernoff) confidence intervals for a Bernoulli mean, by bisection.

For n outcomes with empirical mean p̂ and a confidence level ``level`` (in nats), the interval is

    I = {q ∈ [0, 1] : n · d(p̂, q) ≤ level},

d the Bernoulli KL divergence of :func:`duelbench.stats.kl.kl_bernoulli` (paper 001 L903:
``d(p, q) = (1−p) ln((1−p)/(1−q)) + p ln(p/q)``, ``0 ln 0 = 0``).  Used by Algorithm 4 of
Zoghi et al. (2015), paper 001 L905–920, line 10 (see :mod:`duelbench.algorithms.scb`).

Since ``q ↦ d(p̂, q)`` is convex with its minimum 0 at ``q = p̂``, I is an interval
``[lower, upper]`` containing p̂.  Each end is found by bisection on its side of p̂ until the
bracket is no wider than ``tol``; the *outer* end of the final bracket is returned, so the
computed interval always contains the exact one (a conservative error of at most ``tol`` per
end).  ``kl_bernoulli`` clips q to ``[EPS, 1 − EPS]`` (EPS = 1e-12), so an end that lies within
about 1e-12 of 0 or 1 is reported as 0 or 1 (again conservative).
"""

import numba

from .kl import kl_bernoulli

#: Bisection steps are capped (64 halvings of [0, 1] reach float64 resolution), so a ``tol`` of
#: 0 or below the resolution still terminates.
MAX_STEPS = 64


@numba.njit(cache=True)
def kl_lower(p_hat, n, level, tol):
    """Lower end of ``{q : n d(p̂, q) ≤ level}`` (outer end of a bisection bracket of width ≤ tol)."""
    if p_hat <= 0.0:
        return 0.0
    if n * kl_bernoulli(p_hat, 0.0) <= level:
        return 0.0
    lo = 0.0  # outside the set
    hi = p_hat  # inside (d = 0)
    for _ in range(MAX_STEPS):
        if hi - lo <= tol:
            break
        mid = 0.5 * (lo + hi)
        if n * kl_bernoulli(p_hat, mid) <= level:
            hi = mid
        else:
            lo = mid
    return lo


@numba.njit(cache=True)
def kl_upper(p_hat, n, level, tol):
    """Upper end of ``{q : n d(p̂, q) ≤ level}`` (outer end of a bisection bracket of width ≤ tol)."""
    if p_hat >= 1.0:
        return 1.0
    if n * kl_bernoulli(p_hat, 1.0) <= level:
        return 1.0
    lo = p_hat  # inside (d = 0)
    hi = 1.0  # outside the set
    for _ in range(MAX_STEPS):
        if hi - lo <= tol:
            break
        mid = 0.5 * (lo + hi)
        if n * kl_bernoulli(p_hat, mid) <= level:
            lo = mid
        else:
            hi = mid
    return hi


@numba.njit(cache=True)
def kl_interval(p_hat, n, level, tol):
    """``(lower, upper)`` of ``{q ∈ [0, 1] : n d(p̂, q) ≤ level}`` (see the module docstring)."""
    return kl_lower(p_hat, n, level, tol), kl_upper(p_hat, n, level, tol)

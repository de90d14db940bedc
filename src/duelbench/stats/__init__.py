"""Shared statistics for every algorithm: one implementation of each formula.

* :mod:`.kl` — Bernoulli KL divergence and ``d(mu) = KL(mu, 1/2)``.
* :mod:`.counts` — pairwise win counts, empirical means (``0/0 := 1/2``).
* :mod:`.bounds` — RUCB-style confidence bounds ``mean ± sqrt(alpha ln t / n)``.
* :mod:`.confident_beats` — incremental bookkeeping of which pairs are resolved by those
  bounds (the Copeland counts of RUCB, CCB and D-TS) without rescanning all K² bounds.
* :mod:`.heap` — an indexed binary min-heap used by :mod:`.confident_beats`.
* :mod:`.hoeffding` — Hoeffding radii and sequential sign tests (SAVAGE, SCB).
* :mod:`.kl_bounds` — KL confidence intervals by bisection (SCB's Algorithm 4).
* :mod:`.copeland` — empirical Copeland losses, winner sets and pair signs (ECW-RMED).
* :mod:`.beta` — Beta posterior draws of pairwise preferences (D-TS, D-TS+, RCS).
* :mod:`.choice` — uniform indices and argmax with random tie-breaking (fixed draws).

All functions are ``numba.njit(cache=True)`` kernels that also run as plain Python
(``NUMBA_DISABLE_JIT=1``).
"""

from duelbench.provenance.compiled_cache import install as _install_compiled_cache

_install_compiled_cache()

"""Maximum matchings of a :class:`~duelbench.cpe.instance.BipartiteInstance` (Chen et al. 2020).

* :func:`mwmc` — the oracle ``MWMC(w)`` of Appendix A.1 (L444–L448): a maximum-weight matching
  among those that fill every position, with edges forced in (``A``) or out (``R``), as the
  gaps, the CAR oracles and CAR-Verify need.  Solved by :func:`scipy.optimize.linear_sum_assignment`
  on the ``ℓ × n`` position–candidate cost matrix (non-edges cost ``+inf``); weights may be
  negative, so the paper's shift to positive weights (L448) is not needed.
* :func:`best_other_than` — the best matching other than a given one (a second-best matching:
  each of its edges forbidden in turn).
* :func:`enumerate_matchings` — every maximum matching, for the small instances where ``ℳ``
  is enumerated (ground truth, the exhaustive oracle).
* :class:`MatchingCounter` — ``|ℳ|``, ``|ℳ_e|`` and an **exact** uniform sampler of ``ℳ`` by
  counting over (position, set of used candidates).
* :func:`g_prime` / :func:`to_g` — the reduction of maximum matchings of ``G`` to perfect
  matchings of ``G′`` (Appendix B.2, L572–L574), kept to test its multiplicity.

Decisions
---------
* Ties in :func:`mwmc` are broken deterministically, by the order of
  ``linear_sum_assignment`` on the position-major cost matrix; in :func:`best_other_than` the
  first best in the order of the forbidden edge wins.
* The sampler ``𝒮(η)`` of Definition 1 (L109–L117) is implemented exactly (``η = 0``, which is
  an ``𝒮(η)`` for every ``η``) instead of Jerrum–Sinclair–Vigoda's chain: its counts take
  ``O(ℓ · deg · 2^n)`` time and memory, so :class:`MatchingCounter` refuses ``n`` above
  :data:`MAX_COUNTED_CANDIDATES`.
* Each maximum matching of ``G`` is the image of exactly ``(n − ℓ)!`` perfect matchings of
  ``G′`` (the paper's "one-to-n", L117 and L572, is a misprint: the toy of Figures 6–7 shows
  ``2 = (4 − 2)!`` copies).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from scipy.optimize import linear_sum_assignment

from .instance import BipartiteInstance

__all__ = ["mwmc", "best_other_than", "matching_weight", "enumerate_matchings", "MatchingCounter",
           "MAX_COUNTED_CANDIDATES", "g_prime", "to_g"]

#: Largest number of candidates whose matchings :class:`MatchingCounter` counts (2^n states).
MAX_COUNTED_CANDIDATES = 20


def _allowed(inst: BipartiteInstance, forced: Iterable[int], forbidden: Iterable[int]) -> np.ndarray | None:
    """Boolean mask of the edges left when ``forced`` edges are in and ``forbidden`` out;
    None when the forced edges conflict (two at one candidate or one position)."""
    allowed = np.ones(inst.m, dtype=bool)
    allowed[list(forbidden)] = False
    forced = sorted(set(forced))
    for e in forced:
        if not allowed[e]:
            return None
        clash = (inst.candidate == inst.candidate[e]) | (inst.position == inst.position[e])
        clash[e] = False
        if np.any(clash[forced]):
            return None
        allowed &= ~clash
    return allowed


def mwmc(inst: BipartiteInstance, w, forced: Iterable[int] = (), forbidden: Iterable[int] = ()) -> np.ndarray | None:
    """``MWMC(w; A, R)``: the maximum-weight matching that fills every position, contains every
    edge of ``forced`` (``A``) and none of ``forbidden`` (``R``).

    Returns its edge indices in position order (``ℓ`` ints), or None if no such matching
    exists (its value is then −∞).
    """
    w = np.asarray(w, dtype=np.float64)
    allowed = _allowed(inst, forced, forbidden)
    if allowed is None:
        return None
    cost = np.full((inst.ell, inst.n), np.inf)
    idx = np.flatnonzero(allowed)
    cost[inst.position[idx], inst.candidate[idx]] = -w[idx]
    try:
        rows, cols = linear_sum_assignment(cost)
    except ValueError:  # no assignment of finite cost: no matching fills every position
        return None
    if len(rows) < inst.ell or not np.all(np.isfinite(cost[rows, cols])):
        return None
    lookup = np.full((inst.ell, inst.n), -1, dtype=np.int64)
    lookup[inst.position, inst.candidate] = np.arange(inst.m)
    return lookup[rows, cols]


def matching_weight(w, matching) -> float:
    """``w(M) = Σ_{e ∈ M} w(e)``; ``-inf`` for None (an empty feasible set)."""
    if matching is None:
        return -np.inf
    return float(np.asarray(w, dtype=np.float64)[np.asarray(matching, dtype=np.int64)].sum())


def best_other_than(inst: BipartiteInstance, w, matching, forced: Iterable[int] = (),
                    forbidden: Iterable[int] = ()) -> np.ndarray | None:
    """The maximum-weight matching (within ``forced``/``forbidden``) that differs from
    ``matching``: each of its edges not in ``forced`` forbidden in turn; None if there is none."""
    forced, forbidden = tuple(forced), tuple(forbidden)
    best, best_w = None, -np.inf
    for e in np.asarray(matching, dtype=np.int64):
        if e in forced:
            continue
        cand = mwmc(inst, w, forced, forbidden + (int(e),))
        cw = matching_weight(w, cand)
        if cand is not None and cw > best_w:
            best, best_w = cand, cw
    return best


def enumerate_matchings(inst: BipartiteInstance, forced: Iterable[int] = (), forbidden: Iterable[int] = (),
                        limit: int | None = None) -> np.ndarray:
    """Every maximum matching (within ``forced``/``forbidden``) as rows of edge indices in
    position order, in lexicographic order of those rows; shape ``(|ℳ|, ℓ)``.

    ``limit``: raise ``ValueError`` when there are more (the caller's enumeration budget)."""
    allowed = _allowed(inst, forced, forbidden)
    if allowed is None:
        return np.zeros((0, inst.ell), dtype=np.int64)
    per_position = [[int(e) for e in edges if allowed[e]] for edges in inst.position_edges]
    out, current, used = [], [], set()

    def walk(j: int) -> None:
        if j == inst.ell:
            out.append(list(current))
            if limit is not None and len(out) > limit:
                raise ValueError(f"{inst.name!r} has more than {limit} maximum matchings to enumerate")
            return
        for e in per_position[j]:
            c = int(inst.candidate[e])
            if c not in used:
                used.add(c)
                current.append(e)
                walk(j + 1)
                current.pop()
                used.remove(c)

    walk(0)
    return np.array(out, dtype=np.int64).reshape(len(out), inst.ell)


class MatchingCounter:
    """Exact counts of maximum matchings and an exact uniform sampler (``𝒮(0)``).

    ``count[j][U]`` is the number of ways to fill positions ``j … ℓ − 1`` with candidates
    outside the set ``U`` (a bit mask); ``|ℳ| = count[0][∅]``.  Sampling fills positions in
    order, each edge drawn with probability proportional to the completions it leaves.
    """

    def __init__(self, inst: BipartiteInstance):
        if inst.n > MAX_COUNTED_CANDIDATES:
            raise ValueError(f"{inst.name!r}: exact matching counts need 2^n states; n = {inst.n} exceeds "
                             f"{MAX_COUNTED_CANDIDATES}")
        self.inst = inst
        masks = np.arange(1 << inst.n, dtype=np.int64)
        count = [None] * (inst.ell + 1)
        count[inst.ell] = np.ones(1 << inst.n, dtype=np.int64)
        for j in range(inst.ell - 1, -1, -1):
            cj = np.zeros(1 << inst.n, dtype=np.int64)
            for e in inst.position_edges[j]:
                bit = 1 << int(inst.candidate[e])
                free = (masks & bit) == 0
                cj[free] += count[j + 1][masks[free] | bit]
            count[j] = cj
        self._count = count
        self._masks = masks

    @property
    def total(self) -> int:
        """``|ℳ|``."""
        return int(self._count[0][0])

    def edge_counts(self) -> np.ndarray:
        """``|ℳ_e|`` for every edge (the number of maximum matchings holding it, L211)."""
        inst, masks = self.inst, self._masks
        out = np.zeros(inst.m, dtype=np.int64)
        forward = np.zeros(1 << inst.n, dtype=np.int64)
        forward[0] = 1
        for j in range(inst.ell):
            nxt = np.zeros_like(forward)
            for e in inst.position_edges[j]:
                bit = 1 << int(inst.candidate[e])
                free = (masks & bit) == 0
                ways = forward[free] * self._count[j + 1][masks[free] | bit]
                out[e] = int(ways.sum())
                np.add.at(nxt, masks[free] | bit, forward[free])
            forward = nxt
        return out

    def marginals(self) -> np.ndarray:
        """``Pr[e ∈ M]`` for ``M`` uniform on ``ℳ``: ``|ℳ_e| / |ℳ|``."""
        return self.edge_counts() / self.total

    def sample(self, rng: np.random.Generator) -> np.ndarray:
        """One maximum matching drawn uniformly from ``ℳ`` (edge indices in position order)."""
        inst, used, out = self.inst, 0, np.empty(self.inst.ell, dtype=np.int64)
        for j in range(inst.ell):
            edges = inst.position_edges[j]
            weights = np.array([0 if used >> int(inst.candidate[e]) & 1
                                else self._count[j + 1][used | 1 << int(inst.candidate[e])] for e in edges],
                               dtype=np.float64)
            k = int(np.searchsorted(np.cumsum(weights), rng.random() * weights.sum(), side="right"))
            e = int(edges[min(k, len(edges) - 1)])
            out[j] = e
            used |= 1 << int(inst.candidate[e])
        return out


def g_prime(inst: BipartiteInstance) -> BipartiteInstance:
    """``G′`` of Appendix B.2 (L572–L574): ``n − ℓ`` fictitious positions ``ℓ … n − 1`` joined to
    every candidate, so that maximum matchings of ``G`` extend to perfect matchings of ``G′``
    (preferences 1/2 between comparable edges: only the graph matters)."""
    edges = list(inst.edges) + [(c, s) for s in range(inst.ell, inst.n) for c in range(inst.n)]
    edges.sort(key=lambda e: (e[1], e[0]))
    pos = np.array([s for _, s in edges])
    P = np.where(pos[:, None] == pos[None, :], 0.5, 0.0)
    return BipartiteInstance(n=inst.n, ell=inst.n, edges=tuple(edges), P=P, name=f"{inst.name}′")


def to_g(inst: BipartiteInstance, gp: BipartiteInstance, perfect) -> np.ndarray:
    """The maximum matching of ``inst`` that a perfect matching of ``gp = g_prime(inst)`` maps
    to: its edges at the real positions ``0 … ℓ − 1``."""
    real = [gp.edges[e] for e in np.asarray(perfect, dtype=np.int64) if gp.edges[e][1] < inst.ell]
    return np.array(sorted(inst.edge_index(c, s) for c, s in real), dtype=np.int64)

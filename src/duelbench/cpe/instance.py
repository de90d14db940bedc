"""A combinatorial dueling-bandit instance of Chen, Du, Huang & Zhao (ICML 2020), Section 2.

A bipartite graph ``G(C, S, E)`` of ``n`` candidates and ``ℓ`` positions (``n ≥ ℓ``, L60) and an
edge-level preference matrix ``P`` (L62–L64).  Edges are numbered in the paper's order (L64):
by position index first, then by candidate index, both ascending; ``e_i`` is edge ``i`` of
that order (0-based here).  Edges ``e`` and ``e′`` are comparable iff they fill the same
position (L62); ``P[i, j] = p(e_i, e_j)`` for comparable edges, ``P[i, i] = 1/2`` and
``P[i, j] = 0`` for incomparable ones (L64), so ``P`` is block-diagonal with one block per
position.  ``K`` (L66) is the number of duel pairs: unordered comparable pairs of distinct
edges.  A maximum matching (L68) fills every position; the paper assumes one exists, and so
does the constructor (``ValueError`` otherwise).

Decisions
---------
* Indices are 0-based (``e_1`` of the paper is edge 0, ``c_1`` candidate 0, ``s_1`` position 0).
* A position with a single edge contributes nothing to ``K`` and its edge lies in every
  matching; ``K ≥ 1`` is required by the confidence radii ``ln(4Kt³/δ)`` (Eq. 7, L250), so
  :attr:`BipartiteInstance.K` may be 0 but the algorithms refuse such an instance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

__all__ = ["BipartiteInstance", "ATOL"]

#: Tolerance of the consistency checks of ``P`` (p(e, e') + p(e', e) = 1, p(e, e) = 1/2).
ATOL = 1e-12


@dataclass(frozen=True, eq=False)
class BipartiteInstance:
    """Candidates × positions, the allowed edges and their preference matrix.

    Parameters
    ----------
    n : int
        Number of candidates ``|C|``.
    ell : int
        Number of positions ``ℓ = |S|`` (``ℓ ≤ n``).
    edges : sequence of (candidate, position)
        The edges, in the paper's order (position, then candidate, ascending; L64), no repeats.
    P : array of shape (m, m)
        ``P[i, j]`` the probability that edge ``i`` beats edge ``j`` when both fill the same
        position; ``1/2`` on the diagonal, ``0`` for incomparable pairs (L64).
    name : str
        Label used in tables and figures.
    """

    n: int
    ell: int
    edges: tuple[tuple[int, int], ...]
    P: np.ndarray = field(repr=False)
    name: str = ""

    def __post_init__(self):
        edges = tuple((int(c), int(s)) for c, s in self.edges)
        object.__setattr__(self, "edges", edges)
        P = np.array(self.P, dtype=np.float64)
        P.setflags(write=False)
        object.__setattr__(self, "P", P)
        if not 1 <= self.ell <= self.n:
            raise ValueError(f"instance {self.name!r}: need 1 ≤ ℓ ≤ n, got n={self.n}, ℓ={self.ell}")
        if list(edges) != sorted(set(edges), key=lambda e: (e[1], e[0])):
            raise ValueError(f"instance {self.name!r}: edges must be distinct and ordered by position, then "
                             "candidate (Chen et al. 2020, L64)")
        bad = [e for e in edges if not (0 <= e[0] < self.n and 0 <= e[1] < self.ell)]
        if bad:
            raise ValueError(f"instance {self.name!r}: edge {bad[0]} outside {self.n} candidates × {self.ell} positions")
        m = len(edges)
        if P.shape != (m, m):
            raise ValueError(f"instance {self.name!r}: P must be {m}×{m} (one row per edge), got {P.shape}")
        same = self.comparable_mask
        if not np.allclose(np.diag(P), 0.5, atol=ATOL, rtol=0):
            raise ValueError(f"instance {self.name!r}: P must have 1/2 on the diagonal (p(e, e) = 1/2, L62)")
        if np.any(P[~same] != 0):
            raise ValueError(f"instance {self.name!r}: P must be 0 between edges of different positions (L64)")
        if np.any((P < 0) | (P > 1)):
            raise ValueError(f"instance {self.name!r}: P must hold probabilities in [0, 1]")
        if not np.allclose((P + P.T)[same], 1.0, atol=ATOL, rtol=0):
            raise ValueError(f"instance {self.name!r}: P must satisfy p(e, e') = 1 - p(e', e) for comparable edges (L62)")
        if any(len(b) == 0 for b in self.position_edges):
            raise ValueError(f"instance {self.name!r}: a position has no edge, so no matching fills every position (L68)")
        from .matching import mwmc  # noqa: PLC0415 - matching builds on this module

        if mwmc(self, np.zeros(m)) is None:
            raise ValueError(f"instance {self.name!r}: no matching fills every position (assumption of L68)")

    # --- structure ---------------------------------------------------------------------------
    @property
    def m(self) -> int:
        """Number of edges ``|E|``."""
        return len(self.edges)

    @cached_property
    def candidate(self) -> np.ndarray:
        """``c(e)`` of every edge (int array of length ``m``)."""
        return np.array([c for c, _ in self.edges], dtype=np.int64)

    @cached_property
    def position(self) -> np.ndarray:
        """``s(e)`` of every edge (int array of length ``m``)."""
        return np.array([s for _, s in self.edges], dtype=np.int64)

    @cached_property
    def position_edges(self) -> tuple[np.ndarray, ...]:
        """``E_j`` for every position ``j``: the indices of its edges, ascending."""
        return tuple(np.flatnonzero(self.position == j) for j in range(self.ell))

    @cached_property
    def comparable_mask(self) -> np.ndarray:
        """``m × m`` booleans: edges filling the same position (the diagonal included)."""
        return self.position[:, None] == self.position[None, :]

    @cached_property
    def pairs(self) -> np.ndarray:
        """The ``K`` duel pairs ``(i, j)``, ``i < j`` comparable, in row-major order (L66)."""
        i, j = np.nonzero(np.triu(self.comparable_mask, k=1))
        return np.stack([i, j], axis=1).astype(np.int64)

    @property
    def K(self) -> int:
        """Number of duel pairs ``Σ_j |E_j|(|E_j| − 1)/2`` (L66)."""
        return len(self.pairs)

    def edge_index(self, candidate: int, position: int) -> int:
        """Index of the edge ``(candidate, position)``; ``KeyError`` if it is not an edge."""
        try:
            return self.edges.index((candidate, position))
        except ValueError:
            raise KeyError(f"({candidate}, {position}) is not an edge of {self.name!r}") from None

    # --- preferences -------------------------------------------------------------------------
    def indicator(self, matching) -> np.ndarray:
        """``χ_M``: 0/1 float vector of length ``m`` of a matching given by its edge indices."""
        x = np.zeros(self.m)
        x[np.asarray(matching, dtype=np.int64)] = 1.0
        return x

    def f(self, m1, m2, Q: np.ndarray | None = None) -> float:
        """``f(M1, M2, Q) = (1/ℓ) χ_{M1}ᵀ Q χ_{M2}`` (Eq. 1, L70–L72), ``Q = P`` by default: the
        sum of the entries ``Q[e, e′]`` for ``e ∈ M1``, ``e′ ∈ M2``, correctly rounded
        (:func:`math.fsum`, the same on every processor), divided by ``ℓ``."""
        Q = np.asarray(self.P if Q is None else Q, dtype=np.float64)
        rows = np.unique(np.asarray(m1, dtype=np.int64))
        cols = np.unique(np.asarray(m2, dtype=np.int64))
        return math.fsum(Q[np.ix_(rows, cols)].ravel().tolist()) / self.ell

    def __repr__(self) -> str:
        return f"BipartiteInstance({self.name!r}, n={self.n}, ℓ={self.ell}, m={self.m}, K={self.K})"

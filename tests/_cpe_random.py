"""A random instance for the duelbench.cpe tests: every comparable pair's p(e, e') uniform."""

from __future__ import annotations

import itertools

import numpy as np

from duelbench.cpe.instance import BipartiteInstance


def random_instance(n: int, ell: int, rng: np.random.Generator, density: float = 1.0,
                    name: str = "test") -> BipartiteInstance:
    """Each edge of ``K_{n,ℓ}`` kept with probability ``density`` (redrawn until a matching fills
    every position), ``p(e, e′)`` uniform on [0, 1] for comparable ``e < e′``."""
    while True:
        edges = [(c, s) for s in range(ell) for c in range(n) if density >= 1.0 or rng.random() < density]
        pos = np.array([s for _, s in edges])
        P = np.where(pos[:, None] == pos[None, :], 0.5, 0.0)
        for i, j in itertools.combinations(range(len(edges)), 2):
            if pos[i] == pos[j]:
                P[i, j] = rng.random()
                P[j, i] = 1 - P[i, j]
        try:
            return BipartiteInstance(n, ell, edges, P, name)
        except ValueError:
            continue  # no position-saturating matching: draw again

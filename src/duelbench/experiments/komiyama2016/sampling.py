"""The Table-1 samples of Komiyama et al. (2016): random ``K``-subsets of an MSLR matrix (L56-L59, R3).

The sample family ``table1`` (:mod:`duelbench.experiments.samples`): the job is the recipe
``{parent, K, min_gap, condorcet, seed}``; sample ``i`` is drawn uniformly from
``Generator(PCG64(SeedSequence(seed, spawn_key=(i,))))`` and rejected while any
``|p_ij - 1/2| < min_gap`` (and, if ``condorcet`` is not None, while the Condorcet selection
fails), so a sample does not depend on how the family is split into shards.  This module
imports only what the samples depend on: its code hash keys the archived sample shards.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np


def sample_rng(seed: int, i: int) -> np.random.Generator:
    """The generator of Table-1 sample ``i``: a function of ``(seed, i)`` only."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy=int(seed), spawn_key=(int(i),))))


def draw_sample(parent, job: Mapping, i: int):
    """Sample ``i`` of the recipe ``job``: a :class:`~duelbench.problems.generators.SubmatrixSample`."""
    from duelbench.problems.generators import random_submatrix

    return random_submatrix(parent, int(job["K"]), sample_rng(job["seed"], i), min_gap=job.get("min_gap"),
                            condorcet=job.get("condorcet"), name=f"{job['parent']}[sample {i}]")


def table1_samples(job: Mapping, a: int, b: int) -> dict[str, np.ndarray]:
    """Columns of samples ``a … b - 1``: ``tries`` (subsets drawn), ``has_condorcet_winner``,
    ``n_copeland_winners``, ``index_<j>`` (parent index of arm ``j``), ``copeland_<j>`` (arm
    ``j`` is a Copeland winner), then ``K``, ``lb``, ``ecwb`` and every CCB variant
    (:func:`duelbench.bounds.ccb.bound_constants_row`, exact floats)."""
    from duelbench.bounds.ccb import bound_constants_row
    from duelbench.data.registry import load_matrix
    from duelbench.problems.winners import condorcet_winner

    parent = load_matrix(job["parent"])
    K = int(job["K"])
    rows = []
    for i in range(int(a), int(b)):
        smp = draw_sample(parent, job, i)
        row = bound_constants_row(smp.matrix, name=str(i))
        row.pop("matrix")
        winners = {int(w) for w in row.pop("copeland_winners").split(";")}
        rows.append({"tries": int(smp.tries), "has_condorcet_winner": condorcet_winner(smp.matrix) is not None,
                     "n_copeland_winners": len(winners), **{f"index_{j}": int(x) for j, x in enumerate(smp.indices)},
                     **{f"copeland_{j}": j in winners for j in range(K)}, **row})
    return {name: np.array([r[name] for r in rows]) for name in rows[0]}

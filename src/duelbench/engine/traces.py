"""Inspection of single runs beyond regret: SCB's exploration phases (for tests and docs)."""

from __future__ import annotations

import numpy as np

from duelbench.algorithms import scb
from duelbench.algorithms.registry import canonical_params, params_array

from .seeding import run_rng
from .simulate import permuted_instance, regret_stack, resolve_matrix


def scb_exploration_trace(matrix, horizon: int, seed: int = 0, run_index: int = 0,
                          permute: bool = True) -> list[dict]:
    """Per-phase exploration summary of one SCB run, on the engine's arm labels and random stream.

    Uses the same permutation and generator as :func:`duelbench.simulate` for run ``run_index``;
    ``arm`` is reported in the original labels.  Returns one dict per phase reached (fields
    :data:`duelbench.algorithms.scb.TRACE_FIELDS`, plus ``T`` the phase length).
    """
    P = resolve_matrix(matrix)
    canon = canonical_params("scb", {})
    perm, Pp, Rp = permuted_instance(P, regret_stack(P), seed, run_index, permute)
    rng = run_rng(seed, P.identity, "scb", canon, run_index)
    trace = np.zeros((8, 7), dtype=np.int64)
    scb.run_traced(Pp, Rp, np.array([int(horizon)], dtype=np.int64), params_array("scb", canon), rng, trace)
    rows = []
    for row in trace:
        if row[0] == 0:
            break
        d = dict(zip(scb.TRACE_FIELDS, (int(x) for x in row)))
        d["T"] = int(scb.phase_length(d["r"]))
        d["arm"] = int(perm[d["arm"]]) if d["arm"] >= 0 else -1
        rows.append(d)
    return rows

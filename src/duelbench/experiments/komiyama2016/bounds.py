"""Bound constants of Komiyama et al. (2016) for every matrix used: ``bound_constants.csv``
(LB, Theorem 2; ECWB, Theorem 4; every CCB variant), ``bound_winners.csv`` (per Copeland winner,
with the right-hand side of eq. (11), L267) and ``datasets.csv`` (recipes, winners, the
Condorcet status the paper states)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from duelbench.bounds.ccb import bound_constants_row, ccb_variant_names
from duelbench.bounds.ecw import ecw_constants
from duelbench.bounds.lower_bound import lower_bound
from duelbench.data import registry as data_registry
from duelbench.data import sampled
from duelbench.data.registry import load_matrix
from duelbench.problems.winners import condorcet_winner, copeland_winners, losses
from duelbench.stats.kl import kl_to_half

from ..contract import StepContext
from ..tables import write_rows
from .config import bound_datasets, recipes_path
from .tables import display

#: Condorcet status the paper states for its printed matrices: name -> (has a CW, where).
STATED_CONDORCET = {
    "sushi": (True, "L303"),
    "gap": (False, "L303"),
    "multisol": (False, "L303"),
    "cyclic": (True, "L137 (Table 2 caption)"),
    "arxiv": (True, "L451 ('an order among arms exists')"),
    "mslr5_condorcet_printed": (True, "L431, L455"),
    "mslr5_noncondorcet_printed": (False, "L439, L455"),
}

WINNER_COLUMNS = ["matrix", "winner", "n_winners", "lb_i1", "ecwb_i1", "eq11_rhs"]
DATASET_COLUMNS = ["dataset", "kind", "K", "parent", "min_gap", "condorcet_filter", "seed", "parent_indices",
                   "tries", "has_condorcet_winner", "condorcet_winner", "n_copeland_winners", "copeland_winners",
                   "stated_condorcet", "stated_source", "used_in"]


def bound_columns() -> list[str]:
    """Columns of ``bound_constants.csv``."""
    return ["matrix", "K", "copeland_winners", "lb", "ecwb", *ccb_variant_names()]


def eq11_rhs(P, i1: int) -> float:
    """Right-hand side of eq. (11) (L267) for the Copeland winner ``i1``:
    ``(1 / d(1/2 + Delta)) sum_{i2 != i1} (1 + L_i2 / (L_i2 - L_1 + 1))``, ``Delta`` the global
    minimum gap (L255); ``inf`` when ``Delta = 0``."""
    a = np.asarray(getattr(P, "values", P), dtype=float)
    K = a.shape[0]
    off = ~np.eye(K, dtype=bool)
    delta = float(np.abs(a - 0.5)[off].min())
    d = kl_to_half(0.5 + delta)
    if d <= 0:
        return math.inf
    L = np.asarray(losses(a), dtype=float)
    L1 = L.min()
    total = sum(1.0 + L[i2] / (L[i2] - L1 + 1.0) for i2 in range(K) if i2 != i1)
    return float(total / d)


def bound_rows(name: str) -> tuple[dict, list[dict]]:
    """The ``bound_constants.csv`` row and the ``bound_winners.csv`` rows of dataset ``name``."""
    P = load_matrix(name)
    row = bound_constants_row(P, name=name)
    lb = lower_bound(P)
    ecw = ecw_constants(P)
    winners = sorted(lb.per_winner)
    if sorted(ecw) != winners:
        raise RuntimeError(f"{name}: Copeland winners differ between the LB ({winners}) and ECW ({sorted(ecw)}) "
                           "computations")
    wrows = [{"matrix": name, "winner": i1, "n_winners": len(winners), "lb_i1": float(lb.per_winner[i1]),
              "ecwb_i1": float(ecw[i1]), "eq11_rhs": eq11_rhs(P, i1)} for i1 in winners]
    return row, wrows


def dataset_row(name: str, used_in: Sequence[str]) -> dict:
    """The ``datasets.csv`` row of ``name``."""
    info = data_registry.dataset_info(name)
    P = data_registry.load_matrix(name)
    cw = condorcet_winner(P)
    cop = copeland_winners(P, by="losses")
    row = {"dataset": name, "kind": info.kind, "K": P.K, "has_condorcet_winner": cw is not None,
           "condorcet_winner": "" if cw is None else int(cw), "n_copeland_winners": len(cop),
           "copeland_winners": ";".join(str(i) for i in cop), "used_in": ";".join(used_in)}
    if info.kind == "sampled":
        r = sampled.recipes()[name]
        row.update(parent=r.parent, min_gap=r.min_gap, seed=r.seed,
                   condorcet_filter="" if r.condorcet is None else r.condorcet,
                   parent_indices=";".join(str(i) for i in sampled.sampled_indices(name)),
                   tries=sampled.sampled_tries(name))
        if r.condorcet is not None:
            row.update(stated_condorcet=r.condorcet, stated_source=f"recipe selection (L295); {r.origin}")
    if name in STATED_CONDORCET:
        row.update(stated_condorcet=STATED_CONDORCET[name][0], stated_source=STATED_CONDORCET[name][1])
    return row


def used_in(s: Mapping, name: str) -> list[str]:
    """Which lists of the settings name the dataset (``bounds``, ``figure1``, ``figure2``, ``robustness``)."""
    lists = (("bounds", s["bounds"]["matrices"]), ("figure1", s["figure1"]), ("figure2", s["figure2"]),
             ("robustness", s["robustness"]["datasets"]))
    return [key for key, names in lists if name in names]


def write_bounds(ctx: StepContext) -> dict:
    """Step ``bounds``: ``bound_constants.csv``, ``bound_winners.csv`` and ``datasets.csv``."""
    s, out = ctx.settings, ctx.output
    names = bound_datasets(s)
    rows, wrows, drows = [], [], []
    for name in names:
        row, w = bound_rows(name)
        rows.append(row)
        wrows.extend(w)
        drows.append(dataset_row(name, used_in(s, name)))
        print(f"{name}: K = {row['K']}, winners {row['copeland_winners']}, LB = {row['lb']!r}, "
              f"ECWB = {row['ecwb']!r}", flush=True)
    write_rows(out.bounds, bound_columns(), rows)
    write_rows(out.winners, WINNER_COLUMNS, wrows)
    write_rows(out.datasets, DATASET_COLUMNS, drows)
    return {"rows": len(names), "sampled_recipes": display(recipes_path())}

"""Komiyama, Honda & Nakagawa (ICML 2016): Table 1, Figures 1-2, bound constants and checks.

Paper: "Copeland Dueling Bandit Problem: Regret Lower Bound, Optimal Algorithm, and
Computationally Efficient Algorithm", text ``shared/papers/000_f9a3afa5eda552a1.txt`` (line
numbers ``Lnnn``).  Readings of the paper's open choices are R1-R8 of
``data/published/komiyama2016.yaml`` and are declared in ``config/config.yaml`` (section
``komiyama2016``); this module only carries them out.

What is built (outputs under :func:`duelbench.experiments.figures_dir` ``(config,
"komiyama2016")``; every output has a ``.json`` provenance sidecar)
----------------------------------------------------------------------------------------
``bound_constants.csv``
    One row per matrix (``bounds.matrices``, then the Figure 1-2 panels, then the robustness
    datasets): ``matrix, K, copeland_winners, lb, ecwb`` and one column per CCB variant
    (:func:`duelbench.bounds.ccb.bound_constants_row`), floats at full precision (``repr``).
``bound_winners.csv``
    Per matrix and Copeland winner ``i1`` (0-based, fewest strict losses, L69): ``C*_i1``
    (Theorem 2), ``C^{E*}_i1`` (Theorem 4) and the right-hand side of eq. (11) (L267) for that
    ``i1``.
``datasets.csv``
    Every dataset used: sampling recipe (parent, K, min_gap, Condorcet filter, seed), parent
    indices and number of tries of the rejection sampler for the sampled ones; whether the
    matrix has a Condorcet winner, its Copeland winners, and the status the paper states.
``table1.csv``, ``table1.md``
    Table 1 (L56-L59): ``table1.samples`` random ``K``-subsets of ``table1.parent`` drawn
    uniformly and rejected while any ``|p_ij - 1/2| < min_gap`` (reading R3).  Sample ``i`` is
    drawn from ``Generator(PCG64(SeedSequence(table1.seed, spawn_key=(i,))))`` so the samples do
    not depend on ``samples_per_shard``.  Rows (``quantity``): ``lb``, ``ecwb``, every CCB
    variant, ``<x>_over_lb`` for ``x`` = ``ecwb`` and every CCB variant (mean = ratio of the
    means with a delta-method s.e.; median = median of the per-sample ratios),
    ``condorcet_share``, ``acceptance_rate`` (accepted / tries), ``n_copeland_winners`` and
    ``tries``; columns ``n, mean, se, median, published, check_id`` (published values are read
    from the registry and only shown beside the reproduced ones).
``regret.csv``, ``final_regret.csv``, ``figure1.*``, ``figure2.*``
    Mean cumulative Copeland regret (``r_ij = (L_i + L_j - 2 L_1) / (2 (K - 1))``, L71) with
    its standard error per panel, curve and checkpoint; per-run regret at the horizon for
    every panel and robustness run; semilog figures with ``LB ln t`` and ``ECWB ln t``.
``robustness.csv``, ``robustness.md``, ``robustness.*``
    The ordering claims of the registry re-tested on the robustness datasets (reading R2).
``checks.csv``
    Every check of ``data/published/komiyama2016.yaml`` evaluated at the active fidelity
    (:mod:`duelbench.report.checks`).

Statistics (the ``statistic`` names of the registry; computed in
:mod:`duelbench.experiments.komiyama2016_checks`)
----------------------------------------------------------------------------------------
A statistic the active fidelity does not produce (e.g. a panel the smoke fidelity leaves out)
is reported ``inconclusive`` with the reason.  "Final regret" of a run is its cumulative
Copeland regret at the horizon T of the figures; "panel" means a Figure-1 or Figure-2 dataset
of the active fidelity; algorithm names are registry names and denote the entry of
``algorithms`` (never a variant).

``table1:<q>:mean``
    Mean of column ``<q>`` (``lb``, ``ecwb`` or a CCB variant) over the Table-1 samples, with
    its standard error (sample s.d. / sqrt(n)); ``table1:<q>:median`` the median.
``table1:<x>_over_lb``
    Ratio of the means ``mean(x) / mean(lb)`` (delta-method standard error).
``table1:condorcet_share``, ``table1:acceptance_rate``
    Share of samples with a Condorcet winner; accepted samples / subsets drawn.
``bounds:<dataset>:ecwb_over_lb``
    ``min_i1 C^{E*}_i1 / min_i1 C*_i1`` of the matrix (``bound_constants.csv``);
    ``bounds:<dataset>:<column>`` any other column of that row.
``bounds:<dataset>:three_winners_equal_lb``
    True iff the matrix has exactly three Copeland winners and their ``C*_i1`` agree to a
    relative ``1e-7``.
``datasets:condorcet_status_as_stated``
    True iff every Figure-1 panel has a Condorcet winner exactly when the paper says so (L303:
    "MSLR (Condorcet) and Sushi each have a Condorcet winner, whereas the others do not"; for
    a sampled MSLR panel the stated status is its recipe's Condorcet selection, L295).
``theory:ecwb_ge_lb_all_panels``
    ``C^{E*}_i1 >= C*_i1 (1 - 1e-7)`` for every Copeland winner of every panel (Theorem 6, L240).
``theory:ecwb_eq_lb_when_multiple_winners``
    ``|C^{E*}_i1 - C*_i1| <= 1e-7 max(1, C*_i1)`` for every winner of every tabulated matrix
    with ``C >= 2`` (L244); inconclusive if no tabulated matrix has two winners.
``theory:lb_le_ecwb_all_panels``
    ``LB <= ECWB (1 + 1e-7)`` on every panel (L249).
``theory:eq11_holds_printed``
    For every matrix of ``bounds.matrices`` and every Copeland winner ``i1``: ``C^{E*}_i1 <=
    (1 / d(1/2 + Delta)) sum_{i2 != i1} (1 + L_i2 / (L_i2 - L_1 + 1))`` with ``Delta`` the
    global minimum gap (L255) and ``d`` the KL divergence to 1/2 (the derivation at L259-L267
    bounds each ``C^{E*}_i1``, so the minimum over ``i1`` follows); a tie gives ``Delta = 0``
    and an infinite right-hand side.
``order:<dataset>:<A>:<B>``
    Samples ``a`` = per-run final regret of ``A`` and ``b`` = of ``B`` on the panel
    ``<dataset>``; the registry's one-sided Welch test decides.  ``B = best_other``: the
    algorithm of ``algorithms`` other than ECW-RMED (and other than ``A``) with the lowest mean
    final regret on that panel.
``beta0:max_rel_diff``
    ``max over Figure-1 panels of |m_0 - m| / m`` with ``m`` the mean final regret of ECW-RMED
    and ``m_0`` that of the variant ``ecw_rmed`` with ``beta = 0``.
``slope:fraction_within_factor2``
    For each Figure-1 panel, the least-squares slope of ECW-RMED's mean regret against
    ``ln t`` over the checkpoints ``t in [T/10, T]`` divided by ECWB; the statistic is the
    fraction of panels where that ratio lies in ``[1/2, 2]``.

Decisions
---------
* Curves: every entry of ``algorithms`` plus the labelled ``variants`` on every panel; the
  robustness datasets run ``algorithms`` only (``robustness.runs`` runs of
  ``robustness.horizon`` steps).  Copeland SAVAGE needs T and runs once per point of its
  horizon grid (R8, :func:`duelbench.engine.simulate`).
* A robustness dataset re-tests the ordering claims of every registry dataset drawn with the
  same recipe filters (parent, K, min_gap, Condorcet selection).
* Figures: x logarithmic, y linear from 0 to 1.2 times the largest final mean regret (+ s.e.)
  of the curves other than Random: Random grows linearly and would flatten every other curve,
  and ``ECWB ln t`` can exceed the regret by orders of magnitude (Gap); such lines leave the
  frame (their values are in ``regret.csv`` and ``bound_constants.csv``).
"""

from __future__ import annotations

import copy
import csv
import json
import math
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from . import (
    ConfigError,
    ShardSpec,
    active_fidelity,
    algorithm_entries,
    check_datasets,
    experiment_settings,
    figures_dir,
    group_shards,
    log_to,
    plan_shards,
    results_root,
)

NAME = "komiyama2016"
#: Registry name of the paper's algorithm (statistics refer to it).
ECW = "ecw_rmed"
#: Drawn but left out of the y range of the figures (see Decisions).
RANDOM = "random"
#: Regret kinds the experiment reads (and the results archive keeps for its shards).
KINDS = ("copeland",)
#: Relative tolerance of the LP-based identities (HiGHS feasibility tolerance is 1e-9).
REL_TOL = 1e-7
#: "Close to ECWB" in ``slope:fraction_within_factor2``.
SLOPE_FACTOR = 2.0

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

#: Package files whose code determines the bound constants and the Table-1 samples.


# --------------------------------------------------------------------------------------------
# settings
# --------------------------------------------------------------------------------------------
def settings(config: Mapping, fidelity: str | None = None) -> dict:
    """The effective ``komiyama2016`` settings (fidelity overrides applied, defaults filled in,
    checked with :func:`check_settings`), plus ``fidelity``, ``figures`` and ``results``."""
    fid = active_fidelity(config, fidelity)
    s = copy.deepcopy(dict(experiment_settings(config, NAME, fid)))
    s.setdefault("variants", [])
    s["table1"] = {"condorcet": None, **dict(s.get("table1") or {})}
    s["fidelity"] = fid
    s["figures"] = figures_dir(config, NAME, fid)
    s["results"] = results_root(config)
    check_settings(s)
    return s


def check_settings(s: Mapping) -> None:
    """Checks beyond the JSON schema; :class:`ConfigError` names the offending key."""
    from duelbench.bounds.ccb import ccb_variant_names
    from duelbench.data import registry as data_registry

    for key in ("algorithms", "figure1", "figure2", "robustness", "table1", "bounds", "horizon", "runs",
                "runs_per_shard", "seed"):
        if key not in s:
            raise ConfigError(f"{NAME}.{key}: missing (see workflow/schemas/komiyama2016.schema.yaml)")
    curves(s)  # algorithm names, parameters, duplicates
    check_datasets(s["figure1"], where=f"{NAME}.figure1")
    check_datasets(s["figure2"], where=f"{NAME}.figure2")
    check_datasets(s["robustness"]["datasets"], where=f"{NAME}.robustness.datasets")
    check_datasets(s["bounds"]["matrices"], where=f"{NAME}.bounds.matrices")
    t1 = s["table1"]
    try:
        parent = data_registry.dataset_info(t1["parent"])
    except LookupError as exc:
        raise ConfigError(f"{NAME}.table1.parent: {exc}") from None
    if not 2 <= int(t1["K"]) <= parent.K:
        raise ConfigError(f"{NAME}.table1.K: must be between 2 and {parent.K} (the arms of {t1['parent']}), "
                          f"got {t1['K']}")
    if int(t1["samples"]) < 2 or int(t1["samples_per_shard"]) < 1:
        raise ConfigError(f"{NAME}.table1: samples must be >= 2 and samples_per_shard >= 1")
    if t1.get("min_gap") is not None and not 0 <= float(t1["min_gap"]) < 0.5:
        raise ConfigError(f"{NAME}.table1.min_gap: must be in [0, 0.5) or null, got {t1['min_gap']!r}")
    if t1.get("condorcet") not in (None, True, False):
        raise ConfigError(f"{NAME}.table1.condorcet: must be true, false or null, got {t1['condorcet']!r}")
    main = s["bounds"]["ccb_main_variant"]
    if main not in ccb_variant_names():
        raise ConfigError(f"{NAME}.bounds.ccb_main_variant: unknown variant {main!r}; "
                          f"variants: {', '.join(ccb_variant_names())}")
    for key in ("horizon", "runs"):
        if int(s["robustness"][key]) < 1:
            raise ConfigError(f"{NAME}.robustness.{key}: must be >= 1")


@dataclass(frozen=True)
class Curve:
    """One simulated configuration: a registry algorithm with canonical parameters."""

    name: str
    params: dict = field(hash=False, compare=False)
    param_hash: str = ""
    label: str = ""
    variant: bool = False


def curves(s: Mapping, *, variants: bool = True) -> list[Curve]:
    """The entries of ``algorithms`` (then, if ``variants``, the labelled ``variants``)."""
    from .plotting import algorithm_label

    main = algorithm_entries(s["algorithms"], where=f"{NAME}.algorithms")
    names = [e.name for e in main]
    for n in set(names):
        if names.count(n) > 1:
            raise ConfigError(f"{NAME}.algorithms: {n!r} is listed twice; put parameter variants under "
                              f"{NAME}.variants (statistics name the algorithms by registry name)")
    out = [Curve(e.name, e.params, e.param_hash, e.label or algorithm_label(e.name), False) for e in main]
    if variants:
        var = algorithm_entries(s.get("variants") or [], where=f"{NAME}.variants")
        seen = {(c.name, c.param_hash) for c in out}
        for i, e in enumerate(var):
            if (e.name, e.param_hash) in seen:
                raise ConfigError(f"{NAME}.variants[{i}]: {e.name!r} with these parameters is already in "
                                  f"{NAME}.algorithms")
            out.append(Curve(e.name, e.params, e.param_hash, e.label, True))
    return out


def _unique(items) -> list:
    out = []
    for x in items:
        if x not in out:
            out.append(x)
    return out


def panels(s: Mapping) -> list[str]:
    """The Figure-1 then Figure-2 datasets (each once)."""
    return _unique(list(s["figure1"]) + list(s["figure2"]))


def bound_datasets(s: Mapping) -> list[str]:
    """Rows of ``bound_constants.csv``: ``bounds.matrices``, the panels, the robustness datasets."""
    return _unique(list(s["bounds"]["matrices"]) + panels(s) + list(s["robustness"]["datasets"]))


def registry_path() -> Path:
    """``data/published/komiyama2016.yaml`` of the checkout."""
    from duelbench.data.paths import project_root

    return project_root() / "data" / "published" / f"{NAME}.yaml"


def recipes_path() -> Path:
    """``data/sampled/komiyama2016.yaml`` of the checkout."""
    from duelbench.data.paths import project_root

    return project_root() / "data" / "sampled" / f"{NAME}.yaml"


def code_hash() -> str:
    """Hash of this module's import closure (a rule param: an edit to the code it runs, e.g. the
    bounds or the dataset sampler, reruns the bound tables and Table 1)."""
    from duelbench.provenance.codehash import PROVENANCE, closure_hash

    return closure_hash(__file__, exclude=PROVENANCE)  # __file__: also right when run as __main__


# --------------------------------------------------------------------------------------------
# simulation shards
# --------------------------------------------------------------------------------------------
def _plan(s: Mapping, dataset: str, c: Curve, horizon: int, runs: int) -> list[ShardSpec]:
    return plan_shards(fidelity=s["fidelity"], dataset=dataset, algorithm=c.name, params=c.params,
                       horizon=int(horizon), runs=int(runs), runs_per_shard=int(s["runs_per_shard"]),
                       seed=int(s["seed"]), root=s["results"])


def panel_specs(s: Mapping) -> list[ShardSpec]:
    """Shards of the Figure 1-2 panels: every curve (variants included), ``runs`` x ``horizon``."""
    return [sp for d in panels(s) for c in curves(s) for sp in _plan(s, d, c, s["horizon"], s["runs"])]


def robustness_specs(s: Mapping) -> list[ShardSpec]:
    """Shards of the robustness datasets: ``algorithms`` only, ``robustness.runs`` x ``robustness.horizon``."""
    r = s["robustness"]
    return [sp for d in r["datasets"] for c in curves(s, variants=False)
            for sp in _plan(s, d, c, r["horizon"], r["runs"])]


def shard_specs(config: Mapping, fidelity: str | None = None) -> list[ShardSpec]:
    """Every simulation shard of the experiment (each path once)."""
    s = settings(config, fidelity)
    out, seen = [], set()
    for sp in panel_specs(s) + robustness_specs(s):
        if sp.path not in seen:
            seen.add(sp.path)
            out.append(sp)
    return out


# --------------------------------------------------------------------------------------------
# outputs
# --------------------------------------------------------------------------------------------
OUTPUT_FILES = {
    "bounds": "bound_constants.csv", "winners": "bound_winners.csv", "datasets": "datasets.csv",
    "table1_csv": "table1.csv", "table1_md": "table1.md",
    "regret": "regret.csv", "final": "final_regret.csv",
    "figure1_pdf": "figure1.pdf", "figure1_png": "figure1.png",
    "figure2_pdf": "figure2.pdf", "figure2_png": "figure2.png",
    "robustness_csv": "robustness.csv", "robustness_md": "robustness.md",
    "robustness_pdf": "robustness.pdf", "robustness_png": "robustness.png",
    "checks": "checks.csv",
}


def outputs(config: Mapping, fidelity: str | None = None) -> dict[str, str]:
    """Final outputs by key (:data:`OUTPUT_FILES`); sidecars are ``<path>.json``."""
    d = figures_dir(config, NAME, active_fidelity(config, fidelity))
    return {k: f"{d}/{v}" for k, v in OUTPUT_FILES.items()}


# --------------------------------------------------------------------------------------------
# small I/O helpers
# --------------------------------------------------------------------------------------------
def _cell(v) -> str:
    """CSV text of a value: floats at full precision (repr), bools as true/false."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    try:
        import numpy as np

        if isinstance(v, np.bool_):
            return "true" if bool(v) else "false"
        if isinstance(v, np.integer):
            return str(int(v))
        if isinstance(v, np.floating):
            return repr(float(v))
    except ImportError:  # pragma: no cover
        pass
    return str(v)


def write_rows(path: str, columns: Sequence[str], rows: Sequence[Mapping]) -> None:
    """Write ``rows`` as CSV atomically, every float at full precision."""
    from duelbench.provenance.sidecar import atomic_write_text
    import io

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for r in rows:
        w.writerow([_cell(r.get(c)) for c in columns])
    atomic_write_text(path, buf.getvalue())


def read_rows(path: str) -> list[dict]:
    """Rows of a CSV as dicts of strings."""
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def to_float(x: str) -> float:
    """Parse a CSV cell written by :func:`write_rows` (empty -> NaN)."""
    return float(x) if x not in ("", None) else math.nan


def _display(p) -> str:
    from duelbench.data.paths import display_path

    return display_path(p)


# --------------------------------------------------------------------------------------------
# bound constants and datasets
# --------------------------------------------------------------------------------------------
def bound_columns() -> list[str]:
    """Columns of ``bound_constants.csv``."""
    from duelbench.bounds.ccb import ccb_variant_names

    return ["matrix", "K", "copeland_winners", "lb", "ecwb", *ccb_variant_names()]


WINNER_COLUMNS = ["matrix", "winner", "n_winners", "lb_i1", "ecwb_i1", "eq11_rhs"]
DATASET_COLUMNS = ["dataset", "kind", "K", "parent", "min_gap", "condorcet_filter", "seed", "parent_indices",
                   "tries", "has_condorcet_winner", "condorcet_winner", "n_copeland_winners", "copeland_winners",
                   "stated_condorcet", "stated_source", "used_in"]


def eq11_rhs(P, i1: int) -> float:
    """Right-hand side of eq. (11) (L267) for the Copeland winner ``i1``:
    ``(1 / d(1/2 + Delta)) sum_{i2 != i1} (1 + L_i2 / (L_i2 - L_1 + 1))``, ``Delta`` the global
    minimum gap (L255); ``inf`` when ``Delta = 0``."""
    import numpy as np

    from duelbench.problems.winners import losses
    from duelbench.stats.kl import kl_to_half

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
    from duelbench.bounds.ccb import bound_constants_row
    from duelbench.bounds.ecw import ecw_constants
    from duelbench.bounds.lower_bound import lower_bound
    from duelbench.data.registry import load_matrix

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
    from duelbench.data import registry as data_registry
    from duelbench.data import sampled
    from duelbench.problems.winners import condorcet_winner, copeland_winners

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


def _used_in(s: Mapping, name: str) -> list[str]:
    out = []
    for key, names in (("bounds", s["bounds"]["matrices"]), ("figure1", s["figure1"]), ("figure2", s["figure2"]),
                       ("robustness", s["robustness"]["datasets"])):
        if name in names:
            out.append(key)
    return out


def bounds_settings(s: Mapping) -> dict:
    """The settings the bound tables depend on."""
    return {"fidelity": s["fidelity"], "datasets": bound_datasets(s), "bounds": s["bounds"],
            "figure1": s["figure1"], "figure2": s["figure2"], "robustness_datasets": s["robustness"]["datasets"]}


def bounds_tables(config: Mapping, out_bounds: str, out_winners: str, out_datasets: str,
                  fidelity: str | None = None, log: str | None = None) -> None:
    """Write ``bound_constants.csv``, ``bound_winners.csv`` and ``datasets.csv`` (+ sidecars)."""
    from duelbench.data import registry as data_registry
    from duelbench.provenance.sidecar import Timer, write_sidecar

    s = settings(config, fidelity)
    names = bound_datasets(s)
    with log_to(log), Timer() as t:
        rows, wrows, drows = [], [], []
        for name in names:
            row, w = bound_rows(name)
            rows.append(row)
            wrows.extend(w)
            drows.append(dataset_row(name, _used_in(s, name)))
            print(f"{name}: K = {row['K']}, winners {row['copeland_winners']}, LB = {row['lb']!r}, "
                  f"ECWB = {row['ecwb']!r}", flush=True)
        write_rows(out_bounds, bound_columns(), rows)
        write_rows(out_winners, WINNER_COLUMNS, wrows)
        write_rows(out_datasets, DATASET_COLUMNS, drows)
    inputs = sorted({_display(p) for n in names for p in data_registry.required_files(n)} | {_display(recipes_path())})
    for path in (out_bounds, out_winners, out_datasets):
        write_sidecar(path, inputs=inputs, config=bounds_settings(s), seeds={"sampled_recipes": _display(recipes_path())},
                      extra={"experiment": NAME, "rows": len(names), "code_hash": code_hash()}, **t.as_kwargs())


# --------------------------------------------------------------------------------------------
# Table 1
# --------------------------------------------------------------------------------------------
def table1_key(t1: Mapping) -> str:
    """Folder name of a Table-1 recipe: everything a sample depends on."""
    gap = "none" if t1.get("min_gap") is None else repr(float(t1["min_gap"]))
    cw = {None: "any", True: "yes", False: "no"}[t1.get("condorcet")]
    return f"{t1['parent']}-K{int(t1['K'])}-gap{gap}-cw{cw}-seed{int(t1['seed'])}"


def table1_shards(s: Mapping) -> list[dict]:
    """Table-1 shards: ``{"path", "job"}`` with ``job`` the canonical JSON of the shard."""
    t1 = s["table1"]
    n, per = int(t1["samples"]), int(t1["samples_per_shard"])
    root = f"{s['results']}/{s['fidelity']}/{NAME}/table1/{table1_key(t1)}"
    out = []
    for a in range(0, n, per):
        b = min(a + per, n)
        job = {"parent": t1["parent"], "K": int(t1["K"]),
               "min_gap": None if t1.get("min_gap") is None else float(t1["min_gap"]),
               "condorcet": t1.get("condorcet"), "seed": int(t1["seed"]), "start": a, "stop": b}
        out.append({"path": os.path.normpath(f"{root}/samples-{a}-{b}.csv"),
                    "job": json.dumps(job, sort_keys=True, separators=(",", ":"))})
    return out


def sample_rng(seed: int, i: int):
    """The generator of Table-1 sample ``i``: a function of ``(seed, i)`` only."""
    import numpy as np

    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy=int(seed), spawn_key=(int(i),))))


def draw_sample(parent, job: Mapping, i: int):
    """Sample ``i`` of the recipe ``job``: a :class:`~duelbench.problems.generators.SubmatrixSample`."""
    from duelbench.problems.generators import random_submatrix

    return random_submatrix(parent, int(job["K"]), sample_rng(job["seed"], i), min_gap=job.get("min_gap"),
                            condorcet=job.get("condorcet"), name=f"{job['parent']}[sample {i}]")


def sample_columns() -> list[str]:
    """Columns of a Table-1 shard."""
    return ["sample", "tries", "parent_indices", "has_condorcet_winner", "n_copeland_winners"] + bound_columns()[1:]


def table1_sample_rows(job: Mapping) -> list[dict]:
    """Rows of samples ``job["start"] … job["stop"] - 1`` (bounds of each sample)."""
    from duelbench.bounds.ccb import bound_constants_row
    from duelbench.data.registry import load_matrix
    from duelbench.problems.winners import condorcet_winner

    parent = load_matrix(job["parent"])
    rows = []
    for i in range(int(job["start"]), int(job["stop"])):
        smp = draw_sample(parent, job, i)
        row = bound_constants_row(smp.matrix, name=str(i))
        row.pop("matrix")
        rows.append({"sample": i, "tries": int(smp.tries), "parent_indices": ";".join(map(str, smp.indices)),
                     "has_condorcet_winner": condorcet_winner(smp.matrix) is not None,
                     "n_copeland_winners": len(row["copeland_winners"].split(";")), **row})
    return rows


def run_table1_shard(out_path: str, job_json: str, log: str | None = None) -> None:
    """Compute one Table-1 shard (``job_json`` from :func:`table1_shards`) and write it + sidecar."""
    from duelbench.data import registry as data_registry
    from duelbench.provenance.sidecar import Timer, write_sidecar

    job = json.loads(job_json)
    with log_to(log), Timer() as t:
        print(f"table 1 shard {out_path}: {job_json}", flush=True)
        rows = table1_sample_rows(job)
        write_rows(out_path, sample_columns(), rows)
        print(f"{len(rows)} samples, {sum(r['tries'] for r in rows)} tries", flush=True)
    write_sidecar(out_path, inputs=[_display(p) for p in data_registry.required_files(job["parent"])], config=job,
                  seeds={"seed": job["seed"], "samples": [job["start"], job["stop"]],
                         "stream": "SeedSequence(entropy=seed, spawn_key=(sample,))"},
                  extra={"experiment": NAME, "code_hash": code_hash()},
                  run_info={"samples_per_second": len(rows) / t.wall if t.wall > 0 else None}, **t.as_kwargs())


def load_table1_samples(paths: Sequence[str], samples: int | None = None):
    """Concatenate Table-1 shards (a pandas DataFrame in sample order); checks the sample range."""
    import numpy as np
    import pandas as pd

    frames = []
    for p in paths:
        rows = read_rows(p)
        frames.append(pd.DataFrame(rows))
    df = pd.concat(frames, ignore_index=True)
    df["sample"] = df["sample"].astype(int)
    df = df.sort_values("sample", kind="stable").reset_index(drop=True)
    n = len(df) if samples is None else int(samples)
    if not np.array_equal(df["sample"].to_numpy(), np.arange(n)):
        raise ValueError(f"Table-1 shards hold samples {df['sample'].min()}…{df['sample'].max()} "
                         f"({len(df)} rows), expected 0…{n - 1}")
    for c in bound_columns()[3:]:
        df[c] = df[c].map(to_float)
    df["tries"] = df["tries"].astype(int)
    df["n_copeland_winners"] = df["n_copeland_winners"].astype(int)
    df["has_condorcet_winner"] = df["has_condorcet_winner"].map({"true": True, "false": False})
    return df


TABLE1_COLUMNS = ["quantity", "label", "n", "mean", "se", "median", "published", "check_id"]


def _mean_se(x):
    import numpy as np

    x = np.asarray(x, dtype=float)
    n = x.size
    mean = float(x.mean())
    se = float(x.std(ddof=1) / math.sqrt(n)) if n > 1 and np.all(np.isfinite(x)) else math.nan
    return mean, se


def _ratio_se(x, y) -> tuple[float, float]:
    """``mean(x) / mean(y)`` and its delta-method standard error."""
    import numpy as np

    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    n = x.size
    mx, my = float(x.mean()), float(y.mean())
    r = mx / my if my else math.inf
    if n < 2 or not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))) or not my:
        return r, math.nan
    cov = np.cov(x, y, ddof=1) / n
    var = r * r * (cov[0, 0] / mx**2 + cov[1, 1] / my**2 - 2 * cov[0, 1] / (mx * my)) if mx else cov[0, 0] / my**2
    return r, float(math.sqrt(max(var, 0.0)))


def table1_summary(df, main_variant: str) -> list[dict]:
    """The rows of ``table1.csv`` (without the published columns) from the sample table."""
    import numpy as np

    from duelbench.bounds.ccb import ccb_variant_names

    n = len(df)
    rows = []

    def add(q, label, mean, se, median):
        rows.append({"quantity": q, "label": label, "n": n, "mean": float(mean), "se": float(se),
                     "median": float(median)})

    labels = {"lb": "LB = min C*_i1 (Theorem 2; 'Optimal: CW-RMED')", "ecwb": "ECWB = min C^E*_i1 (Theorem 4)"}
    for v in ccb_variant_names():
        labels[v] = f"CCB bound, variant {v}" + (" (main reading R4)" if v == main_variant else "")
    for q in ["lb", "ecwb", *ccb_variant_names()]:
        m, se = _mean_se(df[q])
        add(q, labels[q], m, se, float(np.median(df[q])))
    lb = df["lb"].to_numpy(float)
    for q in ["ecwb", *ccb_variant_names()]:
        r, se = _ratio_se(df[q], lb)
        with np.errstate(divide="ignore", invalid="ignore"):
            med = float(np.median(df[q].to_numpy(float) / lb))
        add(f"{q}_over_lb", f"mean {q} / mean lb", r, se, med)
    cw = df["has_condorcet_winner"].to_numpy(bool).astype(float)
    p = float(cw.mean())
    add("condorcet_share", "share of samples with a Condorcet winner", p, math.sqrt(p * (1 - p) / n), math.nan)
    tries = df["tries"].to_numpy(float)
    acc = n / float(tries.sum())
    add("acceptance_rate", "accepted samples / subsets drawn", acc, math.sqrt(acc * acc * (1 - acc) / n), math.nan)
    m, se = _mean_se(df["n_copeland_winners"])
    add("n_copeland_winners", "number of Copeland winners", m, se, float(np.median(df["n_copeland_winners"])))
    m, se = _mean_se(tries)
    add("tries", "subsets drawn per accepted sample", m, se, float(np.median(tries)))
    return rows


def published_for(registry: Mapping, prefix: str = "table1:") -> dict[str, tuple]:
    """``{quantity: (published, check id)}`` for the registry checks on Table 1 quantities."""
    out = {}
    for c in registry["checks"]:
        stat = str(c["statistic"])
        if not stat.startswith(prefix) or c.get("published") is None:
            continue
        q = stat[len(prefix):]
        if q.endswith(":mean"):
            q = q[: -len(":mean")]
        elif ":" in q:
            continue
        out[q] = (c["published"], c["id"])
    return out


def table1_settings(s: Mapping) -> dict:
    """The settings Table 1 depends on."""
    return {"fidelity": s["fidelity"], "table1": s["table1"], "ccb_main_variant": s["bounds"]["ccb_main_variant"]}


def _sig(x, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    if isinstance(x, float) and math.isinf(x):
        return "inf" if x > 0 else "-inf"
    x = float(x)
    if x != 0 and (abs(x) >= 1e4 or abs(x) < 1e-2):
        return f"{x:.{digits - 1}e}"
    return f"{x:.{digits}g}"


def table1_markdown(rows: Sequence[Mapping], s: Mapping, samples) -> str:
    """``table1.md``: reproduced vs published, every CCB variant, acceptance rate, Condorcet share."""
    by = {r["quantity"]: r for r in rows}
    t1 = s["table1"]
    main = s["bounds"]["ccb_main_variant"]

    def cell(q):
        r = by[q]
        se = "" if math.isnan(r["se"]) else f" ± {_sig(r['se'], 2)}"
        return f"{_sig(r['mean'])}{se}"

    lines = [
        "# Komiyama, Honda & Nakagawa (2016), Table 1 — reproduced",
        "",
        f"Leading log-constants (coefficients of ln T) averaged over {by['lb']['n']} random {t1['K']}-arm submatrices "
        f"of `{t1['parent']}` (uniform {t1['K']}-subsets, rejected while any |p_ij − 1/2| < {t1['min_gap']}; "
        f"Condorcet selection: {t1.get('condorcet')}; seed {t1['seed']}; fidelity `{s['fidelity']}`).",
        "Mean ± standard error; published values are shown only for comparison (read from "
        "`data/published/komiyama2016.yaml`).",
        "",
        "| column | reproduced mean | median | published |",
        "|---|---|---|---|",
    ]
    for q, label in (("lb", "Optimal: CW-RMED (LB, Theorem 2)"), ("ecwb", "ECW-RMED (ECWB, Theorem 4)"),
                     (main, f"CCB (`{main}`, reading R4)")):
        r = by[q]
        lines.append(f"| {label} | {cell(q)} | {_sig(r['median'])} | {_sig(r.get('published'))} |")
    lines += ["", "| ratio (of the means) | reproduced | median of per-sample ratios | published |", "|---|---|---|---|"]
    for q, label in (("ecwb_over_lb", "ECWB / LB"), (f"{main}_over_lb", "CCB / LB")):
        r = by[q]
        lines.append(f"| {label} | {cell(q)} | {_sig(r['median'])} | {_sig(r.get('published'))} |")
    lines += ["", f"Samples: {by['lb']['n']}; acceptance rate {cell('acceptance_rate')} "
              f"(accepted / subsets drawn, mean {_sig(by['tries']['mean'])} draws per sample); "
              f"share with a Condorcet winner {cell('condorcet_share')}; "
              f"mean number of Copeland winners {cell('n_copeland_winners')}.", ""]
    lines += ["## Every CCB bound variant (labelled; only the main reading is judged)", "",
              "See `duelbench.bounds.ccb` for the formulas; suffix `_halved` = paper 000's regret unit, "
              "`_4alpha` = with the 4α factor of N̂_ij (α = 0.51).", "",
              "| variant | mean | median | mean / mean LB |", "|---|---|---|---|"]
    from duelbench.bounds.ccb import ccb_variant_names

    for v in ccb_variant_names():
        mark = " **(main)**" if v == main else ""
        lines.append(f"| `{v}`{mark} | {cell(v)} | {_sig(by[v]['median'])} | {_sig(by[v + '_over_lb']['mean'])} |")
    lines.append("")
    return "\n".join(lines)


def table1(config: Mapping, shard_paths: Sequence[str], out_csv: str, out_md: str, fidelity: str | None = None,
           log: str | None = None) -> None:
    """Summarise the Table-1 shards into ``table1.csv`` and ``table1.md`` (+ sidecars)."""
    from duelbench.report.checks import load_registry
    from duelbench.provenance.sidecar import Timer, write_sidecar

    s = settings(config, fidelity)
    expected = [sh["path"] for sh in table1_shards(s)]
    if sorted(map(os.path.normpath, shard_paths)) != sorted(expected):
        raise ValueError(f"Table-1 shards {list(shard_paths)[:3]}… do not match this configuration's {expected[:3]}…")
    with log_to(log), Timer() as t:
        df = load_table1_samples(expected, int(s["table1"]["samples"]))
        rows = table1_summary(df, s["bounds"]["ccb_main_variant"])
        pub = published_for(load_registry(registry_path()))
        for r in rows:
            r["published"], r["check_id"] = pub.get(r["quantity"], (None, ""))
        write_rows(out_csv, TABLE1_COLUMNS, rows)
        from duelbench.provenance.sidecar import atomic_write_text

        atomic_write_text(out_md, table1_markdown(rows, s, df))
        print(f"{len(df)} samples -> {out_csv}", flush=True)
    for path in (out_csv, out_md):
        write_sidecar(path, inputs=expected + [_display(registry_path())], config=table1_settings(s),
                      seeds={"seed": int(s["table1"]["seed"]),
                             "stream": "SeedSequence(entropy=seed, spawn_key=(sample,))"},
                      extra={"experiment": NAME, "samples": len(df)}, **t.as_kwargs())


# --------------------------------------------------------------------------------------------
# aggregation of the simulation shards
# --------------------------------------------------------------------------------------------
REGRET_COLUMNS = ["dataset", "algorithm", "label", "param_hash", "variant", "t", "mean", "stderr", "n_runs"]
FINAL_COLUMNS = ["dataset", "study", "algorithm", "label", "param_hash", "variant", "horizon", "run", "final"]


def curve_settings(s: Mapping) -> dict:
    """The settings the regret tables and figures depend on."""
    keys = ("fidelity", "seed", "horizon", "runs", "runs_per_shard", "algorithms", "variants", "figure1", "figure2",
            "robustness")
    return {k: s[k] for k in keys}


def aggregate(config: Mapping, shard_paths: Sequence[str], out_regret: str, out_final: str,
              fidelity: str | None = None, log: str | None = None) -> None:
    """``regret.csv`` (panel curves) and ``final_regret.csv`` (per-run final regret) + sidecars."""
    import numpy as np

    from duelbench.provenance.sidecar import Timer, write_sidecar

    from .aggregate import load_group

    s = settings(config, fidelity)
    pspecs, rspecs = panel_specs(s), robustness_specs(s)
    wanted = {os.path.normpath(p) for p in shard_paths}
    known = {sp.path for sp in pspecs + rspecs}
    if wanted != known:
        extra, missing = sorted(wanted - known), sorted(known - wanted)
        raise ValueError(f"shard list does not match the configuration: unexpected {extra[:3]}, missing {missing[:3]}")
    info = {(c.name, c.param_hash): c for c in curves(s)}
    regret_rows, final_rows = [], []
    with log_to(log), Timer() as t:
        for study, specs in (("panel", pspecs), ("robustness", rspecs)):
            for (dataset, alg, phash, horizon), group in group_shards(specs).items():
                res = load_group(group, KINDS)
                c = info[(alg, phash)]
                fin = res.final("copeland")
                for run, v in zip(res.run_indices.tolist(), fin.tolist()):
                    final_rows.append({"dataset": dataset, "study": study, "algorithm": alg, "label": c.label,
                                       "param_hash": phash, "variant": c.variant, "horizon": int(horizon),
                                       "run": int(run), "final": float(v)})
                if study != "panel":
                    continue
                mean, se = res.mean("copeland"), res.stderr("copeland")
                n = res.runs
                for tt, m, e in zip(res.checkpoints.tolist(), mean.tolist(), se.tolist()):
                    regret_rows.append({"dataset": dataset, "algorithm": alg, "label": c.label, "param_hash": phash,
                                        "variant": c.variant, "t": int(tt), "mean": float(m),
                                        "stderr": float(e) if n > 1 else math.nan, "n_runs": n})
                print(f"{dataset} {c.label}: {n} runs, final mean {float(np.mean(fin)):.6g}", flush=True)
        write_rows(out_regret, REGRET_COLUMNS, regret_rows)
        write_rows(out_final, FINAL_COLUMNS, final_rows)
    for path, specs in ((out_regret, pspecs), (out_final, pspecs + rspecs)):
        write_sidecar(path, inputs=[sp.path for sp in specs], config=curve_settings(s), seeds={"seed": int(s["seed"])},
                      extra={"experiment": NAME, "shards": len(specs)}, **t.as_kwargs())


def read_regret(path: str):
    """``regret.csv`` as a DataFrame (exact floats)."""
    import pandas as pd

    df = pd.read_csv(path, dtype={"param_hash": str, "dataset": str, "algorithm": str, "label": str},
                     float_precision="round_trip", keep_default_na=False, na_values=[""])
    df["variant"] = df["variant"].astype(str).str.lower() == "true"
    return df


def read_final(path: str):
    """``final_regret.csv`` as a DataFrame (exact floats)."""
    return read_regret(path)


# --------------------------------------------------------------------------------------------
# figures
# --------------------------------------------------------------------------------------------
def _bounds_by_name(path: str) -> dict[str, dict]:
    return {r["matrix"]: r for r in read_rows(path)}


def _panel_title(name: str, ds: Mapping | None) -> str:
    if not ds:
        return name
    cw = ds.get("has_condorcet_winner") == "true"
    status = "Condorcet winner" if cw else f"no Condorcet winner, {ds.get('n_copeland_winners')} Copeland winner(s)"
    return f"{name}\n(K = {ds.get('K')}, {status})"


def draw_panels(regret, datasets: Sequence[str], cs: Sequence[Curve], bounds: Mapping, dsinfo: Mapping,
                horizon: int, footer: str):
    """Regret-vs-round semilog panels with ``LB ln t`` and ``ECWB ln t``; returns the figure."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from .plotting import algorithm_style

    n = len(datasets)
    ncols = min(3, n)
    nrows = math.ceil(n / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.4 * ncols, 3.5 * nrows + 0.9), squeeze=False)
    handles = {}
    tt = np.geomspace(1.0, float(horizon), 200)
    for k, d in enumerate(datasets):
        ax = axes[k // ncols][k % ncols]
        sub = regret[regret["dataset"] == d]
        top = 0.0
        for c in cs:
            cur = sub[(sub["algorithm"] == c.name) & (sub["param_hash"] == c.param_hash)].sort_values("t")
            if cur.empty:
                continue
            t = cur["t"].to_numpy(float)
            m = cur["mean"].to_numpy(float)
            se = np.nan_to_num(cur["stderr"].to_numpy(float))
            style = algorithm_style(c.name)
            style["label"] = c.label
            if c.variant:
                style["linestyle"] = "--"
            (line,) = ax.plot(t, m, lw=1.5, **style)
            ax.fill_between(t, m - se, m + se, color=style["color"], alpha=0.2, lw=0)
            handles.setdefault(c.label, line)
            if c.name != RANDOM:
                top = max(top, float(m[-1] + se[-1]))
        b = bounds.get(d)
        if b is not None:
            for key, label, colour, lw in (("ecwb", "ECWB · ln t", "#9a9a9a", 2.4), ("lb", "LB · ln t", "#000000", 1.0)):
                v = to_float(b[key])
                if math.isfinite(v):
                    (line,) = ax.plot(tt, v * np.log(tt), color=colour, lw=lw, ls="-", zorder=1)
                    handles.setdefault(label, line)
        ax.set_xscale("log")
        ax.set_xlim(1, horizon)
        if top > 0:
            ax.set_ylim(0, 1.2 * top)
        ax.set_title(_panel_title(d, dsinfo.get(d)), fontsize=9)
        ax.set_xlabel("round t")
        ax.set_ylabel("regret R(t)")
        ax.grid(True, which="major", alpha=0.3)
        if sub.empty:
            ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)
    for k in range(n, nrows * ncols):
        axes[k // ncols][k % ncols].set_visible(False)
    fig.legend(list(handles.values()), list(handles), loc="upper center", ncol=min(len(handles), 5), frameon=False,
               fontsize=8, bbox_to_anchor=(0.5, 1.0))
    fig.suptitle(footer, y=0.005, va="bottom", fontsize=7, color="#555555")
    fig.tight_layout(rect=(0, 0.3 / fig.get_figheight(), 1, 1 - 0.6 / fig.get_figheight()))
    return fig


def plot_figure(config: Mapping, which: str, regret_csv: str, bounds_csv: str, datasets_csv: str,
                out_paths: Sequence[str], fidelity: str | None = None, log: str | None = None) -> None:
    """Draw ``figure1`` or ``figure2`` (+ sidecars)."""
    from duelbench.provenance.sidecar import Timer, write_sidecar

    from .plotting import save_figure

    s = settings(config, fidelity)
    if which not in ("figure1", "figure2"):
        raise ValueError(f"which must be 'figure1' or 'figure2', got {which!r}")
    with log_to(log), Timer() as t:
        regret = read_regret(regret_csv)
        dsinfo = {r["dataset"]: r for r in read_rows(datasets_csv)}
        footer = (f"Komiyama et al. (2016) {which.replace('figure', 'Figure ')}: mean cumulative Copeland regret "
                  f"± 1 s.e. over {int(s['runs'])} runs, T = {int(s['horizon'])}, fidelity {s['fidelity']}; "
                  "LB, ECWB: Theorems 2 and 4")
        fig = draw_panels(regret, list(s[which]), curves(s), _bounds_by_name(bounds_csv), dsinfo, int(s["horizon"]),
                          footer)
        save_figure(fig, out_paths)
    for p in out_paths:
        write_sidecar(p, inputs=[regret_csv, bounds_csv, datasets_csv], config=curve_settings(s),
                      seeds={"seed": int(s["seed"])}, extra={"experiment": NAME, "figure": which}, **t.as_kwargs())


# --------------------------------------------------------------------------------------------
# command line (used by the workflow's Table-1 shard jobs)
# --------------------------------------------------------------------------------------------
def main(argv=None) -> int:
    from . import shard_job_main

    return shard_job_main(argv, prog="python -m duelbench.experiments.komiyama2016", command="table1-shard",
                          help="compute one Table-1 shard", run=run_table1_shard)


if __name__ == "__main__":
    sys.exit(main())

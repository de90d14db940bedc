"""Komiyama et al. (2016): the curves, panels, settings checks and shard groups of the replication.

What the steps (:mod:`.bounds`, :mod:`.table1`, :mod:`.regret`, :mod:`.robustness`,
:mod:`.checks`) and the experiment's declaration (:class:`duelbench.experiments.komiyama2016.Komiyama2016`)
share; see the package's docstring for the readings taken.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from duelbench.bounds.ccb import ccb_variant_names
from duelbench.config import algorithm_entries, AlgorithmEntry, check_datasets, ConfigError, data_file, require_keys
from duelbench.data import registry as data_registry
from duelbench.engine.jobs import ShardSpec, plan_shards

from ..plotting import algorithm_label

NAME = "komiyama2016"
#: Regret kinds the experiment reads (and the results archive keeps for its shards).
KINDS = ("copeland",)


# --------------------------------------------------------------------------------------------
# settings
# --------------------------------------------------------------------------------------------
def check_settings(s: dict) -> None:
    """Defaults (no variants, checks from run 0, Table 1 without a Condorcet selection), then the
    checks beyond the JSON schema; :class:`ConfigError` names the offending key."""
    s.setdefault("variants", [])
    s.setdefault("check_runs_from", 0)
    s["table1"] = {"condorcet": None, **dict(s.get("table1") or {})}
    require_keys(NAME, s, ("algorithms", "figure1", "figure2", "robustness", "table1", "bounds", "horizon", "runs",
                           "runs_per_shard", "seed"))
    curves(s)  # algorithm names, parameters, duplicates
    for key, names in (("figure1", s["figure1"]), ("figure2", s["figure2"]),
                       ("robustness.datasets", s["robustness"]["datasets"]),
                       ("bounds.matrices", s["bounds"]["matrices"])):
        check_datasets(names, where=f"{NAME}.{key}")
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
    if not 0 <= int(s["check_runs_from"]) < int(s["runs"]):
        raise ConfigError(f"{NAME}.check_runs_from: must be in [0, runs = {s['runs']}), got {s['check_runs_from']!r} "
                          "(the checks read the panel runs check_runs_from .. runs - 1)")


@dataclass(frozen=True)
class Curve(AlgorithmEntry):
    """One simulated configuration: a configured algorithm (registry name, canonical parameters,
    their hash, a label) that is either a main curve or a labelled variant."""

    variant: bool = False


def curves(s: Mapping, *, variants: bool = True) -> list[Curve]:
    """The entries of ``algorithms`` (then, if ``variants``, the labelled ``variants``)."""
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


def panels(s: Mapping) -> list[str]:
    """The Figure-1 then Figure-2 datasets (each once)."""
    return list(dict.fromkeys([*s["figure1"], *s["figure2"]]))


def bound_datasets(s: Mapping) -> list[str]:
    """Rows of ``bound_constants.csv``: ``bounds.matrices``, the panels, the robustness datasets."""
    return list(dict.fromkeys([*s["bounds"]["matrices"], *panels(s), *s["robustness"]["datasets"]]))


def recipes_path() -> Path:
    """``data/sampled/komiyama2016.yaml`` of the checkout (the recipes of the sampled panels)."""
    return data_file(NAME, "sampled")


# The settings each group of outputs depends on (a step parameter: a change reruns the step).
def bounds_settings(s: Mapping) -> dict:
    """The settings the bound tables depend on."""
    return {"fidelity": s["fidelity"], "datasets": bound_datasets(s), "bounds": s["bounds"],
            "figure1": s["figure1"], "figure2": s["figure2"], "robustness_datasets": s["robustness"]["datasets"]}


def table1_settings(s: Mapping) -> dict:
    """The settings Table 1 depends on."""
    return {"fidelity": s["fidelity"], "table1": s["table1"], "ccb_main_variant": s["bounds"]["ccb_main_variant"]}


def curve_settings(s: Mapping) -> dict:
    """The settings the regret tables and figures depend on."""
    keys = ("fidelity", "seed", "horizon", "runs", "runs_per_shard", "algorithms", "variants", "figure1", "figure2",
            "robustness")
    return {k: s[k] for k in keys}


# --------------------------------------------------------------------------------------------
# simulation shards and Table-1 samples
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

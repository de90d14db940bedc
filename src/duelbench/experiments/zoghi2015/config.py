"""Zoghi et al. (2015): the settings checks, regret items, shards and sample families of the replication.

What the steps (:mod:`.appendix_c_tables`, :mod:`.appendix_c_figures`, :mod:`.regret`,
:mod:`.checks`) and the experiment's declaration
(:class:`duelbench.experiments.zoghi2015.Zoghi2015`) share; the package's docstring defines the
statistics and names the readings (Z1-Z7 of ``data/published/zoghi2015.yaml``).
"""

from __future__ import annotations

from collections.abc import Mapping

from duelbench.algorithms.registry import get_algorithm
from duelbench.config import algorithm_entries, check_datasets, ConfigError
from duelbench.engine.jobs import plan_shards, ShardSpec

from ..contract import SampleShard
from ..samples import plan_samples
from . import appendix_c
from .appendix_c import CLICK_MODELS, SETS, AppendixCError, family_job, resolve_k_values, set_columns

NAME = "zoghi2015"
#: Table-1 pooling (Z6) -> the smallest K pooled: every K = 1..136 with equal weight (declared; K = 1
#: overlaps trivially), or K = 2..136 (labelled variant).
POOLINGS = {"equal_weight_over_k": 1, "equal_weight_over_k_from_2": 2}
#: Defaults of section ``zoghi2015.appendix_c`` (as in its schema); ``winner_statistics``: the
#: click models whose every per-sample quantity is computed.
APPENDIX_C_DEFAULTS = {"winner_statistics": ("mslr_informational",), "random_walk_main": "C",
                       "von_neumann_support": "union", "support_tol": 1e-9, "pooling": "equal_weight_over_k",
                       "k_values": "all"}
#: The click model of Table 1 and Figures 5-6.
MAIN_CLICK_MODEL = "mslr_informational"
#: Matrices of Figures 1-3 (theory check ``delta_star_ge_delta``).
FIGURE_MATRICES = ("mslr5_noncondorcet", "zoghi_copeland500", "mslr5_condorcet")
#: The horizon-mode baseline of Figure 1 (statistic ``savage:*``).
SAVAGE = "copeland_savage"
#: Regret items (config keys of section ``zoghi2015``), in output order.
REGRET_ITEMS = ("figure1", "figure2", "figure3", "sensitivity")
#: Titles of the regret items.
ITEM_TITLES = {
    "figure1": "Figure 1: 5-armed MSLR problem without a Condorcet winner",
    "figure2": "Figure 2: 500-armed synthetic Copeland problem",
    "figure3": "Figure 3: 5-armed Condorcet example",
    "sensitivity": "Gap sensitivity of Figure 2 (labelled variant: all gaps 0.2 / 0.4)",
}
#: Regret definitions written to regret.csv (the first is plotted); the kinds the results
#: archive keeps for this experiment's shards.
KINDS = ("copeland_zoghi", "copeland")
#: The per-sample columns the Appendix-C tables read, which the results archive keeps: every
#: column but the sampled subset itself (its 136 random bits per sample are most of a shard's
#: compressed size, and sample i's subset is recomputed from (seed, click model, K, i)).
ARCHIVED_COLUMNS = ("k", "index", "has_cw", "C", "L_C", "smith", "delta", "delta_min",
                    *(c for name in SETS if name != "subset" for c in set_columns(name)))


# --------------------------------------------------------------------------------------------
# settings
# --------------------------------------------------------------------------------------------
def check_settings(s: dict) -> None:
    """Defaults (``kind``, the ``appendix_c`` defaults of the schema), then the checks a schema
    cannot make: the regret definition (Z3), the Table-1 pooling (Z6), known click models, known
    algorithms with valid parameters and known datasets in every regret item; fills in
    ``appendix_c.k_values_resolved``. Raises :class:`ConfigError` naming the key."""
    s.setdefault("kind", "copeland_zoghi")
    a = s.setdefault("appendix_c", {})
    for key, value in APPENDIX_C_DEFAULTS.items():
        a.setdefault(key, list(value) if isinstance(value, tuple) else value)
    if s["kind"] != "copeland_zoghi":
        raise ConfigError(f"{NAME}.kind: only 'copeland_zoghi' (Definition 1, reading Z3) is supported, "
                          f"got {s['kind']!r}")
    if a["pooling"] not in POOLINGS:
        raise ConfigError(f"{NAME}.appendix_c.pooling: one of {list(POOLINGS)} (Z6), got {a['pooling']!r}")
    unknown = [m for m in a["click_models"] if m not in CLICK_MODELS]
    if unknown:
        raise ConfigError(f"{NAME}.appendix_c.click_models: unknown {unknown}; known: {list(CLICK_MODELS)}")
    missing = [m for m in a["winner_statistics"] if m not in a["click_models"]]
    if missing:
        raise ConfigError(f"{NAME}.appendix_c.winner_statistics: {missing} not in click_models")
    try:
        a["k_values_resolved"] = list(resolve_k_values(a["k_values"]))
    except AppendixCError as exc:
        raise ConfigError(f"{NAME}.{exc}") from None
    for item in REGRET_ITEMS:
        check_datasets(item_settings(s, item)["datasets"], where=f"{NAME}.{item}.datasets")
    check_datasets(a["click_models"], where=f"{NAME}.appendix_c.click_models")


def item_settings(s: Mapping, item: str) -> dict:
    """One regret item's settings: ``datasets``, ``algorithms`` (entries), ``horizon``, ``runs``,
    ``runs_per_shard`` (the item's or the section's)."""
    d = dict(s[item])
    datasets = list(d["datasets"]) if "datasets" in d else [d["dataset"]]
    return {
        "item": item,
        "datasets": datasets,
        "algorithms": algorithm_entries(d["algorithms"], where=f"{NAME}.{item}.algorithms"),
        "horizon": int(d["horizon"]),
        "runs": int(d["runs"]),
        "runs_per_shard": int(d.get("runs_per_shard", s["runs_per_shard"])),
    }


# --------------------------------------------------------------------------------------------
# shards and samples
# --------------------------------------------------------------------------------------------
def needs_horizon(algorithm: str) -> bool:
    """Whether ``algorithm`` needs the horizon in advance (run once per horizon point)."""
    return bool(get_algorithm(algorithm).needs_horizon)


def half_horizon(T: int) -> int:
    """The independent comparison horizon of horizon-mode algorithms: T // 2."""
    return int(T) // 2


def regret_shards(s: Mapping) -> dict[str, list[ShardSpec]]:
    """Regret item -> its simulation shards, plus the T/2 shards of horizon-mode algorithms
    (statistic ``savage:*``; see :mod:`.regret`)."""
    out = {}
    for item in REGRET_ITEMS:
        it = item_settings(s, item)
        specs: list[ShardSpec] = []
        for dataset in it["datasets"]:
            for alg in it["algorithms"]:
                horizons = [it["horizon"]]
                if needs_horizon(alg.name) and half_horizon(it["horizon"]) >= 1:
                    horizons.append(half_horizon(it["horizon"]))
                for T in horizons:
                    specs.extend(plan_shards(
                        fidelity=s["fidelity"], dataset=dataset, algorithm=alg.name, params=alg.params, horizon=T,
                        runs=it["runs"], runs_per_shard=it["runs_per_shard"], seed=int(s["seed"]), root=s["results"]))
        out[item] = specs
    return out


def appendix_c_samples(s: Mapping) -> list[SampleShard]:
    """Every Appendix-C sample shard: one family per click model (named after it, reading its
    matrix), the K-major enumeration cut into ``samples_per_shard`` chunks. Models in
    ``winner_statistics`` get every per-sample quantity (mode ``full``), the others only the
    Condorcet indicator (mode ``condorcet``)."""
    a = s["appendix_c"]
    out = []
    for model in a["click_models"]:
        job = family_job(model, seed=a["seed"], k_values=a["k_values_resolved"], samples_per_k=a["samples_per_k"],
                         support_tol=a["support_tol"],
                         mode="full" if model in a["winner_statistics"] else "condorcet")
        out += plan_samples(experiment=NAME, family=model, function=appendix_c.samples, job=job,
                            n=len(job["k_values"]) * job["samples_per_k"], per_shard=int(a["samples_per_shard"]),
                            fidelity=s["fidelity"], root=s["results"], datasets=(model,), columns=ARCHIVED_COLUMNS)
    return out

"""Demo experiment: cumulative Copeland regret of a few algorithms on two small datasets.

Not a paper replication: it exercises the whole pipeline (shards → aggregate → figure, each
with a provenance sidecar) and is the template for a paper's experiment module.

Configuration (section ``demo`` of the workflow config; fidelity overrides apply)::

    demo:
      datasets: [arxiv, sushi]
      algorithms: [rucb, rmed1, dts, random]   # or {name, params, label} mappings
      horizon: 1000000
      runs: 100
      runs_per_shard: 10
      seed: 0
      kinds: [copeland, condorcet]              # regret definitions written to the CSV
      plot_kind: copeland                       # the one drawn

Outputs, under :func:`duelbench.config.figures_dir` ``(config, "demo")``:
``regret.csv`` (columns ``dataset, algorithm, param_hash, t, mean, stderr, n_runs, kind``),
``regret.pdf`` and ``regret.png``, each with a ``.json`` provenance sidecar.

The smallest package on the experiment contract (:mod:`duelbench.experiments.contract`):
:func:`plan` declares the shards, two steps (aggregate, figure) and one item.
"""

from __future__ import annotations

from collections.abc import Mapping

from duelbench.config import algorithm_entries, experiment_settings, figures_dir, results_root
from duelbench.engine.jobs import plan_shards, ShardSpec
from ..contract import Item, Plan, Step

NAME = "demo"
DEFAULT_KINDS = ("copeland", "condorcet")


def settings(config: Mapping, fidelity: str | None = None) -> dict:
    """The demo's effective settings (fidelity overrides applied, defaults filled in)."""
    s = dict(experiment_settings(config, NAME, fidelity))
    s.setdefault("kinds", list(DEFAULT_KINDS))
    s.setdefault("plot_kind", "copeland")
    s["fidelity"] = config.get("fidelity", "paper") if fidelity is None else fidelity
    return s


def shard_specs(config: Mapping, fidelity: str | None = None) -> list[ShardSpec]:
    """Every shard the demo needs, ordered by dataset, algorithm entry, run range."""
    s = settings(config, fidelity)
    specs: list[ShardSpec] = []
    for dataset in s["datasets"]:
        for alg in algorithm_entries(s["algorithms"], where=f"{NAME}.algorithms"):
            specs.extend(
                plan_shards(
                    fidelity=s["fidelity"], dataset=dataset, algorithm=alg.name, params=alg.params,
                    horizon=int(s["horizon"]), runs=int(s["runs"]), runs_per_shard=int(s["runs_per_shard"]),
                    seed=int(s["seed"]), root=results_root(config),
                )
            )
    return specs


def shard_targets(config: Mapping, fidelity: str | None = None) -> list[str]:
    """Paths of every shard the demo needs (see :func:`shard_specs`)."""
    return [s.path for s in shard_specs(config, fidelity)]


def outputs(config: Mapping, fidelity: str | None = None) -> dict[str, str]:
    """The demo's final outputs: ``csv``, ``pdf``, ``png`` (sidecars are ``<path>.json``)."""
    d = figures_dir(config, NAME, fidelity)
    return {"csv": f"{d}/regret.csv", "pdf": f"{d}/regret.pdf", "png": f"{d}/regret.png"}


def labels(config: Mapping, fidelity: str | None = None) -> dict[tuple[str, str], str]:
    """Legend label per (algorithm, param_hash): the configured ``label`` or the default one."""
    from ..plotting import algorithm_label

    s = settings(config, fidelity)
    entries = algorithm_entries(s["algorithms"], where=f"{NAME}.algorithms")
    out = {}
    for e in entries:
        variants = sum(1 for f in entries if f.name == e.name)
        out[(e.name, e.param_hash)] = e.label or (
            algorithm_label(e.name) if variants == 1 else f"{algorithm_label(e.name)} [{e.param_hash[:6]}]"
        )
    return out


def plan(config: Mapping, fidelity: str | None = None) -> Plan:
    """Shards of every (dataset, algorithm), the aggregate step, the figure step, one item."""
    s = settings(config, fidelity)
    out = outputs(config, fidelity)
    return Plan(
        name=NAME, settings=s, shards=shard_specs(config, fidelity), kinds=tuple(s["kinds"]),
        steps=[
            Step("aggregate", "steps:aggregate", {"csv": out["csv"]}, shards=True, settings=s,
                 message=f"aggregating the demo shards into {out['csv']}"),
            Step("plot", "steps:plot", {"pdf": out["pdf"], "png": out["png"]}, inputs={"csv": out["csv"]},
                 settings=s),
        ],
        items=[Item("regret", "figure", "Demo: cumulative regret",
                    f"Mean cumulative {s['plot_kind']} regret ± 1 s.e. over {int(s['runs'])} runs of "
                    f"{', '.join(map(str, s['algorithms']))} on {', '.join(s['datasets'])}; not a paper's figure.",
                    (out["png"],))],
    )

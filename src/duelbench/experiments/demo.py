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

Outputs, under :func:`duelbench.experiments.figures_dir` ``(config, "demo")``:
``regret.csv`` (columns ``dataset, algorithm, param_hash, t, mean, stderr, n_runs, kind``),
``regret.pdf`` and ``regret.png``, each with a ``.json`` provenance sidecar.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from . import (
    ShardSpec,
    algorithm_entries,
    experiment_settings,
    figures_dir,
    group_shards,
    log_to,
    plan_shards,
    results_root,
)

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
    from .plotting import algorithm_label

    s = settings(config, fidelity)
    entries = algorithm_entries(s["algorithms"], where=f"{NAME}.algorithms")
    out = {}
    for e in entries:
        variants = sum(1 for f in entries if f.name == e.name)
        out[(e.name, e.param_hash)] = e.label or (
            algorithm_label(e.name) if variants == 1 else f"{algorithm_label(e.name)} [{e.param_hash[:6]}]"
        )
    return out


def aggregate(shard_paths: Sequence[str], out_csv: str, config: Mapping, fidelity: str | None = None,
              log: str | None = None) -> None:
    """Aggregate the demo's shards into ``out_csv`` (+ sidecar); messages go to ``log``."""
    from duelbench.provenance.sidecar import Timer, write_sidecar

    from .aggregate import summarise_shards, write_table

    s = settings(config, fidelity)
    wanted = set(map(str, shard_paths))
    specs = [sp for sp in shard_specs(config, fidelity) if sp.path in wanted]
    missing = wanted - {sp.path for sp in specs}
    if missing:
        raise ValueError(f"not demo shards under this configuration: {sorted(missing)[:3]} …")
    with log_to(log), Timer() as t:
        table = summarise_shards(group_shards(specs), kinds=s["kinds"])
        print(f"{len(specs)} shards -> {len(table)} rows in {out_csv}")
        write_table(table, out_csv)
    write_sidecar(out_csv, inputs=[sp.path for sp in specs], config=s, seeds={"seed": int(s["seed"])},
                  extra={"experiment": NAME, "rows": int(len(table))}, **t.as_kwargs())


def plot(csv_path: str, out_paths: Sequence[str], config: Mapping, fidelity: str | None = None,
         log: str | None = None) -> None:
    """Draw ``regret.pdf``/``.png`` from the aggregated CSV (+ sidecars); messages go to ``log``."""
    import pandas as pd

    from duelbench.provenance.sidecar import Timer, write_sidecar

    from .plotting import regret_panels, save_figure

    s = settings(config, fidelity)
    with log_to(log), Timer() as t:
        table = pd.read_csv(csv_path, dtype={"param_hash": str})
        fig = regret_panels(
            table, kind=s["plot_kind"], panels=list(s["datasets"]), labels=labels(config, fidelity),
            title=f"Cumulative {s['plot_kind']} regret (mean ± 1 s.e., {int(s['runs'])} runs, fidelity {s['fidelity']})",
        )
        save_figure(fig, out_paths)
    for path in out_paths:
        write_sidecar(path, inputs=[csv_path], config=s, seeds={"seed": int(s["seed"])},
                      extra={"experiment": NAME, "kind": s["plot_kind"]}, **t.as_kwargs())

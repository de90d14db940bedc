"""Demo experiment: cumulative regret of a few algorithms on two small datasets.

Not a paper replication: the worked example of :class:`~duelbench.experiments.experiment.Experiment`
(docs/adding-a-paper.md). It declares its shards, the framework's two default steps (aggregate,
regret figure) and one item. Configuration (section ``demo``; fidelity overrides apply)::

    demo:
      datasets: [arxiv, sushi]
      algorithms: [rucb, rmed1, dts, random]   # or {name, params, label} mappings
      horizon: 1000000
      runs: 100
      runs_per_shard: 10
      seed: 0
      kinds: [copeland, condorcet]              # regret definitions written to the CSV
      plot_kind: copeland                       # the one drawn

Outputs under ``<figures>/demo/``: ``regret.csv`` (columns ``dataset, algorithm, param_hash, t,
mean, stderr, n_runs, kind``), ``regret.pdf`` and ``regret.png``, each with a sidecar.
"""

from __future__ import annotations

from collections.abc import Mapping

from duelbench.config import algorithm_entries
from duelbench.engine.jobs import ShardSpec, plan_shards

from ..contract import Item, Step, StepContext
from ..experiment import Experiment
from ..plotting import algorithm_label


class Demo(Experiment):
    """Regret curves of the configured algorithms, one panel per dataset."""

    name = "demo"
    output_files = {"csv": "regret.csv", "pdf": "regret.pdf", "png": "regret.png"}
    curves = ("csv", "copeland")

    def check(self, s: dict) -> None:
        s.setdefault("kinds", ["copeland", "condorcet"])
        s.setdefault("plot_kind", "copeland")

    def regret_kinds(self, s: Mapping) -> tuple[str, ...]:
        return tuple(s["kinds"])

    def shards(self, s: Mapping) -> list[ShardSpec]:
        """Every (dataset, algorithm entry): ``runs`` runs in shards of ``runs_per_shard``."""
        return [sp for dataset in s["datasets"] for a in algorithm_entries(s["algorithms"], where="demo.algorithms")
                for sp in plan_shards(fidelity=s["fidelity"], dataset=dataset, algorithm=a.name, params=a.params,
                                      horizon=int(s["horizon"]), runs=int(s["runs"]),
                                      runs_per_shard=int(s["runs_per_shard"]), seed=int(s["seed"]), root=s["results"])]

    def steps(self, s: Mapping, out: Mapping[str, str], config: Mapping) -> list[Step]:
        return [Step("aggregate", self.aggregate, {"csv": out["csv"]}, shards=True, settings=s,
                     message=f"aggregating the demo shards into {out['csv']}"),
                Step("plot", self.plot, {"pdf": out["pdf"], "png": out["png"]}, inputs={"csv": out["csv"]}, settings=s)]

    def plot(self, ctx: StepContext) -> dict:
        """The regret figure, on a log y axis: Random's linear regret would flatten the learning
        algorithms onto the axis."""
        s = ctx.settings
        return self.regret_figure(ctx, panels=s["datasets"], labels=labels(s), kind=s["plot_kind"], yscale="log",
                                  title=f"Cumulative {s['plot_kind']} regret (mean ± 1 s.e., {int(s['runs'])} runs, "
                                        f"fidelity {s['fidelity']})")

    def items(self, s: Mapping, out: Mapping[str, str]) -> list[Item]:
        return [Item("regret", "figure", "Demo: cumulative regret",
                     f"Mean cumulative {s['plot_kind']} regret ± 1 s.e. over {int(s['runs'])} runs of "
                     f"{', '.join(map(str, s['algorithms']))} on {', '.join(s['datasets'])}; not a paper's figure.",
                     (out["png"],))]


def labels(s: Mapping) -> dict[tuple[str, str], str]:
    """Legend label per (algorithm, param_hash): the configured ``label``, else the algorithm's
    name (with the parameter hash when it is configured twice)."""
    entries = algorithm_entries(s["algorithms"], where="demo.algorithms")
    return {(e.name, e.param_hash): e.label or (algorithm_label(e.name) if [f.name for f in entries].count(e.name) == 1
                                                else f"{algorithm_label(e.name)} [{e.param_hash[:6]}]")
            for e in entries}


EXPERIMENT = Demo()

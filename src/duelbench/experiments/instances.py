"""The regret instances a paper publishes, each with the protocol the paper runs it under.

A paper's :class:`~duelbench.experiments.experiment.Experiment` lists them in
:meth:`~duelbench.experiments.experiment.Experiment.regret_instances`: one
:class:`RegretInstance` per panel of a published regret figure, with its horizon, run count,
seed, shard layout, the regret kind the paper plots and the algorithms (with their parameters)
the paper runs there. The benchmark of every algorithm on every instance
(:mod:`duelbench.experiments.benchmark`) plans its cells from these, so a cell the paper ran is
the paper's own shards: same path, same streams, read from the results archive.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from duelbench.config import AlgorithmEntry, ConfigError
from duelbench.engine.jobs import ShardSpec, plan_shards


@dataclass(frozen=True)
class RegretInstance:
    """One published regret panel under its paper's protocol.

    Parameters
    ----------
    paper : str
        The experiment (config section) that publishes it, e.g. ``"wu2016"``.
    panel : str
        The paper's name of the panel, e.g. ``"Figure 1(b)"``.
    dataset : str
        The dataset registry name (a matrix or a family of per-run instances).
    horizon, runs, runs_per_shard, seed : int
        The protocol: runs ``0 … runs − 1`` of ``horizon`` steps, cut into shards of
        ``runs_per_shard`` runs, streams from ``seed`` (as the paper's own shards).
    kind : str
        The regret kind the paper plots (:mod:`duelbench.engine.result`).
    entries : tuple of AlgorithmEntry
        The algorithms the paper runs on the panel, with the paper's parameters.
    tag : str
        Empty for the paper's protocol; names a declared change of it otherwise (e.g.
        ``"T=1e+05"`` for the panel at a shorter horizon), part of :attr:`id`.
    """

    paper: str
    panel: str
    dataset: str
    horizon: int
    runs: int
    runs_per_shard: int
    seed: int
    kind: str
    entries: tuple[AlgorithmEntry, ...] = ()
    tag: str = ""

    @property
    def id(self) -> str:
        """``<paper>/<dataset>`` (``@<tag>`` for a changed protocol): unique among the instances
        of the papers (a dataset two papers run under different protocols is two instances)."""
        return f"{self.paper}/{self.dataset}" + (f"@{self.tag}" if self.tag else "")

    def paper_entry(self, algorithm: str) -> AlgorithmEntry | None:
        """The paper's entry of ``algorithm`` on this panel (its first, if the paper runs
        several parameter sets), or None when the paper does not run it here."""
        return next((e for e in self.entries if e.name == algorithm), None)

    def shards(self, fidelity: str, root: str, algorithm: str, params: Mapping, *, runs: int | None = None,
               horizon: int | None = None) -> list[ShardSpec]:
        """The shards of ``algorithm`` with ``params`` under this protocol (``runs`` and ``horizon``
        reduce it: runs ``0 … runs − 1`` of the same streams, or a shorter horizon)."""
        return plan_shards(fidelity=fidelity, dataset=self.dataset, algorithm=algorithm, params=params,
                           horizon=int(horizon or self.horizon), runs=int(runs or self.runs),
                           runs_per_shard=int(self.runs_per_shard), seed=int(self.seed), root=root)


def unique_instances(instances: Iterable[RegretInstance]) -> list[RegretInstance]:
    """``instances`` in order; :class:`ConfigError` if two share an :attr:`RegretInstance.id`."""
    out: dict[str, RegretInstance] = {}
    for inst in instances:
        if inst.id in out:
            raise ConfigError(f"{inst.paper}: the regret instance {inst.dataset!r} is declared twice "
                              f"({out[inst.id].panel} and {inst.panel})")
        out[inst.id] = inst
    return list(out.values())

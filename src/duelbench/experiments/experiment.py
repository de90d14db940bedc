"""The base class of an experiment: a paper declares, the framework plans and runs.

A paper subclasses :class:`Experiment` and declares what is its own: its name (the config
section and target), the files it writes, how its settings are checked, the simulation and
sample shards it needs, its steps and its items. :meth:`Experiment.plan` assembles the
:class:`~duelbench.experiments.contract.Plan` the workflow builds, and every step runs inside one
harness (:func:`~duelbench.experiments.contract.run_harnessed`): its log file, its timing and the provenance sidecar of each
output are the framework's, so a step function holds only its own work.

Steps are methods or plain functions, referenced as objects (``Step("plot", self.plot, ...)``):
grep and a reader follow a figure to its code. A step function takes the
:class:`~duelbench.experiments.contract.StepContext` and returns ``None`` or a mapping of
JSON-able fields recorded in its outputs' sidecars (``extra``).

The framework's default steps are those of a regret-curve figure:

* :meth:`Experiment.aggregate`: the plan's shards into a regret-curve table (columns of
  :data:`duelbench.experiments.aggregate.CURVE_COLUMNS`);
* :meth:`Experiment.regret_figure`: that table drawn as one panel per dataset
  (:func:`dataset_curves` in :func:`table_frame`, drawn by
  :func:`duelbench.experiments.plotting.curve_panels`).

The demo (:mod:`duelbench.experiments.demo`) is the worked example.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

import pandas as pd

from duelbench.config import output_paths, paper_settings, require_keys
from duelbench.engine.jobs import ShardSpec, group_shards

from .aggregate import summarise_shards, write_table
from .contract import Item, Plan, SampleShard, Step, StepContext, paper_items
from .instances import RegretInstance
from .plotting import Curve, Frame, Panel, algorithm_style, curve_panels, save_figure

#: Line styles of the variants (parameter sets) of one algorithm drawn together, in the order of
#: their hashes; the algorithm's colour is theirs.
VARIANT_STYLES = ("-", "--", "-.", ":")


def dataset_curves(sub: pd.DataFrame, labels: Mapping, yscale: str) -> list[Curve]:
    """Every (algorithm, parameter hash) of ``sub`` (one dataset's rows of a regret-curve table),
    those of ``labels`` first in its order, then the rest sorted.

    Parameters
    ----------
    sub : pandas.DataFrame
        Rows of one dataset and one kind (columns of
        :data:`duelbench.experiments.aggregate.CURVE_COLUMNS`).
    labels : mapping
        (algorithm, param_hash) -> legend label (default:
        :func:`~duelbench.experiments.plotting.algorithm_label`).
    yscale : str
        ``"log"`` also leaves out the points of zero mean regret (every scale leaves out ``t = 0``).

    Returns
    -------
    list of Curve
        Not fitted to a frame (the y range is matplotlib's).
    """
    present = set(zip(sub["algorithm"], sub["param_hash"]))
    keys = [k for k in labels if k in present] + sorted(present - set(labels))
    out = []
    for algorithm, phash in keys:
        curve = sub[(sub["algorithm"] == algorithm) & (sub["param_hash"] == phash)].sort_values("t")
        t, mean = curve["t"].to_numpy(dtype=float), curve["mean"].to_numpy(dtype=float)
        style = algorithm_style(algorithm)
        default = style.pop("label")
        label = labels.get((algorithm, phash), default)
        variants = sorted(h for a, h in keys if a == algorithm)
        if len(variants) > 1:
            style["linestyle"] = VARIANT_STYLES[variants.index(phash) % len(VARIANT_STYLES)]
        mask = (t > 0) & (mean > 0) if yscale == "log" else t > 0
        out.append(Curve(label, style, t[mask], mean[mask], curve["stderr"].to_numpy(dtype=float)[mask],
                         compared=False, width=1.6, band_alpha=0.2))
    return out


def table_frame(n: int, kind: str, yscale: str) -> Frame:
    """The frame of the default regret figure: ``n`` panels in a row, log t, one y label.

    Parameters
    ----------
    n : int
        Number of panels.
    kind : str
        The regret kind (named by the y label).
    yscale : str
        The scale of the regret axis.

    Returns
    -------
    Frame
    """
    return Frame(grid=(1, n), size=(4.2 * n, 3.2), xlabel="time step t", ylabel=f"cumulative {kind} regret",
                 xscale="log", yscale=yscale, rect=(0, 0.05, 1, 0.93), first_ylabel=True, legend_size=None,
                 title_size=None, footer_y=0.02, footer_size=8, sparse_markers=False)


class Experiment:
    """One paper (or the demo): its declarations, and the plan assembled from them.

    Class attributes
    ----------------
    name : str
        The config section, the target rule and the folder of the outputs.
    output_files : dict of str to str
        Key -> file name of every output, under the fidelity's figures folder.
    kinds : tuple of str
        Regret kinds the steps read (and the results archive keeps for the shards).
    paper_items : dict of str to tuple of str
        The paper's own tables and figures among the items (item id -> the registry items
        whose checks judge it); they get a row of the replication status.
    curves : tuple of (str, str) or None
        (output key of the regret-curve table, the regret kind the paper plots): what
        ``duelbench bench-all`` ranks; None without regret curves.
    """

    name: ClassVar[str]
    output_files: ClassVar[dict[str, str]] = {}
    kinds: ClassVar[tuple[str, ...]] = ("copeland",)
    paper_items: ClassVar[dict[str, tuple[str, ...]]] = {}
    curves: ClassVar[tuple[str, str] | None] = None
    #: whether ``all`` (``make figures``) builds it; False: only its own target
    in_all: ClassVar[bool] = True

    # ------------------------------------------------------------------ declarations
    def settings(self, config: Mapping, fidelity: str | None = None) -> dict:
        """The effective settings (at ``fidelity``, default the configuration's): the section
        after fidelity overrides, plus ``fidelity``, ``figures`` and ``results``
        (:func:`duelbench.config.paper_settings`), checked by :meth:`check`."""
        s = paper_settings(config, self.name, fidelity)
        self.check(s)
        return s

    def check(self, s: dict) -> None:
        """Checks beyond the JSON schema (may fill in defaults); raise :class:`duelbench.config.ConfigError`
        naming ``<name>.<key>``."""

    def require(self, s: Mapping, *keys: str) -> None:
        """:class:`duelbench.config.ConfigError` for the first of ``keys`` missing from the settings."""
        require_keys(self.name, s, keys)

    def outputs(self, config: Mapping, fidelity: str | None = None) -> dict[str, str]:
        """Final outputs by key (:attr:`output_files`); sidecars are ``<path>.json``."""
        return output_paths(config, self.name, self.output_files, fidelity)

    def regret_kinds(self, s: Mapping) -> tuple[str, ...]:
        """The regret kinds the steps read (default: :attr:`kinds`)."""
        return tuple(self.kinds)

    def shards(self, s: Mapping) -> list[ShardSpec]:
        """The simulation shards (default: none); a shard two figures share may be listed twice,
        the plan keeps each path once (:meth:`planned_shards`)."""
        return []

    def planned_shards(self, s: Mapping) -> list[ShardSpec]:
        """:meth:`shards`, each path once, in the order first listed."""
        out: dict[str, ShardSpec] = {}
        for sp in self.shards(s):
            out.setdefault(sp.path, sp)
        return list(out.values())

    def shard_specs(self, config: Mapping, fidelity: str | None = None) -> list[ShardSpec]:
        """The simulation shards of ``config`` at ``fidelity`` (default: the configuration's)."""
        return self.planned_shards(self.settings(config, fidelity))

    def shard_kinds(self, s: Mapping) -> dict[str, tuple[str, ...]]:
        """Shard path -> its regret kinds, for shards read with other kinds than
        :meth:`regret_kinds` (default: none; see :attr:`~duelbench.experiments.contract.Plan.shard_kinds`)."""
        return {}

    def samples(self, s: Mapping) -> list[SampleShard]:
        """The sample shards (default: none)."""
        return []

    def steps(self, s: Mapping, out: Mapping[str, str], config: Mapping) -> list[Step]:
        """The steps, in order (their functions referenced as objects)."""
        raise NotImplementedError(f"{type(self).__name__} declares no steps")

    def items(self, s: Mapping, out: Mapping[str, str]) -> list[Item]:
        """The tables and figures as rebuilt here (default: none)."""
        return []

    def regret_instances(self, s: Mapping) -> list[RegretInstance]:
        """The panels of the paper's regret figures under the paper's protocol (default: none),
        each with the algorithms the paper runs there: what the benchmark of every algorithm on
        every published instance (:mod:`duelbench.experiments.benchmark`) runs."""
        return []

    # ------------------------------------------------------------------ the plan
    def plan(self, config: Mapping, fidelity: str | None = None) -> Plan:
        """Everything the workflow builds for ``config`` (at ``fidelity``, default the
        configuration's), from the declarations above."""
        s = self.settings(config, fidelity)
        out = self.outputs(config, fidelity)
        items = paper_items(self.items(s, out), self.paper_items)
        curves = (out[self.curves[0]], self.curves[1]) if self.curves else None
        return Plan(name=self.name, settings=s, steps=self.steps(s, out, config), items=items,
                    shards=self.planned_shards(s), samples=self.samples(s), kinds=self.regret_kinds(s), curves=curves,
                    shard_kinds=self.shard_kinds(s), in_all=self.in_all)

    # ------------------------------------------------------------------ default steps
    @staticmethod
    def aggregate(ctx: StepContext) -> dict:
        """Output ``csv``: mean and s.e. of every regret kind of ``settings["kinds"]`` (default:
        the plan's kinds) per (dataset, algorithm, checkpoint), from the plan's shards."""
        kinds = ctx.settings.get("kinds", ctx.plan.kinds)
        table = summarise_shards(group_shards(ctx.plan.shards), kinds=kinds)
        print(f"{len(ctx.plan.shards)} shards -> {len(table)} rows in {ctx.output.csv}")
        write_table(table, ctx.output.csv)
        return {"rows": int(len(table))}

    @staticmethod
    def regret_figure(ctx: StepContext, *, panels: Sequence[str], labels: Mapping, title: str,
                      kind: str, yscale: str = "linear") -> dict:
        """Outputs ``pdf`` and ``png``: the regret-curve table of input ``csv``, one panel per
        dataset (:func:`dataset_curves`), mean ± 1 s.e., log t and a ``yscale`` regret axis
        (``"log"`` when a linear-regret baseline would flatten the others onto the axis); called
        by a paper's figure step with its panels and labels."""
        table = pd.read_csv(ctx.input.csv, dtype={"param_hash": str})
        data = table[table["kind"] == kind]
        drawn = [Panel(d, None, dataset_curves(data[data["dataset"] == d], labels, yscale)) for d in panels]
        save_figure(curve_panels(table_frame(len(drawn), kind, yscale), drawn, None, title),
                    [ctx.output.pdf, ctx.output.png])
        return {"kind": kind}

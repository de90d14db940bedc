"""The benchmark of record: every regret-minimising algorithm on every published regret instance.

Each paper with regret figures declares its instances
(:meth:`~duelbench.experiments.experiment.Experiment.regret_instances`: a panel, its horizon,
runs, seed and the regret kind the paper plots). The benchmark runs every algorithm of
``benchmark.algorithms`` on every instance of ``benchmark.papers`` under that instance's
protocol (:mod:`.cells`): the cells a paper runs are its own shards (from the results archive),
the others run with the registry's default parameters. Nothing about a cell is chosen after it
ran: the protocol, the cells and the reductions (``benchmark.reduced``, from the cost pass
:mod:`.cost`) are declared in the configuration first.

Outputs under ``<figures>/benchmark/`` (:mod:`.table`, :mod:`.figures`):

``final_runs.csv``
    every run's final regret (the instance's kind at its horizon), one row per (cell, run);
``cells.csv`` / ``table.md``
    per cell: mean final regret with its 95 % interval, the ratio to the instance's best mean,
    the rank with its bootstrap interval, and whether the cell is separated from the best;
``separation.csv``
    per instance, every pair of ranked cells: the ratio of mean final regrets with its interval
    and Holm-adjusted p-value over the instance's pairs, separated or not;
``ranking.csv``
    per algorithm, the mean rank over the instances with its bootstrap interval;
``heatmap.png`` / ``ranking.png`` (and PDF)
    the table as a heatmap of ratios to the best (cells not separated from the best marked),
    and the overall ranking with its intervals.
"""

from __future__ import annotations

from collections.abc import Mapping

from duelbench.config import ConfigError, require_keys
from duelbench.engine.jobs import ShardSpec

from ..contract import Item, Step, declaration
from ..experiment import Experiment
from . import figures, table
from .cells import NAME, cells, check_reductions, instance_record, shorter_horizon_records


class Benchmark(Experiment):
    """Every algorithm on every regret instance of the papers (see the module docstring)."""

    name = NAME
    kinds = ("copeland",)
    #: part of ``all``: every cell is in the results archive, so ``make figures`` rebuilds the
    #: table without simulating (``tests/test_archive_rebuild.py`` checks the committed tables)
    in_all = True
    output_files = {
        "final_runs": "final_runs.csv", "cells": "cells.csv", "separation": "separation.csv",
        "ranking": "ranking.csv", "table_md": "table.md",
        "heatmap_pdf": "heatmap.pdf", "heatmap_png": "heatmap.png",
        "ranking_pdf": "ranking.pdf", "ranking_png": "ranking.png",
    }

    def settings(self, config: Mapping, fidelity: str | None = None) -> dict:
        """The section, plus ``instances``: every regret instance of ``papers`` at the same
        fidelity (:func:`.cells.instance_record`), each with the kinds its paper archives."""
        s = super().settings(config, fidelity)
        records = []
        for paper in s["papers"]:
            if not isinstance(config.get(paper), Mapping):
                raise ConfigError(f"{NAME}.papers: {paper!r} has no section in the configuration")
            exp = declaration(paper)
            ps = exp.settings(config, fidelity)
            records += [instance_record(i, exp.regret_kinds(ps)) for i in exp.regret_instances(ps)]
        if not records:
            raise ConfigError(f"{NAME}.papers: none of {s['papers']} declares a regret instance")
        s["instances"] = records + shorter_horizon_records(s, records)
        check_reductions(s)
        return s

    def check(self, s: dict) -> None:
        require_keys(NAME, s, ("papers", "algorithms", "bootstrap"))

    def shards(self, s: Mapping) -> list[ShardSpec]:
        """Every cell's shards (a paper's cell: the paper's own shards)."""
        return [sp for _, sp in _cell_shards(s)]

    def shard_kinds(self, s: Mapping) -> dict[str, tuple[str, ...]]:
        """Each shard with the kinds of the papers of the instances that read it: a paper's
        shard gains no kind, unless two papers' instances share it under the same protocol (at
        quick fidelity, Wu & Liu's and Zoghi et al.'s non-Condorcet panels at T = 10^5), where it
        is read with the union."""
        out: dict[str, set] = {}
        for c, sp in _cell_shards(s):
            out.setdefault(sp.path, set()).update(c.kinds)
        return {path: tuple(sorted(kinds)) for path, kinds in out.items()}

    def steps(self, s: Mapping, out: Mapping[str, str], config: Mapping) -> list[Step]:
        settings = {k: v for k, v in s.items() if k not in ("figures", "results", "description")}
        return [
            Step("final", table.final_runs, {"csv": out["final_runs"]}, shards=True, settings=settings,
                 message="the final regret of every run of every cell"),
            Step("table", table.tables, {"cells": out["cells"], "separation": out["separation"],
                                         "ranking": out["ranking"], "md": out["table_md"]},
                 inputs={"final_runs": out["final_runs"]}, settings=settings,
                 message="intervals, separations and ranks of the benchmark"),
            Step("figures", figures.draw, {"heatmap_pdf": out["heatmap_pdf"], "heatmap_png": out["heatmap_png"],
                                           "ranking_pdf": out["ranking_pdf"], "ranking_png": out["ranking_png"]},
                 inputs={"cells": out["cells"], "ranking": out["ranking"]}, settings=settings,
                 message="the benchmark's heatmap and ranking"),
        ]

    def items(self, s: Mapping, out: Mapping[str, str]) -> list[Item]:
        return figures.items(s, out)


EXPERIMENT = Benchmark()


def _cell_shards(s: Mapping):
    """(cell, shard) of every shard of every cell, in cell order."""
    for c in cells(s):
        for sp in c.shards(s["fidelity"], s["results"]):
            yield c, sp

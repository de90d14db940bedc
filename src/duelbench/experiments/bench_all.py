"""``duelbench bench-all NAME``: a new algorithm on every regret instance of the papers.

For each configured paper (an experiment with items of the paper, :attr:`Item.in_paper`, and a
regret-curve table, :attr:`Plan.curves`), the algorithm ``NAME`` (a registered name, e.g. a
plug-in file on ``DUELBENCH_PLUGIN_PATH``) is appended to every ``algorithms`` list of the
paper's section: the paper's own plan, with its settings (horizons, runs, seeds, panels), then
simulates the new algorithm's shards and reads every baseline shard from the results archive or
the shard cache, exactly as the paper's build does. Its tables and figures, with the new
algorithm as an extra series, go to ``results/bench_all/<NAME>/<fidelity>/<paper>/`` (never into
the committed ``figures/``), and :func:`write_leaderboard` ranks it against the baselines:

``leaderboard.csv`` / ``leaderboard.md``
    one row per (paper, instance): the final mean regret of ``NAME`` (the regret kind the paper
    plots, at the largest t), the best baseline there and its final regret, and the ratio
    ``NAME / best`` (below 1: better than every baseline the paper runs).

The workflow builds it with ``--config bench_all=NAME`` and the target ``bench_all``
(``duelbench bench-all NAME`` does both).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from duelbench.algorithms.registry import list_algorithms
from duelbench.config import ConfigError, effective_config, results_root
from duelbench.config.files import CHECKOUT
from duelbench.provenance.sidecar import atomic_write_text, Timer, write_sidecar

from .aggregate import write_table
from .contract import configured, declaration, Plan
from .variants import Variant

#: Root of every bench-all output (under the results folder, never committed).
ROOT = "bench_all"
#: Config key naming the algorithm to benchmark.
KEY = "bench_all"
COLUMNS = ["paper", "dataset", "algorithm", "final", "best_baseline", "best_final", "ratio", "rank", "entries"]


def algorithm(config: Mapping) -> str | None:
    """The algorithm ``config`` asks to benchmark (``bench_all``), or None."""
    name = config.get(KEY)
    if name in (None, "", []):
        return None
    if isinstance(name, (list, tuple)):
        if len(name) != 1:
            raise ConfigError(f"{KEY}: one algorithm name, got {list(name)}")
        name = name[0]
    if name not in list_algorithms():
        raise ConfigError(f"{KEY}: unknown algorithm {name!r}; registered: {', '.join(list_algorithms())} "
                          "(a plug-in file must be on DUELBENCH_PLUGIN_PATH)")
    return str(name)


def folder(config: Mapping, name: str) -> str:
    """``<results>/bench_all/<name>/<fidelity>``."""
    return f"{results_root(config)}/{ROOT}/{name}/{effective_config(config)['fidelity']}"


def variant(config: Mapping, experiment: str) -> Variant:
    """``experiment``'s plan with the algorithm of ``config["bench_all"]`` added to every
    ``algorithms`` list of its section but those the paper declares fixed
    (``FIXED_ALGORITHM_LISTS`` of its :class:`~duelbench.experiments.experiment.Experiment`,
    dotted keys), its outputs under :func:`folder`."""
    name = algorithm(config)
    return Variant(experiment=experiment, label=KEY, figures=folder(config, name), extra_algorithms=(name,),
                   fixed_lists=tuple(getattr(declaration(experiment), "FIXED_ALGORITHM_LISTS", ())))


def plans(config: Mapping) -> dict[str, Plan]:
    """Paper -> its plan with the benchmarked algorithm added (empty without one). Papers are the
    configured experiments with items of the paper and a regret-curve table."""
    if algorithm(config) is None:
        return {}
    out = {}
    for name in configured(config):
        p = variant(config, name).plan(config)[0]
        if p.curves is not None and any(i.in_paper for i in p.items):
            out[name] = p
    return out


def regret_figures(plan) -> list[str]:
    """The outputs of the plan's figure items that are drawn from its regret-curve table."""
    def reads_curves(step) -> bool:
        return any(plan.curves[0] == v or (isinstance(v, (list, tuple)) and plan.curves[0] in v)
                   for v in step.inputs.values())

    drawn = {p for step in plan.steps if reads_curves(step) for p in step.outputs.values()}
    return [p for item in plan.items if item.kind == "figure" for p in item.outputs if p in drawn]


def leaderboard_paths(config: Mapping) -> dict[str, str]:
    base = folder(config, algorithm(config))
    return {"csv": f"{base}/leaderboard.csv", "md": f"{base}/leaderboard.md"}


def leaderboard_rows(name: str, tables: Mapping[str, tuple]) -> list[dict]:
    """Rows of :data:`COLUMNS` from paper -> (curve table as a DataFrame, plotted kind)."""
    rows = []
    for paper, (table, kind) in tables.items():
        if "kind" in table.columns:
            table = table[table["kind"] == kind]
        last = table.sort_values("t").groupby(["dataset", "algorithm", "param_hash"], sort=True).tail(1)
        for dataset, group in last.groupby("dataset", sort=True):
            mine = group[group["algorithm"] == name]
            others = group[group["algorithm"] != name]
            if mine.empty or others.empty:
                continue
            best = others.loc[others["mean"].idxmin()]
            final = float(mine["mean"].min())
            rank = 1 + int((others["mean"] < final).sum())
            rows.append({"paper": paper, "dataset": dataset, "algorithm": name, "final": final,
                         "best_baseline": str(best["algorithm"]), "best_final": float(best["mean"]),
                         "ratio": final / float(best["mean"]) if float(best["mean"]) > 0 else float("nan"),
                         "rank": rank, "entries": len(group)})
    return rows


def markdown(name: str, rows: Sequence[Mapping], fidelity: str) -> str:
    lines = [f"# {name} on every regret instance of the papers (fidelity `{fidelity}`)", "",
             "Final mean regret (the kind each paper plots, at its horizon) against the best baseline the paper "
             "runs on the same instance; ratio < 1: better than every baseline; rank 1 = best of all entries.", "",
             "| paper | instance | final | best baseline | its final | ratio | rank |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['paper']} | {r['dataset']} | {r['final']:.4g} | {r['best_baseline']} | {r['best_final']:.4g} "
                     f"| {r['ratio']:.3g} | {r['rank']}/{r['entries']} |")
    return "\n".join(lines) + "\n"


def write_leaderboard(name: str, curves: Mapping[str, tuple[str, str]], out: Mapping[str, str], fidelity: str) -> list:
    """Write ``leaderboard.csv`` and ``leaderboard.md`` from paper -> (curve table path, kind)."""
    with Timer() as t:
        tables = {p: (pd.read_csv(path, dtype={"param_hash": str}), kind) for p, (path, kind) in curves.items()}
        rows = leaderboard_rows(name, tables)
        write_table(pd.DataFrame(rows, columns=COLUMNS), out["csv"])
        atomic_write_text(out["md"], markdown(name, rows, fidelity))
    for path in out.values():
        write_sidecar(path, inputs=[p for p, _ in curves.values()], config={"algorithm": name, "fidelity": fidelity},
                      extra={"output": "bench_all leaderboard"}, **t.as_kwargs())
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    """``duelbench bench-all NAME``: run the ``bench_all`` target of this checkout's workflow."""
    parser = argparse.ArgumentParser(
        prog="duelbench bench-all", description=__doc__.splitlines()[0],
        epilog="Baselines come from the results archive (archive/) when it holds them; outputs go to "
               "results/bench_all/NAME/FIDELITY/, never into figures/.")
    parser.add_argument("name", help="registered algorithm name (a plug-in file: see --plugins)")
    parser.add_argument("--plugins", metavar="DIR", help="folder of plug-in files (added to DUELBENCH_PLUGIN_PATH)")
    parser.add_argument("--profile", default=None, metavar="DIR",
                        help="Snakemake profile, e.g. config/profiles/quick (default: paper fidelity)")
    parser.add_argument("--cores", default="all", help="cores for Snakemake (default: all)")
    parser.add_argument("-n", "--dry-run", action="store_true", help="only show the jobs")
    args = parser.parse_args(argv)
    env = dict(os.environ)
    if args.plugins:
        folder = str(Path(args.plugins).resolve())
        if not Path(folder).is_dir():
            parser.error(f"--plugins {args.plugins}: not a directory")
        env["DUELBENCH_PLUGIN_PATH"] = os.pathsep.join(p for p in (folder, env.get("DUELBENCH_PLUGIN_PATH")) if p)
    cmd = [str(Path(sys.executable).with_name("snakemake")), KEY, "--cores", str(args.cores),
           *(["--profile", args.profile] if args.profile else []), *(["-n"] if args.dry_run else []),
           "--config", f"{KEY}={args.name}"]
    print(" ".join(cmd), flush=True)
    rc = subprocess.run(cmd, cwd=CHECKOUT, env=env).returncode
    if rc == 0 and not args.dry_run:
        boards = sorted((CHECKOUT / "results" / ROOT / args.name).glob("*/leaderboard.md"), key=lambda p: p.stat().st_mtime)
        if boards:
            print(boards[-1].read_text(encoding="utf-8"))
    return rc

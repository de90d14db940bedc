"""``duelbench bench-all NAME``: a new algorithm on every regret instance of the papers.

The algorithm ``NAME`` (a registered name, e.g. a plug-in file on ``DUELBENCH_PLUGIN_PATH``) is
appended to every ``algorithms`` list of

* the benchmark of record (:mod:`duelbench.experiments.benchmark`): it becomes a column of the
  same table, on every published instance under its paper's protocol, beside the archived cells
  of every other algorithm, ranked with the same statistics;
* each configured paper with items of the paper and a regret-curve table (:attr:`Plan.curves`):
  the paper's own plan, with its settings (horizons, runs, seeds, panels), draws it as an extra
  series of its regret figures.

Only the new algorithm's shards are simulated (a benchmark cell and the paper's extra curve on
the same panel are the same shards); every other shard comes from the results archive or the
shard cache. Outputs go to ``results/bench_all/<NAME>/<fidelity>/`` (never into the committed
``figures/``): the benchmark's table and figures under ``benchmark/``, each paper's under
``<paper>/``, and :func:`write_leaderboard` picks the new algorithm's row of every instance out
of the benchmark's table:

``leaderboard.csv`` / ``leaderboard.md``
    one row per instance: the final mean regret of ``NAME`` with its 95 % interval, its ratio to
    the instance's best algorithm (below 1: better than every other), its rank with the
    bootstrap interval, and whether it is separated from the best.

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
from duelbench.report.verdict import sig

from .aggregate import write_table
from .contract import configured, declaration, Plan
from .variants import Variant

#: Root of every bench-all output (under the results folder, never committed).
ROOT = "bench_all"
#: Config key naming the algorithm to benchmark.
KEY = "bench_all"
#: The benchmark of record's experiment (its variant ranks the new algorithm).
BENCHMARK = "benchmark"
COLUMNS = ["instance", "paper", "panel", "dataset", "algorithm", "runs", "final", "lower", "upper", "best_algorithm",
           "ratio", "ratio_lower", "ratio_upper", "rank", "rank_lower", "rank_upper", "entries", "tied_with_best"]


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
    """Experiment -> its plan with the benchmarked algorithm added (empty without one): the
    benchmark of record (required), and the configured papers with items of the paper and a
    regret-curve table."""
    if algorithm(config) is None:
        return {}
    names = configured(config)
    if BENCHMARK not in names:
        raise ConfigError(f"{KEY}: the configuration has no {BENCHMARK!r} section, whose table ranks the algorithm")
    out = {}
    for name in names:
        p = variant(config, name).plan(config)[0]
        if name == BENCHMARK or (p.curves is not None and any(i.in_paper for i in p.items)):
            out[name] = p
    return out


def benchmark_table(plans_: Mapping[str, Plan]) -> str:
    """The ``cells.csv`` of the benchmark's bench-all plan."""
    return plans_[BENCHMARK].step("table").outputs["cells"]


def wanted(plan: Plan) -> list[str]:
    """What the ``bench_all`` target builds of a bench-all plan: every output of the benchmark's,
    a paper's regret-curve table and the figures drawn from it."""
    if plan.name == BENCHMARK:
        return plan.results()
    return [plan.curves[0], *regret_figures(plan)]


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


def leaderboard_rows(name: str, cells: pd.DataFrame) -> list[dict]:
    """Rows of :data:`COLUMNS`: ``name``'s cell of every instance of the benchmark's ``cells``
    table (:data:`duelbench.experiments.benchmark.table.CELL_COLUMNS`)."""
    rows = []
    for instance, group in cells.groupby("instance", sort=False):
        mine = group[group["algorithm"] == name]
        if mine.empty:
            continue
        r, best = mine.iloc[0], group[group["best"].astype(bool)]
        rows.append({"instance": instance, "paper": r["paper"], "panel": r["panel"], "dataset": r["dataset"],
                     "algorithm": name, "runs": int(r["runs"]), "final": r["mean"], "lower": r["lower"],
                     "upper": r["upper"], "best_algorithm": str(best["algorithm"].iloc[0]) if len(best) else "",
                     "ratio": r["ratio_to_best"], "ratio_lower": r["ratio_lower"], "ratio_upper": r["ratio_upper"],
                     "rank": r["rank"], "rank_lower": r["rank_lower"], "rank_upper": r["rank_upper"],
                     "entries": int(group["ranked"].astype(bool).sum()), "tied_with_best": bool(r["tied_with_best"])})
    return rows


def markdown(name: str, rows: Sequence[Mapping], fidelity: str) -> str:
    lines = [f"# {name} on every regret instance of the papers (fidelity `{fidelity}`)", "",
             "Its cell of the benchmark of record on each instance, under the paper's protocol: the mean final regret "
             "(the kind the paper plots, at its horizon) with its 95 % interval, its ratio to the instance's best "
             "algorithm (below 1: better than every other), its rank (1 = best) with the bootstrap 95 % interval, "
             "and whether it is separated from the best (Holm, family-wise 5 % per instance).", "",
             "| instance | final [95 %] | best | ratio [95 %] | rank [95 %] | separated from the best |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        sep = "— (it is the best)" if r["best_algorithm"] == name else ("no" if r["tied_with_best"] else "yes")
        lines.append(f"| {r['paper']} {r['panel']} `{r['dataset']}` | {sig(r['final'])} [{sig(r['lower'])}, "
                     f"{sig(r['upper'])}] | {r['best_algorithm']} | {sig(r['ratio'])} [{sig(r['ratio_lower'])}, "
                     f"{sig(r['ratio_upper'])}] | {sig(r['rank'])} of {r['entries']} [{sig(r['rank_lower'])}, "
                     f"{sig(r['rank_upper'])}] | {sep} |")
    return "\n".join(lines) + "\n"


def write_leaderboard(name: str, cells_csv: str, out: Mapping[str, str], fidelity: str) -> list:
    """Write ``leaderboard.csv`` and ``leaderboard.md`` from the benchmark variant's ``cells.csv``."""
    with Timer() as t:
        cells = pd.read_csv(cells_csv, dtype={"param_hash": str}, keep_default_na=False,
                            na_values={c: [""] for c in ("mean", "lower", "upper", "ratio_to_best", "ratio_lower",
                                                         "ratio_upper", "rank", "rank_lower", "rank_upper")})
        rows = leaderboard_rows(name, cells)
        write_table(pd.DataFrame(rows, columns=COLUMNS), out["csv"])
        atomic_write_text(out["md"], markdown(name, rows, fidelity))
    for path in out.values():
        write_sidecar(path, inputs=[cells_csv], config={"algorithm": name, "fidelity": fidelity},
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

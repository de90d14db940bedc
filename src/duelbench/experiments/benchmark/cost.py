"""The benchmark's cost pass: the CPU time of every cell at its protocol, before any cell runs.

``python -m duelbench.experiments.benchmark.cost [--fidelity F] [--csv PATH] [--md PATH]``

For each cell (:mod:`.cells`) one run of the cell's algorithm, with the cell's parameters, is
timed on the cell's instance (instance 0 of a family of per-run instances) at horizons 1000,
2000, 4000, … until a run takes ``max_seconds`` (``max_seconds_large`` at K ≥ 100) or reaches
the cell's horizon. The time of a run at the cell's horizon is extrapolated from the last
timed run with the *marginal* speed between the last two (a run's set-up and its early steps,
often the slowest of a learning algorithm, are counted once, not extrapolated), and the cell's
CPU time is that times its runs. Compilation is left out (once per algorithm and job).

This is an estimate, host dependent, and reported as such: it decides which cells are reduced
(``benchmark.reduced``) before they run; the sidecars of the finished shards give the measured
times afterwards (``duelbench cost benchmark``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence

import pandas as pd

from duelbench.bench import time_run, timed_instance
from duelbench.config.files import checkout_config
from duelbench.data.registry import load_matrix
from duelbench.engine.simulate import simulate
from duelbench.provenance.sidecar import atomic_write_text
from duelbench.report.verdict import sig

from .cells import Cell, cells

#: Horizon of the first timed run.
FIRST_STEPS = 1000
#: From this K on, a cell's timed runs may take ``max_seconds_large``.
LARGE_K = 100
COLUMNS = ["paper", "panel", "dataset", "K", "algorithm", "source", "runs", "horizon", "timed_steps",
           "seconds_timed", "marginal_steps_per_s", "run_seconds", "cpu_h"]


def run_seconds(algorithm: str, dataset: str, params: Mapping, horizon: int, max_seconds: float) -> dict:
    """Seconds of one run of ``horizon`` steps, extrapolated (see the module docstring)."""
    simulate(algorithm, dataset, min(horizon, 10), 1, seed=12345, **params)  # compile and load
    n, t = min(FIRST_STEPS, horizon), 0.0
    prev_n, prev_t = 0, 0.0
    while True:
        t = time_run(algorithm, dataset, n, params)
        if n >= horizon or t >= max_seconds:
            break
        prev_n, prev_t, n = n, t, min(2 * n, horizon)
    speed = (n - prev_n) / (t - prev_t) if t > prev_t else n / max(t, 1e-9)
    total = t + (horizon - n) / speed
    return {"timed_steps": n, "seconds_timed": t, "marginal_steps_per_s": speed, "run_seconds": total}


def cost_pass(all_cells: Sequence[Cell], max_seconds: float, max_seconds_large: float,
              progress=print) -> pd.DataFrame:
    """One row of :data:`COLUMNS` per cell."""
    rows = []
    for i, c in enumerate(all_cells):
        dataset = timed_instance(c.instance.dataset)
        K = int(load_matrix(dataset).K)
        m = run_seconds(c.algorithm, dataset, c.entry.params, c.horizon,
                        max_seconds_large if K >= LARGE_K else max_seconds)
        rows.append({"paper": c.instance.paper, "panel": c.instance.panel, "dataset": c.instance.dataset, "K": K,
                     "algorithm": c.algorithm, "source": c.source, "runs": c.runs, "horizon": c.horizon, **m,
                     "cpu_h": m["run_seconds"] * c.runs / 3600})
        progress(f"[{i + 1}/{len(all_cells)}] {c.instance.id} {c.algorithm}: {sig(m['marginal_steps_per_s'])} steps/s, "
                 f"{sig(rows[-1]['cpu_h'])} CPU-h for {c.runs} runs")
    return pd.DataFrame(rows, columns=COLUMNS)


def markdown(table: pd.DataFrame, fidelity: str, budget: float | None) -> str:
    """Totals per source, paper, instance and algorithm, then the most expensive cells."""
    def block(title: str, key) -> list[str]:
        g = table.groupby(key, sort=False)["cpu_h"].sum().sort_values(ascending=False, kind="stable")
        return [f"### {title}", "", "| | CPU-h |", "|---|---|", *(f"| {k} | {sig(v)} |" for k, v in g.items()), ""]

    new = table[table["source"] == "benchmark"]
    lines = [f"# Benchmark cost pass (fidelity `{fidelity}`, estimated before any cell ran)", "",
             "Seconds of one run at each cell's horizon, extrapolated from timed runs with the marginal speed of "
             "the last doubling (duelbench.experiments.benchmark.cost), times the cell's runs. Host dependent.", "",
             f"* every cell: {sig(table['cpu_h'].sum())} CPU-h ({len(table)} cells)",
             f"* the papers' own cells (their shards, archived by the papers' builds): "
             f"{sig(table.loc[table['source'] == 'paper', 'cpu_h'].sum())} CPU-h",
             f"* cells the benchmark adds: {sig(new['cpu_h'].sum())} CPU-h ({len(new)} cells)"
             + (f"; budget {sig(budget)} CPU-h" if budget else ""), ""]
    lines += block("Cells the benchmark adds, per paper", new["paper"])
    lines += block("Cells the benchmark adds, per algorithm", new["algorithm"])
    lines += block("Cells the benchmark adds, per instance", new["paper"] + "/" + new["dataset"])
    top = new.sort_values("cpu_h", ascending=False).head(15)
    lines += ["### The most expensive added cells", "", "| instance | algorithm | runs | horizon | steps/s | CPU-h |",
              "|---|---|---|---|---|---|",
              *(f"| {r.paper}/{r.dataset} | {r.algorithm} | {r.runs} | {r.horizon:.0e} | {sig(r.marginal_steps_per_s)} "
                f"| {sig(r.cpu_h)} |" for r in top.itertuples()), ""]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    from duelbench.experiments.contract import declaration

    parser = argparse.ArgumentParser(prog="python -m duelbench.experiments.benchmark.cost",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--fidelity", default=None)
    parser.add_argument("--max-seconds", type=float, default=2.0, help="per timed run, K < 100")
    parser.add_argument("--max-seconds-large", type=float, default=30.0, help="per timed run, K >= 100")
    parser.add_argument("--only", default=None, help="comma-separated algorithms (default: every one)")
    parser.add_argument("--csv", default=None)
    parser.add_argument("--md", default=None)
    args = parser.parse_args(argv)
    config = checkout_config()
    s = declaration("benchmark").settings(config, args.fidelity)
    chosen = cells(s)
    if args.only:
        chosen = [c for c in chosen if c.algorithm in args.only.split(",")]
    table = cost_pass(chosen, args.max_seconds, args.max_seconds_large, progress=lambda m: print(m, flush=True))
    if args.csv:
        atomic_write_text(args.csv, table.to_csv(index=False, float_format="%.6g"))
    md = markdown(table, s["fidelity"], s.get("budget_cpu_h"))
    if args.md:
        atomic_write_text(args.md, md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())

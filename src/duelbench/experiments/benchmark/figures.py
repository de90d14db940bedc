"""The benchmark's figures and the items that show them.

* ``heatmap``: instances (rows, in the papers' order) x algorithms (columns, in the overall
  ranking's order); the colour is log10 of the ratio of the cell's mean final regret to the
  instance's best, the number the ratio (3 significant digits). A framed cell is the best of its
  instance or not separated from it; a hatched cell is not ranked: declared not run (the cost
  pass), or run at a shorter horizon than its instance (its mean regret is printed instead);
  † marks fewer runs than the protocol.
* ``ranking``: each algorithm's mean rank over the complete instances with its bootstrap 95 %
  interval, best first.
"""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from duelbench.report.numerics import flog
from duelbench.report.verdict import sig

from ..contract import Item, StepContext
from ..plotting import algorithm_colour, algorithm_label, save_figure
from .cells import algorithm_names


def _ratio_colours(cells: pd.DataFrame) -> np.ndarray:
    r = cells["ratio_to_best"].to_numpy(dtype=float)
    out = np.full(r.shape, np.nan)
    ok = np.isfinite(r) & (r > 0) & cells["ranked"].astype(bool).to_numpy()
    out[ok] = np.array([flog(v) for v in r[ok]]) / flog(10.0)
    return out


def heatmap(cells: pd.DataFrame, order: list[str], title: str):
    """The heatmap figure (see the module docstring)."""
    instances = list(dict.fromkeys(cells["instance"]))
    grid = np.full((len(instances), len(order)), np.nan)
    colours = _ratio_colours(cells)
    pos = {k: i for i, k in enumerate(instances)}
    col = {a: j for j, a in enumerate(order)}
    # fixed margins in inches (row labels, rotated column labels, colour bar), so the cells keep
    # their size whatever the number of rows and columns
    left, right, bottom, top, cell_w, cell_h = 3.6, 1.3, 1.2, 0.7, 0.72, 0.42
    width, height = left + cell_w * len(order) + right, bottom + cell_h * len(instances) + top
    fig = plt.figure(figsize=(width, height))
    ax = fig.add_axes((left / width, bottom / height, cell_w * len(order) / width, cell_h * len(instances) / height))
    cax = fig.add_axes(((width - right + 0.15) / width, bottom / height, 0.15 / width,
                        cell_h * len(instances) / height))
    for (i_row, r), c in zip(cells.iterrows(), colours):
        grid[pos[r["instance"]], col[r["algorithm"]]] = c
    vmax = max(1.0, float(np.nanmax(grid))) if np.isfinite(grid).any() else 1.0
    image = ax.imshow(grid, cmap="viridis_r", vmin=0.0, vmax=vmax, aspect="auto")
    for _, r in cells.iterrows():
        i, j = pos[r["instance"]], col[r["algorithm"]]
        ranked = bool(r["ranked"])
        text = ("not run" if not r["runs"] else sig(r["ratio_to_best"] if ranked else r["mean"])
                + ("†" if r["reduction"] and ranked else ""))
        dark = ranked and np.isfinite(grid[i, j]) and grid[i, j] > 0.55 * vmax
        ax.text(j, i, text, ha="center", va="center", fontsize=6.5, color="white" if dark else "black")
        if not ranked:
            ax.add_patch(plt.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, hatch="///", edgecolor="0.6", lw=0))
        if bool(r["tied_with_best"]):
            ax.add_patch(plt.Rectangle((j - 0.47, i - 0.47), 0.94, 0.94, fill=False, edgecolor="red", lw=1.4))
    ax.set_xticks(range(len(order)), [algorithm_label(a) for a in order], rotation=60, ha="right", fontsize=8)
    labels = []
    for instance in instances:
        first = cells[cells["instance"] == instance].iloc[0]
        labels.append(f"{first['paper']} {first['panel']}: {first['dataset']}")
    ax.set_yticks(range(len(instances)), labels, fontsize=7.5)
    bar = fig.colorbar(image, cax=cax)
    bar.set_label("log10(mean / best)", fontsize=8)
    fig.suptitle(title, fontsize=9, x=0.02, ha="left", y=1 - 0.15 / height, va="top")
    return fig


def ranking_figure(ranking: pd.DataFrame, title: str):
    """The ranking figure (see the module docstring)."""
    r = ranking.dropna(subset=["mean_rank"]).reset_index(drop=True)
    fig, ax = plt.subplots(figsize=(6.4, 0.8 + 0.32 * len(r)))
    y = np.arange(len(r))
    for i, row in r.iterrows():
        c = algorithm_colour(row["algorithm"])
        ax.plot([row["rank_lower"], row["rank_upper"]], [i, i], color=c, lw=2.2, solid_capstyle="butt")
        ax.plot([row["mean_rank"]], [i], "o", color=c, ms=5)
    ax.set_yticks(y, [algorithm_label(a) for a in r["algorithm"]], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("mean rank over the instances (1 = smallest final regret)")
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    return fig


def draw(ctx: StepContext) -> dict:
    """Outputs ``heatmap_pdf|png`` and ``ranking_pdf|png`` from inputs ``cells`` and ``ranking``."""
    s = ctx.settings
    cells = pd.read_csv(ctx.input.cells, dtype={"param_hash": str}, keep_default_na=False,
                        na_values={c: [""] for c in ("mean", "ratio_to_best", "rank", "rank_lower", "rank_upper")})
    ranking = pd.read_csv(ctx.input.ranking)
    order = [a for a in ranking["algorithm"] if a in set(cells["algorithm"])]
    order += [a for a in algorithm_names(s) if a not in order]
    save_figure(heatmap(cells, order, f"Mean final regret over the best of each instance (fidelity {s['fidelity']}).\n"
                                      "Red frame: the best or not separated from it (Holm, 5 % per instance); "
                                      "hatched: not run or not ranked; † fewer runs"),
                [ctx.output.heatmap_pdf, ctx.output.heatmap_png])
    save_figure(ranking_figure(ranking, f"Mean rank with bootstrap 95 % interval (fidelity {s['fidelity']})"),
                [ctx.output.ranking_pdf, ctx.output.ranking_png])
    return {"instances": int(cells["instance"].nunique())}


def items(s: Mapping, out: Mapping[str, str]) -> list[Item]:
    """The table, the separations and the two figures (the suite's own, not a paper's)."""
    n_inst = len(s["instances"])
    alg = len(algorithm_names(s))
    proto = ("each instance under its paper's protocol (horizon, runs, seed, regret kind); a cell the paper runs is "
             "its own curve, every other cell runs the registry's default parameters")
    return [
        Item("table", "table", "Benchmark: every algorithm on every published regret instance",
             f"Mean final regret of {alg} algorithms on the {n_inst} regret instances of the papers, {proto}. Per cell: "
             "the mean with its 95 % t interval, the ratio to the instance's best with its delta-method interval, "
             "whether it is separated from the best (Holm over the instance's pairs, family-wise 5 %), and its rank "
             "with a bootstrap 95 % interval over runs. Reduced cells are marked with their declared reason.",
             (out["cells"], out["table_md"])),
        Item("separation", "table", "Benchmark: which pairs of algorithms each instance separates",
             "Every pair of ranked cells of an instance: the ratio of mean final regrets (the difference when a mean "
             "is 0) with its 95 % interval, two-sided p-value of equal means, Holm-adjusted over the instance's pairs; "
             "for a pair not separated, the runs per cell that would separate it with power 0.8 if its estimated "
             "difference were the true one.", (out["separation"],)),
        Item("heatmap", "figure", "Benchmark: final regret relative to the best, per instance and algorithm",
             "Colour: log10 of the mean final regret over the instance's best; number: that ratio (3 significant "
             "digits). Red frame: the best or not separated from it. Hatched: not ranked, either declared not run "
             "before any cell ran (the cost pass) or run at a shorter horizon than its instance (its mean regret is "
             f"printed). † fewer runs than the protocol. {proto[0].upper() + proto[1:]}.", (out["heatmap_png"],)),
        Item("ranking", "figure", "Benchmark: overall ranking with its uncertainty",
             "Each algorithm's mean rank over the instances where every algorithm is ranked (1 = smallest final "
             "regret), with the 95 % percentile interval of a bootstrap over runs (the same replicates for every "
             "instance's ranks).", (out["ranking_png"],)),
    ]

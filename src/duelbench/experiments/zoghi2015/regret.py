"""Regret figures of Zoghi, Karnin, Whiteson & de Rijke (2015): Figures 1-3 and the gap variant.

Paper text ``shared/papers/001_46dfb6e9ef9a8784.txt`` (``Lnnn``), Appendix A (L380-L406):
cumulative regret (Definition 1, kind ``copeland_zoghi``; Z3) against t on a log axis.

* Figure 1: the 5-armed MSLR problem without a Condorcet winner (``mslr5_noncondorcet``, Z1);
  CCB, SCB, Copeland SAVAGE, RUCB.
* Figure 2: the 500-armed synthetic problem (``zoghi_copeland500``, Z2); CCB, SCB, RUCB.
* Figure 3: the 5-armed Condorcet example (``mslr5_condorcet``, Z1); CCB, RUCB.
* Gap sensitivity (labelled variant, not a paper figure): the 500-arm generator with gaps
  0.2 and 0.4.

Each figure comes from ordinary simulation shards (:func:`duelbench.engine.jobs.plan_shards`,
planned by :func:`.config.regret_shards`), so runs are shared with any
other experiment that requests the same shards. Algorithms that need the horizon in advance
(SAVAGE, ``needs_horizon``) are run once per point of a log grid of horizons (the engine's
horizon mode), and once more at ``T/2`` so that the regret at T can be compared with an
independent run at T/2 (paper L392: "SAVAGE's cumulative regret at time 2x10^7 is lower than at
time 10^7"); they are drawn as markers, one per horizon. Every run r of every horizon starts from
the same random stream, so the horizon points are separate runs with common random numbers, not
continuations.

Outputs: ``regret.csv`` (columns of :data:`duelbench.experiments.aggregate.CURVE_COLUMNS`;
kinds ``copeland_zoghi`` (Definition 1, plotted) and ``copeland`` (half of it, the
normalisation of Komiyama et al.)), one figure per item, and ``throughput.csv``
(:func:`.timing.throughput_table`; host dependent).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from duelbench.engine.jobs import group_shards, ShardSpec

from .. import plotting
from ..aggregate import CURVE_COLUMNS, load_group, summarise, write_table
from ..contract import StepContext
from ..plotting import algorithm_style, save_figure
from .config import ITEM_TITLES, KINDS, REGRET_ITEMS, item_settings, needs_horizon, regret_shards
from .timing import throughput_table


def regret_table(s: Mapping, specs_by_item: Mapping[str, Sequence[ShardSpec]]):
    """All curves of all items (``CURVE_COLUMNS``), rows ordered by dataset, algorithm, kind, t.

    For horizon-mode algorithms the T/2 job contributes its final point only (the other points
    of its grid are runs at other horizons, already covered by the job at T).
    """
    frames = []
    seen = set()
    for item in REGRET_ITEMS:
        T = item_settings(s, item)["horizon"]
        for key, group in group_shards(specs_by_item[item]).items():
            if key in seen:
                continue
            seen.add(key)
            table = summarise(load_group(group, KINDS), param_hash=group[0].param_hash, kinds=KINDS)
            if key[3] != T:  # the T/2 job of a horizon-mode algorithm
                table = table[table["t"] == key[3]]
            frames.append(table)
    table = pd.concat(frames, ignore_index=True)[CURVE_COLUMNS]
    order = {k: i for i, k in enumerate(KINDS)}
    table = table.assign(_k=table["kind"].map(order)).sort_values(
        ["dataset", "algorithm", "param_hash", "_k", "t"], kind="stable").drop(columns="_k")
    table = table.drop_duplicates(subset=["dataset", "algorithm", "param_hash", "kind", "t"], keep="first")
    return table.reset_index(drop=True)


#: Per item, the curves the y range is fitted to: the comparison each figure makes in the text
#: (Figure 1: CCB against SAVAGE, L387, L392; Figure 2 and the gap variant: SCB against CCB, L399;
#: Figure 3: CCB against RUCB, L403). Curves rising above (SCB and RUCB's linear regret in Figure 1,
#: which the paper truncates, L392) are marked where they leave the frame.
FRAME_ALGORITHMS = {"figure1": ("ccb", "copeland_savage"), "figure2": ("ccb", "scb"),
                    "figure3": ("ccb", "rucb"), "sensitivity": ("ccb", "scb")}


def item_frame(n: int) -> plotting.Frame:
    """The frame of one item: ``n`` semilog panels in a row, one y label, the footer under them.

    Parameters
    ----------
    n : int
        Number of the item's datasets, a panel each.

    Returns
    -------
    plotting.Frame
        Its legend of at most five columns above the panels; no markers on short curves (the
        horizon-mode algorithms are drawn as error bars).
    """
    return plotting.Frame(grid=(1, n), size=(5.0 * n, 3.8), xlabel="time step t",
                          ylabel="cumulative regret (Definition 1)", xscale="log", rect=(0, 0.08, 1, 0.97),
                          first_ylabel=True, legend_columns=5, footer_y=0.01, sparse_markers=False)


def item_curves(sub, it: Mapping, item: str) -> list[plotting.Curve]:
    """The curves of ``it["algorithms"]`` found in ``sub`` (one dataset's rows): horizon-mode
    algorithms as error bars at their independent horizons, the compared curves
    (:data:`FRAME_ALGORITHMS`) on top of the others.

    Parameters
    ----------
    sub : pandas.DataFrame
        Rows of ``regret.csv`` of one dataset and the plotted kind.
    it : mapping
        The item's settings (:func:`.config.item_settings`).
    item : str
        The item.

    Returns
    -------
    list of plotting.Curve
    """
    out = []
    for alg in it["algorithms"]:
        curve = sub[(sub["algorithm"] == alg.name) & (sub["param_hash"] == alg.param_hash)].sort_values("t")
        if curve.empty:
            continue
        style = algorithm_style(alg.name)
        label = alg.label or style["label"]
        style = {k: v for k, v in style.items() if k != "label"}
        compared, bars = alg.name in FRAME_ALGORITHMS.get(item, ()), needs_horizon(alg.name)
        out.append(plotting.Curve(label, style, curve["t"].to_numpy(dtype=float),
                                  curve["mean"].to_numpy(dtype=float), curve["stderr"].to_numpy(dtype=float),
                                  compared=compared, width=1.6, band_alpha=0.2,
                                  zorder=None if bars else 3 if compared else 2, errorbars=bars))
    return out


def plot_item(table, s: Mapping, item: str, out_paths: Sequence[str], *, fidelity: str) -> None:
    """Draw one item: a panel per dataset, mean +- 1 s.e. (shaded), log x, linear y framed to the
    curves of :data:`FRAME_ALGORITHMS`; horizon-mode algorithms as markers with error bars at
    their independent horizons (:func:`..plotting.curve_panels`)."""
    it = item_settings(s, item)
    data = table[table["kind"] == KINDS[0]]
    panels = it["datasets"]
    title = ITEM_TITLES[item].split(": ", 1)[-1]
    drawn = [plotting.Panel(f"{title}\n[{dataset}]" if len(panels) == 1 else dataset, None,
                            item_curves(data[data["dataset"] == dataset], it, item)) for dataset in panels]
    footer = (f"{ITEM_TITLES[item]}\nmean ± 1 s.e. over {it['runs']} runs, T = {it['horizon']:.3g}, "
              f"fidelity {fidelity}")
    save_figure(plotting.curve_panels(item_frame(len(panels)), drawn, None, footer), out_paths)


def final_values(specs: Sequence[ShardSpec], kind: str = KINDS[0]) -> np.ndarray:
    """Per-run cumulative regret at the horizon of one (dataset, algorithm) job."""
    return np.asarray(load_group(specs, KINDS).final(kind), dtype=float)


def run_curves(specs: Sequence[ShardSpec], kind: str = KINDS[0]) -> tuple[np.ndarray, np.ndarray]:
    """(checkpoints, per-run cumulative regret, runs x checkpoints) of one job, runs in order."""
    r = load_group(specs, KINDS)
    return np.asarray(r.checkpoints, dtype=np.int64), np.asarray(r.regret_of(kind), dtype=float)


def mean_curve(specs: Sequence[ShardSpec], kind: str = KINDS[0]) -> tuple[np.ndarray, np.ndarray]:
    """(checkpoints, mean cumulative regret) of one job."""
    r = load_group(specs, KINDS)
    return np.asarray(r.checkpoints, dtype=np.int64), np.asarray(r.mean(kind), dtype=float)


# --------------------------------------------------------------------------------------------
# steps
# --------------------------------------------------------------------------------------------
def aggregate(ctx: StepContext) -> dict:
    """``regret.csv`` and ``throughput.csv`` (host dependent: from the sidecars of the shards
    this build computed; shards read from the results archive have none) from the simulation
    shards."""
    by_item = regret_shards(ctx.settings)
    table = regret_table(ctx.settings, by_item)
    write_table(table, ctx.output.regret_csv)
    thr, _ = throughput_table(by_item)
    write_table(thr, ctx.output.throughput_csv)
    print(f"{len(ctx.plan.shards)} shards -> {len(table)} curve rows")
    for _, r in thr.iterrows():
        print(f"  {r['item']:12s} {r['dataset']:24s} K={r['K']:4d} {r['algorithm']:16s} T={r['horizon']:>10d} "
              f"{r['steps_per_second']:.4g} steps/s ({r['source']})")
    return {"kinds": list(KINDS), "rows": int(len(table))}


def figures(ctx: StepContext) -> dict:
    """Figures 1-3 and the sensitivity figure from ``regret.csv``."""
    table = pd.read_csv(ctx.input.regret_csv, dtype={"param_hash": str})
    for item in REGRET_ITEMS:
        plot_item(table, ctx.settings, item, [ctx.output[f"{item}_pdf"], ctx.output[f"{item}_png"]],
                  fidelity=ctx.settings["fidelity"])
    return {"kind": KINDS[0]}

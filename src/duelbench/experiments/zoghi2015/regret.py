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

import matplotlib.pyplot as plt
import pandas as pd

from duelbench.engine.jobs import group_shards, ShardSpec

from ..aggregate import CURVE_COLUMNS, load_group, summarise, write_table
from ..contract import StepContext
from ..plotting import algorithm_style, frame_curves, frame_top, save_figure
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


def plot_item(table, s: Mapping, item: str, out_paths: Sequence[str], *, fidelity: str) -> None:
    """Draw one item: a panel per dataset, mean +- 1 s.e. (shaded), log x, linear y framed to the
    curves of :data:`FRAME_ALGORITHMS`; horizon-mode algorithms as markers with error bars at
    their independent horizons."""
    it = item_settings(s, item)
    kind = KINDS[0]
    data = table[table["kind"] == kind]
    panels = it["datasets"]
    fig, axes = plt.subplots(1, len(panels), figsize=(5.0 * len(panels), 3.8), squeeze=False)
    handles = {}
    for ax, dataset in zip(axes[0], panels):
        sub = data[data["dataset"] == dataset]
        framed, drawn = [], []
        for alg in it["algorithms"]:
            curve = sub[(sub["algorithm"] == alg.name) & (sub["param_hash"] == alg.param_hash)].sort_values("t")
            if curve.empty:
                continue
            t = curve["t"].to_numpy(dtype=float)
            mean = curve["mean"].to_numpy(dtype=float)
            se = np.nan_to_num(curve["stderr"].to_numpy(dtype=float))
            style = algorithm_style(alg.name)
            if alg.label:
                style["label"] = alg.label
            if needs_horizon(alg.name):
                line = ax.errorbar(t, mean, yerr=se, fmt="o", ms=4, capsize=2, color=style["color"],
                                   label=style["label"], lw=0.8)
                ax.plot(t, mean, color=style["color"], lw=0.6, ls=":")
            else:  # the compared curves on top
                z = 3 if alg.name in FRAME_ALGORITHMS.get(item, ()) else 2
                (line,) = ax.plot(t, mean, lw=1.6, zorder=z, **style)
                ax.fill_between(t, mean - se, mean + se, color=style["color"], alpha=0.2, lw=0)
            handles.setdefault(style["label"], line)
            drawn.append((style["label"], style["color"], t, mean))
            if alg.name in FRAME_ALGORITHMS.get(item, ()):
                framed.append(float(np.max(mean + se)))
        ax.set_xscale("log")
        frame_curves(ax, frame_top(framed), drawn)
        ax.set_title(f"{ITEM_TITLES[item].split(': ', 1)[-1]}\n[{dataset}]" if len(panels) == 1 else dataset,
                     fontsize=9)
        ax.set_xlabel("time step t")
        ax.grid(True, which="major", alpha=0.3)
        if sub.empty:
            ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)
    axes[0][0].set_ylabel("cumulative regret (Definition 1)")
    if handles:
        fig.legend(list(handles.values()), list(handles), loc="upper center", ncol=min(len(handles), 5),
                   frameon=False, bbox_to_anchor=(0.5, 1.0), fontsize=8)
    runs = it["runs"]
    fig.suptitle(f"{ITEM_TITLES[item]}\nmean ± 1 s.e. over {runs} runs, T = {it['horizon']:.3g}, fidelity {fidelity}",
                 y=0.01, va="bottom", fontsize=7, color="#555555")
    fig.tight_layout(rect=(0, 0.08, 1, 0.97))
    save_figure(fig, out_paths)


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

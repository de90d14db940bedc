"""Regret curves of Agarwal et al. (2022): the shards aggregated into ``regret.csv`` and
``final_regret.csv``, and Figures 1-2 (2 x 2 panels, linear axes as the paper, @33550, @46044)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from duelbench.engine.jobs import group_shards
from duelbench.report.numerics import column_fmeans, column_fsems

from .. import plotting
from ..aggregate import write_table
from ..contract import StepContext
from ..plotting import algorithm_style, panel_title, save_figure
from .config import KIND, PANELS, curve_list

REGRET_COLUMNS = ["panel", "dataset", "curve", "algorithm", "label", "param_hash", "batches", "t", "mean", "stderr",
                  "n_runs"]
FINAL_COLUMNS = ["panel", "dataset", "curve", "algorithm", "param_hash", "batches", "run", "regret"]


def _mean_rows(key: dict, cps, regret: np.ndarray) -> list[dict]:
    n = regret.shape[0]
    mean, se = column_fmeans(regret), column_fsems(regret)
    return [{**key, "t": int(t), "mean": float(m), "stderr": float(e), "n_runs": n}
            for t, m, e in zip(cps, mean.tolist(), se.tolist())]


def aggregate(ctx: StepContext) -> dict:
    """Step ``aggregate``: ``regret.csv`` (all runs), ``regret_figure.csv`` (the figures' runs) and
    ``final_regret.csv``."""
    s = ctx.settings
    groups = group_shards(ctx.plan.shards)
    nfig = int(s["figure_runs"])
    curve_rows, figure_rows, final_rows, cs = [], [], [], curve_list(s)
    for p, dataset in s["panels"].items():
        for c in cs:
            res = ctx.load(groups[(dataset, c.algorithm, c.entry.param_hash, int(s["horizon"]))])
            regret = res.regret_of(KIND)
            cps = res.checkpoints.tolist()
            key = {"panel": p, "dataset": dataset, "curve": c.id, "algorithm": c.algorithm, "label": c.entry.label,
                   "param_hash": c.entry.param_hash, "batches": c.batches if c.batches is not None else ""}
            curve_rows += _mean_rows(key, cps, regret)
            figure_rows += _mean_rows(key, cps, regret[:nfig])
            final_rows += [{k: key[k] for k in FINAL_COLUMNS if k in key} | {"run": int(r), "regret": float(v)}
                           for r, v in zip(res.run_indices.tolist(), regret[:, -1].tolist())]
            print(f"{p} {c.id}: {res.runs} runs, mean R(T) {float(regret[:, -1].mean()):.6g}", flush=True)
    write_table(pd.DataFrame(curve_rows, columns=REGRET_COLUMNS), ctx.output.regret, REGRET_COLUMNS)
    write_table(pd.DataFrame(figure_rows, columns=REGRET_COLUMNS), ctx.output.regret_figure, REGRET_COLUMNS)
    write_table(pd.DataFrame(final_rows, columns=FINAL_COLUMNS), ctx.output.final, FINAL_COLUMNS)
    return {"shards": len(ctx.plan.shards)}


#: The frame of Figures 1 and 2 (@33550, @46044): 2 x 2 panels, linear axes as the paper.
FRAME = plotting.Frame(grid=(2, 2), size=(10.4, 8.2), xlabel="t", ylabel="regret R(t)", scientific=True,
                       legend_space=0.5)


def draw_panels(regret: pd.DataFrame, s, shown: list[tuple[str, str, dict]], compared: set[str], footer: str):
    """2 x 2 panels of mean R(t) ± 1 s.e. (``regret``: the figures' runs); ``shown`` lists (curve id,
    label, line style) in legend order, ``compared`` the curve ids the frame is fitted to."""
    panels = []
    for k, p in enumerate(PANELS):
        sub = regret[regret["panel"] == p]
        drawn = []
        for cid, label, style in shown:
            cur = sub[sub["curve"] == cid].sort_values("t")
            if not cur.empty:
                drawn.append(plotting.Curve(label, style, cur["t"].to_numpy(float), cur["mean"].to_numpy(float),
                                            cur["stderr"].to_numpy(float), compared=cid in compared))
        panels.append(plotting.Panel(panel_title(k, PANELS[p], s["panels"][p]), (0, int(s["horizon"])), drawn))
    return plotting.curve_panels(FRAME, panels, [label for _, label, _ in shown], footer)


def _footer(s, what: str, shown) -> str:
    """The figure's footnote; BTM's markers are explained only where BTM is drawn."""
    btm = any(cid == "btm" for cid, _, _ in shown)
    return (f"Agarwal et al. (2022) {what}: mean cumulative regret R(t) ± 1 s.e. over runs 0-{int(s['figure_runs']) - 1} "
            f"(the paper's 10), T = {int(s['horizon'])}, fidelity {s['fidelity']}"
            + ("; BTM: one run per horizon point (markers)" if btm else ""))


def figure1(ctx: StepContext) -> dict:
    """Step ``figure1``: the six algorithms of Figure 1. The frame is fitted to the batched
    algorithms and RMED1, the curves the paper's claims compare."""
    s = ctx.settings
    regret = pd.read_csv(ctx.input.regret_figure, dtype={"param_hash": str})
    fig1 = [c for c in curve_list(s) if "figure1" in c.roles]
    shown = [(c.id, c.entry.label, {k: v for k, v in algorithm_style(c.algorithm).items() if k != "label"})
             for c in fig1]
    compared = {c.id for c in fig1 if c.algorithm != "btm"}
    save_figure(draw_panels(regret, s, shown, compared, _footer(s, "Figure 1", shown)), [ctx.output.pdf, ctx.output.png])
    return {"figure": "figure1"}


#: Line styles of Figure 2's B values, from few to many batches.
B_STYLES = ("--", "-.", "-", ":")


def figure2(ctx: StepContext) -> dict:
    """Step ``figure2``: SCOMP2 for each B of ``figure2.batches`` against RMED1."""
    s = ctx.settings
    f2 = s["figure2"]
    regret = pd.read_csv(ctx.input.regret_figure, dtype={"param_hash": str})
    style = algorithm_style(f2["algorithm"])
    shown = [(f"{f2['algorithm']}_b{int(B)}", f"{style['label']}, B={int(B)}",
              {"color": style["color"], "linestyle": B_STYLES[k % 4],
               "alpha": 0.45 + 0.55 * (k + 1) / len(f2["batches"])})
             for k, B in enumerate(sorted(f2["batches"]))]
    base = {k: v for k, v in algorithm_style(f2["baseline"]).items() if k != "label"}
    shown = [(f2["baseline"], algorithm_style(f2["baseline"])["label"], base)] + shown
    save_figure(draw_panels(regret, s, shown, {cid for cid, _, _ in shown}, _footer(s, "Figure 2", shown)),
                [ctx.output.pdf, ctx.output.png])
    return {"figure": "figure2"}

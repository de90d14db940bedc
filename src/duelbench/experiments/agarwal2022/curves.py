"""Regret curves of Agarwal et al. (2022): the shards aggregated into ``regret.csv`` and
``final_regret.csv``, and Figures 1-2 (2 x 2 panels, linear axes as the paper, @33550, @46044)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from duelbench.engine.jobs import group_shards
from duelbench.provenance.joblog import log_to
from ..aggregate import write_table
from ..contract import StepContext
from . import KIND, NAME, PANELS, curve_list, curve_settings

REGRET_COLUMNS = ["panel", "dataset", "curve", "algorithm", "label", "param_hash", "batches", "t", "mean", "stderr",
                  "n_runs"]
FINAL_COLUMNS = ["panel", "dataset", "curve", "algorithm", "param_hash", "batches", "run", "regret"]


def _mean_rows(key: dict, cps, regret: np.ndarray) -> list[dict]:
    n = regret.shape[0]
    mean = regret.mean(axis=0)
    se = regret.std(axis=0, ddof=1) / math.sqrt(n) if n > 1 else np.full(mean.shape, math.nan)
    return [{**key, "t": int(t), "mean": float(m), "stderr": float(e), "n_runs": n}
            for t, m, e in zip(cps, mean.tolist(), se.tolist())]


def aggregate(ctx: StepContext) -> None:
    """Step ``aggregate``: ``regret.csv`` (all runs), ``regret_figure.csv`` (the figures' runs) and
    ``final_regret.csv`` (+ sidecars)."""
    from duelbench.provenance.sidecar import Timer, write_sidecar

    s = ctx.settings
    source = dict(zip((sp.path for sp in ctx.plan.shards), ctx.input.shards))
    groups = group_shards(ctx.plan.shards)
    nfig = int(s["figure_runs"])
    curve_rows, figure_rows, final_rows, cs = [], [], [], curve_list(s)
    with log_to(ctx.log), Timer() as t:
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
    for path in (ctx.output.regret, ctx.output.regret_figure, ctx.output.final):
        write_sidecar(path, inputs=sorted(source.values()), config=curve_settings(s), seeds={"seed": int(s["seed"])},
                      extra={"experiment": NAME, "shards": len(source)}, **t.as_kwargs())


def draw_panels(regret: pd.DataFrame, s, shown: list[tuple[str, str, dict]], compared: set[str], footer: str):
    """2 x 2 panels of mean R(t) ± 1 s.e. (``regret``: the figures' runs); ``shown`` lists (curve id,
    label, line style) in legend order, ``compared`` the curve ids the frame is fitted to."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..plotting import frame_curves, frame_top, panel_title

    fig, axes = plt.subplots(2, 2, figsize=(10.4, 8.2))
    handles = {}
    data = regret
    for k, p in enumerate(PANELS):
        ax = axes[k // 2][k % 2]
        sub = data[data["panel"] == p]
        drawn, tops = [], []
        for cid, label, style in shown:
            cur = sub[sub["curve"] == cid].sort_values("t")
            if cur.empty:
                continue
            tt, m = cur["t"].to_numpy(float), cur["mean"].to_numpy(float)
            se = np.nan_to_num(cur["stderr"].to_numpy(float))
            sparse = len(tt) < 20  # BTM: one independent run per horizon point
            (line,) = ax.plot(tt, m, lw=1.4, marker="o" if sparse else None, ms=3, label=label, **style)
            ax.fill_between(tt, m - se, m + se, color=style["color"], alpha=0.18, lw=0)
            handles.setdefault(label, line)
            drawn.append((label, style["color"], tt, m))
            if cid in compared:
                tops.append(float(np.max(m + se)))
        ax.set_xlim(0, int(s["horizon"]))
        frame_curves(ax, frame_top(tops), drawn)
        ax.set_title(panel_title(k, PANELS[p], s["panels"][p]), fontsize=9)
        ax.set_xlabel("t")
        ax.set_ylabel("regret R(t)")
        ax.grid(True, alpha=0.3)
        ax.ticklabel_format(axis="both", style="sci", scilimits=(-3, 4))
        if sub.empty:
            ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)
    labels = [label for _, label, _ in shown if label in handles]
    fig.legend([handles[label] for label in labels], labels, loc="upper center", ncol=min(len(labels), 6),
               frameon=False, fontsize=8, bbox_to_anchor=(0.5, 1.0))
    fig.suptitle(footer, y=0.005, va="bottom", fontsize=7, color="#555555")
    fig.tight_layout(rect=(0, 0.3 / fig.get_figheight(), 1, 1 - 0.5 / fig.get_figheight()))
    return fig


def _save(ctx: StepContext, fig) -> None:
    from ..plotting import save_figure

    save_figure(fig, [ctx.output.pdf, ctx.output.png])


def _sidecars(ctx: StepContext, which: str, timer) -> None:
    """The figure's sidecars, with the time the step took to draw and save it (``timer``)."""
    from duelbench.provenance.sidecar import write_sidecar

    for path in (ctx.output.pdf, ctx.output.png):
        write_sidecar(path, inputs=[ctx.input.regret_figure], config=curve_settings(ctx.settings),
                      seeds={"seed": int(ctx.settings["seed"])}, extra={"experiment": NAME, "figure": which},
                      **timer.as_kwargs())


def _footer(s, what: str, shown) -> str:
    """The figure's footnote; BTM's markers are explained only where BTM is drawn."""
    btm = any(cid == "btm" for cid, _, _ in shown)
    return (f"Agarwal et al. (2022) {what}: mean cumulative regret R(t) ± 1 s.e. over runs 0-{int(s['figure_runs']) - 1} "
            f"(the paper's 10), T = {int(s['horizon'])}, fidelity {s['fidelity']}"
            + ("; BTM: one run per horizon point (markers)" if btm else ""))


def figure1(ctx: StepContext) -> None:
    """Step ``figure1``: the six algorithms of Figure 1 (+ sidecars). The frame is fitted to the
    batched algorithms and RMED1, the curves the paper's claims compare."""
    from duelbench.provenance.sidecar import Timer

    from ..plotting import algorithm_style

    s = ctx.settings
    with log_to(ctx.log), Timer() as t:
        regret = pd.read_csv(ctx.input.regret_figure, dtype={"param_hash": str})
        fig1 = [c for c in curve_list(s) if "figure1" in c.roles]
        shown = [(c.id, c.entry.label, {k: v for k, v in algorithm_style(c.algorithm).items() if k != "label"})
                 for c in fig1]
        compared = {c.id for c in fig1 if c.algorithm != "btm"}
        _save(ctx, draw_panels(regret, s, shown, compared, _footer(s, "Figure 1", shown)))
    _sidecars(ctx, "figure1", t)


#: Line styles of Figure 2's B values, from few to many batches.
B_STYLES = ("--", "-.", "-", ":")


def figure2(ctx: StepContext) -> None:
    """Step ``figure2``: SCOMP2 for each B of ``figure2.batches`` against RMED1 (+ sidecars)."""
    from duelbench.provenance.sidecar import Timer

    from ..plotting import algorithm_style

    s = ctx.settings
    f2 = s["figure2"]
    with log_to(ctx.log), Timer() as t:
        regret = pd.read_csv(ctx.input.regret_figure, dtype={"param_hash": str})
        style = algorithm_style(f2["algorithm"])
        shown = [(f"{f2['algorithm']}_b{int(B)}", f"{style['label']}, B={int(B)}",
                  {"color": style["color"], "linestyle": B_STYLES[k % 4],
                   "alpha": 0.45 + 0.55 * (k + 1) / len(f2["batches"])})
                 for k, B in enumerate(sorted(f2["batches"]))]
        base = {k: v for k, v in algorithm_style(f2["baseline"]).items() if k != "label"}
        shown = [(f2["baseline"], algorithm_style(f2["baseline"])["label"], base)] + shown
        _save(ctx, draw_panels(regret, s, shown, {cid for cid, _, _ in shown}, _footer(s, "Figure 2", shown)))
    _sidecars(ctx, "figure2", t)

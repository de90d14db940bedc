"""Regret curves of Komiyama et al. (2016): the simulation shards aggregated into ``regret.csv``
and ``final_regret.csv``, and Figures 1-2 (regret-round semilog plots with ``LB ln t`` and
``ECWB ln t``, L249, L464)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np

from duelbench.engine.jobs import group_shards
from duelbench.report.numerics import column_fmeans, column_fsems, flog, row_ols_slopes

from ..contract import StepContext
from ..plotting import algorithm_style, frame_curves, frame_top, panel_title, save_figure
from ..tables import read_rows, to_float, write_rows
from .config import Curve, curves, panel_specs, robustness_specs
from .tables import read_regret

REGRET_COLUMNS = ["dataset", "algorithm", "label", "param_hash", "variant", "t", "mean", "stderr", "n_runs"]
FINAL_COLUMNS = ["dataset", "study", "algorithm", "label", "param_hash", "variant", "horizon", "run", "final", "slope"]


def run_slopes(checkpoints, regret, horizon: int) -> np.ndarray:
    """Per-run least-squares slope of cumulative regret against ``ln t`` over the checkpoints
    ``t`` in ``[T/10, T]`` (``regret``: runs x checkpoints;
    :func:`duelbench.report.numerics.row_ols_slopes`, the same on every processor).  Their mean is
    the slope of the mean curve (the fit is linear in the regret).  NaN with fewer than two such
    checkpoints."""
    t = np.asarray(checkpoints, dtype=float)
    sel = (t >= horizon / 10) & (t <= horizon)
    y = np.asarray(regret, dtype=float)[:, sel]
    if sel.sum() < 2:
        return np.full(y.shape[0], math.nan)
    return row_ols_slopes(flog(t[sel]), y)


def aggregate(ctx: StepContext) -> dict:
    """Step ``aggregate``: ``regret.csv`` (panel curves) and ``final_regret.csv`` (per-run final
    regret of the panels and the robustness datasets, and each run's slope against ln t over
    [T/10, T], :func:`run_slopes`)."""
    s = ctx.settings
    pspecs, rspecs = panel_specs(s), robustness_specs(s)
    info = {(c.name, c.param_hash): c for c in curves(s)}
    regret_rows, final_rows = [], []
    for study, specs in (("panel", pspecs), ("robustness", rspecs)):
        for (dataset, alg, phash, horizon), group in group_shards(specs).items():
            res = ctx.load(group)
            c = info[(alg, phash)]
            fin = res.final("copeland")
            slopes = run_slopes(res.checkpoints, res.regret_of("copeland"), int(horizon))
            for run, v, sl in zip(res.run_indices.tolist(), fin.tolist(), slopes.tolist()):
                final_rows.append({"dataset": dataset, "study": study, "algorithm": alg, "label": c.label,
                                   "param_hash": phash, "variant": c.variant, "horizon": int(horizon),
                                   "run": int(run), "final": float(v), "slope": float(sl)})
            if study != "panel":
                continue
            regret = res.regret_of("copeland")
            mean, se, n = column_fmeans(regret), column_fsems(regret), res.runs
            for tt, m, e in zip(res.checkpoints.tolist(), mean.tolist(), se.tolist()):
                regret_rows.append({"dataset": dataset, "algorithm": alg, "label": c.label, "param_hash": phash,
                                    "variant": c.variant, "t": int(tt), "mean": float(m),
                                    "stderr": float(e) if n > 1 else math.nan, "n_runs": n})
            print(f"{dataset} {c.label}: {n} runs, final mean {float(np.mean(fin)):.6g}", flush=True)
    write_rows(ctx.output.regret, REGRET_COLUMNS, regret_rows)
    write_rows(ctx.output.final, FINAL_COLUMNS, final_rows)
    return {"shards": len(pspecs) + len(rspecs)}


#: The paper's panel names (Table 3 (a)-(f) and L295); panel letters follow the configured order,
#: which for Figure 1 puts the three MSLR panels first as (a)-(c) (L295). The letters of the other
#: panels and all of Figure 2 are not in the text (the images are not part of it).
PAPER_PANEL_NAMES = {
    "kom_mslr16_condorcet": "MSLR (K = 16, Condorcet)",
    "kom_mslr16_noncondorcet": "MSLR (K = 16, non-Condorcet)",
    "kom_mslr64_noncondorcet": "MSLR (K = 64, non-Condorcet)",
    "sushi": "Sushi (K = 16)",
    "gap": "Gap (K = 5)",
    "multisol": "MultiSol (K = 5)",
    "arxiv": "ArXiv (K = 6)",
    "cyclic": "Cyclic (K = 4)",
    "mslr5_condorcet_printed": "MSLR Fixed (K = 5, Condorcet)",
    "mslr5_noncondorcet_printed": "MSLR Fixed (K = 5, non-Condorcet)",
}
#: The curves the y range is fitted to: the Copeland algorithms compared with the bounds (L307) and
#: LB ln t. Curves rising above (Random, SAVAGE, the Condorcet algorithms without a Condorcet winner,
#: a large ECWB ln t) are marked where they leave the frame (:func:`..plotting.frame_curves`).
FRAME_ALGORITHMS = ("ccb", "ecw_rmed")


def _panel_name(name: str, ds: Mapping | None) -> str:
    if name in PAPER_PANEL_NAMES:
        return PAPER_PANEL_NAMES[name]
    if not ds:
        return name
    cw = ds.get("has_condorcet_winner") == "true"
    return f"K = {ds.get('K')}, {'Condorcet' if cw else 'non-Condorcet'}"


def draw_panels(regret, datasets: Sequence[str], cs: Sequence[Curve], bounds: Mapping, dsinfo: Mapping,
                horizon: int, footer: str):
    """Regret-vs-round semilog panels with ``LB ln t`` and ``ECWB ln t``; returns the figure."""
    n = len(datasets)
    ncols = 2 if n == 4 else min(3, n)
    nrows = math.ceil(n / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.4 * ncols, 3.6 * nrows + 0.9), squeeze=False)
    handles = {}
    tt = np.geomspace(1.0, float(horizon), 200)
    for k, d in enumerate(datasets):
        ax = axes[k // ncols][k % ncols]
        sub = regret[regret["dataset"] == d]
        framed, drawn = [], []
        for c in cs:
            cur = sub[(sub["algorithm"] == c.name) & (sub["param_hash"] == c.param_hash)].sort_values("t")
            if cur.empty:
                continue
            t = cur["t"].to_numpy(float)
            m = cur["mean"].to_numpy(float)
            se = np.nan_to_num(cur["stderr"].to_numpy(float))
            style = algorithm_style(c.name)
            style["label"] = c.label
            if c.variant:
                style["linestyle"] = "--"
            (line,) = ax.plot(t, m, lw=1.5, **style)
            ax.fill_between(t, m - se, m + se, color=style["color"], alpha=0.2, lw=0)
            handles.setdefault(c.label, line)
            drawn.append((c.label, style["color"], t, m))
            if c.name in FRAME_ALGORITHMS:
                framed.append(float(np.max(m + se)))
        b = bounds.get(d)
        if b is not None:
            for key, label, colour, lw in (("ecwb", "ECWB · ln t", "#9a9a9a", 2.4), ("lb", "LB · ln t", "#000000", 1.0)):
                v = to_float(b[key])
                if math.isfinite(v):
                    (line,) = ax.plot(tt, v * flog(tt), color=colour, lw=lw, ls="-", zorder=1)
                    handles.setdefault(label, line)
                    drawn.append((label, colour, tt, v * flog(tt)))
                    if key == "lb":
                        framed.append(v * math.log(tt[-1]))
        ax.set_xscale("log")
        ax.set_xlim(1, horizon)
        frame_curves(ax, frame_top(framed), drawn)
        ax.set_title(panel_title(k, _panel_name(d, dsinfo.get(d)), d), fontsize=9)
        ax.set_xlabel("round t")
        ax.set_ylabel("regret R(t)")
        ax.grid(True, which="major", alpha=0.3)
        if sub.empty:
            ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)
    for k in range(n, nrows * ncols):
        axes[k // ncols][k % ncols].set_visible(False)
    fig.legend(list(handles.values()), list(handles), loc="upper center", ncol=min(len(handles), 5), frameon=False,
               fontsize=8, bbox_to_anchor=(0.5, 1.0))
    fig.suptitle(footer, y=0.005, va="bottom", fontsize=7, color="#555555")
    fig.tight_layout(rect=(0, 0.3 / fig.get_figheight(), 1, 1 - 0.6 / fig.get_figheight()))
    return fig


def figure(ctx: StepContext) -> None:
    """Steps ``figure1`` and ``figure2`` (the step name names the figure)."""
    s, which, i = ctx.settings, ctx.step.name, ctx.input
    out_paths = [ctx.output.pdf, ctx.output.png]
    dsinfo = {r["dataset"]: r for r in read_rows(i.datasets)}
    bounds = {r["matrix"]: r for r in read_rows(i.bounds)}
    footer = (f"Komiyama et al. (2016) {which.replace('figure', 'Figure ')}: mean cumulative Copeland regret "
              f"± 1 s.e. over {int(s['runs'])} runs, T = {int(s['horizon'])}, fidelity {s['fidelity']}; "
              "LB, ECWB: Theorems 2 and 4")
    fig = draw_panels(read_regret(i.regret), list(s[which]), curves(s), bounds, dsinfo, int(s["horizon"]), footer)
    save_figure(fig, out_paths)

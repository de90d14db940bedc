"""Regret curves of Komiyama et al. (2016): the simulation shards aggregated into ``regret.csv``
and ``final_regret.csv``, and Figures 1-2 (regret-round semilog plots with ``LB ln t`` and
``ECWB ln t``, L249, L464)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from .. import group_shards, log_to
from ..contract import StepContext
from . import NAME, Curve, curve_settings, curves, panel_specs, robustness_specs
from .tables import read_regret, read_rows, to_float, write_rows

#: Drawn but left out of the y range of the figures (see Decisions in the package docstring).
RANDOM = "random"
REGRET_COLUMNS = ["dataset", "algorithm", "label", "param_hash", "variant", "t", "mean", "stderr", "n_runs"]
FINAL_COLUMNS = ["dataset", "study", "algorithm", "label", "param_hash", "variant", "horizon", "run", "final"]


def aggregate(ctx: StepContext) -> None:
    """Step ``aggregate``: ``regret.csv`` (panel curves) and ``final_regret.csv`` (per-run final
    regret of the panels and the robustness datasets) + sidecars."""
    from duelbench.provenance.sidecar import Timer, write_sidecar

    s = ctx.settings
    pspecs, rspecs = panel_specs(s), robustness_specs(s)
    source = dict(zip((sp.path for sp in ctx.plan.shards), ctx.input.shards))
    info = {(c.name, c.param_hash): c for c in curves(s)}
    regret_rows, final_rows = [], []
    with log_to(ctx.log), Timer() as t:
        for study, specs in (("panel", pspecs), ("robustness", rspecs)):
            for (dataset, alg, phash, horizon), group in group_shards(specs).items():
                res = ctx.load(group)
                c = info[(alg, phash)]
                fin = res.final("copeland")
                for run, v in zip(res.run_indices.tolist(), fin.tolist()):
                    final_rows.append({"dataset": dataset, "study": study, "algorithm": alg, "label": c.label,
                                       "param_hash": phash, "variant": c.variant, "horizon": int(horizon),
                                       "run": int(run), "final": float(v)})
                if study != "panel":
                    continue
                mean, se, n = res.mean("copeland"), res.stderr("copeland"), res.runs
                for tt, m, e in zip(res.checkpoints.tolist(), mean.tolist(), se.tolist()):
                    regret_rows.append({"dataset": dataset, "algorithm": alg, "label": c.label, "param_hash": phash,
                                        "variant": c.variant, "t": int(tt), "mean": float(m),
                                        "stderr": float(e) if n > 1 else math.nan, "n_runs": n})
                print(f"{dataset} {c.label}: {n} runs, final mean {float(np.mean(fin)):.6g}", flush=True)
        write_rows(ctx.output.regret, REGRET_COLUMNS, regret_rows)
        write_rows(ctx.output.final, FINAL_COLUMNS, final_rows)
    for path, specs in ((ctx.output.regret, pspecs), (ctx.output.final, pspecs + rspecs)):
        write_sidecar(path, inputs=sorted({source[sp.path] for sp in specs}), config=curve_settings(s),
                      seeds={"seed": int(s["seed"])}, extra={"experiment": NAME, "shards": len(specs)}, **t.as_kwargs())


def _panel_title(name: str, ds: Mapping | None) -> str:
    if not ds:
        return name
    cw = ds.get("has_condorcet_winner") == "true"
    status = "Condorcet winner" if cw else f"no Condorcet winner, {ds.get('n_copeland_winners')} Copeland winner(s)"
    return f"{name}\n(K = {ds.get('K')}, {status})"


def draw_panels(regret, datasets: Sequence[str], cs: Sequence[Curve], bounds: Mapping, dsinfo: Mapping,
                horizon: int, footer: str):
    """Regret-vs-round semilog panels with ``LB ln t`` and ``ECWB ln t``; returns the figure."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..plotting import algorithm_style

    n = len(datasets)
    ncols = min(3, n)
    nrows = math.ceil(n / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.4 * ncols, 3.5 * nrows + 0.9), squeeze=False)
    handles = {}
    tt = np.geomspace(1.0, float(horizon), 200)
    for k, d in enumerate(datasets):
        ax = axes[k // ncols][k % ncols]
        sub = regret[regret["dataset"] == d]
        top = 0.0
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
            if c.name != RANDOM:
                top = max(top, float(m[-1] + se[-1]))
        b = bounds.get(d)
        if b is not None:
            for key, label, colour, lw in (("ecwb", "ECWB · ln t", "#9a9a9a", 2.4), ("lb", "LB · ln t", "#000000", 1.0)):
                v = to_float(b[key])
                if math.isfinite(v):
                    (line,) = ax.plot(tt, v * np.log(tt), color=colour, lw=lw, ls="-", zorder=1)
                    handles.setdefault(label, line)
        ax.set_xscale("log")
        ax.set_xlim(1, horizon)
        if top > 0:
            ax.set_ylim(0, 1.2 * top)
        ax.set_title(_panel_title(d, dsinfo.get(d)), fontsize=9)
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
    """Steps ``figure1`` and ``figure2`` (the step name names the figure) (+ sidecars)."""
    from duelbench.provenance.sidecar import Timer, write_sidecar

    from ..plotting import save_figure

    s, which, i = ctx.settings, ctx.step.name, ctx.input
    out_paths = [ctx.output.pdf, ctx.output.png]
    with log_to(ctx.log), Timer() as t:
        dsinfo = {r["dataset"]: r for r in read_rows(i.datasets)}
        bounds = {r["matrix"]: r for r in read_rows(i.bounds)}
        footer = (f"Komiyama et al. (2016) {which.replace('figure', 'Figure ')}: mean cumulative Copeland regret "
                  f"± 1 s.e. over {int(s['runs'])} runs, T = {int(s['horizon'])}, fidelity {s['fidelity']}; "
                  "LB, ECWB: Theorems 2 and 4")
        fig = draw_panels(read_regret(i.regret), list(s[which]), curves(s), bounds, dsinfo, int(s["horizon"]), footer)
        save_figure(fig, out_paths)
    for p in out_paths:
        write_sidecar(p, inputs=[i.regret, i.bounds, i.datasets], config=curve_settings(s),
                      seeds={"seed": int(s["seed"])}, extra={"experiment": NAME, "figure": which}, **t.as_kwargs())

"""Regret curves of Komiyama et al. (2016): the simulation shards aggregated into ``regret.csv``
and ``final_regret.csv``, and Figures 1-2 (regret-round semilog plots with ``LB ln t`` and
``ECWB ln t``, L249, L464)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from duelbench.engine.jobs import group_shards
from duelbench.report.numerics import column_fmeans, column_fsems, flog, row_ols_slopes

from .. import plotting
from ..contract import StepContext
from ..plotting import algorithm_style, panel_title, save_figure
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


#: The bound lines of every panel: (bound, legend label, colour, line width); ECWB under LB.
BOUND_LINES = (("ecwb", "ECWB · ln t", "#9a9a9a", 2.4), ("lb", "LB · ln t", "#000000", 1.0))


def panel_frame(n: int) -> plotting.Frame:
    """The frame of ``n`` semilog panels: three columns (two for four panels), the legend above.

    Parameters
    ----------
    n : int
        Number of the figure's datasets, a panel each.

    Returns
    -------
    plotting.Frame
        Spare axes of the last row are hidden (:func:`..plotting.curve_panels`).
    """
    ncols = 2 if n == 4 else min(3, n)
    nrows = math.ceil(n / ncols)
    return plotting.Frame(grid=(nrows, ncols), size=(4.4 * ncols, 3.6 * nrows + 0.9), xlabel="round t",
                          ylabel="regret R(t)", xscale="log", legend_space=0.6, legend_columns=5,
                          sparse_markers=False)


def bound_lines(bound: Mapping | None, horizon: int) -> list[plotting.Curve]:
    """``ECWB · ln t`` and ``LB · ln t`` over [1, ``horizon``] for the finite constants of
    ``bound`` (a row of the bounds table; None: no lines); the frame holds ``LB · ln t``.

    Parameters
    ----------
    bound : mapping or None
        The row with columns ``ecwb`` and ``lb``.
    horizon : int
        The panel's T.

    Returns
    -------
    list of plotting.Curve
    """
    if bound is None:
        return []
    tt = np.geomspace(1.0, float(horizon), 200)
    lines = []
    for key, label, colour, lw in BOUND_LINES:
        v = to_float(bound[key])
        if math.isfinite(v):
            lines.append(plotting.Curve(label, {"color": colour, "ls": "-"}, tt, v * flog(tt), None,
                                        compared=key == "lb", width=lw, zorder=1))
    return lines


def dataset_curves(sub, cs: Sequence[Curve]) -> list[plotting.Curve]:
    """The curves of ``cs`` found in ``sub`` (one dataset's rows of the regret table), variants
    dashed; the frame holds those of :data:`FRAME_ALGORITHMS`.

    Parameters
    ----------
    sub : pandas.DataFrame
        Rows of ``regret.csv`` of one dataset.
    cs : sequence of Curve
        The configured curves, in legend order.

    Returns
    -------
    list of plotting.Curve
    """
    out = []
    for c in cs:
        cur = sub[(sub["algorithm"] == c.name) & (sub["param_hash"] == c.param_hash)].sort_values("t")
        if cur.empty:
            continue
        style = {k: v for k, v in algorithm_style(c.name).items() if k != "label"}
        if c.variant:
            style["linestyle"] = "--"
        out.append(plotting.Curve(c.label, style, cur["t"].to_numpy(float), cur["mean"].to_numpy(float),
                                  cur["stderr"].to_numpy(float), compared=c.name in FRAME_ALGORITHMS, width=1.5,
                                  band_alpha=0.2))
    return out


def draw_panels(regret, datasets: Sequence[str], cs: Sequence[Curve], bounds: Mapping, dsinfo: Mapping,
                horizon: int, footer: str):
    """Regret-vs-round semilog panels with ``LB ln t`` and ``ECWB ln t``; returns the figure
    (:func:`..plotting.curve_panels`, legend in the order first drawn)."""
    panels = [plotting.Panel(panel_title(k, _panel_name(d, dsinfo.get(d)), d), (1, horizon),
                             dataset_curves(regret[regret["dataset"] == d], cs),
                             references=bound_lines(bounds.get(d), horizon))
              for k, d in enumerate(datasets)]
    return plotting.curve_panels(panel_frame(len(datasets)), panels, None, footer)


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

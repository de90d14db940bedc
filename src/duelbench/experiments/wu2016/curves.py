"""Regret curves of Wu & Liu (2016): the simulation shards aggregated into ``regret.csv``,
``final_regret.csv`` and ``run_slopes.csv``, Figure 1 (two semilog panels, L907-L913, L968), and
the traced runs' table ``traces.csv``."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from duelbench.engine.jobs import group_shards
from duelbench.report.numerics import column_fmeans, column_fsems, flog, row_ols_slopes

from ..aggregate import write_table
from ..contract import StepContext
from ..plotting import Curve, Frame, Panel, algorithm_style, curve_panels, panel_title, save_figure
from ..samples import load_family
from .config import NAME, PANELS, SLOPE_ALGORITHMS, figure2_time, panel_curves, trace_curves, trace_family

REGRET_COLUMNS = ["panel", "dataset", "algorithm", "label", "param_hash", "t", "mean", "stderr", "n_runs"]
FINAL_COLUMNS = ["panel", "dataset", "algorithm", "label", "param_hash", "at", "t", "run", "regret"]
SLOPE_COLUMNS = ["panel", "dataset", "algorithm", "label", "param_hash", "run", "t0", "t", "regret_t0", "regret_t",
                 "slope"]
TRACE_COLUMNS = ["panel", "dataset", "algorithm", "label", "param_hash", "run", "horizon", "regret",
                 "regret_simulated", "eliminated_steps"]
#: The curves the text compares on each panel (L900-L930): the frame is fitted to them away
#: from paper fidelity, where the paper's y range does not apply.
FRAME_ALGORITHMS = ("dts", "dts_plus", "ecw_rmed", "rmed1", "ccb")


def aggregate(ctx: StepContext) -> dict:
    """Step ``aggregate``: ``regret.csv``, ``final_regret.csv`` and ``run_slopes.csv``."""
    s = ctx.settings
    t2 = figure2_time(s)
    curve_rows, final_rows, slope_rows, used = [], [], [], []
    for p, panel in s["panels"].items():
        entries = {(e.name, e.param_hash): e for e in panel_curves(s, p)}
        specs = [sp for sp in ctx.plan.shards if sp.dataset == panel["dataset"]
                 and sp.horizon == int(panel["horizon"]) and (sp.algorithm, sp.param_hash) in entries]
        used += specs
        for (dataset, alg, phash, horizon), group in group_shards(specs).items():
            e, res = entries[(alg, phash)], ctx.load(group)
            key = {"panel": p, "dataset": dataset, "algorithm": alg, "label": e.label, "param_hash": phash}
            cps = res.checkpoints.tolist()
            regret = res.regret_of("copeland")
            for tt, m, se in zip(cps, column_fmeans(regret).tolist(), column_fsems(regret).tolist()):
                curve_rows.append({**key, "t": int(tt), "mean": float(m), "stderr": float(se) if res.runs > 1
                                   else math.nan, "n_runs": res.runs})
            points = [("T", int(horizon))]
            if alg in s["figure2"]["shown"]:
                if t2 not in cps:
                    raise ValueError(f"{NAME}: {alg} on {dataset} has no checkpoint at Figure 2's time {t2}")
                points.append(("figure2", t2))
            for at, tt in points:
                column = regret[:, cps.index(tt)]
                final_rows += [{**key, "at": at, "t": tt, "run": int(r), "regret": float(v)}
                               for r, v in zip(res.run_indices.tolist(), column.tolist())]
            if alg in SLOPE_ALGORITHMS:
                slope_rows += run_slopes(key, np.asarray(cps, dtype=float), regret, res.run_indices)
            print(f"{p} {e.label}: {res.runs} runs, mean at T {float(np.mean(regret[:, -1])):.6g}", flush=True)
    write_table(pd.DataFrame(curve_rows, columns=REGRET_COLUMNS), ctx.output.regret, REGRET_COLUMNS)
    write_table(pd.DataFrame(final_rows, columns=FINAL_COLUMNS), ctx.output.final, FINAL_COLUMNS)
    write_table(pd.DataFrame(slope_rows, columns=SLOPE_COLUMNS), ctx.output.slopes, SLOPE_COLUMNS)
    return {"shards": len(used)}


def slope_window(t: np.ndarray) -> tuple[np.ndarray, int]:
    """(mask of the checkpoints in [T/10, T], index of the checkpoint t0 nearest T/10 on the log
    scale) of the increasing checkpoints ``t`` (T = the last)."""
    t = np.asarray(t, dtype=float)
    return t >= t[-1] / 10, int(np.argmin(np.abs(flog(t) - math.log(t[-1] / 10))))


def run_slopes(key: dict, t: np.ndarray, regret: np.ndarray, runs) -> list[dict]:
    """Rows of ``run_slopes.csv`` for one curve: per run (a row of ``regret``, runs x checkpoints
    ``t``) the regret at t0 and at T and the least-squares slope of the regret against ln t over
    the checkpoints in [T/10, T] (:func:`slope_window`)."""
    sel, k0 = slope_window(t)
    regret = np.asarray(regret, dtype=float)
    slopes = row_ols_slopes(flog(t[sel]), regret[:, sel]) if sel.sum() >= 2 else np.full(len(regret), np.nan)
    return [{**key, "run": int(r), "t0": int(t[k0]), "t": int(t[-1]), "regret_t0": float(y[k0]),
             "regret_t": float(y[-1]), "slope": float(b)}
            for r, y, b in zip(np.asarray(runs).tolist(), regret, slopes.tolist())]


def write_traces(ctx: StepContext) -> dict:
    """Step ``traces``: ``traces.csv``, one row per traced run (:mod:`.traces`), with
    the simulated R(T) of the same run beside the replayed one; a replay that differs from its
    simulation is an error."""
    s = ctx.settings
    rows = []
    final = pd.read_csv(ctx.input.final, dtype={"param_hash": str})
    final = final[final["at"] == "T"]
    for p, panel in s["panels"].items():
        curves = trace_curves(s, p)
        shards = ctx.plan.sample_family(trace_family(p))
        if not curves or not shards:
            continue
        data = load_family(shards)
        runs = int(s["traces"]["runs"])
        arms = sorted(int(c.rsplit("_", 1)[1]) for c in data if c.startswith("first_steps_"))
        for i, sample in enumerate(data["sample"].tolist()):
            e, run = curves[sample // runs], sample % runs
            sim = final[(final["panel"] == p) & (final["algorithm"] == e.name) & (final["run"] == run)]["regret"]
            simulated = float(sim.iloc[0]) if len(sim) else math.nan
            replayed = float(data["regret"][i])
            if len(sim) and float(f"{replayed:.12g}") != simulated:  # the table keeps 12 digits
                raise ValueError(f"{NAME}: traced run {run} of {e.name} on {p} replays R(T) = {replayed!r}, "
                                 f"simulated {simulated!r}")
            row = {"panel": p, "dataset": panel["dataset"], "algorithm": e.name, "label": e.label,
                   "param_hash": e.param_hash, "run": run, "horizon": int(panel["horizon"]), "regret": replayed,
                   "regret_simulated": simulated, "eliminated_steps": float(data["eliminated_steps"][i])}
            for k in arms:
                row[f"first_steps_{k}"] = float(data[f"first_steps_{k}"][i])
                row[f"first_regret_{k}"] = float(data[f"first_regret_{k}"][i])
            rows.append(row)
        print(f"{p}: {len(data['sample'])} traced runs of {', '.join(e.label for e in curves)}", flush=True)
    arms = sorted({int(c.rsplit("_", 1)[1]) for r in rows for c in r if c.startswith("first_steps_")})
    columns = TRACE_COLUMNS + [f"{w}_{k}" for k in arms for w in ("first_steps", "first_regret")]
    write_table(pd.DataFrame(rows, columns=columns), ctx.output.csv, columns)
    return {"traced_runs": len(rows)}


#: Figure 1's frame (L907-L913): two semilog panels side by side.
FIGURE1 = Frame(grid=(1, len(PANELS)), size=(5.2 * len(PANELS), 4.6), xlabel="time t", ylabel="regret (Eq. 1)",
                xscale="log")


def draw_figure1(regret: pd.DataFrame, s, footer: str):
    """Figure 1: one semilog panel per entry of :data:`PANELS`; returns the figure. At paper
    fidelity the top of each frame is the paper's top y tick (``ylim``); elsewhere it is fitted
    to the curves of :data:`FRAME_ALGORITHMS`."""
    panels = []
    for k, p in enumerate(PANELS):
        panel, sub = s["panels"][p], regret[regret["panel"] == p]
        drawn = []
        for e in panel_curves(s, p):
            cur = sub[(sub["algorithm"] == e.name) & (sub["param_hash"] == e.param_hash)].sort_values("t")
            if not cur.empty:
                style = {k: v for k, v in algorithm_style(e.name).items() if k != "label"}
                drawn.append(Curve(e.label, style, cur["t"].to_numpy(float), cur["mean"].to_numpy(float),
                                   cur["stderr"].to_numpy(float), compared=e.name in FRAME_ALGORITHMS))
        top = panel.get("ylim") if s["fidelity"] == "paper" else None
        panels.append(Panel(panel_title(k, PANELS[p], panel["dataset"]), (10, int(panel["horizon"])), drawn,
                            float(top) if top else None))
    return curve_panels(FIGURE1, panels, [e.label for e in panel_curves(s, None)], footer)


def figure1(ctx: StepContext) -> dict:
    """Step ``figure1``: ``figure1.pdf`` and ``figure1.png``."""
    s = ctx.settings
    regret = pd.read_csv(ctx.input.regret, dtype={"param_hash": str})
    footer = (f"Wu & Liu (2016) Figure 1: mean cumulative Copeland regret (Eq. 1) ± 1 s.e. over {int(s['runs'])} "
              f"runs, fidelity {s['fidelity']}; BTM and SAVAGE: one run per horizon point (markers)")
    save_figure(draw_figure1(regret, s, footer), [ctx.output.pdf, ctx.output.png])
    return {"figure": "figure1"}

"""Regret curves of Wu & Liu (2016): the simulation shards aggregated into ``regret.csv``,
``final_regret.csv`` and ``run_slopes.csv``, Figure 1 (two semilog panels, L907-L913, L968), and
the traced runs' table ``traces.csv``."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from duelbench.engine.jobs import group_shards
from duelbench.provenance.joblog import log_to
from ..aggregate import write_table
from ..contract import StepContext
from . import NAME, PANELS, SLOPE_ALGORITHMS, curve_settings, figure2_time, panel_curves, trace_curves, trace_family

REGRET_COLUMNS = ["panel", "dataset", "algorithm", "label", "param_hash", "t", "mean", "stderr", "n_runs"]
FINAL_COLUMNS = ["panel", "dataset", "algorithm", "label", "param_hash", "at", "t", "run", "regret"]
SLOPE_COLUMNS = ["panel", "dataset", "algorithm", "label", "param_hash", "run", "t0", "t", "regret_t0", "regret_t",
                 "slope"]
TRACE_COLUMNS = ["panel", "dataset", "algorithm", "label", "param_hash", "run", "horizon", "regret",
                 "regret_simulated", "eliminated_steps"]
#: The curves the text compares on each panel (L900-L930): the frame is fitted to them away
#: from paper fidelity, where the paper's y range does not apply.
FRAME_ALGORITHMS = ("dts", "dts_plus", "ecw_rmed", "rmed1", "ccb")


def aggregate(ctx: StepContext) -> None:
    """Step ``aggregate``: ``regret.csv`` and ``final_regret.csv`` (+ sidecars)."""
    from duelbench.provenance.sidecar import Timer, write_sidecar

    s = ctx.settings
    source = dict(zip((sp.path for sp in ctx.plan.shards), ctx.input.shards))
    t2 = figure2_time(s)
    curve_rows, final_rows, slope_rows, used = [], [], [], []
    with log_to(ctx.log), Timer() as t:
        for p, panel in s["panels"].items():
            entries = {(e.name, e.param_hash): e for e in panel_curves(s, p)}
            specs = [sp for sp in ctx.plan.shards if sp.dataset == panel["dataset"]
                     and sp.horizon == int(panel["horizon"]) and (sp.algorithm, sp.param_hash) in entries]
            used += specs
            for (dataset, alg, phash, horizon), group in group_shards(specs).items():
                e, res = entries[(alg, phash)], ctx.load(group)
                key = {"panel": p, "dataset": dataset, "algorithm": alg, "label": e.label, "param_hash": phash}
                cps = res.checkpoints.tolist()
                for tt, m, se in zip(cps, res.mean("copeland").tolist(), res.stderr("copeland").tolist()):
                    curve_rows.append({**key, "t": int(tt), "mean": float(m), "stderr": float(se) if res.runs > 1
                                       else math.nan, "n_runs": res.runs})
                points = [("T", int(horizon))]
                if alg in s["figure2"]["shown"]:
                    if t2 not in cps:
                        raise ValueError(f"{NAME}: {alg} on {dataset} has no checkpoint at Figure 2's time {t2}")
                    points.append(("figure2", t2))
                regret = res.regret_of("copeland")
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
    for path in (ctx.output.regret, ctx.output.final, ctx.output.slopes):
        write_sidecar(path, inputs=sorted(source[sp.path] for sp in used), config=curve_settings(s),
                      seeds={"seed": int(s["seed"])}, extra={"experiment": NAME, "shards": len(used)}, **t.as_kwargs())


def slope_window(t: np.ndarray) -> tuple[np.ndarray, int]:
    """(mask of the checkpoints in [T/10, T], index of the checkpoint t0 nearest T/10 on the log
    scale) of the increasing checkpoints ``t`` (T = the last)."""
    t = np.asarray(t, dtype=float)
    return t >= t[-1] / 10, int(np.argmin(np.abs(np.log(t) - np.log(t[-1] / 10))))


def run_slopes(key: dict, t: np.ndarray, regret: np.ndarray, runs) -> list[dict]:
    """Rows of ``run_slopes.csv`` for one curve: per run (a row of ``regret``, runs x checkpoints
    ``t``) the regret at t0 and at T and the least-squares slope of the regret against ln t over
    the checkpoints in [T/10, T] (:func:`slope_window`)."""
    sel, k0 = slope_window(t)
    x = np.log(t[sel])
    xc = x - x.mean()
    weights = xc / float(np.dot(xc, xc)) if sel.sum() >= 2 else np.full(x.shape, np.nan)
    rows = []
    for r, y in zip(np.asarray(runs).tolist(), regret):
        rows.append({**key, "run": int(r), "t0": int(t[k0]), "t": int(t[-1]), "regret_t0": float(y[k0]),
                     "regret_t": float(y[-1]), "slope": float(math.fsum((weights * y[sel]).tolist()))})
    return rows


def write_traces(ctx: StepContext) -> None:
    """Step ``traces``: ``traces.csv`` (+ sidecar), one row per traced run (:mod:`.traces`), with
    the simulated R(T) of the same run beside the replayed one; a replay that differs from its
    simulation is an error."""
    from duelbench.provenance.sidecar import Timer, write_sidecar

    from ..samples import load_family

    s = ctx.settings
    rows = []
    with log_to(ctx.log), Timer() as t:
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
    write_sidecar(ctx.output.csv, inputs=[ctx.input.final, *ctx.input.get("samples", [])], config=ctx.step.settings, seeds={"seed": int(s["seed"])},
                  extra={"experiment": NAME, "traced_runs": len(rows)}, **t.as_kwargs())


def draw_figure1(regret: pd.DataFrame, s, footer: str):
    """Figure 1: one semilog panel per entry of :data:`PANELS`; returns the figure."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..plotting import algorithm_style, frame_curves, frame_top, panel_title

    fig, axes = plt.subplots(1, len(PANELS), figsize=(5.2 * len(PANELS), 4.6), squeeze=False)
    handles = {}
    for k, p in enumerate(PANELS):
        ax, panel = axes[0][k], s["panels"][p]
        sub = regret[regret["panel"] == p]
        drawn, compared = [], []
        for e in panel_curves(s, p):
            cur = sub[(sub["algorithm"] == e.name) & (sub["param_hash"] == e.param_hash)].sort_values("t")
            if cur.empty:
                continue
            tt, m = cur["t"].to_numpy(float), cur["mean"].to_numpy(float)
            se = np.nan_to_num(cur["stderr"].to_numpy(float))
            style = {**algorithm_style(e.name), "label": e.label}
            sparse = len(tt) < 20  # BTM and SAVAGE: one independent run per horizon point
            (line,) = ax.plot(tt, m, lw=1.4, marker="o" if sparse else None, ms=3, **style)
            ax.fill_between(tt, m - se, m + se, color=style["color"], alpha=0.18, lw=0)
            handles.setdefault(e.label, line)
            drawn.append((e.label, style["color"], tt, m))
            if e.name in FRAME_ALGORITHMS:
                compared.append(float(np.max(m + se)))
        ax.set_xscale("log")
        ax.set_xlim(10, int(panel["horizon"]))
        top = panel.get("ylim") if s["fidelity"] == "paper" else None
        frame_curves(ax, float(top) if top else frame_top(compared), drawn)
        ax.set_title(panel_title(k, PANELS[p], panel["dataset"]), fontsize=9)
        ax.set_xlabel("time t")
        ax.set_ylabel("regret (Eq. 1)")
        ax.grid(True, which="major", alpha=0.3)
        if sub.empty:
            ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)
    order = [e.label for e in panel_curves(s, None)]  # the configured legend order
    labels = sorted(handles, key=lambda label: order.index(label) if label in order else len(order))
    fig.legend([handles[label] for label in labels], labels, loc="upper center", ncol=min(len(labels), 6),
               frameon=False, fontsize=8, bbox_to_anchor=(0.5, 1.0))
    fig.suptitle(footer, y=0.005, va="bottom", fontsize=7, color="#555555")
    fig.tight_layout(rect=(0, 0.3 / fig.get_figheight(), 1, 1 - 0.35 / fig.get_figheight()))
    return fig


def figure1(ctx: StepContext) -> None:
    """Step ``figure1`` (+ sidecars)."""
    from duelbench.provenance.sidecar import Timer, write_sidecar

    from ..plotting import save_figure

    s, paths = ctx.settings, [ctx.output.pdf, ctx.output.png]
    with log_to(ctx.log), Timer() as t:
        regret = pd.read_csv(ctx.input.regret, dtype={"param_hash": str})
        footer = (f"Wu & Liu (2016) Figure 1: mean cumulative Copeland regret (Eq. 1) ± 1 s.e. over {int(s['runs'])} "
                  f"runs, fidelity {s['fidelity']}; BTM and SAVAGE: one run per horizon point (markers)")
        save_figure(draw_figure1(regret, s, footer), paths)
    for path in paths:
        write_sidecar(path, inputs=[ctx.input.regret], config=curve_settings(s), seeds={"seed": int(s["seed"])},
                      extra={"experiment": NAME, "figure": "figure1"}, **t.as_kwargs())

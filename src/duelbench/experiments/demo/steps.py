"""The demo's steps: aggregate the shards, draw the figure (see :mod:`duelbench.experiments.demo`)."""

from __future__ import annotations

from duelbench.provenance.sidecar import Timer, write_sidecar

from duelbench.engine.jobs import group_shards
from duelbench.provenance.joblog import log_to
from ..contract import StepContext
from . import NAME, labels


def aggregate(ctx: StepContext) -> None:
    """``regret.csv``: mean and s.e. per (dataset, algorithm, kind, checkpoint) (+ sidecar)."""
    from ..aggregate import summarise_shards, write_table

    s, out_csv = ctx.settings, ctx.output.csv
    with log_to(ctx.log), Timer() as t:
        table = summarise_shards(group_shards(ctx.plan.shards), kinds=s["kinds"])
        print(f"{len(ctx.plan.shards)} shards -> {len(table)} rows in {out_csv}")
        write_table(table, out_csv)
    write_sidecar(out_csv, inputs=ctx.input.shards, config=s, seeds={"seed": int(s["seed"])},
                  extra={"experiment": NAME, "rows": int(len(table))}, **t.as_kwargs())


def plot(ctx: StepContext) -> None:
    """``regret.pdf``/``.png`` from ``regret.csv`` (+ sidecars)."""
    import pandas as pd

    from ..plotting import regret_panels, save_figure

    s = ctx.settings
    out_paths = [ctx.output.pdf, ctx.output.png]
    with log_to(ctx.log), Timer() as t:
        table = pd.read_csv(ctx.input.csv, dtype={"param_hash": str})
        fig = regret_panels(
            table, kind=s["plot_kind"], panels=list(s["datasets"]), labels=labels(ctx.config, s["fidelity"]),
            yscale="log",  # Random's linear regret would flatten the learning algorithms onto the axis
            title=f"Cumulative {s['plot_kind']} regret (mean ± 1 s.e., {int(s['runs'])} runs, fidelity {s['fidelity']})",
        )
        save_figure(fig, out_paths)
    for path in out_paths:
        write_sidecar(path, inputs=[ctx.input.csv], config=s, seeds={"seed": int(s["seed"])},
                      extra={"experiment": NAME, "kind": s["plot_kind"]}, **t.as_kwargs())

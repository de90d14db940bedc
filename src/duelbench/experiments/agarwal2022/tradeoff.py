"""Batch logs and the batch trade-off of Agarwal et al. (2022).

``batches.csv``: the batch log of every run of every batched curve, read from its panel's sample
family (:mod:`.batchlogs`: each run replayed on the engine's own random stream and relabelled
instance, archived like the simulations); the replay's R(T) must equal the simulated one (a
mismatch is an error, not a number).  ``tradeoff.csv`` / ``tradeoff.png``: R(T) against B and
against the batches actually used, beside the shapes of the theorems, each scaled to the
measured mean at the largest B.  ``switch_split.csv``: per SCOMP/SCOMP2 curve, R(T) of the runs
whose seed set holds the Condorcet winner and of the others, and how many runs switched.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from duelbench.bounds.batched import lower_bound_shape, pcomp_worst_case_bound, scomp2_shape, scomp_worst_case_shape
from duelbench.data import registry
from duelbench.report.numerics import fmean, fsem

from ..aggregate import write_table
from ..contract import StepContext
from ..plotting import algorithm_style, panel_title, plt, save_figure
from ..samples import load_family
from .config import NAME, PANELS, batch_log_family, batched_curves, names_of

BATCH_COLUMNS = ["panel", "dataset", "curve", "algorithm", "batches", "run", "batches_used", "comparisons",
                 "switch_round", "a_prime_size", "winner_in_a_prime", "seed_rank", "seed_empty", "winner_eliminated",
                 "good_event_estimates", "good_event_violations", "regret", "identity_deviation"]
TRADEOFF_COLUMNS = ["panel", "dataset", "algorithm", "batches", "n_runs", "mean", "stderr", "ci95", "batches_used",
                    "shape", "shape_name", "baseline", "baseline_mean"]
#: The theorems' regret in B at fixed T, K (duelbench.bounds.batched, gaps set to 1: only the
#: dependence on B is drawn, scaled to the measured mean at the largest B): Theorem 3.1's bound
#: (PCOMP, with its log(6TK^2B)), Theorem 3.2's SCOMP shape, Theorem 3.4's SCOMP2 shape, and the
#: lower bound's shape of Table 1 / Theorem C.1.
SHAPES = {
    "pcomp": ("T^(1/B) log(6TK^2B) (Thm 3.1)", lambda T, K, B: pcomp_worst_case_bound(K, B, T, 1.0)),
    "scomp": ("T^(1/B) (Thm 3.2)", lambda T, K, B: scomp_worst_case_shape(K, B, T, 1.0)),
    "scomp2": ("B T^(1/B) (Thm 3.4)", lambda T, K, B: scomp2_shape(K, B, T, 1.0)),
}
LOWER_BOUND = ("T^(1/B)/B^2 (lower bound)", lambda T, K, B: lower_bound_shape(K, B, T, 1.0))


def _flag(x):
    return None if math.isnan(x) else bool(x)


def _count(x):
    return None if math.isnan(x) else int(x)


def batch_logs(ctx: StepContext) -> dict:
    """Step ``batches``: ``batches.csv`` from the batch-log sample families (:mod:`.batchlogs`);
    every replayed R(T) must equal the simulated one."""
    s = ctx.settings
    final = pd.read_csv(ctx.input.final, dtype={"param_hash": str})
    rows, batched, runs = [], batched_curves(s), int(s["runs"])
    for p, dataset in s["panels"].items():
        logs = load_family(ctx.plan.sample_family(batch_log_family(p)))
        if logs["sample"].tolist() != list(range(runs * len(batched))):
            raise ValueError(f"{NAME}: the batch logs of {p} hold samples {logs['sample'].tolist()[:5]}…, "
                             f"not 0 … {runs * len(batched) - 1} ({len(batched)} curves x {runs} runs)")
        for n_curve, c in enumerate(batched):
            f = final[(final["panel"] == p) & (final["curve"] == c.id)].set_index("run")["regret"]
            for run in range(runs):
                k = n_curve * runs + run
                simulated = float(f.loc[run])
                replayed = float(logs["replay_regret"][k])
                # final_regret.csv holds 12 significant digits (experiments.aggregate): the simulated
                # R(T) is known to a relative 5e-12; one comparison more or less moves it by a gap
                if not math.isclose(replayed, simulated, rel_tol=1e-11, abs_tol=1e-9):
                    raise RuntimeError(f"{NAME}: replaying {c.id} on {p}, run {run} gives R(T) = {replayed!r}, "
                                       f"the simulation {simulated!r}: the batch log is not the simulated run")
                identity = float(logs["identity"][k])
                rows.append({
                    "panel": p, "dataset": dataset, "curve": c.id, "algorithm": c.algorithm, "batches": c.batches,
                    "run": run, "batches_used": int(logs["batches_used"][k]),
                    "comparisons": int(logs["comparisons"][k]), "switch_round": int(logs["switch_round"][k]),
                    "a_prime_size": int(logs["a_prime_size"][k]),
                    "winner_in_a_prime": _flag(logs["winner_in_a_prime"][k]),
                    "seed_rank": _count(logs["seed_rank"][k]), "seed_empty": bool(logs["seed_empty"][k]),
                    "winner_eliminated": _flag(logs["winner_eliminated"][k]),
                    "good_event_estimates": int(logs["good_event_estimates"][k]),
                    "good_event_violations": int(logs["good_event_violations"][k]), "regret": simulated,
                    "identity_deviation": identity_deviation(simulated, identity)})
        print(f"{p}: {sum(r['panel'] == p for r in rows)} batched runs checked against their replay", flush=True)
    write_table(pd.DataFrame(rows, columns=BATCH_COLUMNS), ctx.output.csv, BATCH_COLUMNS)
    return {"batched_runs": len(rows)}


#: Smallest relative deviation from the regret identity ``batches.csv`` writes as such: the
#: simulated R(T) is read from final_regret.csv's 12 significant digits, so a smaller deviation is
#: below what the inputs resolve (the last bits of two floating-point sums, whose order may differ
#: between CPUs).
IDENTITY_RESOLUTION = 1e-12


def identity_deviation(simulated: float, identity: float) -> float:
    """Relative deviation of the simulated R(T) from the regret identity ``1/2 sum_j T_j eps_j``
    (Section 1.3), written with the 3 significant digits the report shows (no further rounding
    there); 0 below :data:`IDENTITY_RESOLUTION`."""
    dev = abs(simulated - identity) / max(simulated, 1.0)
    return float(f"{dev:.3g}") if dev >= IDENTITY_RESOLUTION else 0.0


def tradeoff_table(s, final: pd.DataFrame, batches: pd.DataFrame) -> pd.DataFrame:
    """Mean R(T) per panel, algorithm and B of ``tradeoff.batches``, the mean batches used, and
    the algorithm's theorem shape scaled to the mean at the largest B."""
    tr = s["tradeoff"]
    T = int(s["horizon"])
    rows = []
    for p, dataset in s["panels"].items():
        K = registry.dataset_info(dataset).K
        base = final[(final["panel"] == p) & (final["curve"] == tr["baseline"])]["regret"]
        for a in names_of(tr["algorithms"]):
            grid = sorted(int(B) for B in tr["batches"])
            name, shape = SHAPES[a]
            part = []
            for B in grid:
                x = final[(final["panel"] == p) & (final["curve"] == f"{a}_b{B}")]["regret"].to_numpy(float)
                used = batches[(batches["panel"] == p) & (batches["curve"] == f"{a}_b{B}")]["batches_used"]
                se = fsem(x)
                part.append({"panel": p, "dataset": dataset, "algorithm": a, "batches": B, "n_runs": int(x.size),
                             "mean": fmean(x), "stderr": se, "ci95": 1.96 * se,
                             "batches_used": fmean(used.to_numpy(float)), "shape_name": name,
                             "shape": shape(T, K, B), "baseline": tr["baseline"],
                             "baseline_mean": fmean(base.to_numpy(float))})
            scale = part[-1]["mean"] / part[-1]["shape"] if part and part[-1]["shape"] else math.nan
            for r in part:
                r["shape"] *= scale
            rows += part
    return pd.DataFrame(rows, columns=TRADEOFF_COLUMNS)


def draw_tradeoff(table: pd.DataFrame, s, footer: str):
    """Top row: R(T) against B per panel (log y) with the theorem shapes and the lower bound's
    shape (dotted, scaled at the largest B) and the baseline as a line; bottom row: R(T) against
    the mean batches actually used."""
    T = int(s["horizon"])
    fig, axes = plt.subplots(2, 4, figsize=(15.5, 7.4))
    for k, p in enumerate(PANELS):
        top, bottom = axes[0][k], axes[1][k]
        sub = table[table["panel"] == p]
        for a in names_of(s["tradeoff"]["algorithms"]):
            cur = sub[sub["algorithm"] == a].sort_values("batches")
            if cur.empty:
                continue
            st = algorithm_style(a)
            B, m, ci = cur["batches"].to_numpy(float), cur["mean"].to_numpy(float), cur["ci95"].to_numpy(float)
            top.errorbar(B, m, yerr=np.nan_to_num(ci), marker="o", ms=4, lw=1.4, capsize=2, color=st["color"],
                         label=st["label"])
            top.plot(B, cur["shape"], color=st["color"], lw=0.9, ls="--", alpha=0.8,
                     label=f"{st['label']} shape: {cur['shape_name'].iloc[0]}")
            bottom.errorbar(cur["batches_used"], m, yerr=np.nan_to_num(ci), marker="o", ms=4, lw=1.2, capsize=2,
                            color=st["color"], label=st["label"])
        if not sub.empty:
            grid = np.array(sorted(sub["batches"].unique()), float)
            last = sub[sub["batches"] == grid[-1]]["mean"].min()
            lb = np.array([LOWER_BOUND[1](T, registry.dataset_info(s["panels"][p]).K, int(b)) for b in grid])
            top.plot(grid, lb * last / lb[-1], color="#555555", ls=":", lw=1.1, label=f"shape: {LOWER_BOUND[0]}")
            top.axhline(sub["baseline_mean"].iloc[0], color=algorithm_style(s["tradeoff"]["baseline"])["color"], lw=1,
                        label=f"{algorithm_style(s['tradeoff']['baseline'])['label']} (sequential)")
        for ax in (top, bottom):
            ax.set_yscale("log")
            ax.grid(True, which="both", alpha=0.25)
            ax.set_ylabel("R(T)")
        top.set_title(panel_title(k, PANELS[p], s["panels"][p]), fontsize=9)
        top.set_xlabel("B (parameter)")
        bottom.set_xlabel("batches actually used (mean)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=4, frameon=False, fontsize=7.5, bbox_to_anchor=(0.5, 1.0))
    fig.suptitle(footer, y=0.005, va="bottom", fontsize=7, color="#555555")
    fig.tight_layout(rect=(0, 0.3 / fig.get_figheight(), 1, 1 - 0.8 / fig.get_figheight()))
    return fig


def tradeoff(ctx: StepContext) -> None:
    """Step ``tradeoff``: ``tradeoff.csv`` and the figure."""
    s = ctx.settings
    table = tradeoff_table(s, pd.read_csv(ctx.input.final, dtype={"param_hash": str}), pd.read_csv(ctx.input.batches))
    write_table(table, ctx.output.csv, TRADEOFF_COLUMNS)
    footer = (f"Batch trade-off (not in the paper): mean R(T) ± 95% CI over {int(s['runs'])} runs, T = "
              f"{int(s['horizon'])}, fidelity {s['fidelity']}; dashed: each theorem's shape in B, dotted: the lower "
              "bound's, both scaled to the mean at the largest B (the bounds are vacuous at this T)")
    save_figure(draw_tradeoff(table, s, footer), [ctx.output.pdf, ctx.output.png])


SPLIT_COLUMNS = ["panel", "dataset", "curve", "algorithm", "batches", "runs", "switched_runs", "winner_in_seed_runs",
                 "seed_empty_runs", "mean", "median", "mean_winner_in_seed", "median_winner_in_seed",
                 "mean_winner_not_in_seed", "median_winner_not_in_seed", "mean_switched", "mean_not_switched"]


def split_table(batches: pd.DataFrame) -> pd.DataFrame:
    """Per panel and SCOMP/SCOMP2 curve (every run of ``batches.csv``): the runs that switched to
    PCOMP, the runs whose seed set holds the Condorcet winner (``seed_rank`` 0), and mean and
    median R(T) with and without it (NaN for an empty group)."""

    def stats(x: pd.Series) -> tuple[float, float]:
        return (fmean(x.to_numpy(float)), float(x.median())) if len(x) else (math.nan, math.nan)

    rows = []
    seeded = batches[batches["algorithm"].isin(("scomp", "scomp2"))]
    for (panel, curve), g in seeded.groupby(["panel", "curve"], sort=False):
        inside = g["seed_rank"] == 0
        switched = g["switch_round"] >= 0
        m, med = stats(g["regret"])
        mi, medi = stats(g[inside]["regret"])
        mo, medo = stats(g[~inside]["regret"])
        rows.append({"panel": panel, "dataset": g["dataset"].iloc[0], "curve": curve, "algorithm": g["algorithm"].iloc[0],
                     "batches": int(g["batches"].iloc[0]), "runs": len(g), "switched_runs": int(switched.sum()),
                     "winner_in_seed_runs": int(inside.sum()),
                     "seed_empty_runs": int(g["seed_empty"].map(lambda v: str(v) == "True").sum()),
                     "mean": m, "median": med, "mean_winner_in_seed": mi, "median_winner_in_seed": medi,
                     "mean_winner_not_in_seed": mo, "median_winner_not_in_seed": medo,
                     "mean_switched": fmean(g[switched]["regret"].to_numpy(float)),
                     "mean_not_switched": fmean(g[~switched]["regret"].to_numpy(float))})
    return pd.DataFrame(rows, columns=SPLIT_COLUMNS)


def switch_split(ctx: StepContext) -> None:
    """Step ``split``: ``switch_split.csv`` from ``batches.csv``."""
    table = split_table(pd.read_csv(ctx.input.batches))
    write_table(table, ctx.output.csv, SPLIT_COLUMNS)
    print(f"{len(table)} curves split by the seed set", flush=True)

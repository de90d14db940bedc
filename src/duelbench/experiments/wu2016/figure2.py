"""Figure 2 of Wu & Liu (2016): the STD of the regret at T = 10^6, normalised by ECW-RMED's mean
regret (the caption, L917-L918; reading W8, judged by the checks) and, in a second panel shown
only, by the algorithm's own mean (the text, L934-L935)."""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from duelbench.provenance.sidecar import atomic_write_text
from duelbench.report.numerics import fmean, fstd
from duelbench.report.verdict import ALPHA_ONE_SIDED, sig

from ..aggregate import write_table
from ..contract import StepContext
from ..plotting import algorithm_colour, plt, save_figure
from .checks import std_over_ecw_replicates
from .config import PANELS, figure2_time, panel_curves

ECW = "ecw_rmed"
COLUMNS = ["panel", "dataset", "algorithm", "label", "t", "n_runs", "mean", "std", "std_over_ecw",
           "std_over_ecw_low", "std_over_ecw_high", "std_over_own", "published_std_over_ecw", "check_id"]


def published_bars(registry: Mapping) -> dict[tuple[str, str], tuple[float, str]]:
    """(panel, algorithm) -> (published STD over ECW-RMED's mean, check id), from the registry's
    checks of ``std_over_ecw:<panel>:<algorithm>`` that carry a published value."""
    out = {}
    for c in registry["checks"]:
        kind, _, rest = c["statistic"].partition(":")
        if kind == "std_over_ecw" and c.get("published") is not None:
            p, _, a = rest.partition(":")
            out.setdefault((p, a), (float(c["published"]), c["id"]))
    return out


def std_table(final: pd.DataFrame, s: Mapping, registry: Mapping) -> pd.DataFrame:
    """One row per panel and algorithm of ``figure2.shown`` (see :data:`COLUMNS`); the 95 %
    interval of STD / ECW-RMED's mean is the bootstrap percentile interval of the check of the same
    statistic (same replicates: :func:`.checks.std_over_ecw_replicates`, declared seed, the
    statistic's name as key)."""
    at = final[final["at"] == "figure2"].sort_values("run")
    bars = published_bars(registry)
    rows = []
    for p in PANELS:
        labels = {e.name: e.label for e in panel_curves(s, p)}
        sub = at[at["panel"] == p]
        ecw = sub[sub["algorithm"] == ECW]["regret"].to_numpy(float)
        ecw_mean = fmean(ecw)
        for a in s["figure2"]["shown"]:
            x = sub[sub["algorithm"] == a]["regret"].to_numpy(float)
            std, mean = fstd(x), fmean(x)
            pub, cid = bars.get((p, a), (math.nan, ""))
            low = high = math.nan
            if x.size > 1 and ecw.size and ecw_mean:
                reps = std_over_ecw_replicates(x, ecw, a == ECW, int(s["seed"]), f"std_over_ecw:{p}:{a}")
                low, high = (float(np.quantile(reps, q)) for q in (ALPHA_ONE_SIDED, 1 - ALPHA_ONE_SIDED))
            rows.append({"panel": p, "dataset": s["panels"][p]["dataset"], "algorithm": a, "label": labels.get(a, a),
                         "t": figure2_time(s), "n_runs": int(x.size), "mean": mean, "std": std,
                         "std_over_ecw": std / ecw_mean if ecw_mean else math.nan,
                         "std_over_ecw_low": low, "std_over_ecw_high": high,
                         "std_over_own": std / mean if mean else math.nan, "published_std_over_ecw": pub,
                         "check_id": cid})
    return pd.DataFrame(rows, columns=COLUMNS)


def markdown(table: pd.DataFrame, s: Mapping) -> str:
    """The STD table as Markdown (percentages)."""
    def pct(v):
        return "" if not np.isfinite(v) else f"{sig(100 * v, 3)}%"

    def printed(v):  # as the paper prints its bars
        return "" if not np.isfinite(v) else f"{100 * v:.2f}%"

    lines = ["# Figure 2: STD of regret", "",
             f"At t = {figure2_time(s)}, over {int(s['runs'])} runs (fidelity {s['fidelity']}). STD / ECW-RMED mean is "
             "the caption's normalisation (W8) and judges the checks (95 % bootstrap interval over the runs); "
             "STD / own mean is shown only.", "",
             "| panel | algorithm | STD / ECW-RMED mean | 95 % interval | published | STD / own mean | mean regret | STD |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in table.itertuples():
        ci = "" if not np.isfinite(r.std_over_ecw_low) else f"[{pct(r.std_over_ecw_low)}, {pct(r.std_over_ecw_high)}]"
        lines.append(f"| {PANELS[r.panel]} | {r.label} | {pct(r.std_over_ecw)} | {ci} | {printed(r.published_std_over_ecw)} | "
                     f"{pct(r.std_over_own)} | {sig(r.mean, 4)} | {sig(r.std, 4)} |")
    return "\n".join(lines) + "\n"


#: The two normalisations of Figure 2's bars, drawn side by side: (column, panel title).
NORMALISATIONS = (
    ("std_over_ecw", "STD / ECW-RMED's mean (caption, L917-L918; judged; 95 % bootstrap interval)"),
    ("std_over_own", "STD / own mean (text, L934-L935; shown only)"),
)


def draw(table: pd.DataFrame, footer: str):
    """Grouped bars per panel, reproduced (solid) beside published (hatched), in two axes: STD over
    ECW-RMED's mean (the caption, W8, judged) and STD over the algorithm's own mean (the text's
    "almost 200% of its mean value", L934-L935, shown only). The paper prints one set of bars, so
    the same published values stand beside both; for ECW-RMED the two readings coincide."""
    algs = list(dict.fromkeys(table["algorithm"]))
    fig, axes = plt.subplots(1, len(NORMALISATIONS), figsize=(10.4, 4.2), sharey=True)
    width = 0.8 / (2 * max(len(algs), 1))
    for ax, (column, title) in zip(axes, NORMALISATIONS):
        for g, p in enumerate(PANELS):
            sub = table[table["panel"] == p].set_index("algorithm")
            for k, a in enumerate(algs):
                if a not in sub.index:
                    continue
                r, x0 = sub.loc[a], g - 0.4 + 2 * k * width
                colour = algorithm_colour(a)
                for dx, value, hatch, label in ((0, r[column], None, f"{r['label']} (reproduced)"),
                                                (width, r["published_std_over_ecw"], "//", f"{r['label']} (published)")):
                    if np.isfinite(value):
                        ax.bar(x0 + dx + width / 2, 100 * value, width, color=colour if hatch is None else "white",
                               edgecolor=colour, hatch=hatch, label=label if g == 0 else None)
                        top = value
                        if hatch is None and column == "std_over_ecw" and np.isfinite(r["std_over_ecw_low"]):
                            ax.errorbar(x0 + dx + width / 2, 100 * value, fmt="none", ecolor="black", lw=0.8, capsize=2,
                                        yerr=[[100 * (value - r["std_over_ecw_low"])],
                                              [100 * (r["std_over_ecw_high"] - value)]])
                            top = max(value, r["std_over_ecw_high"])
                        ax.text(x0 + dx + width / 2, 100 * top, f"{100 * value:.1f}", ha="center", va="bottom",
                                fontsize=6)
        ax.set_xticks(range(len(PANELS)), [PANELS[p] for p in PANELS])
        ax.set_xlabel("dataset")
        ax.set_title(title, fontsize=9)
        ax.grid(True, axis="y", alpha=0.3)
    axes[0].set_ylabel("normalized STD of regret (%)")
    # Laid out first: the legend (top) and the footer (bottom) go into the margins it leaves.
    fig.tight_layout(rect=(0, 0.4 / fig.get_figheight(), 1, 1 - 0.45 / fig.get_figheight()))
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=3, fontsize=8, frameon=False)
    fig.suptitle(footer, y=0.005, va="bottom", fontsize=7, color="#555555")
    return fig


def figure2(ctx: StepContext) -> None:
    """Step ``figure2``: ``figure2.csv``, ``.md``, ``.pdf``, ``.png``."""
    s, i, o = ctx.settings, ctx.input, ctx.output
    table = std_table(pd.read_csv(i.final, dtype={"param_hash": str}), s, ctx.registry(i.registry))
    write_table(table, o.csv, COLUMNS)
    atomic_write_text(o.md, markdown(table, s))
    footer = (f"Wu & Liu (2016) Figure 2: STD of the regret at t = {figure2_time(s)}, {int(s['runs'])} runs, "
              f"fidelity {s['fidelity']};\nhatched: the published bars (one set, drawn beside both normalisations)")
    save_figure(draw(table, footer), [o.pdf, o.png])

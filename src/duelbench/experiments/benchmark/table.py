"""The benchmark's tables: final regret per cell, separations, ranks with their uncertainty.

Statistics (declared with the protocol, before any cell ran):

* **A cell's final regret**: the mean over its runs of the cumulative regret (the instance's
  kind) at the instance's horizon, with its 95 % t interval (``n − 1`` degrees of freedom).
* **Ratio to the best**: mean of the cell over the smallest mean of its instance's ranked cells,
  with the delta-method interval on the log scale (:func:`duelbench.report.verdict.mean_ratio`;
  Welch degrees of freedom, or paired run by run on a family of per-run instances, whose run
  ``i`` is the same instance for every algorithm).
* **Separation**: for every pair of ranked cells of an instance, the two-sided p-value of
  "equal means" from the same ratio estimate (the difference of means when a mean is 0), Holm's
  step-down adjustment over the instance's pairs; a pair is separated when the adjusted p-value
  is below 0.05 (family-wise 5 % per instance). For a pair that is not, the runs per cell that
  would separate it with probability 0.8, if its estimated difference were the true one, are given.
* **Ranks**: rank 1 is the smallest mean. Their uncertainty is a bootstrap over runs
  (``benchmark.bootstrap``: replicates and seed; each cell's runs resampled on their own, or one
  resampling of the run indices for all cells of a family of per-run instances), the interval the
  2.5 and 97.5 percentiles of a cell's rank over the replicates. The overall rank of an
  algorithm is its mean rank over the instances where every algorithm is ranked, with the same
  replicates.

Means and variances are correctly rounded sums (:mod:`duelbench.report.numerics`), so no digit
depends on the processor or the order of the runs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from duelbench.provenance.sidecar import atomic_write_text
from duelbench.report.numerics import fmean, fmean_last, fvar
from duelbench.report.verdict import (
    ALPHA_ONE_SIDED,
    Region,
    bootstrap_stream,
    holm,
    mean_difference,
    mean_ratio,
    normal_estimate,
    runs_to_decide,
    sig,
)

from ..aggregate import write_table
from ..contract import StepContext
from .cells import Cell, algorithm_names, cells, horizon_text

#: Family-wise level of the separations of one instance.
SEPARATION_ALPHA = 2 * ALPHA_ONE_SIDED
RUN_COLUMNS = ["instance", "paper", "dataset", "algorithm", "param_hash", "source", "horizon", "run", "final"]
CELL_COLUMNS = ["instance", "paper", "panel", "dataset", "kind", "algorithm", "param_hash", "source", "runs", "horizon", "ranked",
                "reduction", "mean", "lower", "upper", "ratio_to_best", "ratio_lower", "ratio_upper", "best",
                "tied_with_best", "rank", "rank_lower", "rank_upper"]
PAIR_COLUMNS = ["instance", "paper", "dataset", "a", "b", "statistic", "estimate", "lower", "upper", "p", "p_holm", "separated",
                "runs_to_separate"]
RANK_COLUMNS = ["algorithm", "instances", "mean_rank", "rank_lower", "rank_upper", "best", "tied_with_best",
                "geomean_ratio_to_best"]


# ------------------------------------------------------------------------------------ step 1
def final_runs(ctx: StepContext) -> dict:
    """Output ``csv``: the final regret of every run of every cell (:data:`RUN_COLUMNS`)."""
    s = ctx.settings
    frames = []
    for c in cells(s):
        if c.runs == 0:
            continue
        result = ctx.load(c.shards(s["fidelity"], s["results"]))
        final = np.asarray(result.regret_of(c.instance.kind))[:, -1]
        frames.append(pd.DataFrame({"instance": c.instance.id, "paper": c.instance.paper, "dataset": c.instance.dataset, "algorithm": c.algorithm,
                                    "param_hash": c.entry.param_hash, "source": c.source, "horizon": c.horizon,
                                    "run": np.asarray(result.run_indices, dtype=np.int64), "final": final}))
    table = pd.concat(frames, ignore_index=True)[RUN_COLUMNS]
    write_table(table, ctx.output.csv)
    print(f"{len(frames)} cells, {len(table)} runs -> {ctx.output.csv}")
    return {"cells": len(frames), "runs": int(len(table))}


# ------------------------------------------------------------------------------------ statistics
def compare(a: np.ndarray, b: np.ndarray, paired: bool):
    """The estimate of mean A against mean B: their ratio, or their difference when a mean is 0."""
    if fmean(a) > 0 and fmean(b) > 0:
        return "ratio", mean_ratio(a, b, paired=paired), 1.0
    return "difference", mean_difference(a, b, paired=paired), 0.0


def two_sided_p(e, null: float) -> float:
    return min(1.0, 2.0 * min(e.p_below(null), e.p_above(null)))


def cell_interval(x: np.ndarray) -> tuple[float, float, float]:
    """Mean and its 95 % t interval (no interval from one run)."""
    m = fmean(x)
    if x.size < 2:
        return m, math.nan, math.nan
    e = normal_estimate(m, math.sqrt(fvar(x) / x.size), float(x.size - 1))
    return m, e.lower, e.upper


def bootstrap_means(samples: Sequence[np.ndarray], paired: bool, resamples: int, seed: int, key: str) -> np.ndarray:
    """Replicates x cells of resampled means (correctly rounded row means)."""
    rng = bootstrap_stream(seed, key)
    out = np.empty((resamples, len(samples)))
    if paired:
        idx = rng.integers(0, samples[0].size, (resamples, samples[0].size))
        for j, x in enumerate(samples):
            out[:, j] = fmean_last(x[idx])
    else:
        for j, x in enumerate(samples):
            out[:, j] = fmean_last(x[rng.integers(0, x.size, (resamples, x.size))])
    return out


def ranks_of(means: np.ndarray) -> np.ndarray:
    """Ranks along the last axis, 1 = smallest (ties share the mean of their ranks)."""
    return rankdata(means, axis=-1, method="average")


def instance_tables(instance_cells: Sequence[Cell], runs: Mapping[tuple, np.ndarray], boot: Mapping
                    ) -> tuple[list[dict], list[dict], np.ndarray | None]:
    """Cell rows, pair rows and the replicates x ranked-cells rank matrix of one instance."""
    ranked = [c for c in instance_cells if c.ranked]
    x = {c: runs[(c.algorithm, c.entry.param_hash, c.horizon)] for c in instance_cells if c.runs}
    means = {c: fmean(v) for c, v in x.items()}
    best = min(ranked, key=lambda c: means[c])
    inst = best.instance
    paired = all(c.pairs_with(best) for c in ranked)
    pairs, tied = [], {best}
    for i, a in enumerate(ranked):
        for b in ranked[i + 1:]:
            stat, e, null = compare(x[a], x[b], a.pairs_with(b))
            pairs.append({"instance": inst.id, "paper": inst.paper, "dataset": inst.dataset, "a": a.algorithm, "b": b.algorithm,
                          "statistic": f"mean {stat}", "estimate": e.value, "lower": e.lower, "upper": e.upper,
                          "p": two_sided_p(e, null), "_e": e, "_null": null, "_cells": (a, b)})
    for row, adj in zip(pairs, holm([r["p"] for r in pairs])):
        row["p_holm"] = adj
        row["separated"] = bool(adj < SEPARATION_ALPHA)
        e, null = row.pop("_e"), row.pop("_null")
        a, b = row.pop("_cells")
        region = Region(upper=null) if e.value < null else Region(lower=null)
        need = None if row["separated"] else runs_to_decide(e, region)
        row["runs_to_separate"] = need if need is not None else ""
        if best in (a, b) and not row["separated"]:
            tied.add(b if a is best else a)
    rank_reps = None
    point_ranks = dict(zip(ranked, ranks_of(np.array([means[c] for c in ranked]))))
    intervals = {}
    if all(x[c].size > 1 for c in ranked):
        reps = bootstrap_means([x[c] for c in ranked], paired, boot["resamples"], boot["seed"], inst.id)
        rank_reps = ranks_of(reps)
        for j, c in enumerate(ranked):
            intervals[c] = tuple(float(np.quantile(rank_reps[:, j], q)) for q in (ALPHA_ONE_SIDED, 1 - ALPHA_ONE_SIDED))
    rows = []
    for c in instance_cells:
        m, lo, hi = cell_interval(x[c]) if c.runs else (math.nan, math.nan, math.nan)
        if c.ranked and c is not best:
            stat, e, _ = compare(x[c], x[best], c.pairs_with(best))
            ratio = (m / means[best], e.lower, e.upper) if stat == "ratio" \
                else (m / means[best] if means[best] else math.nan, math.nan, math.nan)
        elif c is best:
            ratio = (1.0, 1.0, 1.0)
        else:
            ratio = (math.nan, math.nan, math.nan)
        rlo, rhi = intervals.get(c, (math.nan, math.nan))
        rows.append({"instance": inst.id, "paper": inst.paper, "panel": inst.panel, "dataset": inst.dataset, "kind": inst.kind,
                     "algorithm": c.algorithm, "param_hash": c.entry.param_hash, "source": c.source, "runs": c.runs,
                     "horizon": c.horizon, "ranked": c.ranked, "reduction": c.reduction, "mean": m, "lower": lo,
                     "upper": hi, "ratio_to_best": ratio[0], "ratio_lower": ratio[1], "ratio_upper": ratio[2],
                     "best": c is best, "tied_with_best": c in tied,
                     "rank": float(point_ranks[c]) if c.ranked else math.nan, "rank_lower": rlo, "rank_upper": rhi})
    return rows, pairs, rank_reps


def overall_ranking(cell_rows: pd.DataFrame, reps: Mapping[str, tuple[list[str], np.ndarray]],
                    algorithms: Sequence[str]) -> pd.DataFrame:
    """Mean rank per algorithm over the complete instances (every algorithm ranked), with the
    percentile interval of the mean over the same bootstrap replicates."""
    complete = [k for k, (names, r) in reps.items() if r is not None and sorted(names) == sorted(algorithms)]
    rows = []
    for a in algorithms:
        own = cell_rows[cell_rows["algorithm"] == a]
        on = own[own["instance"].isin(complete)]
        if complete:
            mean_reps = np.mean([reps[k][1][:, reps[k][0].index(a)] for k in complete], axis=0)
            lo, hi = (float(np.quantile(mean_reps, q)) for q in (ALPHA_ONE_SIDED, 1 - ALPHA_ONE_SIDED))
        else:
            lo = hi = math.nan
        ratios = on["ratio_to_best"].to_numpy(dtype=float)
        rows.append({"algorithm": a, "instances": len(complete), "mean_rank": fmean(on["rank"].to_numpy(dtype=float))
                     if len(on) else math.nan, "rank_lower": lo, "rank_upper": hi, "best": int(on["best"].sum()),
                     "tied_with_best": int(on["tied_with_best"].sum()),
                     "geomean_ratio_to_best": math.exp(fmean(np.log(ratios))) if len(ratios) and (ratios > 0).all()
                     else math.nan})
    return pd.DataFrame(rows, columns=RANK_COLUMNS).sort_values(["mean_rank", "algorithm"], kind="stable")


# ------------------------------------------------------------------------------------ step 2
def tables(ctx: StepContext) -> dict:
    """Outputs ``cells``, ``separation``, ``ranking`` (CSV) and ``md`` from input ``final_runs``."""
    s = ctx.settings
    runs_table = pd.read_csv(ctx.input.final_runs, dtype={"param_hash": str})
    by = {k: g.sort_values("run")["final"].to_numpy(dtype=float)
          for k, g in runs_table.groupby(["instance", "algorithm", "param_hash", "horizon"], sort=False)}
    all_cells = cells(s)
    instances = list(dict.fromkeys(c.instance.id for c in all_cells))
    cell_rows, pair_rows, reps = [], [], {}
    for iid in instances:
        mine = [c for c in all_cells if c.instance.id == iid]
        runs = {(c.algorithm, c.entry.param_hash, c.horizon): by[(iid, c.algorithm, c.entry.param_hash, c.horizon)]
                for c in mine if c.runs}
        rows, pairs, rank_reps = instance_tables(mine, runs, s["bootstrap"])
        cell_rows += rows
        pair_rows += pairs
        reps[iid] = ([c.algorithm for c in mine if c.ranked], rank_reps)
    cells_df = pd.DataFrame(cell_rows, columns=CELL_COLUMNS)
    pairs_df = pd.DataFrame(pair_rows, columns=PAIR_COLUMNS)
    ranking = overall_ranking(cells_df, reps, algorithm_names(s))
    write_table(cells_df, ctx.output.cells)
    write_table(pairs_df, ctx.output.separation)
    write_table(ranking, ctx.output.ranking)
    atomic_write_text(ctx.output.md, markdown(cells_df, pairs_df, ranking, s))
    return {"cells": len(cells_df), "pairs": len(pairs_df), "separated": int(pairs_df["separated"].sum())}


def markdown(cells_df: pd.DataFrame, pairs_df: pd.DataFrame, ranking: pd.DataFrame, s: Mapping) -> str:
    """The table a reader scans: ratio to the best per instance and algorithm, the ranking, and
    per instance the pairs it separates."""
    algorithms = algorithm_names(s)
    lines = [f"# The benchmark of record (fidelity `{s['fidelity']}`)", "",
             "Mean final regret (the paper's regret kind at its horizon) over the best algorithm's on each instance. "
             "**bold**: the best, or not separated from it (Holm-adjusted, family-wise 5 % per instance); "
             "† fewer runs than the protocol; ‡ a shorter horizon (shown, not ranked); `p` the paper runs it.", "",
             "| instance | " + " | ".join(algorithms) + " |", "|---|" + "---|" * len(algorithms)]
    for _, g in cells_df.groupby("instance", sort=False):
        g = g.set_index("algorithm")
        cols = []
        for a in algorithms:
            r = g.loc[a]
            if not r["runs"]:
                cols.append("not run")
                continue
            v = sig(r["ratio_to_best"]) if r["ranked"] else sig(r["mean"])
            mark = ("‡" if not r["ranked"] else "†" if r["reduction"] else "") + (" p" if r["source"] == "paper" else "")
            cols.append(f"**{v}**{mark}" if r["tied_with_best"] else f"{v}{mark}")
        first = g.iloc[0]
        lines.append(f"| {first['paper']} {first['panel']} `{first['dataset']}` "
                     f"(T = {horizon_text(int(g['horizon'].max()))}, {int(g['runs'].max())} runs) | "
                     + " | ".join(cols) + " |")
    lines += ["", "## Overall ranking", "",
              f"Mean rank over the {int(ranking['instances'].iloc[0]) if len(ranking) else 0} instances where every "
              "algorithm is ranked, with its bootstrap 95 % interval; best / tied: instances where it is the best or "
              "not separated from it; ratio: geometric mean of the ratio to the best.", "",
              "| algorithm | mean rank | 95 % interval | best | best or tied | ratio to best |", "|---|---|---|---|---|---|"]
    for r in ranking.itertuples():
        lines.append(f"| {r.algorithm} | {sig(r.mean_rank)} | [{sig(r.rank_lower)}, {sig(r.rank_upper)}] | {r.best} | "
                     f"{r.tied_with_best} | {sig(r.geomean_ratio_to_best)} |")
    lines += ["", "## Separated pairs per instance", "",
              "| instance | pairs | separated | not separated |", "|---|---|---|---|"]
    for instance, g in pairs_df.groupby("instance", sort=False):
        close = g[~g["separated"].astype(bool)]
        shown = ", ".join(f"{a}–{b}" for a, b in zip(close["a"], close["b"]))
        lines.append(f"| `{instance}` | {len(g)} | {int(g['separated'].astype(bool).sum())} | {shown or '—'} |")
    return "\n".join(lines) + "\n"

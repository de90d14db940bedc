"""Table 1 of Komiyama et al. (2016) (L56-L59): leading log-constants averaged over random
submatrices, from the sample family ``table1`` (:mod:`.sampling`); ``table1.csv`` and
``table1.md`` (rows and columns: see the package docstring)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from duelbench.bounds.ccb import ccb_variant_names
from duelbench.provenance.sidecar import atomic_write_text
from duelbench.report.checks import load_registry
from duelbench.report.numerics import fdot, fmean, fsem, fsum

from ..contract import StepContext
from ..samples import load_family
from ..tables import write_rows
from .tables import sig

TABLE1_COLUMNS = ["quantity", "label", "n", "mean", "se", "median", "published", "check_id"]


def load_samples(shards: Sequence, samples: int):
    """The columns of the family's shards as a DataFrame in sample order; checks the sample range."""
    df = pd.DataFrame(load_family(shards))
    if not np.array_equal(df["sample"].to_numpy(), np.arange(int(samples))):
        raise ValueError(f"Table-1 shards hold samples {df['sample'].min()}…{df['sample'].max()} "
                         f"({len(df)} rows), expected 0…{int(samples) - 1}")
    return df


def mean_se(x) -> tuple[float, float]:
    """Mean and standard error (sample s.d. / sqrt(n); NaN for one value or a non-finite one),
    by correctly rounded sums (:mod:`duelbench.report.numerics`)."""
    x = np.asarray(x, dtype=float)
    se = fsem(x) if np.all(np.isfinite(x)) else math.nan
    return fmean(x), se


def _cov(x: np.ndarray, y: np.ndarray, mx: float, my: float) -> float:
    """Sample covariance (ddof = 1) of ``x`` and ``y`` about their means ``mx`` and ``my``."""
    return fdot(x - mx, y - my) / (x.size - 1)


def ratio_se(x, y) -> tuple[float, float]:
    """``mean(x) / mean(y)`` and its delta-method standard error (sample covariances by
    correctly rounded sums)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    n = x.size
    mx, my = fmean(x), fmean(y)
    r = mx / my if my else math.inf
    if n < 2 or not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))) or not my:
        return r, math.nan
    cxx, cyy, cxy = _cov(x, x, mx, mx) / n, _cov(y, y, my, my) / n, _cov(x, y, mx, my) / n
    var = r * r * (cxx / mx**2 + cyy / my**2 - 2 * cxy / (mx * my)) if mx else cxx / my**2
    return r, float(math.sqrt(max(var, 0.0)))


def summary(df, main_variant: str) -> list[dict]:
    """The rows of ``table1.csv`` (without the published columns) from the sample table."""
    n = len(df)
    rows = []

    def add(q, label, mean, se, median):
        rows.append({"quantity": q, "label": label, "n": n, "mean": float(mean), "se": float(se),
                     "median": float(median)})

    labels = {"lb": "LB = min C*_i1 (Theorem 2; 'Optimal: CW-RMED')", "ecwb": "ECWB = min C^E*_i1 (Theorem 4)"}
    for v in ccb_variant_names():
        labels[v] = f"CCB bound, variant {v}" + (" (main reading R4)" if v == main_variant else "")
    for q in ["lb", "ecwb", *ccb_variant_names()]:
        add(q, labels[q], *mean_se(df[q]), float(np.median(df[q])))
    lb = df["lb"].to_numpy(float)
    for q in ["ecwb", *ccb_variant_names()]:
        with np.errstate(divide="ignore", invalid="ignore"):
            med = float(np.median(df[q].to_numpy(float) / lb))
        add(f"{q}_over_lb", f"mean {q} / mean lb", *ratio_se(df[q], lb), med)
    p = fmean(df["has_condorcet_winner"].to_numpy(bool).astype(float))
    add("condorcet_share", "share of samples with a Condorcet winner", p, math.sqrt(p * (1 - p) / n), math.nan)
    tries = df["tries"].to_numpy(float)
    acc = n / fsum(tries)
    add("acceptance_rate", "accepted samples / subsets drawn", acc, math.sqrt(acc * acc * (1 - acc) / n), math.nan)
    add("n_copeland_winners", "number of Copeland winners", *mean_se(df["n_copeland_winners"]),
        float(np.median(df["n_copeland_winners"])))
    add("tries", "subsets drawn per accepted sample", *mean_se(tries), float(np.median(tries)))
    return rows


def published_for(registry: Mapping, prefix: str = "table1:") -> dict[str, tuple]:
    """``{quantity: (published, check id)}`` for the registry checks on Table 1 quantities."""
    out = {}
    for c in registry["checks"]:
        stat = str(c["statistic"])
        if not stat.startswith(prefix) or c.get("published") is None:
            continue
        q = stat[len(prefix):]
        if q.endswith(":mean"):
            q = q[: -len(":mean")]
        elif ":" in q:
            continue
        out[q] = (c["published"], c["id"])
    return out


def markdown(rows: Sequence[Mapping], s: Mapping) -> str:
    """``table1.md``: reproduced vs published, every CCB variant, acceptance rate, Condorcet share."""
    by = {r["quantity"]: r for r in rows}
    t1 = s["table1"]
    main = s["bounds"]["ccb_main_variant"]

    def cell(q):
        r = by[q]
        se = "" if math.isnan(r["se"]) else f" ± {sig(r['se'], 2)}"
        return f"{sig(r['mean'])}{se}"

    lines = [
        "# Komiyama, Honda & Nakagawa (2016), Table 1 — reproduced",
        "",
        f"Leading log-constants (coefficients of ln T) averaged over {by['lb']['n']} random {t1['K']}-arm submatrices "
        f"of `{t1['parent']}` (uniform {t1['K']}-subsets, rejected while any |p_ij − 1/2| < {t1['min_gap']}; "
        f"Condorcet selection: {t1.get('condorcet')}; seed {t1['seed']}; fidelity `{s['fidelity']}`).",
        "Mean ± standard error; published values are shown only for comparison (read from "
        "`data/published/komiyama2016.yaml`).",
        "",
        "| column | reproduced mean | median | published |",
        "|---|---|---|---|",
    ]
    for q, label in (("lb", "Optimal: CW-RMED (LB, Theorem 2)"), ("ecwb", "ECW-RMED (ECWB, Theorem 4)"),
                     (main, f"CCB (`{main}`, reading R4)")):
        r = by[q]
        lines.append(f"| {label} | {cell(q)} | {sig(r['median'])} | {sig(r.get('published'))} |")
    lines += ["", "| ratio (of the means) | reproduced | median of per-sample ratios | published |", "|---|---|---|---|"]
    for q, label in (("ecwb_over_lb", "ECWB / LB"), (f"{main}_over_lb", "CCB / LB")):
        r = by[q]
        lines.append(f"| {label} | {cell(q)} | {sig(r['median'])} | {sig(r.get('published'))} |")
    lines += ["", f"Samples: {by['lb']['n']}; acceptance rate {cell('acceptance_rate')} "
              f"(accepted / subsets drawn, mean {sig(by['tries']['mean'])} draws per sample); "
              f"share with a Condorcet winner {cell('condorcet_share')}; "
              f"mean number of Copeland winners {cell('n_copeland_winners')}.", ""]
    lines += ["## Every CCB bound variant (labelled; only the main reading is judged)", "",
              "See `duelbench.bounds.ccb` for the formulas; suffix `_halved` = paper 000's regret unit, "
              "`_4alpha` = with the 4α factor of N̂_ij (α = 0.51).", "",
              "| variant | mean | median | mean / mean LB |", "|---|---|---|---|"]
    for v in ccb_variant_names():
        mark = " **(main)**" if v == main else ""
        lines.append(f"| `{v}`{mark} | {cell(v)} | {sig(by[v]['median'])} | {sig(by[v + '_over_lb']['mean'])} |")
    lines.append("")
    return "\n".join(lines)


def write_table1(ctx: StepContext) -> None:
    """Step ``table1``: ``table1.csv`` and ``table1.md`` from the sample family."""
    s = ctx.settings
    df = load_samples(ctx.plan.sample_family("table1"), int(s["table1"]["samples"]))
    rows = summary(df, s["bounds"]["ccb_main_variant"])
    pub = published_for(load_registry(ctx.input.registry))
    for r in rows:
        r["published"], r["check_id"] = pub.get(r["quantity"], (None, ""))
    write_rows(ctx.output.csv, TABLE1_COLUMNS, rows)
    atomic_write_text(ctx.output.md, markdown(rows, s))
    print(f"{len(df)} samples -> {ctx.output.csv}", flush=True)

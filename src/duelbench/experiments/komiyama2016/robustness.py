"""Robustness of the MSLR orderings of Komiyama et al. (2016) (reading R2; not in the paper):
every ordering claim about a sampled MSLR panel (a check on per-run samples, estimator
``mean_ratio`` and the like, statistic ``order:<dataset>:<A>:<B>``) re-tested with its own
estimator and region on the further draws with the same recipe filters (``robustness.csv``,
``robustness.md`` and a figure)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np

from duelbench.data import sampled
from duelbench.provenance.sidecar import atomic_write_text
from duelbench.report.checks import contract, evaluate, load_registry
from duelbench.report.numerics import fmean, fsem
from duelbench.report.verdict import SAMPLE_ESTIMATORS

from ..contract import StepContext
from ..plotting import algorithm_style, save_figure
from ..tables import write_rows
from .checks import BEST_OTHER, final_samples, Missing, order_measurement, OTHERS
from .config import curves, panels
from .tables import Tables

ROBUSTNESS_COLUMNS = ["dataset", "panel", "claim_id", "estimator", "region", "algorithm_a", "claim_b", "algorithm_b",
                      "mean_a", "mean_b", "stderr_a", "stderr_b", "n_a", "n_b", "estimate", "ci_low", "ci_high",
                      "outcome", "evidence"]


def _recipe_key(name: str):
    r = sampled.recipes().get(name)
    return None if r is None else (r.parent, r.K, r.min_gap, r.condorcet)


def _contract(c: Mapping):
    if "_estimator" in c:
        return c["_estimator"], c["_region"]
    est, region, _ = contract(c, f"check {c.get('id')!r}")
    return est, region


def ordering_claims(registry: Mapping) -> list[tuple[dict, str, str, str]]:
    """``(check, dataset, A, B)`` for every ``order:`` check of the registry decided on per-run
    samples (an estimator of :data:`duelbench.report.verdict.SAMPLE_ESTIMATORS`) with a region."""
    out = []
    for c in registry["checks"]:
        if not str(c["statistic"]).startswith("order:"):
            continue
        est, region = _contract(c)
        if est not in SAMPLE_ESTIMATORS or region is None:
            continue
        parts = str(c["statistic"]).split(":")
        if len(parts) == 4:
            out.append((c, parts[1], parts[2], parts[3]))
    return out


def robustness_panel_of(dataset: str, claim_datasets: Sequence[str]) -> list[str]:
    """The claim datasets drawn with the same recipe filters as ``dataset`` (parent, K, min_gap, selection)."""
    key = _recipe_key(dataset)
    if key is None:
        return []
    return [d for d in claim_datasets if d != dataset and _recipe_key(d) == key]


def robustness_rows(tables: Tables, registry: Mapping) -> list[dict]:
    """One row per (robustness dataset, ordering claim of a panel drawn with the same recipe)."""
    s = tables.settings
    claims = ordering_claims(registry)
    claim_datasets = sorted({d for _, d, _, _ in claims})
    rows = []
    for ds in s["robustness"]["datasets"]:
        for panel in robustness_panel_of(ds, claim_datasets):
            for c, d, a, b in claims:
                if d != panel:
                    continue
                m = order_measurement(tables, ds, a, b, study="robustness")
                est, region = _contract(c)
                row = {"dataset": ds, "panel": panel, "claim_id": c["id"], "estimator": est, "region": region.label,
                       "algorithm_a": a, "algorithm_b": b, "claim_b": b}
                if isinstance(m, Missing):
                    row.update(outcome="inconclusive", evidence=m.evidence)
                    rows.append(row)
                    continue
                res = evaluate(c, m, s["fidelity"])
                e = res.decision.estimate if res.decision else None
                if m.components and res.decision is not None:  # the deciding component names B
                    labels = [lab for lab, d in res.decision.components if d.estimate is e]
                    m = dict(m.components).get(labels[0], m) if labels else m
                if m.a is not None and len(m.a):
                    xa, xb = np.asarray(m.a, float), np.asarray(m.b, float)
                    row.update(algorithm_b=getattr(m, "algorithm_b", b), mean_a=fmean(xa),
                               mean_b=fmean(xb), stderr_a=fsem(xa), stderr_b=fsem(xb), n_a=xa.size, n_b=xb.size)
                row.update(estimate=e.value if e else math.nan, ci_low=e.lower if e else math.nan,
                           ci_high=e.upper if e else math.nan, outcome=res.outcome, evidence=res.evidence)
                rows.append(row)
    return rows


def robustness_markdown(rows: Sequence[Mapping], s: Mapping) -> str:
    """``robustness.md``: per panel, each ordering claim's outcome on every further draw."""
    r = s["robustness"]
    lines = ["# Komiyama et al. (2016): the MSLR orderings on further random submatrices", "",
             f"Each ordering claim about a sampled MSLR panel is re-tested, with the registry's estimator and "
             f"region (the ratio of mean final regrets, A / B), on the "
             f"robustness draws with the same recipe filters (reading R2): {int(r['runs'])} runs of "
             f"T = {int(r['horizon'])} per algorithm, fidelity `{s['fidelity']}`. "
             "Outcomes: pass / FAIL / ? (inconclusive); these rows judge nothing by themselves.", ""]
    symbol = {"pass": "pass", "fail": "FAIL", "inconclusive": "?"}
    by_panel: dict[str, list] = {}
    for row in rows:
        by_panel.setdefault(row["panel"], []).append(row)
    if not rows:
        lines.append("No robustness dataset shares a recipe with a panel named by an ordering claim.")
    for panel, prow in by_panel.items():
        dsets = list(dict.fromkeys(x["dataset"] for x in prow))
        lines += [f"## {panel}", "", "| claim | A vs B | " + " | ".join(dsets) + " | pass / fail / ? |",
                  "|---|---|" + "---|" * len(dsets) + "---|"]
        for cid in list(dict.fromkeys(x["claim_id"] for x in prow)):
            cr = [x for x in prow if x["claim_id"] == cid]
            first = cr[0]
            outs = {x["dataset"]: x for x in cr}
            named_b = cr[0]["claim_b"]
            cells = []
            for d in dsets:
                x = outs.get(d)
                if x is None:
                    cells.append("")
                elif named_b in (BEST_OTHER, OTHERS) and x.get("algorithm_b") not in (None, "", named_b):
                    cells.append(f"{symbol[x['outcome']]} (B = {x['algorithm_b']})")
                else:
                    cells.append(symbol[x["outcome"]])
            counts = [sum(x["outcome"] == o for x in cr) for o in ("pass", "fail", "inconclusive")]
            lines.append(f"| {cid} | {first['algorithm_a']} / {named_b} {first['region']} | " + " | ".join(cells)
                         + f" | {counts[0]} / {counts[1]} / {counts[2]} |")
        lines.append("")
    return "\n".join(lines)


def draw_robustness(tables: Tables, claim_panels: Mapping[str, list[str]], footer: str):
    """Mean final regret (± 1 s.e., log scale) per algorithm on each panel and its further draws."""
    s = tables.settings
    groups = list(claim_panels.items()) or [("(no panel)", [])]
    fig, axes = plt.subplots(1, len(groups), figsize=(max(7.0, 4.4 * len(groups)), 4.0), squeeze=False)
    cs = curves(s, variants=False)
    handles = {}
    for ax, (panel, dsets) in zip(axes[0], groups):
        xs = ([panel] if panel in panels(s) else []) + list(dsets)
        for k, c in enumerate(cs):
            style = algorithm_style(c.name)
            off = (k - (len(cs) - 1) / 2) * 0.08
            for j, d in enumerate(xs):
                study = "panel" if d == panel else "robustness"
                x = final_samples(tables, d, c.name, study=study)
                if x is None:
                    continue
                m, e = fmean(x), fsem(x)
                h = ax.errorbar(j + off, m, yerr=None if math.isnan(e) else e, fmt="o" if study == "robustness" else "s",
                                ms=4, color=style["color"], label=c.label, capsize=2, lw=1)
                handles.setdefault(c.label, h)
        ax.set_yscale("log")
        ax.set_xticks(range(len(xs)))
        ax.set_xticklabels([("panel" if d == panel else d.rsplit("_", 1)[-1]) for d in xs], fontsize=8)
        ax.set_title(panel, fontsize=9)
        ax.set_ylabel("final regret (mean ± 1 s.e.)")
        ax.grid(True, axis="y", which="major", alpha=0.3)
    fig.legend(list(handles.values()), list(handles), loc="upper center", ncol=min(len(handles), 4), frameon=False,
               fontsize=8)
    fig.suptitle(footer, y=0.005, va="bottom", fontsize=6, color="#555555", wrap=True)
    fig.tight_layout(rect=(0, 0.06, 1, 0.88))
    return fig


def write_robustness(ctx: StepContext) -> None:
    """Step ``robustness``: ``robustness.csv``, ``robustness.md`` and the robustness figure."""
    s, out = ctx.settings, ctx.output
    registry = load_registry(ctx.input.registry)
    tables = Tables.read(s, final=ctx.input.final)
    rows = robustness_rows(tables, registry)
    write_rows(out.csv, ROBUSTNESS_COLUMNS, rows)
    atomic_write_text(out.md, robustness_markdown(rows, s))
    claim_datasets = sorted({d for _, d, _, _ in ordering_claims(registry)})
    groups: dict[str, list[str]] = {}
    for ds in s["robustness"]["datasets"]:
        for p in robustness_panel_of(ds, claim_datasets) or [ds]:
            groups.setdefault(p, []).append(ds)
    r = s["robustness"]
    footer = (f"Komiyama et al. (2016), robustness: {int(r['runs'])} runs, T = {int(r['horizon'])} per further draw "
              f"(circles); the panel itself (squares): {int(s['runs'])} runs, T = {int(s['horizon'])}; "
              f"fidelity {s['fidelity']}")
    save_figure(draw_robustness(tables, groups, footer), [out.pdf, out.png])
    print(f"{len(rows)} robustness rows", flush=True)

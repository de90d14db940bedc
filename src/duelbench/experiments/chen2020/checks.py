"""``checks.csv`` of Chen et al. 2020: every statistic of ``data/published/chen2020.yaml`` from
the studies' tables (:mod:`.studies`, :mod:`.toy`).

Statistics (readings C10 of the registry):

``toy:<name>``, ``width_example:width``
    Rows of ``toy.csv``.
``pac:cells_error_above_delta`` / ``pac_biased:…``
    Declared (resp. biased-sampler) X1 cells whose Clopper–Pearson 99% lower end of the miss
    rate exceeds δ.
``pac:cells_above_n1`` / ``pac:cells_above_n1_prime``
    Declared X1 cells whose 99% lower end of the share of runs above N1 (N1′) exceeds δ.
``pac:max_delta_slope_over_32h``
    Largest OLS slope of mean samples on ln(1/δ) over ``32 H_ε``, per declared (instance, ε).
``hardness:pac_slope`` / ``hardness:exact_slope``
    The fits of ``hardness_fits.csv`` (value and standard error).
``epochs:<V>:cells_beyond_qstar`` / ``…:cells_error_above_delta`` / ``…:cells_above_n2``
    X3 cells of variant ``V`` whose 99% lower end of the share past q* (of errors among returned
    runs; of the share above N2) exceeds δ.
``oracles:max_abs_lp_minus_exhaustive``, ``oracles:max_fptas_minus_lp``
    Largest disagreement over every case (FPTAS: every budget and step).
``oracles:<step>_step_error_ratio``
    Mean error at the largest budget over the mean error at the smallest, pooled over sizes.
``car_cond:…``, ``car_cond_every_round:…``, ``car_cond_fptas:errors``
    As for X1 over the declared (every-round, FPTAS) cells; ``car_cond:h4_slope`` from
    ``car_cond_fits.csv``; ``car_cond:max_calls_per_check_over_4m``.
``parallel:instances_slope_not_below``, ``parallel:errors``
    From ``parallel_fits.csv`` and ``parallel.csv``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from duelbench.report.checks import Measurement

from ..claims import Missing, evaluate_with_reasons, write_checks_step
from ..komiyama2016.tables import read_rows, to_float


def _truthy(x: str) -> bool:
    return str(x).strip().lower() in ("true", "1", "1.0")


def _count_above(rows, column: str, what: str) -> Measurement:
    """Rows whose ``column`` (a 99% lower end) exceeds their δ, with the worst named."""
    if not rows:
        return Missing(f"no {what} cells at this fidelity")
    bad = [r for r in rows if to_float(r[column]) > to_float(r["delta"])]
    worst = max(rows, key=lambda r: to_float(r[column]) - to_float(r["delta"]))
    return Measurement(value=len(bad), evidence=f"{len(bad)} of {len(rows)} {what} cells; closest: {worst['cell']} "
                                                f"({column} {to_float(worst[column]):.3g} vs delta {worst['delta']})")


def _fit(rows, where: str) -> Measurement:
    if not rows:
        return Missing(f"no fit in {where}")
    r = rows[0]
    slope, se = to_float(r["slope"]), to_float(r["se"])
    if not math.isfinite(slope):
        return Missing(f"{where}: no slope from {r.get('points', '?')} point(s) at this fidelity")
    return Measurement(value=slope, se=se if math.isfinite(se) else None,
                       evidence=f"{where}: slope {slope:.3g} over {r.get('points', '?')} points")


def measurements(tables: Mapping[str, list[dict]], s: Mapping) -> dict[str, Measurement]:
    """Every statistic the tables give (see the module docstring)."""
    out: dict[str, Measurement] = {}
    for r in tables.get("toy", []):
        v = r["value"]
        out[r["statistic"]] = Measurement(value=_truthy(v) if v.lower() in ("true", "false") else to_float(v)
                                          if _is_number(v) else v, evidence=r.get("evidence", ""))
    pac = tables.get("pac", [])
    declared = [r for r in pac if r["label"] == "declared"]
    out["pac:cells_error_above_delta"] = _count_above(declared, "cp99_low", "declared X1")
    out["pac_biased:cells_error_above_delta"] = _count_above([r for r in pac if r["label"] == "biased sampler"],
                                                             "cp99_low", "biased-sampler X1")
    out["pac:cells_above_n1"] = _count_above(declared, "cp99_low_above_N1", "declared X1")
    out["pac:cells_above_n1_prime"] = _count_above(declared, "cp99_low_above_N1_prime", "declared X1")
    out["pac:max_delta_slope_over_32h"] = _delta_slope(declared)
    hfit = tables.get("hardness_fits", [])
    out["hardness:pac_slope"] = _fit([r for r in hfit if r["part"] == "pac"], "hardness_fits.csv (pac)")
    out["hardness:exact_slope"] = _fit([r for r in hfit if r["part"] == "exact"], "hardness_fits.csv (exact)")
    epochs = tables.get("epochs", [])
    for v in ("V0", "V1", "V2"):
        rows = [r for r in epochs if r["variant"] == v]
        out[f"epochs:{v}:cells_beyond_qstar"] = _count_above(rows, "cp99_low_beyond_qstar", f"{v} X3")
        out[f"epochs:{v}:cells_error_above_delta"] = _count_above(rows, "cp99_low_error", f"{v} X3")
        out[f"epochs:{v}:cells_above_n2"] = _count_above(rows, "cp99_low_above_N2", f"{v} X3")
    out.update(_oracle_measurements(tables.get("oracles", [])))
    car = tables.get("car_cond", [])
    car_declared = [r for r in car if r["label"] == "declared"]
    out["car_cond:cells_error_above_delta"] = _count_above(car_declared, "cp99_low_error", "declared X6")
    out["car_cond:cells_above_n4"] = _count_above(car_declared, "cp99_low_above_N4", "declared X6")
    out["car_cond:h4_slope"] = _fit(tables.get("car_cond_fits", []), "car_cond_fits.csv")
    out["car_cond:max_calls_per_check_over_4m"] = (
        Measurement(value=max(to_float(r["max_calls_per_check"]) / (4 * to_float(r["m"])) for r in car),
                    evidence=f"over {len(car)} X6 cells (every run)") if car else Missing("no X6 cells"))
    out["car_cond_every_round:cells_error_above_delta"] = _count_above(
        [r for r in car if r["label"] == "every round"], "cp99_low_error", "every-round X6")
    fp = [r for r in car if r["label"] == "FPTAS oracle"]
    out["car_cond_fptas:errors"] = (Measurement(value=sum(to_float(r["errors"]) for r in fp),
                                                evidence=f"{sum(int(to_float(r['runs'])) for r in fp)} runs")
                                    if fp else Missing("no FPTAS-oracle X6 cell"))
    pfit = [r for r in tables.get("parallel_fits", []) if r.get("algorithm") == "comparison"]
    out["parallel:instances_slope_not_below"] = (
        Measurement(value=sum(not _truthy(r["agrees"]) for r in pfit),
                    evidence="; ".join(f"{r['instance']}: slope(CAR-Parallel) - slope(CAR-Cond) = "
                                       f"{to_float(r['slope']):.4g} over {r['points']} deltas" for r in pfit))
        if pfit else Missing("no CAR-Parallel comparison"))
    par = tables.get("parallel", [])
    out["parallel:errors"] = (Measurement(value=sum(to_float(r["errors"]) for r in par),
                                          evidence=f"{sum(int(to_float(r['runs'])) for r in par)} runs in {len(par)} cells")
                              if par else Missing("no X7 cells"))
    return out


def _is_number(v: str) -> bool:
    try:
        float(v)
        return True
    except ValueError:
        return False


def _delta_slope(rows) -> Measurement:
    """Largest slope of mean samples on ln(1/δ) over 32 H_ε, per (instance, ε) with ≥ 2 deltas."""
    groups: dict[tuple, list] = {}
    for r in rows:
        groups.setdefault((r["instance"], r["eps"]), []).append(r)
    ratios = []
    for (inst, eps), g in sorted(groups.items()):
        if len(g) < 2:
            continue
        x = np.log(1.0 / np.array([to_float(r["delta"]) for r in g]))
        y = np.array([to_float(r["mean_samples"]) for r in g])
        slope = float(np.polyfit(x, y, 1)[0])
        ratios.append((slope / (32.0 * to_float(g[0]["H_eps"])), f"{inst}, eps {eps}"))
    if not ratios:
        return Missing("fewer than two deltas per (instance, eps) at this fidelity")
    worst = max(ratios)
    return Measurement(value=worst[0], evidence=f"largest at {worst[1]} over {len(ratios)} (instance, eps)")


def _oracle_measurements(rows) -> dict[str, Measurement]:
    out: dict[str, Measurement] = {}
    if not rows:
        return {k: Missing("no oracle study at this fidelity") for k in (
            "oracles:max_abs_lp_minus_exhaustive", "oracles:max_fptas_minus_lp", "oracles:paper_step_error_ratio",
            "oracles:diameter_step_error_ratio")}
    exh = [r for r in rows if r["oracle"] == "lp_vs_exhaustive" and to_float(r["compared"]) > 0]
    out["oracles:max_abs_lp_minus_exhaustive"] = (
        Measurement(value=max(to_float(r["max_error"]) for r in exh),
                    evidence=f"{sum(int(to_float(r['compared'])) for r in exh)} cases on {len(exh)} sizes")
        if exh else Missing("no case small enough to enumerate"))
    fp = [r for r in rows if r["oracle"].startswith("fptas_")]
    out["oracles:max_fptas_minus_lp"] = (
        Measurement(value=max(to_float(r["max_above_opt"]) for r in fp), evidence=f"{len(fp)} (size, budget, step) rows")
        if fp else Missing("no FPTAS run at this fidelity"))
    for step in ("paper", "diameter"):
        mine = [r for r in fp if r["oracle"].endswith(f"_{step}")]
        budgets = sorted({tuple(int(x) for x in r["oracle"].split("_")[1:3]) for r in mine})
        if len(budgets) < 2:
            out[f"oracles:{step}_step_error_ratio"] = Missing("fewer than two FPTAS budgets")
            continue
        lo, hi = budgets[0], budgets[-1]

        def mean_error(b):
            return float(np.mean([to_float(r["mean_error"]) for r in mine if r["oracle"] == f"fptas_{b[0]}_{b[1]}_{step}"]))

        e_lo, e_hi = mean_error(lo), mean_error(hi)
        out[f"oracles:{step}_step_error_ratio"] = Measurement(
            value=e_hi / e_lo if e_lo > 0 else (0.0 if e_hi == 0 else math.inf),
            evidence=f"mean error {e_hi:.3g} at (outer, fw) = {hi} vs {e_lo:.3g} at {lo}")
    return out


#: The tables the checks read: step output key -> table name.
TABLES = ("toy", "pac", "hardness_fits", "epochs", "oracles", "car_cond", "car_cond_fits", "parallel", "parallel_fits")


def write_checks(ctx) -> None:
    """Step ``checks``: ``checks.csv`` (+ sidecar) from the studies' tables."""
    import os

    paths = {os.path.splitext(os.path.basename(p))[0]: p for p in ctx.input.tables}

    def evaluate(registry):
        tables = {name: read_rows(paths[name]) for name in TABLES if name in paths}
        ms = measurements(tables, ctx.settings)
        return evaluate_with_reasons(registry, lambda stat: ms.get(stat, Missing(f"statistic {stat!r} not computed")),
                                     ctx.settings["fidelity"])

    write_checks_step(ctx, evaluate, inputs=list(ctx.input.tables), seeds={"seed": int(ctx.settings["seed"])})

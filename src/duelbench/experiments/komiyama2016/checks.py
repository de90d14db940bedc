"""Statistics and checks of the Komiyama et al. (2016) replication.

Every ``statistic`` named in ``data/published/komiyama2016.yaml`` is defined in the package
docstring of :mod:`duelbench.experiments.komiyama2016`; this module computes them from the
experiment's tables (:class:`~.tables.Tables`) as :class:`~duelbench.report.checks.Measurement`
objects and evaluates the registry at the active fidelity (``checks.csv``).

A statistic that the active fidelity does not produce (a panel or algorithm that is not
configured, a table without the needed rows) is reported ``inconclusive`` with the reason in
the ``evidence`` column; nothing is ever filled in from a published value.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from duelbench.report.checks import CheckResult, Measurement
from duelbench.report.numerics import flog, fmean, fvar, ols_slope

from ..claims import Missing, evaluate_with_reasons, checks_table
from ..contract import StepContext
from ..tables import to_float
from .config import NAME, curves, panels
from .tables import Tables, sig

#: Registry name of the paper's algorithm (statistics refer to it).
ECW = "ecw_rmed"
#: Relative tolerance of the LP-based identities (HiGHS feasibility tolerance is 1e-9).
REL_TOL = 1e-7
#: "Close to ECWB" in the legacy summary ``slope:fraction_within_factor2`` (the registry's
#: region of ``slope:ecwb_ratios`` declares its own factor).
SLOPE_FACTOR = 2.0

BEST_OTHER = "best_other"
#: ``order:<dataset>:<A>:others``: one component per other algorithm of ``algorithms``.
OTHERS = "others"


# --------------------------------------------------------------------------------------------
# final regret samples
# --------------------------------------------------------------------------------------------
def first_run(s: Mapping) -> int:
    """The first panel run the checks read (setting ``check_runs_from``, 0 by default)."""
    return int(s.get("check_runs_from", 0) or 0)


def _main_names(s: Mapping) -> list[str]:
    return [c.name for c in curves(s, variants=False)]


def final_samples(tables: Tables, dataset: str, algorithm: str, *, study: str = "panel",
                  param_hash: str | None = None) -> np.ndarray | None:
    """Per-run final regret of ``algorithm`` (its ``algorithms`` entry unless ``param_hash``) on ``dataset``."""
    f = tables.finals
    if f is None:
        return None
    sel = (f["dataset"] == dataset) & (f["study"] == study) & (f["algorithm"] == algorithm)
    sel &= (f["param_hash"] == param_hash) if param_hash is not None else ~f["variant"]
    if study == "panel":
        sel &= f["run"] >= first_run(tables.settings)
    if not sel.any():
        return None
    return f.loc[sel].sort_values("run")["final"].to_numpy(float)


def best_other(tables: Tables, dataset: str, exclude: Sequence[str], study: str = "panel") -> tuple[str, float] | None:
    """The algorithm of ``algorithms`` not in ``exclude`` (ECW-RMED is always excluded) with the
    lowest mean final regret on ``dataset``."""
    best = None
    for name in _main_names(tables.settings):
        if name == ECW or name in exclude:
            continue
        x = final_samples(tables, dataset, name, study=study)
        if x is None:
            continue
        m = fmean(x)
        if best is None or m < best[1]:
            best = (name, m)
    return best


def order_measurement(tables: Tables, dataset: str, a: str, b: str, study: str = "panel") -> Measurement:
    """``order:<dataset>:<a>:<b>`` (``b`` may be ``best_other``, or ``others``: one component per
    other algorithm of ``algorithms``, in their configured order)."""
    s = tables.settings
    if tables.finals is None:
        return Missing("final_regret.csv not available")
    where = "Figure 1-2 panel" if study == "panel" else "robustness dataset"
    names = panels(s) if study == "panel" else list(s["robustness"]["datasets"])
    if dataset not in names:
        return Missing(f"dataset {dataset!r} is not a {where} at fidelity {s['fidelity']}")
    main = _main_names(s)
    if b == OTHERS:
        if a not in main:
            return Missing(f"algorithm {a!r} is not in {NAME}.algorithms at fidelity {s['fidelity']}")
        parts = []
        for name in main:
            if name == a:
                continue
            m = order_measurement(tables, dataset, a, name, study=study)
            if isinstance(m, Missing):
                return m
            parts.append((f"{a} / {name}", m))
        if not parts:
            return Missing(f"no algorithm other than {a} in {NAME}.algorithms")
        return Measurement(components=parts, evidence=f"{dataset}: A = {a}, B = each of "
                                                      f"{', '.join(n for n in main if n != a)}")
    note = ""
    if b == BEST_OTHER:
        found = best_other(tables, dataset, exclude=[a], study=study)
        if found is None:
            return Missing(f"no algorithm other than ECW-RMED and {a} has runs on {dataset}")
        b, m = found
        note = f"best other = {b} (mean {m:.6g})"
    for name in (a, b):
        if name not in main:
            return Missing(f"algorithm {name!r} is not in {NAME}.algorithms at fidelity {s['fidelity']}")
    xa, xb = final_samples(tables, dataset, a, study=study), final_samples(tables, dataset, b, study=study)
    if xa is None or xb is None:
        return Missing(f"no runs of {a if xa is None else b} on {dataset}")
    m = Measurement(a=xa, b=xb, evidence=f"{dataset}: A = {a}, B = {b}" + (f"; {note}" if note else ""))
    m.algorithm_b = b  # the resolved B (best_other names an algorithm)
    return m


def beta0_measurement(tables: Tables) -> Measurement:
    """``beta0:max_rel_diff`` over the Figure-1 panels (shown beside ``beta0:ratios``)."""
    s = tables.settings
    var = _beta0_variant(s)
    if var is None:
        return Missing(f"no variant {ECW} with beta = 0 in {NAME}.variants")
    if tables.finals is None:
        return Missing("final_regret.csv not available")
    parts, diffs = [], []
    for d in s["figure1"]:
        m = final_samples(tables, d, ECW)
        m0 = final_samples(tables, d, ECW, param_hash=var.param_hash)
        if m is None or m0 is None:
            return Missing(f"no runs of {ECW} (beta = 0.01 and 0) on {d}")
        mm, mm0 = fmean(m), fmean(m0)
        rel = abs(mm0 - mm) / mm if mm > 0 else (0.0 if mm0 == mm else math.inf)
        diffs.append(rel)
        parts.append(f"{d}: {rel:.3g}")
    return Measurement(value=max(diffs), evidence="|m0 - m|/m per panel: " + ", ".join(parts))


def _beta0_variant(s: Mapping):
    var = [c for c in curves(s) if c.variant and c.name == ECW and float(c.params.get("beta", math.nan)) == 0.0]
    return var[0] if var else None


def beta0_ratios(tables: Tables) -> Measurement:
    """``beta0:ratios``: one component per Figure-1 panel, samples ``a`` = per-run final regret of
    the variant ``ecw_rmed`` with ``beta = 0``, ``b`` = of ECW-RMED (``beta = 0.01``)."""
    s = tables.settings
    var = _beta0_variant(s)
    if var is None:
        return Missing(f"no variant {ECW} with beta = 0 in {NAME}.variants")
    if tables.finals is None:
        return Missing("final_regret.csv not available")
    parts = []
    for d in s["figure1"]:
        m = final_samples(tables, d, ECW)
        m0 = final_samples(tables, d, ECW, param_hash=var.param_hash)
        if m is None or m0 is None:
            return Missing(f"no runs of {ECW} (beta = 0.01 and 0) on {d}")
        parts.append((d, Measurement(a=m0, b=m, evidence=f"{d}: A = {ECW} beta = 0, B = {ECW} beta = 0.01")))
    return Measurement(components=parts, evidence=f"mean final regret of {ECW} with beta = 0 over beta = 0.01, "
                                                  f"per Figure-1 panel")


def slope_ratio(tables: Tables, dataset: str) -> tuple[float, float, float] | None:
    """(slope of ECW-RMED's mean regret vs ln t over t in [T/10, T], ECWB, slope / ECWB)."""
    s = tables.settings
    r = tables.regret
    if r is None or dataset not in tables.bounds:
        return None
    main = [c for c in curves(s, variants=False) if c.name == ECW]
    if not main:
        return None
    cur = r[(r["dataset"] == dataset) & (r["algorithm"] == ECW) & (r["param_hash"] == main[0].param_hash)]
    T = int(s["horizon"])
    cur = cur[(cur["t"] >= T / 10) & (cur["t"] <= T)].sort_values("t")
    if len(cur) < 2:
        return None
    slope = ols_slope(flog(cur["t"].to_numpy(float)), cur["mean"].to_numpy(float))
    ecwb = to_float(tables.bounds[dataset]["ecwb"])
    ratio = slope / ecwb if ecwb > 0 and math.isfinite(ecwb) else math.nan
    return slope, ecwb, ratio


def slope_measurement(tables: Tables) -> Measurement:
    """``slope:fraction_within_factor2`` over the Figure-1 panels (a summary without uncertainty)."""
    s = tables.settings
    within, parts = 0, []
    for d in s["figure1"]:
        got = slope_ratio(tables, d)
        if got is None:
            return Missing(f"no regret curve of {ECW} or no ECWB for {d}")
        slope, ecwb, ratio = got
        ok = math.isfinite(ratio) and 1 / SLOPE_FACTOR <= ratio <= SLOPE_FACTOR
        within += ok
        parts.append(f"{d}: slope {slope:.4g} / ECWB {ecwb:.4g} = {ratio:.3g}")
    n = len(s["figure1"])
    return Measurement(value=within / n, evidence=f"{within}/{n} within a factor {SLOPE_FACTOR:g}; " + "; ".join(parts))


def slope_samples(tables: Tables, dataset: str, algorithm: str = ECW) -> np.ndarray | None:
    """Per-run least-squares slopes of cumulative regret against ln t over the checkpoints in
    [T/10, T] (column ``slope`` of ``final_regret.csv``) of ``algorithm`` on the panel ``dataset``."""
    f = tables.finals
    if f is None or "slope" not in f.columns:
        return None
    sel = (f["dataset"] == dataset) & (f["study"] == "panel") & (f["algorithm"] == algorithm) & ~f["variant"]
    sel &= f["run"] >= first_run(tables.settings)
    if not sel.any():
        return None
    return f.loc[sel].sort_values("run")["slope"].to_numpy(float)


def slope_ratios(tables: Tables) -> Measurement:
    """``slope:ecwb_ratios``: one component per Figure-1 panel, the mean of ECW-RMED's per-run
    slopes (= the slope of its mean curve) over ECWB, with the standard error of that mean over
    runs (t with n - 1 degrees of freedom); ECWB is exact."""
    s = tables.settings
    if tables.finals is None:
        return Missing("final_regret.csv not available")
    if ECW not in _main_names(s):
        return Missing(f"{ECW} is not in {NAME}.algorithms")
    parts = []
    for d in s["figure1"]:
        x = slope_samples(tables, d)
        if x is None or x.size < 2:
            return Missing(f"no per-run slopes of {ECW} on {d} (final_regret.csv, column slope)")
        if d not in tables.bounds:
            return Missing(f"no ECWB for {d}")
        ecwb = to_float(tables.bounds[d]["ecwb"])
        if not (ecwb > 0 and math.isfinite(ecwb)):
            return Missing(f"ECWB of {d} is {ecwb!r}")
        m, se = fmean(x), math.sqrt(fvar(x) / x.size)
        parts.append((d, Measurement(value=m / ecwb, se=se / ecwb, df=x.size - 1, runs=x.size,
                                     evidence=f"{d}: slope {sig(m, 4)} ± {sig(se, 2)} / ECWB {sig(ecwb, 4)}")))
    return Measurement(components=parts, evidence=f"slope of {ECW}'s regret against ln t over [T/10, T] / ECWB, "
                                                  "per Figure-1 panel")


# --------------------------------------------------------------------------------------------
# bounds, datasets, theory
# --------------------------------------------------------------------------------------------
def _rel_close(x: float, y: float) -> bool:
    return abs(x - y) <= REL_TOL * max(1.0, abs(x), abs(y))


def bounds_measurement(tables: Tables, dataset: str, what: str) -> Measurement:
    """``bounds:<dataset>:<what>``."""
    row = tables.bounds.get(dataset)
    if row is None:
        return Missing(f"matrix {dataset!r} is not tabulated at fidelity {tables.settings['fidelity']}")
    if what == "ecwb_over_lb":
        lb, ecwb = to_float(row["lb"]), to_float(row["ecwb"])
        return Measurement(value=ecwb / lb, evidence=f"ECWB = {ecwb:.6g}, LB = {lb:.6g}")
    if what == "three_winners_equal_lb":
        w = tables.winners.get(dataset, [])
        vals = [to_float(r["lb_i1"]) for r in w]
        ok = len(w) == 3 and all(_rel_close(v, vals[0]) for v in vals)
        return Measurement(value=ok, evidence=f"{len(w)} Copeland winner(s) {[int(r['winner']) for r in w]}, "
                                              f"C*_i1 = {[float(f'{v:.6g}') for v in vals]}")
    if what in row:
        try:
            return Measurement(value=to_float(row[what]))
        except ValueError:
            return Measurement(value=row[what])
    return Missing(f"bound_constants.csv has no column {what!r}")


def condorcet_status_measurement(tables: Tables) -> Measurement:
    """``datasets:condorcet_status_as_stated`` over the Figure-1 panels."""
    s = tables.settings
    if not tables.datasets:
        return Missing("datasets.csv not available")
    ok, parts, unstated = True, [], []
    for d in s["figure1"]:
        row = tables.datasets.get(d)
        if row is None:
            return Missing(f"dataset {d!r} is not in datasets.csv")
        if row["stated_condorcet"] == "":
            unstated.append(d)
            continue
        stated, has = row["stated_condorcet"] == "true", row["has_condorcet_winner"] == "true"
        ok &= stated == has
        parts.append(f"{d}: {'CW' if has else 'no CW'} (stated {'CW' if stated else 'no CW'}, {row['stated_source']})")
    if not parts:
        return Missing("the paper states the Condorcet status of none of the Figure-1 panels")
    ev = "; ".join(parts) + (f"; not stated: {', '.join(unstated)}" if unstated else "")
    return Measurement(value=ok, evidence=ev)


def theory_measurement(tables: Tables, which: str) -> Measurement:
    """``theory:<which>``."""
    s = tables.settings
    if not tables.bounds or not tables.winners:
        return Missing("bound tables not available")
    if which in ("ecwb_ge_lb_all_panels", "lb_le_ecwb_all_panels"):
        bad, n = [], 0
        for d in panels(s):
            if d not in tables.bounds:
                return Missing(f"panel {d!r} is not in bound_constants.csv")
            if which == "ecwb_ge_lb_all_panels":
                for r in tables.winners[d]:
                    n += 1
                    lb, ecw = to_float(r["lb_i1"]), to_float(r["ecwb_i1"])
                    if not ecw >= lb * (1 - REL_TOL):
                        bad.append(f"{d} i1={r['winner']}: C^E* = {ecw:.8g} < C* = {lb:.8g}")
            else:
                n += 1
                lb, ecw = to_float(tables.bounds[d]["lb"]), to_float(tables.bounds[d]["ecwb"])
                if not lb <= ecw * (1 + REL_TOL):
                    bad.append(f"{d}: LB = {lb:.8g} > ECWB = {ecw:.8g}")
        what = "(panel, winner) pairs" if which == "ecwb_ge_lb_all_panels" else "panels"
        return Measurement(value=not bad, evidence=f"{n} {what} ({', '.join(panels(s))})" + (
            "; violated: " + "; ".join(bad) if bad else ""))
    if which == "ecwb_eq_lb_when_multiple_winners":
        bad, used = [], []
        for d, rows in tables.winners.items():
            if len(rows) < 2:
                continue
            used.append(d)
            for r in rows:
                lb, ecw = to_float(r["lb_i1"]), to_float(r["ecwb_i1"])
                if not _rel_close(lb, ecw):
                    bad.append(f"{d} i1={r['winner']}: C^E* = {ecw:.10g}, C* = {lb:.10g}")
        if not used:
            return Missing("no tabulated matrix has two or more Copeland winners")
        return Measurement(value=not bad, evidence=f"matrices with C >= 2: {', '.join(used)}" + (
            "; violated: " + "; ".join(bad) if bad else ""))
    if which == "eq11_holds_printed":
        bad, n = [], 0
        for d in s["bounds"]["matrices"]:
            if d not in tables.winners:
                return Missing(f"matrix {d!r} is not in bound_winners.csv")
            for r in tables.winners[d]:
                n += 1
                ecw, rhs = to_float(r["ecwb_i1"]), to_float(r["eq11_rhs"])
                if not ecw <= rhs * (1 + REL_TOL):
                    bad.append(f"{d} i1={r['winner']}: C^E* = {ecw:.6g} > {rhs:.6g}")
        return Measurement(value=not bad, evidence=f"{n} (matrix, winner) pairs of {', '.join(s['bounds']['matrices'])}"
                                                    + ("; violated: " + "; ".join(bad) if bad else ""))
    return Missing(f"unknown theory statistic {which!r}")


def table1_measurement(tables: Tables, rest: str) -> Measurement:
    """``table1:<quantity>[:mean|:median]``."""
    if not tables.table1:
        return Missing("table1.csv not available")
    q, _, agg = rest.partition(":")
    row = tables.table1.get(q)
    if row is None:
        return Missing(f"table1.csv has no quantity {q!r}")
    n = int(row["n"])
    if agg in ("", "mean"):
        se = to_float(row["se"])
        return Measurement(value=to_float(row["mean"]), se=None if math.isnan(se) else se,
                           evidence=f"n = {n} samples, median {sig(to_float(row['median']))}")
    if agg == "median":
        return Measurement(value=to_float(row["median"]), evidence=f"n = {n} samples")
    return Missing(f"unknown Table-1 aggregate {agg!r} (mean or median)")


# --------------------------------------------------------------------------------------------
# dispatch
# --------------------------------------------------------------------------------------------
def measure(tables: Tables, statistic: str) -> Measurement:
    """The measurement of one statistic name (see the package docstring)."""
    kind, _, rest = statistic.partition(":")
    if kind == "table1":
        return table1_measurement(tables, rest)
    if kind == "bounds":
        d, _, what = rest.partition(":")
        return bounds_measurement(tables, d, what)
    if kind == "datasets" and rest == "condorcet_status_as_stated":
        return condorcet_status_measurement(tables)
    if kind == "theory":
        return theory_measurement(tables, rest)
    if kind == "order":
        parts = rest.split(":")
        if len(parts) != 3:
            return Missing(f"malformed ordering statistic {statistic!r} (order:<dataset>:<A>:<B>)")
        return order_measurement(tables, *parts)
    if kind == "beta0" and rest == "max_rel_diff":
        return beta0_measurement(tables)
    if kind == "beta0" and rest == "ratios":
        return beta0_ratios(tables)
    if kind == "slope" and rest == "fraction_within_factor2":
        return slope_measurement(tables)
    if kind == "slope" and rest == "ecwb_ratios":
        return slope_ratios(tables)
    return Missing(f"unknown statistic {statistic!r}")


def evaluate_all(tables: Tables, registry: Mapping) -> list[CheckResult]:
    """Evaluate every check (:func:`~duelbench.experiments.claims.evaluate_with_reasons`).  A
    claim on "at least k" components of which the configuration produces fewer than k (e.g. a
    variant with fewer Figure-1 panels) is not produced at this configuration."""
    need = {c["statistic"]: int(c["combine"]["at_least"]) for c in registry["checks"]
            if isinstance(c.get("combine"), Mapping) and "at_least" in c["combine"]}

    def measured(statistic: str) -> Measurement:
        m = measure(tables, statistic)
        k = need.get(statistic)
        if k and m.components is not None and len(m.components) < k:
            return Missing(f"{len(m.components)} component(s) at this configuration "
                           f"({', '.join(lab for lab, _ in m.components)}); the claim needs at least {k}")
        return m

    return evaluate_with_reasons(registry, measured, tables.settings["fidelity"])


def write_checks(ctx: StepContext) -> dict:
    """Step ``checks``: ``checks.csv`` from the experiment's tables."""
    s, i = ctx.settings, ctx.input

    def evaluate(registry):
        return evaluate_all(Tables.read(s, bounds=i.bounds, winners=i.winners, datasets=i.datasets, table1=i.table1,
                                        final=i.final, regret=i.regret), registry)

    return checks_table(ctx, evaluate)

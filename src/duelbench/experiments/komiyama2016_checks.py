"""Statistics and checks of the Komiyama et al. (2016) replication.

Every ``statistic`` named in ``data/published/komiyama2016.yaml`` is defined in the docstring
of :mod:`duelbench.experiments.komiyama2016`; this module computes them from the experiment's
tables (:class:`Tables`) as :class:`~duelbench.report.checks.Measurement` objects, evaluates the
registry at the active fidelity (``checks.csv``) and re-tests the ordering claims on the
robustness datasets (``robustness.csv``, ``.md`` and a figure).

A statistic that the active fidelity does not produce (a panel or algorithm that is not
configured, a table without the needed rows) is reported ``inconclusive`` with the reason in
the ``evidence`` column; nothing is ever filled in from a published value.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from duelbench.report.checks import CheckResult, Measurement

from . import log_to
from .komiyama2016 import (
    ECW,
    NAME,
    REL_TOL,
    SLOPE_FACTOR,
    _display,
    _sig,
    curve_settings,
    curves,
    panels,
    read_final,
    read_regret,
    read_rows,
    registry_path,
    settings,
    to_float,
    write_rows,
)

WELCH_TESTS = ("less_mean_welch", "not_less_mean_welch", "ratio_less_welch")
BEST_OTHER = "best_other"


@dataclass
class Tables:
    """The experiment's tables, as read from its outputs (any of them may be missing: None)."""

    settings: dict
    bounds: dict = field(default_factory=dict)  # matrix -> row of bound_constants.csv
    winners: dict = field(default_factory=dict)  # matrix -> rows of bound_winners.csv
    datasets: dict = field(default_factory=dict)  # dataset -> row of datasets.csv
    table1: dict = field(default_factory=dict)  # quantity -> row of table1.csv
    finals: object = None  # DataFrame of final_regret.csv
    regret: object = None  # DataFrame of regret.csv

    @classmethod
    def read(cls, s: Mapping, *, bounds=None, winners=None, datasets=None, table1=None, final=None,
             regret=None) -> "Tables":
        t = cls(settings=dict(s))
        if bounds:
            t.bounds = {r["matrix"]: r for r in read_rows(bounds)}
        if winners:
            for r in read_rows(winners):
                t.winners.setdefault(r["matrix"], []).append(r)
        if datasets:
            t.datasets = {r["dataset"]: r for r in read_rows(datasets)}
        if table1:
            t.table1 = {r["quantity"]: r for r in read_rows(table1)}
        if final:
            t.finals = read_final(final)
        if regret:
            t.regret = read_regret(regret)
        return t


class Missing(Measurement):
    """A statistic the active fidelity does not produce (evaluated as ``inconclusive``)."""

    def __init__(self, reason: str):
        super().__init__(value=None, a=[], b=[], evidence=reason)


# --------------------------------------------------------------------------------------------
# final regret samples
# --------------------------------------------------------------------------------------------
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
        m = float(np.mean(x))
        if best is None or m < best[1]:
            best = (name, m)
    return best


def order_measurement(tables: Tables, dataset: str, a: str, b: str, study: str = "panel") -> Measurement:
    """``order:<dataset>:<a>:<b>`` (``b`` may be ``best_other``)."""
    s = tables.settings
    if tables.finals is None:
        return Missing("final_regret.csv not available")
    where = "Figure 1-2 panel" if study == "panel" else "robustness dataset"
    names = panels(s) if study == "panel" else list(s["robustness"]["datasets"])
    if dataset not in names:
        return Missing(f"dataset {dataset!r} is not a {where} at fidelity {s['fidelity']}")
    main = _main_names(s)
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
    """``beta0:max_rel_diff`` over the Figure-1 panels."""
    s = tables.settings
    var = [c for c in curves(s) if c.variant and c.name == ECW and float(c.params.get("beta", math.nan)) == 0.0]
    if not var:
        return Missing(f"no variant {ECW} with beta = 0 in {NAME}.variants")
    if tables.finals is None:
        return Missing("final_regret.csv not available")
    parts, diffs = [], []
    for d in s["figure1"]:
        m = final_samples(tables, d, ECW)
        m0 = final_samples(tables, d, ECW, param_hash=var[0].param_hash)
        if m is None or m0 is None:
            return Missing(f"no runs of {ECW} (beta = 0.01 and 0) on {d}")
        mm, mm0 = float(np.mean(m)), float(np.mean(m0))
        rel = abs(mm0 - mm) / mm if mm > 0 else (0.0 if mm0 == mm else math.inf)
        diffs.append(rel)
        parts.append(f"{d}: {rel:.3g}")
    return Measurement(value=max(diffs), evidence="|m0 - m|/m per panel: " + ", ".join(parts))


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
    slope = float(np.polyfit(np.log(cur["t"].to_numpy(float)), cur["mean"].to_numpy(float), 1)[0])
    ecwb = to_float(tables.bounds[dataset]["ecwb"])
    ratio = slope / ecwb if ecwb > 0 and math.isfinite(ecwb) else math.nan
    return slope, ecwb, ratio


def slope_measurement(tables: Tables) -> Measurement:
    """``slope:fraction_within_factor2`` over the Figure-1 panels."""
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
                           evidence=f"n = {n} samples, median {_sig(to_float(row['median']))}")
    if agg == "median":
        return Measurement(value=to_float(row["median"]), evidence=f"n = {n} samples")
    return Missing(f"unknown Table-1 aggregate {agg!r} (mean or median)")


# --------------------------------------------------------------------------------------------
# dispatch
# --------------------------------------------------------------------------------------------
def measure(tables: Tables, statistic: str) -> Measurement:
    """The measurement of one statistic name (see the docstring of :mod:`.komiyama2016`)."""
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
    if kind == "slope" and rest == "fraction_within_factor2":
        return slope_measurement(tables)
    return Missing(f"unknown statistic {statistic!r}")


def measurements(tables: Tables, registry: Mapping) -> dict[str, Measurement]:
    """``{statistic: Measurement}`` for every statistic named in ``registry``."""
    return {c["statistic"]: measure(tables, c["statistic"]) for c in registry["checks"]}


def evaluate_all(tables: Tables, registry: Mapping) -> list[CheckResult]:
    """Evaluate every check with :func:`~duelbench.report.checks.evaluate_registry`; a statistic that
    was not produced keeps its reason as the evidence of the ``inconclusive`` outcome."""
    from duelbench.report.checks import evaluate_registry

    ms = measurements(tables, registry)
    results = evaluate_registry(registry, ms, tables.settings["fidelity"])
    for r in results:
        m = ms.get(r.check["statistic"])
        if isinstance(m, Missing):
            r.outcome, r.reproduced, r.evidence = "inconclusive", None, m.evidence
        elif m is not None and m.evidence and not r.evidence.startswith(m.evidence):
            r.evidence = f"{m.evidence}; {r.evidence}"  # e.g. "only 2 runs" without naming A and B
    return results


def checks(config: Mapping, *, bounds: str, winners: str, datasets: str, table1: str, final: str, regret: str,
           out_csv: str, fidelity: str | None = None, log: str | None = None) -> list[CheckResult]:
    """Write ``checks.csv`` (+ sidecar) from the experiment's tables."""
    from duelbench.report.checks import load_registry, write_checks_csv
    from duelbench.provenance.sidecar import Timer, write_sidecar

    s = settings(config, fidelity)
    with log_to(log), Timer() as t:
        registry = load_registry(registry_path())
        tables = Tables.read(s, bounds=bounds, winners=winners, datasets=datasets, table1=table1, final=final,
                             regret=regret)
        results = evaluate_all(tables, registry)
        write_checks_csv(results, out_csv)
        for r in results:
            print(f"{r.check['id']}: {r.outcome} ({r.evidence[:120]})", flush=True)
    counts = {o: sum(r.outcome == o for r in results) for o in ("pass", "fail", "inconclusive")}
    write_sidecar(out_csv, inputs=[bounds, winners, datasets, table1, final, regret, _display(registry_path())],
                  config=s, seeds={"seed": int(s["seed"]), "table1_seed": int(s["table1"]["seed"])},
                  extra={"experiment": NAME, "outcomes": counts}, **t.as_kwargs())
    return results


# --------------------------------------------------------------------------------------------
# robustness
# --------------------------------------------------------------------------------------------
ROBUSTNESS_COLUMNS = ["dataset", "panel", "claim_id", "test", "algorithm_a", "claim_b", "algorithm_b", "factor", "mean_a",
                      "mean_b", "stderr_a", "stderr_b", "n_a", "n_b", "p_value", "outcome", "evidence"]


def _recipe_key(name: str):
    from duelbench.data import sampled

    r = sampled.recipes().get(name)
    return None if r is None else (r.parent, r.K, r.min_gap, r.condorcet)


def ordering_claims(registry: Mapping) -> list[tuple[dict, str, str, str]]:
    """``(check, dataset, A, B)`` for every Welch-tested ``order:`` check of the registry."""
    out = []
    for c in registry["checks"]:
        if c["test"] not in WELCH_TESTS or not str(c["statistic"]).startswith("order:"):
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


def _se(x: np.ndarray) -> float:
    return float(x.std(ddof=1) / math.sqrt(x.size)) if x.size > 1 else math.nan


def robustness_rows(tables: Tables, registry: Mapping) -> list[dict]:
    """One row per (robustness dataset, ordering claim of a panel drawn with the same recipe)."""
    from duelbench.report.checks import evaluate, welch_one_sided

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
                factor = float(c.get("factor", 1.0))
                row = {"dataset": ds, "panel": panel, "claim_id": c["id"], "test": c["test"], "algorithm_a": a,
                       "algorithm_b": b, "claim_b": b, "factor": factor if c["test"] == "ratio_less_welch" else None}
                if isinstance(m, Missing):
                    row.update(outcome="inconclusive", evidence=m.evidence)
                    rows.append(row)
                    continue
                xa, xb = np.asarray(m.a, float), np.asarray(m.b, float)
                bname = getattr(m, "algorithm_b", b)
                res = evaluate(c, m, s["fidelity"])
                p = welch_one_sided(xa, xb * factor)[1] if min(xa.size, xb.size) >= 2 else math.nan
                row.update(algorithm_b=bname, mean_a=float(xa.mean()), mean_b=float(xb.mean()), stderr_a=_se(xa),
                           stderr_b=_se(xb), n_a=xa.size, n_b=xb.size, p_value=p, outcome=res.outcome,
                           evidence=res.evidence)
                rows.append(row)
    return rows


def robustness_markdown(rows: Sequence[Mapping], s: Mapping) -> str:
    """``robustness.md``: per panel, each ordering claim's outcome on every further draw."""
    r = s["robustness"]
    lines = ["# Komiyama et al. (2016): the MSLR orderings on further random submatrices", "",
             f"Each ordering claim about a sampled MSLR panel is re-tested, with the registry's test, on the "
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
        dsets = _unique_in_order(x["dataset"] for x in prow)
        lines += [f"## {panel}", "", "| claim | A vs B | " + " | ".join(dsets) + " | pass / fail / ? |",
                  "|---|---|" + "---|" * len(dsets) + "---|"]
        for cid in _unique_in_order(x["claim_id"] for x in prow):
            cr = [x for x in prow if x["claim_id"] == cid]
            first = cr[0]
            rel = {"less_mean_welch": "<", "not_less_mean_welch": "not <", "ratio_less_welch": "< c·"}[first["test"]]
            outs = {x["dataset"]: x for x in cr}
            named_b = cr[0]["claim_b"]
            cells = []
            for d in dsets:
                x = outs.get(d)
                if x is None:
                    cells.append("")
                elif named_b == BEST_OTHER:
                    cells.append(f"{symbol[x['outcome']]} (B = {x['algorithm_b']})")
                else:
                    cells.append(symbol[x["outcome"]])
            counts = [sum(x["outcome"] == o for x in cr) for o in ("pass", "fail", "inconclusive")]
            lines.append(f"| {cid} | {first['algorithm_a']} {rel} {named_b} | " + " | ".join(cells)
                         + f" | {counts[0]} / {counts[1]} / {counts[2]} |")
        lines.append("")
    return "\n".join(lines)


def _unique_in_order(items) -> list:
    out = []
    for x in items:
        if x not in out:
            out.append(x)
    return out


def draw_robustness(tables: Tables, claim_panels: Mapping[str, list[str]], footer: str):
    """Mean final regret (± 1 s.e., log scale) per algorithm on each panel and its further draws."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .plotting import algorithm_style

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
                m, e = float(np.mean(x)), _se(x)
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


def robustness(config: Mapping, final_csv: str, out_csv: str, out_md: str, out_figs: Sequence[str],
               fidelity: str | None = None, log: str | None = None) -> None:
    """``robustness.csv``, ``robustness.md`` and the robustness figure (+ sidecars)."""
    from duelbench.report.checks import load_registry
    from duelbench.provenance.sidecar import Timer, atomic_write_text, write_sidecar

    from .plotting import save_figure

    s = settings(config, fidelity)
    with log_to(log), Timer() as t:
        registry = load_registry(registry_path())
        tables = Tables.read(s, final=final_csv)
        rows = robustness_rows(tables, registry)
        write_rows(out_csv, ROBUSTNESS_COLUMNS, rows)
        atomic_write_text(out_md, robustness_markdown(rows, s))
        claim_datasets = sorted({d for _, d, _, _ in ordering_claims(registry)})
        groups: dict[str, list[str]] = {}
        for ds in s["robustness"]["datasets"]:
            for p in robustness_panel_of(ds, claim_datasets) or [ds]:
                groups.setdefault(p, []).append(ds)
        r = s["robustness"]
        footer = (f"Komiyama et al. (2016), robustness: {int(r['runs'])} runs, T = {int(r['horizon'])} per further draw "
                  f"(circles); the panel itself (squares): {int(s['runs'])} runs, T = {int(s['horizon'])}; "
                  f"fidelity {s['fidelity']}")
        save_figure(draw_robustness(tables, groups, footer), out_figs)
        print(f"{len(rows)} robustness rows", flush=True)
    for p in (out_csv, out_md, *out_figs):
        write_sidecar(p, inputs=[final_csv, _display(registry_path())], config=curve_settings(s),
                      seeds={"seed": int(s["seed"])}, extra={"experiment": NAME, "rows": len(rows)}, **t.as_kwargs())

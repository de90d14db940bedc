"""``checks.csv`` of Chen et al. 2020: every statistic of ``data/published/chen2020.yaml`` from
the studies' tables (:mod:`.studies`, :mod:`.toy`) and, for the intervals, from the runs.

Every statistic is a :class:`~duelbench.report.checks.Measurement` of the statistics contract
(:mod:`duelbench.report.verdict`): the registry's estimator and region decide it.

Statistics
----------
``toy:<name>``, ``width_example:width``, ``errata:<name>``
    Rows of ``toy.csv`` (exact facts).
``instances:max_h_ver_over_outside_term``
    Largest ``H_ver / Σ_{e ∉ M*} 1/(Δ^C_e)²`` over the instances with a Condorcet winner
    (``instances.csv``; exact).
``pac:error:d<δ>``, ``pac:above_n1:d<δ>``, ``pac:above_n1_prime:d<δ>``, ``pac_biased:error:d<δ>``
    Proportions pooled over the declared (biased-sampler) X1 cells at one ``δ``: runs that miss
    (``B(Out) < B(M*) − ε``, a capped run included), runs above ``N1`` (``N1′``; capped runs
    included).  A theorem that bounds every cell's rate by ``δ`` bounds the pooled rate by ``δ``.
``pac:max_delta_slope_over_32h``
    Largest OLS slope of mean samples on ``ln(1/δ)`` over ``32 H_ε`` per declared (instance, ε);
    bootstrap over runs.
``hardness:pac_slope`` / ``hardness:exact_slope``
    The fixed-effect slopes of :func:`.fits.fe_slope` (per instance; per θ-draw with capped runs
    censored); bootstrap over runs within cells (:data:`TOBIT_REPLICATES` for the censored fit).
``hardness:pac_slope:<instance>``
    The PAC slope within one instance (OLS of log mean samples over its cells; bootstrap).
``epochs:<V>:beyond_qstar:d<δ>``, ``epochs:<V>:error:d<δ>``, ``epochs:<V>:above_n2:d<δ>``
    Proportions pooled over the X3 cells of variant ``V`` at one ``δ``: runs past ``q*`` (capped
    included), errors among returned runs, runs above ``N2`` (capped included).
``lower_bounds:theorem3_conditions`` / ``lower_bounds:theorem6_conditions``
    Whether every X4 instance meets the theorem's conditions (exact).
``lower_bounds:borda_mean_over_n3`` / ``lower_bounds:condorcet_mean_over_n6``
    One component per X4 cell: mean samples over the bound, with its standard error (``n − 1``
    degrees of freedom).
``oracles:max_abs_lp_minus_exhaustive``, ``oracles:max_fptas_minus_lp``
    Largest disagreement over every case (exact).
``oracles:small_budget_<step>_step_error_ratio``
    Per-case errors (OPT − FPTAS) at the largest FPTAS budget against the smallest, paired by
    case over the sizes with an FPTAS run (mean ratio).
``lemma9:max_error_over_eps`` / ``lemma9:max_error_over_bound``
    Largest ``error/ε`` at ``T(ε)`` and ``error·√T/(2ℓK)`` over every Lemma 9 case (exact).
``lemma9:error_smallest_minus_largest_eps``
    Per-case error at the smallest ``ε`` (largest ``T``) minus at the largest, paired.
``car_cond:error:d<δ>``, ``car_cond:above_n4:d<δ>``, ``car_cond_every_round:error:d<δ>``,
``car_cond_fptas:error``
    Proportions as for X1 over the declared (every-round, FPTAS-oracle) X6 cells.
``car_cond:h4_slope``
    OLS slope of log mean samples on log ``H4`` over the declared X6 cells without a capped run;
    bootstrap over runs.
``car_cond:max_calls_per_check_over_4m``
    Largest oracle calls per check over ``4m`` over every run (exact).
``parallel:slope_difference[:<instance>]`` / ``parallel:slope_difference_calibration[:<instance>]``
    One component per instance: slope of CAR-Parallel's mean samples on ``ln(1/δ)`` minus
    CAR-Cond's, on the fresh (calibration) runs; bootstrap over runs (one statistic per
    calibration instance as well).
``parallel:predicted_sign_agreement``
    One component per instance: the fresh slope difference times the sign of the predicted one
    (``c_par H_ver − c_cond Σ 1/Δ²``, constants from the calibration runs); positive when the
    sign is as predicted.
``parallel:c_par`` / ``parallel:c_cond``
    The calibrated constants (mean over the calibration instances of slope / rate term);
    bootstrap over the calibration runs.
``parallel:error_car_parallel``
    Proportion of CAR-Parallel runs (every instance and ``δ``) without the Condorcet winner.

Bootstrap replicates use the paper's declared ``seed`` and the statistic's name as key
(:func:`duelbench.report.verdict.bootstrap`): :data:`~duelbench.report.verdict.BOOTSTRAP_REPLICATES`,
:data:`TOBIT_REPLICATES` for the censored fit (one maximum-likelihood fit per replicate).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping, Sequence

import numpy as np

from duelbench.report import verdict as V
from duelbench.report.checks import Measurement
from duelbench.report.numerics import fmean, fmean_last, ols_slope_last

from ..claims import checks_table, evaluate_with_reasons, Missing
from ..contract import StepContext
from ..tables import read_rows, to_float
from .cells import _fmt, STUDIES
from .fits import fe_slope
from .lemma9 import eps_key
from .runs import STEPS
from .studies import hardness_cells, load_cells, parallel_prediction, parallel_split

#: Bootstrap replicates of the censored fixed-effect fit (one MLE each; the others use the
#: contract's default).
TOBIT_REPLICATES = 2000


def dkey(delta) -> str:
    """A ``δ`` as the statistic names spell it (``0.01`` -> ``d0p01``; the cells' spelling)."""
    return "d" + _fmt(float(delta))


def _truthy(x: str) -> bool:
    return str(x).strip().lower() in ("true", "1", "1.0")


def _is_number(v: str) -> bool:
    try:
        float(v)
        return True
    except ValueError:
        return False


def _proportion(rows, k_col: str, n_col: str, what: str) -> Measurement:
    """Successes ``Σ k_col`` of trials ``Σ n_col`` pooled over ``rows``."""
    if not rows:
        return Missing(f"no {what} cells at this fidelity")
    k = int(sum(to_float(r[k_col]) for r in rows))
    n = int(sum(to_float(r[n_col]) for r in rows))
    if n <= 0:
        return Missing(f"no {what} runs")
    cells = ", ".join(f"{r['cell']} {int(to_float(r[k_col]))}/{int(to_float(r[n_col]))}" for r in rows)
    return Measurement(successes=k, trials=n, runs=n, evidence=f"{k} of {n} runs in {len(rows)} {what} cells ({cells})")


def _at(rows, delta) -> list:
    return [r for r in rows if math.isclose(to_float(r["delta"]), float(delta), rel_tol=1e-12)]


def _seed(s: Mapping) -> int:
    return int(s.get("seed", 0))


def _boot(s: Mapping, key: str, arrays: Sequence, fn=None, replicates: int = V.BOOTSTRAP_REPLICATES,
          evidence: str = "", value: float | None = None, batched=None) -> Measurement:
    """``fn`` of the per-cell arrays with bootstrap replicates over runs within cells.

    A statistic of cell means is given as ``batched`` instead: the statistic of a batch of
    replicates at once, one per row of each (replicates x runs) array, with the bits of the
    statistic of each row (:func:`duelbench.report.verdict.bootstrap` with ``rows``); the point
    estimate is its one-row batch of the arrays themselves."""
    arrays = [np.asarray(a, dtype=np.float64) for a in arrays]
    if batched is not None:
        def fn(*xs):
            return float(batched(*(x[None, :] for x in xs))[0])
    point = fn(*arrays) if value is None else value
    if not np.isfinite(point):
        return Missing(f"{key}: not computable at this fidelity ({evidence})")
    reps = V.bootstrap(arrays, batched or fn, _seed(s), key, replicates=replicates, rows=batched is not None)
    return Measurement(value=float(point), replicates=reps, runs=min(a.size for a in arrays),
                       evidence=f"{evidence}; {replicates} bootstrap replicates over runs within cells")


def _row_max(columns):
    """Python's ``max`` of each row's values, in the given order (an item replaces the largest so
    far only when greater, so a NaN is kept or passed over as ``max`` does)."""
    best = None
    for c in columns:
        best = c if best is None else np.where(c > best, c, best)
    return best


def _row_log(a: np.ndarray) -> np.ndarray:
    """:func:`math.log` of every element (the scalar statistics' logarithm, bit for bit)."""
    return np.array([math.log(v) for v in a.tolist()], dtype=np.float64).reshape(a.shape)


def _slope_of_means(x, means, idx=None, log: bool = False):
    """OLS slope on ``x`` of the per-cell means (of the cells ``idx``; their logarithms with
    ``log``), one per replicate row: :func:`~duelbench.report.numerics.ols_slope` of the cells'
    :func:`~duelbench.report.numerics.fmean` (and :func:`math.log`), row by row."""
    cols = [means[i] for i in (range(len(means)) if idx is None else idx)]
    cols = [_row_log(c) for c in cols] if log else cols
    return ols_slope_last(x, np.stack(cols, axis=-1))


# --------------------------------------------------------------------------------------------
def measurements(tables: Mapping[str, list[dict]], s: Mapping, loaded: Mapping[str, list] | None = None
                 ) -> dict[str, Measurement]:
    """Every statistic (see the module docstring); ``loaded`` maps a study to its (cell, runs)."""
    loaded = loaded or {}
    out: dict[str, Measurement] = {}
    for r in tables.get("toy", []):
        v = r["value"]
        out[r["statistic"]] = Measurement(value=_truthy(v) if v.lower() in ("true", "false") else to_float(v)
                                          if _is_number(v) else v, evidence=r.get("evidence", ""))
    out.update(_instances(tables.get("instances", [])))
    out.update(_pac(tables.get("pac", []), s, loaded.get("pac", [])))
    out.update(_hardness(s, loaded.get("hardness", [])))
    out.update(_epochs(tables.get("epochs", []), s))
    out.update(_lower_bounds(tables.get("lower_bounds", [])))
    out.update(_oracles(tables.get("oracles", []), s, loaded.get("oracles", [])))
    out.update(_lemma9(tables.get("lemma9", []), loaded.get("lemma9", [])))
    out.update(_car_cond(tables.get("car_cond", []), s, loaded.get("car_cond", [])))
    out.update(_parallel(tables.get("parallel", []), s, loaded.get("parallel", [])))
    return out


def _deltas(s: Mapping, study: str, key: str = "delta") -> list:
    return list(s.get(study, {}).get(key, [])) if isinstance(s.get(study), Mapping) else []


def _instances(rows) -> dict:
    both = [r for r in rows if r.get("H_ver") not in ("", None) and r.get("condorcet_outside_term") not in ("", None)]
    if not both:
        return {"instances:max_h_ver_over_outside_term": Missing("no instance with a Condorcet winner")}
    ratios = [(to_float(r["H_ver"]) / to_float(r["condorcet_outside_term"]), r["name"]) for r in both
              if to_float(r["condorcet_outside_term"]) > 0]
    worst = max(ratios)
    return {"instances:max_h_ver_over_outside_term": Measurement(
        value=worst[0], evidence=f"largest at {worst[1]} over {len(ratios)} instances with a Condorcet winner; "
                                 + ", ".join(f"{n} {V.sig(v)}" for v, n in ratios))}


# --------------------------------------------------------------------------------------------
# X1, X2
# --------------------------------------------------------------------------------------------
def _pac(rows, s: Mapping, loaded) -> dict:
    out = {}
    declared = [r for r in rows if r["label"] == "declared"]
    biased = [r for r in rows if r["label"] == "biased sampler"]
    pac = s.get("pac", {})
    for d in pac.get("delta", []):
        k = dkey(d)
        out[f"pac:error:{k}"] = _proportion(_at(declared, d), "misses", "runs", f"declared X1 (delta {d:g})")
        out[f"pac:above_n1:{k}"] = _proportion(_at(declared, d), "runs_above_N1", "runs", f"declared X1 (delta {d:g})")
        out[f"pac:above_n1_prime:{k}"] = _proportion(_at(declared, d), "runs_above_N1_prime", "runs",
                                                      f"declared X1 (delta {d:g})")
    for d in pac.get("biased", {}).get("delta", []):
        out[f"pac_biased:error:{dkey(d)}"] = _proportion(_at(biased, d), "misses", "runs", f"biased-sampler X1 (delta {d:g})")
    out["pac:max_delta_slope_over_32h"] = _delta_slope(s, declared, loaded)
    return out


def _delta_slope(s: Mapping, declared, loaded) -> Measurement:
    """Largest slope of mean samples on ln(1/δ) over 32 H_ε, per declared (instance, ε)."""
    by_cell = {c.name: a for c, a in loaded}
    groups: dict[tuple, list] = {}
    for r in declared:
        if r["cell"] in by_cell:
            groups.setdefault((r["instance"], r["eps"]), []).append(r)
    groups = {k: g for k, g in groups.items() if len(g) >= 2}
    if not groups:
        return Missing("fewer than two deltas per (instance, eps), or no runs, at this fidelity")
    layout, arrays = [], []
    for (inst, eps), g in sorted(groups.items()):
        idx = []
        for r in g:
            idx.append(len(arrays))
            arrays.append(by_cell[r["cell"]]["samples"])
        layout.append((f"{inst}, eps {eps}", [math.log(1.0 / to_float(r["delta"])) for r in g], idx,
                       32.0 * to_float(g[0]["H_eps"])))

    def slopes(*xs):
        """Each (instance, eps)'s slope over 32 H_eps, one per replicate row."""
        means = [fmean_last(a) for a in xs]
        return [_slope_of_means(x, means, idx) / h for _, x, idx, h in layout]

    def batched(*xs):
        return _row_max(slopes(*xs))

    point = slopes(*(np.asarray(a, dtype=np.float64)[None, :] for a in arrays))
    worst = max((float(v[0]), name) for v, (name, *_) in zip(point, layout))
    return _boot(s, "pac:max_delta_slope_over_32h", arrays, batched=batched, value=worst[0],
                 evidence=f"largest at {worst[1]} over {len(layout)} (instance, eps)")


def _hardness(s: Mapping, loaded) -> dict:
    out = {}
    per = [f"hardness:pac_slope:{i}" for i in s.get("hardness", {}).get("pac", {}).get("instances", [])]
    if not loaded:
        return {k: Missing("no hardness study at this fidelity") for k in ("hardness:pac_slope", "hardness:exact_slope",
                                                                             *per)}
    cap = float(s["borda"]["max_samples"])
    out.update(_pac_slope_per_instance(s, hardness_cells(s, loaded, "pac"), per))
    for part, key, reps in (("pac", "hardness:pac_slope", V.BOOTSTRAP_REPLICATES),
                            ("exact", "hardness:exact_slope", TOBIT_REPLICATES)):
        cells = hardness_cells(s, loaded, part)
        if not cells:
            out[key] = Missing(f"no {part} cells at this fidelity")
            continue
        full = fe_slope(cells, cap)
        keep = [c for c in cells if c[0] not in full.censored_groups]
        if not np.isfinite(full.slope) or len({c[0] for c in keep}) < 1:
            out[key] = Missing(f"{part}: no slope at this fidelity")
            continue
        meta = [(g, x) for g, x, _ in keep]

        def fn(*xs, meta=meta):
            return fe_slope([(g, x, a) for (g, x), a in zip(meta, xs)], cap).slope

        censored = sum(int(np.count_nonzero(c[2] >= cap)) for c in keep)
        groups = "instance" if part == "pac" else "theta-draw"
        lower = (f"; every run of {', '.join(full.censored_groups)} capped at {cap:,.0f} "
                 f"({sum(len(c[2]) for c in cells if c[0] in full.censored_groups)} runs): lower bounds only, "
                 "consistent with any slope under a fixed effect, not fitted" if full.censored_groups else "")
        out[key] = _boot(s, key, [c[2] for c in keep], fn, replicates=reps, value=full.slope,
                         evidence=(f"fixed effect per {groups} ({len({c[0] for c in keep})} groups, {len(keep)} cells, "
                                   f"{full.runs} runs, {censored} censored at the cap){lower}"))
    return out


def _pac_slope_per_instance(s: Mapping, cells, keys) -> dict:
    """Within one instance: OLS slope of log mean samples on log(H_eps ln(H_eps/delta)) over its
    cells, bootstrap over runs (shown beside the fixed-effect slope)."""
    out = {k: Missing("fewer than two eps for this instance at this fidelity") for k in keys}
    for g in dict.fromkeys(c[0] for c in cells):
        mine = [c for c in cells if c[0] == g]
        if len(mine) < 2:
            continue
        x = [math.log(c[1]) for c in mine]

        def batched(*xs, x=x):
            return _slope_of_means(x, [fmean_last(a) for a in xs], log=True)

        out[f"hardness:pac_slope:{g}"] = _boot(s, f"hardness:pac_slope:{g}", [c[2] for c in mine], batched=batched,
                                               evidence=f"{g}: {len(mine)} cells (eps)")
    return out


# --------------------------------------------------------------------------------------------
# X3, X4
# --------------------------------------------------------------------------------------------
def _epochs(rows, s: Mapping) -> dict:
    out = {}
    e = s.get("epochs", {})
    for v in e.get("variants", []):
        mine = [r for r in rows if r["variant"] == v]
        for d in e.get("delta", []):
            k, cells = dkey(d), _at(mine, d)
            out[f"epochs:{v}:beyond_qstar:{k}"] = _proportion(cells, "runs_beyond_qstar", "runs", f"{v} X3 (delta {d:g})")
            out[f"epochs:{v}:error:{k}"] = _proportion(cells, "errors", "returned", f"{v} X3 (delta {d:g})")
            out[f"epochs:{v}:above_n2:{k}"] = _proportion(cells, "runs_above_N2", "runs", f"{v} X3 (delta {d:g})")
    return out


def _lower_bounds(rows) -> dict:
    out = {}
    for theorem, name, stat in (("Theorem 3", "borda", "n3"), ("Theorem 6", "condorcet", "n6")):
        mine = [r for r in rows if r["theorem"] == theorem]
        if not mine:
            out[f"lower_bounds:{'theorem3' if stat == 'n3' else 'theorem6'}_conditions"] = Missing("no X4 cells")
            out[f"lower_bounds:{name}_mean_over_{stat}"] = Missing("no X4 cells")
            continue
        ok = [r for r in mine if _is_number(r["bound"]) and math.isfinite(to_float(r["bound"]))]
        out[f"lower_bounds:{'theorem3' if stat == 'n3' else 'theorem6'}_conditions"] = Measurement(
            value=len(ok) == len(mine),
            evidence="; ".join(f"{r['instance']}: gamma in [{V.sig(to_float(r['gamma_low']))}, "
                               f"{V.sig(to_float(r['gamma']))}]" if r in ok else f"{r['instance']}: conditions fail"
                               for r in mine))
        comps = []
        for r in ok:
            b = to_float(r["bound"])
            se = to_float(r["se_samples"])
            comps.append((r["cell"], Measurement(value=to_float(r["mean_samples"]) / b,
                                                 se=se / b if math.isfinite(se) else None,
                                                 df=to_float(r["runs"]) - 1, runs=int(to_float(r["runs"])))))
        out[f"lower_bounds:{name}_mean_over_{stat}"] = (
            Measurement(components=comps, evidence=f"mean samples over N{stat[-1]} per cell ({theorem}, largest "
                                                   "admissible gamma)") if comps else Missing("no admissible cell"))
    return out


# --------------------------------------------------------------------------------------------
# X5, X5b
# --------------------------------------------------------------------------------------------
def _oracles(rows, s: Mapping, loaded) -> dict:
    out: dict[str, Measurement] = {}
    keys = ["oracles:max_abs_lp_minus_exhaustive", "oracles:max_fptas_minus_lp"] + [
        f"oracles:small_budget_{st}_step_error_ratio" for st in STEPS]
    if not rows:
        return {k: Missing("no oracle study at this fidelity") for k in keys}
    exh = [r for r in rows if r["oracle"] == "lp_vs_exhaustive" and to_float(r["compared"]) > 0]
    out["oracles:max_abs_lp_minus_exhaustive"] = (
        Measurement(value=max(to_float(r["max_error"]) for r in exh),
                    evidence=f"{sum(int(to_float(r['compared'])) for r in exh)} cases on {len(exh)} sizes")
        if exh else Missing("no case small enough to enumerate"))
    fp = [r for r in rows if r["oracle"].startswith("fptas_")]
    out["oracles:max_fptas_minus_lp"] = (
        Measurement(value=max(to_float(r["max_above_opt"]) for r in fp), evidence=f"{len(fp)} (size, budget, step) rows")
        if fp else Missing("no FPTAS run at this fidelity"))
    budgets = sorted({(int(o), int(f)) for cell, _ in loaded for o, f in cell.job.get("fptas", [])})
    for st in STEPS:
        key = f"oracles:small_budget_{st}_step_error_ratio"
        if len(budgets) < 2:
            out[key] = Missing("fewer than two FPTAS budgets")
            continue
        lo, hi = budgets[0], budgets[-1]
        a, b = [], []
        for cell, arr in loaded:
            if not cell.job["fptas"]:
                continue
            lp = np.asarray(arr["lp"], dtype=np.float64)
            a.append(lp - np.asarray(arr[f"fptas_{hi[0]}_{hi[1]}_{st}"], dtype=np.float64))
            b.append(lp - np.asarray(arr[f"fptas_{lo[0]}_{lo[1]}_{st}"], dtype=np.float64))
        a, b = np.concatenate(a), np.concatenate(b)
        ok = np.isfinite(a) & np.isfinite(b)
        a, b = np.maximum(a[ok], 0.0), np.maximum(b[ok], 0.0)
        ma, mb = fmean(a), fmean(b)
        if not (ma > 0 and mb > 0):
            out[key] = Measurement(value=ma / mb if mb > 0 else math.nan,
                                   evidence=f"mean error {V.sig(ma)} at (outer, fw) = {hi} vs {V.sig(mb)} at {lo}")
            continue
        out[key] = Measurement(a=a, b=b, evidence=f"per-case error (OPT - FPTAS) at (outer, fw) = {hi} (A) against "
                                                  f"{lo} (B), paired by case over {len(a)} cases")
    return out


def _lemma9(rows, loaded) -> dict:
    keys = ("lemma9:max_error_over_eps", "lemma9:max_error_over_bound", "lemma9:error_smallest_minus_largest_eps")
    if not rows:
        return {k: Missing("no Lemma 9 study at this fidelity") for k in keys}
    out = {}
    worst = max(rows, key=lambda r: to_float(r["max_error_over_eps"]))
    out["lemma9:max_error_over_eps"] = Measurement(
        value=to_float(worst["max_error_over_eps"]),
        evidence=(f"largest at K{worst['n']},{worst['ell']}, eps {worst['eps']}, T = {int(to_float(worst['T'])):,} over "
                  f"{sum(int(to_float(r['cases'])) for r in rows)} (case, eps) pairs; largest T run "
                  f"{max(int(to_float(r['T'])) for r in rows):,}"))
    wb = max(rows, key=lambda r: to_float(r["max_error_over_bound"]))
    out["lemma9:max_error_over_bound"] = Measurement(
        value=to_float(wb["max_error_over_bound"]),
        evidence=f"largest at K{wb['n']},{wb['ell']}, T = {int(to_float(wb['T'])):,} (bound 2lK/sqrt(T) = "
                 f"{V.sig(to_float(wb['bound_2lK_over_sqrtT']))})")
    a, b = [], []
    for cell, arr in loaded:
        eps = sorted(float(e) for e in cell.job["eps"])
        if len(eps) < 2:
            continue
        a.append(np.asarray(arr[f"error_{eps_key(eps[0])}"], dtype=np.float64))
        b.append(np.asarray(arr[f"error_{eps_key(eps[-1])}"], dtype=np.float64))
    if not a or sum(x.size for x in a) < 2:
        out["lemma9:error_smallest_minus_largest_eps"] = Missing("fewer than two eps or cases at this fidelity")
    else:
        out["lemma9:error_smallest_minus_largest_eps"] = Measurement(
            a=np.concatenate(a), b=np.concatenate(b),
            evidence="per-case error at the smallest eps (largest T, A) minus at the largest eps (B), paired by case")
    return out


# --------------------------------------------------------------------------------------------
# X6, X7
# --------------------------------------------------------------------------------------------
def _car_cond(rows, s: Mapping, loaded) -> dict:
    out = {}
    declared = [r for r in rows if r["label"] == "declared"]
    for d in _deltas(s, "car_cond"):
        k = dkey(d)
        out[f"car_cond:error:{k}"] = _proportion(_at(declared, d), "errors", "runs", f"declared X6 (delta {d:g})")
        out[f"car_cond:above_n4:{k}"] = _proportion(_at(declared, d), "runs_above_N4", "runs",
                                                     f"declared X6 (delta {d:g})")
    er = [r for r in rows if r["label"] == "every round"]
    for d in s.get("car_cond", {}).get("every_round", {}).get("delta", []):
        out[f"car_cond_every_round:error:{dkey(d)}"] = _proportion(_at(er, d), "errors", "runs",
                                                                    f"every-round X6 (delta {d:g})")
    out["car_cond_fptas:error"] = _proportion([r for r in rows if r["label"] == "FPTAS oracle"], "errors", "runs",
                                              "FPTAS-oracle X6")
    out["car_cond:max_calls_per_check_over_4m"] = (
        Measurement(value=max(to_float(r["max_calls_per_check"]) / (4 * to_float(r["m"])) for r in rows
                              if _is_number(r["max_calls_per_check"])),
                    evidence=f"over {len(rows)} X6 cells (every run)") if rows else Missing("no X6 cells"))
    out["car_cond:h4_slope"] = _h4_slope(s, declared, loaded)
    return out


def _h4_slope(s: Mapping, declared, loaded) -> Measurement:
    by_cell = {c.name: a for c, a in loaded}
    used = [r for r in declared if to_float(r["capped"]) == 0 and r["cell"] in by_cell]
    if len(used) < 2:
        return Missing("fewer than two declared X6 cells with runs")
    x = [math.log(to_float(r["H4"])) for r in used]
    arrays = [by_cell[r["cell"]]["samples"] for r in used]

    def batched(*xs):
        return _slope_of_means(x, [fmean_last(a) for a in xs], log=True)

    return _boot(s, "car_cond:h4_slope", arrays, batched=batched,
                 evidence=f"{len(used)} declared cells without a capped run ({len(declared) - len(used)} left out)")


def _parallel(rows, s: Mapping, loaded) -> dict:
    keys = ("parallel:slope_difference", "parallel:slope_difference_calibration", "parallel:predicted_sign_agreement",
            "parallel:c_par", "parallel:c_cond", "parallel:error_car_parallel")
    p = s.get("parallel", {})
    keys += tuple(f"parallel:slope_difference_calibration:{i}" for i in p.get("instances", []))
    keys += tuple(f"parallel:slope_difference:{i}" for i in [*p.get("instances", []),
                                                             *p.get("out_of_sample", {}).get("instances", [])])
    if not rows or not loaded:
        return {k: Missing("no X7 cells at this fidelity") for k in keys}
    out = {k: Missing("too few deltas with runs of this kind at this fidelity") for k in keys[6:]}
    par = [r for r in rows if r["algorithm"] == "car_parallel"]
    out["parallel:error_car_parallel"] = _proportion(par, "errors", "runs", "CAR-Parallel X7")
    pred = parallel_prediction(s, loaded)
    split = {}
    for cell, a in loaded:
        job = cell.job
        split.setdefault(job["instance"]["name"], {}).setdefault(job["algorithm"], []).append(
            (math.log(1.0 / float(job["delta"])), parallel_split(s, cell, a["samples"])))

    def diff_of(inst, which):
        """(x per algorithm, arrays, slope-difference function) on part ``which`` of the runs."""
        parts = {alg: [(x, p[which]) for x, p in cells if p[which].size]
                 for alg, cells in split[inst].items()}
        if any(len(parts.get(alg, [])) < 2 for alg in ("car_parallel", "car_cond")):
            return None
        xp = [x for x, _ in parts["car_parallel"]]
        xc = [x for x, _ in parts["car_cond"]]
        arrays = [a for _, a in parts["car_parallel"]] + [a for _, a in parts["car_cond"]]
        k = len(xp)

        def batched(*xs):
            means = [fmean_last(a) for a in xs]
            return _slope_of_means(xp, means[:k]) - _slope_of_means(xc, means[k:])

        return arrays, batched, len(xp), len(xc)

    for which, key in ((1, "parallel:slope_difference"), (0, "parallel:slope_difference_calibration")):
        comps = []
        for inst in split:
            d = diff_of(inst, which)
            if d is None:
                continue
            arrays, batched, kp, kc = d
            m = _boot(s, f"{key}:{inst}", arrays, batched=batched, evidence=f"{inst}: {kp} and {kc} deltas")
            comps.append((inst, m))
            out[f"{key}:{inst}"] = m  # one statistic per instance as well (shown beside the claim)
        out[key] = Measurement(components=comps, evidence=("fresh runs" if which else "calibration runs") +
                               "; slope(CAR-Parallel) - slope(CAR-Cond) per instance") if comps else Missing(
            f"no instance with two deltas of {'fresh' if which else 'calibration'} runs")
    diffs = out["parallel:slope_difference"]
    if isinstance(diffs, Missing) or not np.isfinite(pred["c_par"]) or not np.isfinite(pred["c_cond"]):
        out["parallel:predicted_sign_agreement"] = Missing("no calibrated prediction or no fresh slope difference")
    else:
        comps = []
        for inst, m in diffs.components:
            sign = float(np.sign(pred["predicted"][inst]))
            comps.append((inst, Measurement(value=sign * m.value, replicates=sign * np.asarray(m.replicates), runs=m.runs,
                                            evidence=f"predicted difference {V.sig(pred['predicted'][inst])}")))
        out["parallel:predicted_sign_agreement"] = Measurement(
            components=comps, evidence=(f"c_par = {V.sig(pred['c_par'])}, c_cond = {V.sig(pred['c_cond'])} from the "
                                        "calibration runs; predicted differences " + ", ".join(
                                            f"{i} {V.sig(pred['predicted'][i])}" for i, _ in diffs.components)))
    out.update(_constants(s, split, pred))
    return out


def _constants(s: Mapping, split: Mapping, pred: Mapping) -> dict:
    """The calibrated constants with bootstrap replicates over the calibration runs."""
    out = {}
    for alg, key, idx in (("car_parallel", "parallel:c_par", 0), ("car_cond", "parallel:c_cond", 1)):
        layout, arrays = [], []
        for inst, by_alg in split.items():
            cells = [(x, p[0]) for x, p in by_alg.get(alg, []) if p[0].size]
            if len(cells) < 2:
                continue
            term = pred["info"][inst][idx]
            layout.append(([x for x, _ in cells], list(range(len(arrays), len(arrays) + len(cells))), term))
            arrays += [a for _, a in cells]
        if not layout:
            out[key] = Missing("no calibration runs at this fidelity")
            continue

        def batched(*xs, layout=layout):
            means = [fmean_last(a) for a in xs]
            return fmean_last(np.stack([_slope_of_means(x, means, idx) / term for x, idx, term in layout], axis=-1))

        name = "H_ver" if alg == "car_parallel" else "the sum over pairs of 1/Delta^2"
        out[key] = _boot(s, key, arrays, batched=batched,
                         evidence=f"slope of {alg} over {name}, mean over {len(layout)} calibration instances")
    return out


def why_missing(stat: str) -> str:
    """The reason a registry statistic has no measurement: a ``δ`` (or study) the active fidelity
    does not configure, or a name the package does not compute."""
    if re.search(r":d[0-9][0-9pem]*$", stat):
        return f"statistic {stat!r}: its delta is not configured at this fidelity"
    if stat.startswith("parallel:slope_difference"):
        return f"statistic {stat!r}: its instance has no such runs at this fidelity"
    if stat.startswith("hardness:pac_slope:"):
        return f"statistic {stat!r}: its instance is not in the hardness study at this fidelity"
    return f"statistic {stat!r} not computed"


#: The tables the checks read (file stem).
TABLES = ("toy", "instances", "pac", "epochs", "lower_bounds", "oracles", "lemma9", "car_cond", "car_cond_fits",
          "parallel", "parallel_fits")


def write_checks(ctx: StepContext) -> dict:
    """Step ``checks``: ``checks.csv`` from the studies' tables and runs."""
    paths = {os.path.splitext(os.path.basename(p))[0]: p for p in ctx.input.tables}
    loaded = {study: load_cells(ctx, study) for study in STUDIES if study in ctx.settings}

    def evaluate(registry):
        tables = {name: read_rows(paths[name]) for name in TABLES if name in paths}
        ms = measurements(tables, ctx.settings, loaded)
        return evaluate_with_reasons(registry, lambda stat: ms.get(stat, Missing(why_missing(stat))),
                                     ctx.settings["fidelity"])

    return checks_table(ctx, evaluate)

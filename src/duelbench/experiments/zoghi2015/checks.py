"""The checks of Zoghi et al. (2015): every statistic of ``data/published/zoghi2015.yaml``.

The statistics are defined in the docstring of :mod:`duelbench.experiments.zoghi2015`;
:func:`write_checks` measures them (facts of the data files, theory of the matrices of Figures
1-3, the Appendix-C tables, the simulation shards) and evaluates the registry at the active
fidelity into ``checks.csv``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from duelbench.bounds.ccb import ccb_quantities
from duelbench.data.registry import load_matrix
from duelbench.engine.jobs import group_shards, ShardSpec
from duelbench.problems.winners import condorcet_winner, copeland_scores, copeland_winners
from duelbench.report.checks import Measurement
from duelbench.report.numerics import flog, fmean, fstd, fsum, row_fdots
from duelbench.report.verdict import bootstrap_stream

from ..claims import checks_table, evaluate_with_reasons, Missing
from ..contract import StepContext
from .config import FIGURE_MATRICES, KINDS, MAIN_CLICK_MODEL, REGRET_ITEMS, SAVAGE, half_horizon, item_settings, regret_shards
from .appendix_c import N_ARMS, delta_ratio
from .appendix_c_tables import TABLE1_NOTIONS
from .regret import final_values, run_curves


def _m(value=None, *, se=None, a=None, b=None, evidence="", replicates=None, runs=None, components=None):
    return Measurement(value=value, se=se, a=a, b=b, evidence=evidence, replicates=replicates, runs=runs,
                       components=components)


#: Bootstrap replicates of the Appendix-C statistics (verdict.BOOTSTRAP_REPLICATES; each replicate
#: redraws every K's samples, through their binomial / multinomial counts, which is the same law).
BOOTSTRAP_REPLICATES = 20000


def _rank_rows(x: np.ndarray) -> np.ndarray:
    """Average ranks along the last axis (ties share their mean rank, as Spearman's rho takes them)."""
    return rankdata(x, axis=-1, method="average")


def spearman_rows(k: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Spearman's rho of ``(k, p[r])`` for every row ``r`` of ``p`` (NaN for a constant row)."""
    rk = _rank_rows(np.asarray(k, dtype=float))
    rp = _rank_rows(np.atleast_2d(np.asarray(p, dtype=float)))
    rk = rk - rk.mean()
    rp = rp - rp.mean(axis=1, keepdims=True)
    den = np.sqrt((rk**2).sum() * (rp**2).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return row_fdots(rp, rk) / den


def inverted_cdf_quantile(values: np.ndarray, counts: np.ndarray, q: float) -> np.ndarray:
    """The smallest value v with at least a share ``q`` of the samples <= v, for every row of
    ``counts`` (values ascending; the percentile of ``method="inverted_cdf"``)."""
    counts = np.atleast_2d(counts)
    c = np.cumsum(counts, axis=1)
    n = c[:, -1:]
    idx = np.argmax(c >= q * n - 1e-9 * n, axis=1)
    return np.asarray(values)[idx]


def delta_star_pairs(P) -> np.ndarray:
    """``Delta*_ij`` (Definition 3.5, L171) from bounds.ccb's ``Delta*_i`` and ``Delta_ij``."""
    a = P.values if hasattr(P, "values") else np.asarray(P, dtype=float)
    q = ccb_quantities(a)
    di = q.delta_star[:, None]
    return np.where(a >= 0.5, di + q.gaps, np.maximum(di, q.gaps))


def fact_measurements() -> dict:
    """The ``facts:*`` statistics (full MSLR matrices)."""
    out = {}
    inf = load_matrix("mslr_informational")
    cw = condorcet_winner(inf)
    out["facts:informational_has_no_cw"] = _m(cw is None, evidence=f"Condorcet winner: {cw}")
    nav, per = condorcet_winner(load_matrix("mslr_navigational")), condorcet_winner(load_matrix("mslr_perfect"))
    out["facts:navigational_and_perfect_have_cw"] = _m(nav is not None and per is not None,
                                                       evidence=f"navigational: {nav}, perfect: {per}")
    q = ccb_quantities(inf)
    r = delta_ratio(q.delta_def36, q.delta_globalmin)
    out["facts:full_delta_ratio"] = _m(float(r) if np.isfinite(r) else None,
                                       evidence=f"Delta = {q.delta_def36:.6g}, Delta_min = {q.delta_globalmin:.6g}, "
                                                f"C = {q.C}, L_C = {q.L_C}")
    return out


def theory_measurements() -> dict:
    """The ``theory:*`` statistics."""
    out = {}
    try:
        P = load_matrix("zoghi_copeland500")
    except Exception as exc:  # the generated instance may be unavailable
        out["theory:synth500_structure"] = _m(evidence=f"zoghi_copeland500 unavailable: {exc}")
    else:
        a = P.values
        sc = copeland_scores(a)
        w = list(copeland_winners(a))
        others = np.delete(sc, w)
        beats_in_w = [int(np.count_nonzero(a[i, w] > 0.5)) for i in w]
        ok = (len(w) == 3 and all(sc[i] == 498 for i in w) and beats_in_w == [1, 1, 1]
              and others.size == 497 and int(others.min()) == 0 and int(others.max()) == 496)
        out["theory:synth500_structure"] = _m(
            bool(ok), evidence=f"winners {w} with scores {[int(sc[i]) for i in w]}, wins among winners {beats_in_w}; "
                               f"others' scores {int(others.min())}..{int(others.max())}, "
                               f"{np.unique(others).size} distinct of {others.size}")
    try:
        q = ccb_quantities(load_matrix("mslr5_noncondorcet"))
        cw = condorcet_winner(load_matrix("mslr5_noncondorcet"))
        out["theory:mslr5_noncondorcet_structure"] = _m(
            q.C == 3 and q.L_C == 1 and cw is None, evidence=f"C = {q.C}, L_C = {q.L_C}, Condorcet winner {cw}")
    except Exception as exc:
        out["theory:mslr5_noncondorcet_structure"] = _m(evidence=f"mslr5_noncondorcet unavailable: {exc}")
    ok, notes = True, []
    for name in FIGURE_MATRICES:
        try:
            P = load_matrix(name)
        except Exception as exc:
            out["theory:delta_star_ge_delta"] = _m(evidence=f"{name} unavailable: {exc}")
            break
        ds = delta_star_pairs(P)
        gaps = np.abs(P.values - 0.5)
        off = ~np.eye(P.K, dtype=bool)
        margin = float((ds - gaps)[off].min())
        ok = ok and margin >= 0
        notes.append(f"{name}: min(Delta*_ij - Delta_ij) = {margin:.3g}")
    else:
        out["theory:delta_star_ge_delta"] = _m(bool(ok), evidence="; ".join(notes))
    return out


def appendix_c_measurements(out: Mapping[str, str], s: Mapping, replicates: int = BOOTSTRAP_REPLICATES) -> dict:
    """``fig4:*``, ``table1:*``, ``fig5:*``, ``fig6:*`` from the Appendix-C tables; bootstrap
    streams from the section's ``seed`` and the statistic's name."""
    seed = int(s["seed"])
    a = s["appendix_c"]
    ks = list(a["k_values_resolved"])
    all_k = list(range(1, N_ARMS + 1))
    complete = ks == all_k
    why = (f"only K in {ks} sampled at fidelity {s['fidelity']}; the statistic needs every K = 1..136"
           if not complete else "")
    m = {}
    cond = pd.read_csv(out["condorcet_csv"])
    inf = cond[cond["click_model"] == MAIN_CLICK_MODEL].set_index("K")
    if 1 in inf.index and N_ARMS in inf.index:
        p1, p136 = float(inf.loc[1, "p_condorcet"]), float(inf.loc[N_ARMS, "p_condorcet"])
        m["fig4:endpoints"] = _m(p1 == 1.0 and p136 == 0.0, evidence=f"P_1 = {p1}, P_136 = {p136}")
    else:
        m["fig4:endpoints"] = _m(evidence=f"K = 1 or K = 136 not sampled (K values {ks})")
    if complete:
        K = inf.index.to_numpy()
        p = inf["p_condorcet"].to_numpy(dtype=float)
        n = inf["n_samples"].to_numpy(dtype=np.int64)
        hi = K >= 100
        rng = bootstrap_stream(seed, "fig4:decreases_rapidly")
        boot = rng.binomial(n, p, size=(replicates, K.size)) / n  # every K's samples redrawn
        rho, rho_b = float(spearman_rows(K, p)[0]), spearman_rows(K, boot)
        top, top_b = float(p[hi].max()), boot[:, hi].max(axis=1)
        m["fig4:decreases_rapidly"] = _m(
            evidence=f"Spearman {rho:.4f}; max P_K for K >= 100: {top:.4f} (K = {int(K[hi][np.argmax(p[hi])])}); "
                     f"{replicates} bootstrap replicates",
            components=[("Spearman + 0.95", _m(rho + 0.95, replicates=rho_b + 0.95, runs=int(n.min()))),
                        ("max P_K (K >= 100) - 0.5", _m(top - 0.5, replicates=top_b - 0.5, runs=int(n.min())))])
    else:
        m["fig4:decreases_rapidly"] = _m(evidence=why)
    long = pd.read_csv(out["table1_long_csv"])
    main = long[long["variant"] == "main"]

    def cell(r, c):
        x = main[(main["row"] == r) & (main["column"] == c)].iloc[0]
        return float(x["percent"]), float(x["se"])

    n_k = int(a["samples_per_k"])
    pairs = [(r, c) for i, r in enumerate(TABLE1_NOTIONS) for c in TABLE1_NOTIONS[i + 1:]]
    for r, c in pairs:
        if complete:
            v, se = cell(r, c)
            m[f"table1:{r}:{c}"] = _m(v, se=se, runs=n_k, evidence=f"{n_k} samples per K; s.e. {se:.3g} points")
        else:
            m[f"table1:{r}:{c}"] = _m(evidence=why)
    if complete:
        v, se = cell("copeland_in_vn_support", "von_neumann")
        m["table1:copeland_in_vn_support"] = _m(v, se=se, runs=n_k, evidence=f"{n_k} samples per K; s.e. {se:.3g} points")
        names = {"copeland": "Copeland", "von_neumann": "vN", "borda": "Borda", "random_walk": "RW"}
        high = (("copeland", "von_neumann"), ("borda", "random_walk"))
        cross = (("copeland", "borda"), ("copeland", "random_walk"), ("von_neumann", "borda"),
                 ("von_neumann", "random_walk"))
        comps = []
        for h in high:
            for x in cross:
                (vh, sh), (vx, sx) = cell(*h), cell(*x)
                # the two cells come from the same samples: sd(A - B) <= sd(A) + sd(B) whatever their correlation
                comps.append((f"{names[h[0]]}/{names[h[1]]} - {names[x[0]]}/{names[x[1]]}",
                              _m(vh - vx, se=sh + sx, runs=n_k)))
        m["table1:ordering_as_stated"] = _m(evidence="differences in points", components=comps)
    else:
        m["table1:copeland_in_vn_support"] = _m(evidence=why)
        m["table1:ordering_as_stated"] = _m(evidence=why)
    dist = pd.read_csv(out["c_lc_csv"])
    dist = dist[dist["click_model"] == MAIN_CLICK_MODEL]
    need = list(range(20, N_ARMS + 1))
    if all(k in ks for k in need):
        rng = bootstrap_stream(seed, "fig5:c_and_lc_small")
        worst, boot = [], np.full(replicates, -np.inf)
        for q in ("C", "L_C"):
            for K in need:
                d = dist[(dist["quantity"] == q) & (dist["K"] == K)].sort_values("value")
                values, counts = d["value"].to_numpy(dtype=float), d["count"].to_numpy(dtype=np.int64)
                scale = math.floor(K / 5) + 1  # q99 <= K/5 (an integer q99) iff q99 / (floor(K/5) + 1) < 1
                q99 = float(inverted_cdf_quantile(values, counts, 0.99)[0])
                worst.append((q99 / scale, q, K, q99))
                redrawn = rng.multinomial(int(counts.sum()), counts / counts.sum(), size=replicates)
                boot = np.maximum(boot, inverted_cdf_quantile(values, redrawn, 0.99) / scale)
        w = max(worst)
        m["fig5:c_and_lc_small"] = _m(w[0], replicates=boot, runs=n_k,
                                      evidence=f"largest 99th percentile / (floor(K/5) + 1): {w[0]:.3f} ({w[1]} = "
                                               f"{w[3]:g} at K = {w[2]}); {replicates} bootstrap replicates")
    else:
        m["fig5:c_and_lc_small"] = _m(evidence=f"only K in {ks} sampled; the statistic needs every K = 20..136")
    ratio = pd.read_csv(out["delta_ratio_csv"]).set_index("K")
    if complete:
        sub = ratio.loc[2:N_ARMS]
        means, errors = sub["mean_ratio"].to_numpy(dtype=float), sub["stderr"].to_numpy(dtype=float)
        v = fmean(means[~np.isnan(means)])  # the K without a defined sample are left out
        se = math.sqrt(fsum(errors[~np.isnan(errors)] ** 2)) / len(sub)
        m["fig6:mean_over_k"] = _m(v, se=se, runs=n_k,
                                   evidence=f"mean over K = 2..136 of the per-K means (s.e. {se:.4g}); largest per-K "
                                            f"mean {float(ratio['mean_ratio'].max()):.4g}")
    else:
        m["fig6:mean_over_k"] = _m(evidence=why.replace("1..136", "2..136"))
    if 135 in ratio.index and np.isfinite(ratio.loc[135, "mean_ratio"]):
        se = float(ratio.loc[135, "stderr"])
        m["fig6:mean_at_135"] = _m(float(ratio.loc[135, "mean_ratio"]), se=se if np.isfinite(se) else None,
                                   runs=int(ratio.loc[135, "n_defined"]),
                                   evidence=f"s.e. {se:.4g}; median {float(ratio.loc[135, 'median_ratio']):.4g}, "
                                            f"n = {int(ratio.loc[135, 'n_defined'])}")
    else:
        m["fig6:mean_at_135"] = _m(evidence=f"K = 135 not sampled (K values {ks})")
    return m


def _item_of(s: Mapping, dataset: str) -> str | None:
    for item in REGRET_ITEMS:
        if dataset in item_settings(s, item)["datasets"]:
            return item
    return None


def _cv(x: np.ndarray) -> float:
    x = np.asarray(x, dtype=float)
    return fstd(x) / abs(fmean(x)) if x.size > 1 and fmean(x) else float("nan")


def _nearest(t: np.ndarray, x: float) -> int:
    return int(np.argmin(np.abs(flog(t) - math.log(x))))


def regret_measurements(registry: Mapping, s: Mapping, by_item: Mapping[str, Sequence[ShardSpec]]) -> dict:
    """``order:*``, ``growth:*``, ``savage:*``, ``transition:*`` from the simulation shards."""
    kind = KINDS[0]
    groups = {}
    for item in REGRET_ITEMS:
        for (dataset, alg, _h, horizon), g in group_shards(by_item[item]).items():
            groups[(dataset, alg, horizon)] = g
    m = {}
    for c in registry["checks"]:
        stat = c["statistic"]
        parts = stat.split(":")
        if parts[0] not in ("order", "growth", "savage", "transition"):
            continue
        dataset = parts[1]
        item = _item_of(s, dataset)
        if item is None:
            m[stat] = _m(evidence=f"dataset {dataset} is in no configured regret item")
            continue
        T = item_settings(s, item)["horizon"]
        if parts[0] == "order":
            algs = parts[2:4]
        elif parts[0] == "savage":  # the item's horizon-mode (SAVAGE) algorithm
            algs = [a.name for a in item_settings(s, item)["algorithms"] if a.name == SAVAGE][:1] or [SAVAGE]
        else:
            algs = parts[2:3]
        missing = [x for x in algs if (dataset, x, T) not in groups]
        if missing:
            m[stat] = _m(evidence=f"{', '.join(missing)} not configured for {item} ({dataset})")
            continue
        if parts[0] == "order":
            A, B = (final_values(groups[(dataset, x, T)], kind) for x in algs)
            m[stat] = _m(fmean(A) / fmean(B) if fmean(B) else None, a=A, b=B,
                         evidence=f"Definition-1 regret at T = {T:g}; run-to-run std/mean {_cv(A):.3g} (A), "
                                  f"{_cv(B):.3g} (B)")
        elif parts[0] == "growth":
            t, R = run_curves(groups[(dataset, algs[0], T)], kind)
            half = np.flatnonzero(t == T // 2)
            if T % 2 or half.size == 0:
                m[stat] = _m(evidence=f"no checkpoint at T/2 = {T / 2:g}")
            else:
                A, B = R[:, -1], R[:, half[0]]
                m[stat] = _m(fmean(A) / fmean(B) if fmean(B) > 0 else None, a=A, b=B,
                             evidence=f"R(T) / R(T/2) per run, T = {T:g}")
        elif parts[0] == "savage":
            half = half_horizon(T)
            if (dataset, algs[0], half) not in groups:
                m[stat] = _m(evidence=f"no {algs[0]} job at T/2 = {half:g}")
                continue
            A = final_values(groups[(dataset, algs[0], T)], kind)
            B = final_values(groups[(dataset, algs[0], half)], kind)
            ev = f"mean regret at T = {T:g}: {fmean(A):.6g}; at T/2 = {half:g}: {fmean(B):.6g}"
            if T == 2 * 10**7:
                m[stat] = _m(fmean(A) / fmean(B), a=A, b=B,
                             evidence=f"{ev}; run r of both jobs starts from the same stream")
            else:
                m[stat] = Missing(f"needs horizons 2x10^7 and 10^7 (paper fidelity); {ev}")
        else:  # transition
            t, R = run_curves(groups[(dataset, algs[0], T)], kind)
            if T < 10**5:
                m[stat] = Missing(f"T = {T:g} < 10^5: the last decade overlaps the first decade after 10^3")
                continue
            a_, b_ = _nearest(t, 1e3), _nearest(t, 1e4)
            c_ = int(np.searchsorted(t, T // 10))
            early = (R[:, b_] - R[:, a_]) / (t[b_] - t[a_])
            late = (R[:, -1] - R[:, c_]) / (t[-1] - t[c_])
            m[stat] = _m(fmean(late) / fmean(early) if fmean(early) > 0 else None, a=late, b=early,
                         evidence=f"mean per-step regret {fmean(late):.4g} over [{t[c_]}, {t[-1]}] (A) vs "
                                  f"{fmean(early):.4g} over [{t[a_]}, {t[b_]}] (B), per run")
    return m


def write_checks(ctx: StepContext) -> dict:
    """Every registry check at the active fidelity -> ``checks.csv``."""
    s = ctx.settings

    def evaluate(registry):
        meas = {**fact_measurements(), **theory_measurements(), **appendix_c_measurements(ctx.input, s),
                **regret_measurements(registry, s, regret_shards(s))}
        return evaluate_with_reasons(
            registry, lambda stat: meas.get(stat, Missing(f"statistic {stat!r} not computed")), s["fidelity"])

    return checks_table(ctx, evaluate)

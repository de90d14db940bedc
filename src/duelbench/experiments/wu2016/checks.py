"""Statistics and checks of the Wu & Liu (2016) replication.

Every ``statistic`` of ``data/published/wu2016.yaml`` is defined in the package docstring of
:mod:`duelbench.experiments.wu2016`; this module computes them from ``regret.csv``,
``final_regret.csv`` and the panels' matrices, and evaluates the registry at the active
fidelity (``checks.csv``).  Decision on Assumption 2 (L689): the sorted superiors sigma_i of
arm i are the other arms j != i ordered by p_ji, largest first.

Every statistic of random runs carries its uncertainty (:mod:`duelbench.report.verdict`): per-run
samples for ratios of means (orderings, slope ratios, flatness), bootstrap replicates over runs
for the rest (relative differences, STD ratios, the traced shares), components for a claim over
several comparisons (label groups and orders, the STD order, the elimination share per curve).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from duelbench.data.registry import load_matrix
from duelbench.problems.winners import condorcet_winner, copeland_winners, normalized_copeland_scores
from duelbench.report import verdict as V
from duelbench.report.checks import Measurement
from duelbench.report.numerics import div_or_nan, fmean, fmean_last, fstd, fstd_last, fsum_last

from ..claims import Missing, checks_table, evaluate_with_reasons
from ..contract import StepContext
from .config import PANELS, SAVAGES, panel_curves
from .curves import SLOPE_COLUMNS, TRACE_COLUMNS


class Tables:
    """The experiment's tables and settings, with the lookups the statistics need."""

    def __init__(self, s: Mapping, regret: pd.DataFrame, final: pd.DataFrame, slopes: pd.DataFrame | None = None,
                 traces: pd.DataFrame | None = None):
        self.settings, self.regret, self.final = s, regret, final
        self.slopes = slopes if slopes is not None else pd.DataFrame(columns=SLOPE_COLUMNS)
        self.traces = traces if traces is not None else pd.DataFrame(columns=TRACE_COLUMNS)

    @property
    def seed(self) -> int:
        return int(self.settings["seed"])

    def algorithm(self, panel: str, name: str) -> str | Missing:
        """Registry name of ``name`` on ``panel`` (``savage``: the panel's SAVAGE), or why not."""
        if panel not in PANELS:
            return Missing(f"unknown panel {panel!r} (panels: {', '.join(PANELS)})")
        names = [e.name for e in panel_curves(self.settings, panel)]
        if name == "savage":
            found = [n for n in names if n in SAVAGES]
            return found[0] if found else Missing(f"no SAVAGE runs on panel {panel}")
        return name if name in names else Missing(f"{name!r} does not run on panel {panel} at fidelity "
                                                  f"{self.settings['fidelity']}")

    def samples(self, panel: str, name: str, at: str = "T") -> np.ndarray | Missing:
        """Per-run regret of ``name`` on ``panel`` at the horizon (``at = "T"``) or at Figure 2's time."""
        alg = self.algorithm(panel, name)
        if isinstance(alg, Missing):
            return alg
        f = self.final
        x = f[(f["panel"] == panel) & (f["algorithm"] == alg) & (f["at"] == at)].sort_values("run")["regret"]
        return x.to_numpy(float) if len(x) else Missing(f"no runs of {alg} on panel {panel} at {at}")

    def run_slopes(self, panel: str, name: str) -> pd.DataFrame | Missing:
        """``run_slopes.csv`` rows of ``name`` on ``panel`` (one per run, in run order)."""
        alg = self.algorithm(panel, name)
        if isinstance(alg, Missing):
            return alg
        r = self.slopes
        sub = r[(r["panel"] == panel) & (r["algorithm"] == alg)].sort_values("run")
        return sub if len(sub) else Missing(f"no per-run slopes of {alg} on panel {panel}")

    def traced(self, panel: str, name: str) -> pd.DataFrame | Missing:
        """``traces.csv`` rows of ``name`` on ``panel`` (one per traced run, in run order)."""
        alg = self.algorithm(panel, name)
        if isinstance(alg, Missing):
            return alg
        r = self.traces
        sub = r[(r["panel"] == panel) & (r["algorithm"] == alg)].sort_values("run")
        return sub if len(sub) else Missing(f"no traced runs of {alg} on panel {panel} (traces.runs = "
                                            f"{self.settings['traces']['runs']})")


def _boot(t: Tables, key: str, samples, statistic, paired: bool = False) -> np.ndarray:
    """Bootstrap replicates over runs (the declared seed, ``key`` the statistic's name); every
    statistic here is row-wise (:func:`duelbench.report.verdict.bootstrap` with ``rows``)."""
    return V.bootstrap(samples, statistic, seed=t.seed, key=key, paired=paired, rows=True)


# --------------------------------------------------------------------------------------------
# statistics
# --------------------------------------------------------------------------------------------
def _matrix(s: Mapping, panel: str):
    return load_matrix(s["panels"][panel]["dataset"]).values


def facts(s: Mapping, panel: str, what: str) -> Measurement:
    """``facts:<p>:three_winners_zeta_3_4`` and ``facts:<p>:has_condorcet_winner``."""
    if panel not in PANELS:
        return Missing(f"unknown panel {panel!r}")
    P = _matrix(s, panel)
    winners = copeland_winners(P)
    if what == "three_winners_zeta_3_4":
        zeta = float(normalized_copeland_scores(P)[winners[0]])
        return Measurement(value=len(winners) == 3 and abs(zeta - 0.75) < 1e-12,
                           evidence=f"{s['panels'][panel]['dataset']}: Copeland winners {list(winners)} (0-based), "
                                    f"zeta* = {zeta:.4g}")
    if what == "has_condorcet_winner":
        cw = condorcet_winner(P)
        return Measurement(value=cw is not None, evidence=f"{s['panels'][panel]['dataset']}: Condorcet winner {cw}")
    return Missing(f"unknown fact {what!r}")


def assumption_flags(P) -> tuple[bool, bool, int]:
    """(Assumption 1, Assumption 2, L_C) of the matrix ``P`` (L462, L689)."""
    P = np.asarray(P, dtype=float)
    K = P.shape[0]
    a1 = bool(np.all(P[~np.eye(K, dtype=bool)] != 0.5))
    winners = copeland_winners(P)
    lc = int(np.sum(P[:, winners[0]] > 0.5))
    a2 = True
    for i in set(range(K)) - set(winners):
        col = np.sort(np.delete(P[:, i], i))[::-1]  # p_{sigma_i(1), i} >= p_{sigma_i(2), i} >= ...
        if lc + 1 < col.size and not col[lc] > col[lc + 1]:
            a2 = False
    return a1, a2, lc


def assumptions(s: Mapping) -> Measurement:
    """``theory:assumptions_1_2`` on every panel's matrix."""
    flags = {p: assumption_flags(_matrix(s, p)) for p in PANELS}
    return Measurement(value=all(a1 and a2 for a1, a2, _ in flags.values()),
                       evidence="; ".join(f"{p}: Assumption 1 {a1}, Assumption 2 {a2} (L_C = {lc})"
                                          for p, (a1, a2, lc) in flags.items()))


def order(t: Tables, panel: str, a: str, b: str) -> Measurement:
    xa, xb = t.samples(panel, a), t.samples(panel, b)
    for x in (xa, xb):
        if isinstance(x, Missing):
            return x
    return Measurement(a=xa, b=xb, evidence=f"panel {panel}: A = {t.algorithm(panel, a)}, B = {t.algorithm(panel, b)}")


def reldiff(t: Tables, panel: str, a: str, b: str) -> Measurement:
    xa, xb = t.samples(panel, a), t.samples(panel, b)
    for x in (xa, xb):
        if isinstance(x, Missing):
            return x

    def stat(u, v):
        return div_or_nan(abs(fmean_last(u) - fmean_last(v)), fmean_last(v))

    ma, mb = fmean(xa), fmean(xb)
    return Measurement(value=stat(xa, xb), replicates=_boot(t, f"reldiff:{panel}:{a}:{b}", [xa, xb], stat),
                       runs=min(xa.size, xb.size), evidence=f"panel {panel}: mean {a} {ma:.6g}, mean {b} {mb:.6g}")


def slope_ratio(t: Tables, panel: str, a: str, b: str) -> Measurement:
    """Samples: the runs' least-squares slopes over [T/10, T] (their means are the mean curves')."""
    ra, rb = t.run_slopes(panel, a), t.run_slopes(panel, b)
    for r in (ra, rb):
        if isinstance(r, Missing):
            return r
    sa, sb = ra["slope"].to_numpy(float), rb["slope"].to_numpy(float)
    return Measurement(a=sa, b=sb, evidence=f"panel {panel}: mean slope per ln t over [T/10, T] {a} "
                                             f"{fmean(sa):.4g}, {b} {fmean(sb):.4g}")


def log_flatness(t: Tables, panel: str, a: str) -> Measurement:
    """Paired samples R(T)/ln T and R(t0)/ln t0 of each run (t0 the checkpoint nearest T/10)."""
    r = t.run_slopes(panel, a)
    if isinstance(r, Missing):
        return r
    t0, tt = int(r["t0"].iloc[0]), int(r["t"].iloc[0])
    if t0 <= 1:
        return Missing(f"panel {panel}: no checkpoint t0 > 1 near T/10")
    x_t = r["regret_t"].to_numpy(float) / math.log(tt)
    x_0 = r["regret_t0"].to_numpy(float) / math.log(t0)
    return Measurement(a=x_t, b=x_0, evidence=f"panel {panel}: mean R/ln t = {fmean(x_t):.4g} at t = {tt}, "
                                               f"{fmean(x_0):.4g} at t = {t0}")


def _ratio_components(t: Tables, panel: str, pairs) -> Measurement:
    """One mean-ratio component per (A, B) of ``pairs`` (A's final regret over B's)."""
    parts = []
    for a, b in pairs:
        m = order(t, panel, a, b)
        if isinstance(m, Missing):
            return m
        parts.append((f"{a}/{b}", m))
    return Measurement(components=parts, evidence=f"panel {panel}: mean final regret, A/B per component")


def clusters(t: Tables) -> Measurement:
    """Figure 1(a)'s label groups (L968), bottom to top: each curve of a lower group below each
    curve of the group above it."""
    groups = (("dts", "dts_plus"), ("rcs", "rmed1", "ecw_rmed"), ("rucb", "ccb"))
    pairs = [(a, b) for low, high in zip(groups, groups[1:]) for a in low for b in high]
    return _ratio_components(t, "condorcet", pairs)


#: Figure 1(b)'s labels, top to bottom (L968).
LABEL_ORDER = ("ccb", "dts", "ecw_rmed", "dts_plus")


def label_order(t: Tables) -> Measurement:
    """Each consecutive pair of Figure 1(b)'s labels: the lower curve over the upper one."""
    return _ratio_components(t, "noncondorcet", [(lo, hi) for hi, lo in zip(LABEL_ORDER, LABEL_ORDER[1:])])


def std_over_ecw_replicates(x: np.ndarray, ecw: np.ndarray, same: bool, seed: int, key: str) -> np.ndarray:
    """Bootstrap replicates of STD(x) / mean(ecw) (``same``: x is ECW-RMED's own sample, resampled
    once); shared with Figure 2's table, so that its intervals are the checks'."""
    if same:
        return V.bootstrap([x], lambda u: div_or_nan(fstd_last(u), fmean_last(u)), seed=seed, key=key, rows=True)
    return V.bootstrap([x, ecw], lambda u, v: div_or_nan(fstd_last(u), fmean_last(v)), seed=seed, key=key, rows=True)


def std_over_ecw(t: Tables, panel: str, a: str) -> Measurement:
    x, ecw = t.samples(panel, a, at="figure2"), t.samples(panel, "ecw_rmed", at="figure2")
    for v in (x, ecw):
        if isinstance(v, Missing):
            return v
    if x.size < 2:
        return Missing("fewer than 2 runs")
    sd, m = fstd(x), fmean(ecw)
    same = t.algorithm(panel, a) == t.algorithm(panel, "ecw_rmed")
    return Measurement(value=sd / m, replicates=std_over_ecw_replicates(x, ecw, same, t.seed,
                                                                          f"std_over_ecw:{panel}:{a}"),
                       runs=min(x.size, ecw.size), evidence=f"panel {panel}: STD {a} {sd:.6g}, ECW-RMED mean {m:.6g}")


def _std_ratio(t: Tables, panel: str, a: str, b: str, key: str) -> Measurement:
    xa, xb = t.samples(panel, a, at="figure2"), t.samples(panel, b, at="figure2")
    for v in (xa, xb):
        if isinstance(v, Missing):
            return v
    if min(xa.size, xb.size) < 2:
        return Missing("fewer than 2 runs")

    def stat(u, v):
        return div_or_nan(fstd_last(u), fstd_last(v))

    return Measurement(value=stat(xa, xb), replicates=_boot(t, key, [xa, xb], stat), runs=min(xa.size, xb.size),
                       evidence=f"panel {panel}: STD {a} {fstd(xa):.6g}, {b} {fstd(xb):.6g}")


def std_ratio(t: Tables, panel: str, a: str, b: str) -> Measurement:
    return _std_ratio(t, panel, a, b, f"std_ratio:{panel}:{a}:{b}")


def std_order(t: Tables) -> Measurement:
    """STD D-TS+ < STD D-TS < STD ECW-RMED at Figure 2's time: one STD ratio per consecutive pair."""
    parts = []
    for a, b in (("dts_plus", "dts"), ("dts", "ecw_rmed")):
        m = _std_ratio(t, "noncondorcet", a, b, f"std_order:noncondorcet:{a}:{b}")
        if isinstance(m, Missing):
            return m
        parts.append((f"STD {a}/STD {b}", m))
    return Measurement(components=parts, evidence="panel noncondorcet: STD ratios at Figure 2's time")


def rucb_elimination(t: Tables) -> Measurement:
    """Per traced curve and panel: the share of steps at which the RUCB bounds removed a candidate."""
    parts = []
    for p in PANELS:
        for name in t.settings["traces"]["curves"]:
            tr = t.traced(p, name)
            if isinstance(tr, Missing):
                return tr
            share = tr["eliminated_steps"].to_numpy(float) / tr["horizon"].to_numpy(float)
            parts.append((f"{name} {p}", Measurement(
                value=fmean(share), runs=share.size,
                replicates=_boot(t, f"rucb_elimination:{p}:{name}", [share], fmean_last))))
    if not parts:
        return Missing("no traced curve (traces.curves is empty)")
    return Measurement(components=parts, evidence=f"share of steps t <= T with |C| < K over the first "
                                                  f"{t.settings['traces']['runs']} runs")


def _winners(s: Mapping, panel: str) -> list[int]:
    return [int(w) for w in copeland_winners(_matrix(s, panel))]


def winner_first_min_share(t: Tables, panel: str, a: str) -> Measurement:
    """The smallest share of the steps with a(1) = w over the Copeland winners w (traced runs)."""
    tr = t.traced(panel, a)
    if isinstance(tr, Missing):
        return tr
    winners = _winners(t.settings, panel)
    steps = tr[[f"first_steps_{w}" for w in winners]].to_numpy(float)
    horizon = tr["horizon"].to_numpy(float)

    def stat(idx):  # idx: run indices, one replicate (1-D) or one per row
        idx = idx.astype(np.int64)
        total = fsum_last(horizon[idx])
        shares = [fsum_last(steps[idx, k]) / total for k in range(len(winners))]
        return min(shares) if idx.ndim == 1 else np.min(np.stack(shares), axis=0)

    runs = np.arange(len(tr), dtype=float)
    shares = [math.fsum(steps[:, k].tolist()) / math.fsum(horizon.tolist()) for k in range(len(winners))]
    return Measurement(value=stat(runs), replicates=_boot(t, f"winner_first_min_share:{panel}:{a}", [runs], stat),
                       runs=len(tr), evidence=f"panel {panel}: {a}'s share of steps with a(1) = w for the Copeland "
                                              f"winners w = {winners}: " + ", ".join(f"{x:.3f}" for x in shares))


def winner_first_regret_share(t: Tables, panel: str, a: str) -> Measurement:
    """The share of the regret at T incurred at steps whose a(1) is a Copeland winner (traced runs)."""
    tr = t.traced(panel, a)
    if isinstance(tr, Missing):
        return tr
    winners = _winners(t.settings, panel)
    won = tr[[f"first_regret_{w}" for w in winners]].to_numpy(float).sum(axis=1)
    total = tr["regret"].to_numpy(float)

    def stat(u, v):
        return div_or_nan(fsum_last(u), fsum_last(v))

    return Measurement(value=stat(won, total), runs=len(tr),
                       replicates=_boot(t, f"winner_first_regret_share:{panel}:{a}", [won, total], stat, paired=True),
                       evidence=f"panel {panel}: {a}'s regret with a Copeland winner ({winners}) first "
                                f"{fmean(won):.6g} of {fmean(total):.6g} per run")


def measure(t: Tables, statistic: str) -> Measurement:
    """The measurement of one statistic name (see the package docstring)."""
    kind, *parts = statistic.split(":")
    handlers = {
        ("facts", 2): lambda: facts(t.settings, *parts), ("theory", 1): lambda: assumptions(t.settings),
        ("order", 3): lambda: order(t, *parts), ("reldiff", 3): lambda: reldiff(t, *parts),
        ("slope_ratio", 3): lambda: slope_ratio(t, *parts), ("log_flatness", 2): lambda: log_flatness(t, *parts),
        ("clusters", 1): lambda: clusters(t), ("label_order", 1): lambda: label_order(t),
        ("std_over_ecw", 2): lambda: std_over_ecw(t, *parts), ("std_ratio", 3): lambda: std_ratio(t, *parts),
        ("std_order", 1): lambda: std_order(t), ("rucb_elimination", 0): lambda: rucb_elimination(t),
        ("winner_first_min_share", 2): lambda: winner_first_min_share(t, *parts),
        ("winner_first_regret_share", 2): lambda: winner_first_regret_share(t, *parts),
    }
    handler = handlers.get((kind, len(parts)))
    return handler() if handler else Missing(f"unknown statistic {statistic!r}")


def write_checks(ctx: StepContext) -> dict:
    """Step ``checks``: ``checks.csv``."""
    s, i = ctx.settings, ctx.input

    def evaluate(registry):
        tables = Tables(s, pd.read_csv(i.regret, dtype={"param_hash": str}),
                        pd.read_csv(i.final, dtype={"param_hash": str}),
                        pd.read_csv(i.slopes, dtype={"param_hash": str}),
                        pd.read_csv(i.traces, dtype={"param_hash": str}))
        return evaluate_with_reasons(registry, lambda st: measure(tables, st), s["fidelity"])

    return checks_table(ctx, evaluate)

"""Statistics and checks of the Wu & Liu (2016) replication.

Every ``statistic`` of ``data/published/wu2016.yaml`` is defined in the package docstring of
:mod:`duelbench.experiments.wu2016`; this module computes them from ``regret.csv``,
``final_regret.csv`` and the panels' matrices, and evaluates the registry at the active
fidelity (``checks.csv``).  Decision on Assumption 2 (L689): the sorted superiors sigma_i of
arm i are the other arms j != i ordered by p_ji, largest first.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from duelbench.report.checks import CheckResult, Measurement

from ..claims import Missing, evaluate_with_reasons, write_checks_step
from ..contract import StepContext
from . import PANELS, SAVAGES, panel_curves


class Tables:
    """The experiment's tables and settings, with the lookups the statistics need."""

    def __init__(self, s: Mapping, regret: pd.DataFrame, final: pd.DataFrame):
        self.settings, self.regret, self.final = s, regret, final

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

    def curve(self, panel: str, name: str) -> pd.DataFrame | Missing:
        """Mean regret of ``name`` on ``panel`` by checkpoint (columns t, mean)."""
        alg = self.algorithm(panel, name)
        if isinstance(alg, Missing):
            return alg
        r = self.regret
        cur = r[(r["panel"] == panel) & (r["algorithm"] == alg)].sort_values("t")
        return cur[["t", "mean"]] if len(cur) else Missing(f"no curve of {alg} on panel {panel}")

    def means(self, panel: str, names) -> dict[str, float] | Missing:
        out = {}
        for n in names:
            x = self.samples(panel, n)
            if isinstance(x, Missing):
                return x
            out[n] = float(x.mean())
        return out


# --------------------------------------------------------------------------------------------
# statistics
# --------------------------------------------------------------------------------------------
def _matrix(s: Mapping, panel: str):
    from duelbench.data.registry import load_matrix

    return load_matrix(s["panels"][panel]["dataset"]).values


def facts(s: Mapping, panel: str, what: str) -> Measurement:
    """``facts:<p>:three_winners_zeta_3_4`` and ``facts:<p>:has_condorcet_winner``."""
    from duelbench.problems.winners import condorcet_winner, copeland_winners, normalized_copeland_scores

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
    from duelbench.problems.winners import copeland_winners

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
    m = t.means(panel, (a, b))
    if isinstance(m, Missing):
        return m
    return Measurement(value=abs(m[a] - m[b]) / m[b], evidence=f"panel {panel}: mean {a} {m[a]:.6g}, mean {b} {m[b]:.6g}")


def _slope(cur: pd.DataFrame) -> float:
    """Least-squares slope of the mean regret against ln t over the checkpoints in [T/10, T]."""
    tt, m = cur["t"].to_numpy(float), cur["mean"].to_numpy(float)
    sel = tt >= tt[-1] / 10
    return float(np.polyfit(np.log(tt[sel]), m[sel], 1)[0]) if sel.sum() >= 2 else float("nan")


def slope_ratio(t: Tables, panel: str, a: str, b: str) -> Measurement:
    ca, cb = t.curve(panel, a), t.curve(panel, b)
    for c in (ca, cb):
        if isinstance(c, Missing):
            return c
    sa, sb = _slope(ca), _slope(cb)
    return Measurement(value=sa / sb if sb else float("nan"), evidence=f"panel {panel}: slope per ln t over [T/10, T] "
                                                                        f"{a} {sa:.4g}, {b} {sb:.4g}")


def log_flatness(t: Tables, panel: str, a: str) -> Measurement:
    cur = t.curve(panel, a)
    if isinstance(cur, Missing):
        return cur
    tt, m = cur["t"].to_numpy(float), cur["mean"].to_numpy(float)
    k = int(np.argmin(np.abs(np.log(tt) - np.log(tt[-1] / 10))))
    if tt[k] <= 1 or m[k] <= 0:
        return Missing(f"panel {panel}: no positive regret at t = T/10")
    v = (m[-1] / np.log(tt[-1])) / (m[k] / np.log(tt[k]))
    return Measurement(value=float(v), evidence=f"panel {panel}: R/ln t = {m[-1] / np.log(tt[-1]):.4g} at t = "
                                                 f"{int(tt[-1])}, {m[k] / np.log(tt[k]):.4g} at t = {int(tt[k])}")


def clusters(t: Tables) -> Measurement:
    groups = (("dts", "dts_plus"), ("rcs", "rmed1", "ecw_rmed"), ("rucb", "ccb"))
    m = t.means("condorcet", [n for g in groups for n in g])
    if isinstance(m, Missing):
        return m
    low, mid, high = ([m[n] for n in g] for g in groups)
    return Measurement(value=max(low) < min(mid) and max(mid) < min(high),
                       evidence="means " + ", ".join(f"{n} {v:.5g}" for n, v in m.items()))


def label_order(t: Tables) -> Measurement:
    names = ("ccb", "dts", "ecw_rmed", "dts_plus")
    m = t.means("noncondorcet", names)
    if isinstance(m, Missing):
        return m
    v = [m[n] for n in names]
    return Measurement(value=all(x > y for x, y in zip(v, v[1:])),
                       evidence="means " + ", ".join(f"{n} {m[n]:.5g}" for n in names))


def _std(t: Tables, panel: str, a: str) -> float | Missing:
    x = t.samples(panel, a, at="figure2")
    return x if isinstance(x, Missing) else float(np.std(x, ddof=1)) if x.size > 1 else Missing("fewer than 2 runs")


def std_over_ecw(t: Tables, panel: str, a: str) -> Measurement:
    sd, ecw = _std(t, panel, a), t.samples(panel, "ecw_rmed", at="figure2")
    for x in (sd, ecw):
        if isinstance(x, Missing):
            return x
    return Measurement(value=sd / float(ecw.mean()), evidence=f"panel {panel}: STD {a} {sd:.6g}, ECW-RMED mean "
                                                              f"{float(ecw.mean()):.6g}")


def std_ratio(t: Tables, panel: str, a: str, b: str) -> Measurement:
    sa, sb = _std(t, panel, a), _std(t, panel, b)
    for x in (sa, sb):
        if isinstance(x, Missing):
            return x
    return Measurement(value=sa / sb, evidence=f"panel {panel}: STD {a} {sa:.6g}, {b} {sb:.6g}")


def std_order(t: Tables) -> Measurement:
    names = ("dts_plus", "dts", "ecw_rmed")
    sds = [_std(t, "noncondorcet", n) for n in names]
    for x in sds:
        if isinstance(x, Missing):
            return x
    return Measurement(value=sds[0] < sds[1] < sds[2], evidence="STD " + ", ".join(f"{n} {v:.6g}" for n, v in zip(names, sds)))


def measure(t: Tables, statistic: str) -> Measurement:
    """The measurement of one statistic name (see the package docstring)."""
    kind, *parts = statistic.split(":")
    handlers = {
        ("facts", 2): lambda: facts(t.settings, *parts), ("theory", 1): lambda: assumptions(t.settings),
        ("order", 3): lambda: order(t, *parts), ("reldiff", 3): lambda: reldiff(t, *parts),
        ("slope_ratio", 3): lambda: slope_ratio(t, *parts), ("log_flatness", 2): lambda: log_flatness(t, *parts),
        ("clusters", 1): lambda: clusters(t), ("label_order", 1): lambda: label_order(t),
        ("std_over_ecw", 2): lambda: std_over_ecw(t, *parts), ("std_ratio", 3): lambda: std_ratio(t, *parts),
        ("std_order", 1): lambda: std_order(t),
    }
    handler = handlers.get((kind, len(parts)))
    return handler() if handler else Missing(f"unknown statistic {statistic!r}")


def write_checks(ctx: StepContext) -> list[CheckResult]:
    """Step ``checks``: ``checks.csv`` (+ sidecar)."""
    s, i = ctx.settings, ctx.input

    def evaluate(registry):
        tables = Tables(s, pd.read_csv(i.regret, dtype={"param_hash": str}),
                        pd.read_csv(i.final, dtype={"param_hash": str}))
        return evaluate_with_reasons(registry, lambda st: measure(tables, st), s["fidelity"])

    return write_checks_step(ctx, evaluate, [i.regret, i.final], {"seed": int(s["seed"])})

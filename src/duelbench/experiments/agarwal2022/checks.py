"""Statistics and checks of the Agarwal et al. (2022) replication.

Every ``statistic`` of ``data/published/agarwal2022.yaml`` is computed here from
``final_regret.csv``, ``batches.csv`` and ``theory.csv``, and the registry is evaluated at the
active fidelity (``checks.csv``).  Statistics (``<p>`` a panel role, ``<A>``/``<B>`` curve ids of
:func:`duelbench.experiments.agarwal2022.curves`):

``order:<p>:<A>:<B>``
    Paired samples ``a``, ``b``: R(T) of curves A and B on panel p, run by run (A4).
``count_less:<A>:<B>``
    One component per panel: the paired samples of A and B (a claim "on k of the panels" combines
    them with ``combine: {at_least: k}``).
``degrades:<A>``
    mean A / mean RMED1 is larger on both synthetic panels than on both real ones (C5).
``approaches:<A>:<B>``
    mean A / mean B is smaller on both synthetic panels than on both real ones (C8a).
``reldiff:<p>:<A>:<B>``
    ``|mean A − mean B| / mean B`` of R(T) on panel p.
``budget:<alg>``, ``budget:exact_T``
    Every replayed run of a batched curve of ``alg`` used at most its budget of batches
    (Theorems 3.1, 3.2, 3.4) / made exactly T comparisons.
``identity:regret``
    Largest ``|R(T) − ½ Σ_j T_j ε_j| / max(R(T), 1)`` over the replayed runs.
``good_event:violating_runs``, ``good_event:winner_eliminated_runs``, ``good_event:lemma44_violations``
    Over the gamma-rule runs (curves ``*_gamma_b*``): runs with an estimate outside gamma_r, runs
    that eliminate the Condorcet winner, switches with the winner outside A' or |A'| above the
    rank of the best seed arm.
``thm31:<p>``
    Largest ratio, over the B of ``theory.batches``, of gamma-rule PCOMP's mean R(T) on panel p
    to Theorem 3.1's bound averaged over the runs' instances (``theory.csv``).
``facts:*``, ``seed_rank:*``, ``lower_bound:*``
    Read from ``theory.csv`` (:mod:`.theory`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from duelbench.report.checks import CheckResult, Measurement

from ..claims import Missing, evaluate_with_reasons, write_checks_step
from ..contract import StepContext
from . import BATCH_BUDGET, PANELS, REAL, SYNTHETIC

class Tables:
    """The step's inputs with the lookups the statistics need."""

    def __init__(self, s: Mapping, final: pd.DataFrame, batches: pd.DataFrame, theory: pd.DataFrame):
        self.settings, self.final, self.batches = s, final, batches
        self.theory = dict(zip(theory["statistic"], zip(theory["value"], theory["evidence"].fillna(""))))

    def samples(self, panel: str, curve: str) -> np.ndarray | Missing:
        if panel not in PANELS:
            return Missing(f"unknown panel {panel!r} (panels: {', '.join(PANELS)})")
        f = self.final
        x = f[(f["panel"] == panel) & (f["curve"] == curve)].sort_values("run")["regret"]
        return x.to_numpy(float) if len(x) else Missing(f"no runs of curve {curve!r} on panel {panel} at fidelity "
                                                        f"{self.settings['fidelity']}")

    def pair(self, panel: str, a: str, b: str) -> tuple[np.ndarray, np.ndarray] | Missing:
        """The run-by-run samples of curves a and b on ``panel``, or the first one missing."""
        xa, xb = self.samples(panel, a), self.samples(panel, b)
        return next((x for x in (xa, xb) if isinstance(x, Missing)), (xa, xb))

    def ratios(self, a: str, b: str) -> dict[str, float] | Missing:
        out = {}
        for p in PANELS:
            x = self.pair(p, a, b)
            if isinstance(x, Missing):
                return x
            xa, xb = x
            out[p] = float(xa.mean() / xb.mean()) if xb.mean() > 0 else float("inf")
        return out


def _fmt_ratios(r: Mapping[str, float]) -> str:
    return ", ".join(f"{p} {v:.3g}" for p, v in r.items())


def _theory(t: Tables, stat: str) -> Measurement:
    if stat not in t.theory:
        return Missing(f"{stat!r} not in theory.csv")
    value, evidence = t.theory[stat]
    if isinstance(value, str) and value in ("True", "False"):
        value = value == "True"
    else:
        value = float(value)
    return Measurement(value=value, evidence=str(evidence))


def _batched_rows(t: Tables, gamma: bool | None = None) -> pd.DataFrame:
    b = t.batches
    if gamma is None:
        return b
    return b[b["curve"].str.contains("_gamma_b") == gamma]


def measure(t: Tables, stat: str) -> Measurement:
    """The measurement of one registry statistic (:class:`Missing` with the reason if absent)."""
    kind, _, rest = stat.partition(":")
    parts = rest.split(":")
    if kind == "order" and len(parts) == 3:
        p, a, b = parts
        x = t.pair(p, a, b)
        if isinstance(x, Missing):
            return x
        xa, xb = x
        return Measurement(value=float(xa.mean() / xb.mean()) if xb.mean() else None, a=xa, b=xb,
                           evidence=f"A = {a}, B = {b} on {p}")
    if kind == "count_less" and len(parts) == 2:
        a, b = parts
        comps = []
        for p in PANELS:
            x = t.pair(p, a, b)
            if isinstance(x, Missing):
                return x
            if min(x[0].size, x[1].size) < 2:
                return Missing(f"fewer than 2 runs on {p}")
            comps.append((p, Measurement(a=x[0], b=x[1])))
        return Measurement(components=comps, evidence=f"{a} vs {b}, per panel (paired)")
    if kind in ("degrades", "approaches"):
        a, b = (parts[0], "rmed1") if kind == "degrades" else parts
        r = t.ratios(a, b)
        if isinstance(r, Missing):
            return r
        syn, real = [r[p] for p in SYNTHETIC], [r[p] for p in REAL]
        ok = min(syn) > max(real) if kind == "degrades" else max(syn) < min(real)
        return Measurement(value=bool(ok), evidence=f"mean {a}/mean {b}: {_fmt_ratios(r)}")
    if kind == "reldiff" and len(parts) == 3:
        p, a, b = parts
        x = t.pair(p, a, b)
        if isinstance(x, Missing):
            return x
        xa, xb = x
        return Measurement(value=float(abs(xa.mean() - xb.mean()) / xb.mean()),
                           evidence=f"mean {a} {xa.mean():.6g}, mean {b} {xb.mean():.6g} on {p}")
    if kind == "budget":
        rows = _batched_rows(t)
        if rows.empty:
            return Missing("no batched runs replayed")
        if parts[0] == "exact_T":
            bad = rows[rows["comparisons"] != int(t.settings["horizon"])]
            return Measurement(value=bad.empty, evidence=f"{len(rows)} runs, {len(bad)} without exactly T comparisons")
        alg = parts[0]
        rows = rows[rows["algorithm"] == alg]
        if rows.empty:
            return Missing(f"no replayed runs of {alg}")
        limit = rows["batches"].map(lambda B: BATCH_BUDGET[alg](int(B)))
        bad = rows[rows["batches_used"] > limit]
        return Measurement(value=bad.empty, evidence=f"{len(rows)} runs, most batches used {int(rows['batches_used'].max())}"
                           f" (B = {sorted(set(rows['batches'].astype(int)))}), {len(bad)} over budget")
    if kind == "identity":
        rows = _batched_rows(t)
        if rows.empty:
            return Missing("no batched runs replayed")
        dev = float(rows["identity_deviation"].max())
        return Measurement(value=dev, evidence=f"{len(rows)} runs")
    if kind == "good_event":
        rows = _batched_rows(t, gamma=True)
        if rows.empty:
            return Missing("no gamma-rule runs replayed")
        if parts[0] == "violating_runs":
            n = int((rows["good_event_violations"] > 0).sum())
            return Measurement(value=n, evidence=f"{n} of {len(rows)} runs; {int(rows['good_event_estimates'].sum())} "
                               f"estimates, {int(rows['good_event_violations'].sum())} outside gamma_r")
        if parts[0] == "winner_eliminated_runs":
            n = int(rows["winner_eliminated"].astype(bool).sum())
            return Measurement(value=n, evidence=f"{n} of {len(rows)} runs")
        if parts[0] == "lemma44_violations":
            sw = rows[rows["switch_round"] >= 0]
            sw = sw[sw["algorithm"] != "pcomp"]
            bad = sw[(~sw["winner_in_a_prime"].astype(bool)) | (sw["a_prime_size"] > sw["seed_rank"].clip(lower=1))]
            return Measurement(value=len(bad), evidence=f"{len(bad)} of {len(sw)} switches")
    if kind == "thm31" and len(parts) == 1:
        p = parts[0]
        worst, ev = None, []
        for B in t.settings["theory"]["batches"]:
            x = t.samples(p, f"pcomp_gamma_b{int(B)}")
            bound = t.theory.get(f"thm31_bound:{p}:{int(B)}")
            if isinstance(x, Missing) or bound is None:
                return x if isinstance(x, Missing) else Missing(f"no Theorem 3.1 bound for {p}, B = {B}")
            r = float(x.mean()) / float(bound[0])
            worst = r if worst is None else max(worst, r)
            ev.append(f"B={int(B)}: {x.mean():.4g}/{float(bound[0]):.4g}")
        return Measurement(value=worst, evidence="mean R(T)/bound: " + ", ".join(ev))
    if kind in ("facts", "seed_rank", "lower_bound"):
        return _theory(t, stat)
    return Missing(f"unknown statistic {stat!r}")


def write_checks(ctx: StepContext) -> list[CheckResult]:
    """Step ``checks``: ``checks.csv`` (+ sidecar)."""
    s, i = ctx.settings, ctx.input

    def evaluate(registry):
        tables = Tables(s, pd.read_csv(i.final, dtype={"param_hash": str}), pd.read_csv(i.batches),
                        pd.read_csv(i.theory, dtype={"value": str}))
        return evaluate_with_reasons(registry, lambda st: measure(tables, st), s["fidelity"])

    return write_checks_step(ctx, evaluate, [i.final, i.batches, i.theory], {"seed": int(s["seed"])})

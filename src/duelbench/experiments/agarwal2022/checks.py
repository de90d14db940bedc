"""Statistics and checks of the Agarwal et al. (2022) replication.

Every ``statistic`` of ``data/published/agarwal2022.yaml`` is computed here from
``final_regret.csv``, ``batches.csv`` and ``theory.csv``, and the registry is evaluated at the
active fidelity (``checks.csv``) under the statistics contract of
:mod:`duelbench.report.verdict`.  The runs a check reads are runs ``check_runs_from`` …
``runs − 1`` (setting ``check_runs_from``, 0 in the declared reading; a declared extension
judges its checks on fresh run indices only).  Statistics (``<p>`` a panel role, ``<A>``/``<B>``
curve ids of :func:`duelbench.experiments.agarwal2022.curve_list`):

``order:<p>:<A>:<B>``
    Paired samples ``a``, ``b``: R(T) of curves A and B on panel p, run by run (A4).
``count_less:<A>:<B>``
    One component per panel: the paired samples of A and B (a claim "on k of the panels" combines
    them with ``combine: {at_least: k}``).
``degrades:<A>``, ``approaches:<A>:<B>``
    One component per (synthetic panel, real panel) pair: the ratio of ratios
    ``(mean A / mean B on the synthetic panel) / (mean A / mean B on the real panel)`` (B is RMED1
    for ``degrades``) with :data:`BOOTSTRAP_REPLICATES` bootstrap replicates over runs (paired:
    one resampling of the run indices for the four samples, seed ``seed``, key the statistic and
    the pair).  "Degrades" is the ratio above 1 on every pair, "approaches" below 1.
``decreases_in_b:<p>:<alg>``
    One component per consecutive pair of ``figure2.batches`` (B = 16 against 8, 8 against 2):
    the paired samples of curves ``<alg>_b<larger B>`` and ``<alg>_b<smaller B>`` on panel p.
``kl_vs_gamma:<alg>:<B>``
    One component per panel: the paired samples of the KL-elimination curve ``<alg>`` (Figure 1,
    B = 16) and the gamma-rule curve ``<alg>_gamma_b<B>`` (A8).
``split:<p>:<curve>``
    R(T) of the runs whose seed set S misses the Condorcet winner (``a``) and of those whose S
    holds it (``b``; ``seed_rank`` 0 in ``batches.csv``): independent samples, shown (the medians
    of ``switch_split.csv`` in the evidence; the checks step reads that table, so that a reading
    variant builds it too).
``budget:<alg>``, ``budget:exact_T``
    Every replayed run of a batched curve of ``alg`` used at most its budget of batches
    (Theorems 3.1, 3.2, 3.4) / made exactly T comparisons.
``identity:regret``
    Largest ``|R(T) − ½ Σ_j T_j ε_j| / max(R(T), 1)`` over the replayed runs.
``good_event:violating_runs``
    Gamma-rule runs (curves ``*_gamma_b*``) with an estimate outside gamma_r, as ``successes`` of
    ``trials`` (a proportion: Lemma 4.2 bounds its probability).
``good_event:winner_eliminated_runs``, ``good_event:lemma44_violations``
    Among the gamma-rule runs inside the good event G (no estimate outside gamma_r): runs that
    eliminate the Condorcet winner, switches with the winner outside A' or |A'| above the rank of
    the best seed arm (Lemmas 4.3-4.4 hold deterministically on G: exact counts).
``thm31:<p>``
    One component per B of ``theory.batches``: gamma-rule PCOMP's mean R(T) on panel p over
    Theorem 3.1's bound averaged over the runs' instances (``theory.csv``), with the standard
    error of the mean R(T) over the bound.
``seed_rank:<lemma>:<ratio>``
    One component per K of ``seed_rank.K``: the Monte-Carlo ratio of ``theory.csv``'s rows
    ``seed_rank:<lemma>:<ratio>:K<K>`` with its standard error.
``facts:*``, ``lower_bound:*``
    Read from ``theory.csv`` (:mod:`.theory`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from duelbench.report import verdict as V
from duelbench.report.checks import Measurement
from duelbench.report.numerics import fmean, fmean_last, fvar

from ..claims import Missing, checks_table, evaluate_with_reasons
from ..contract import StepContext
from .config import BATCH_BUDGET, PANELS, REAL, SYNTHETIC

#: Bootstrap replicates of the ratio-of-ratios statistics (``degrades``, ``approaches``).
BOOTSTRAP_REPLICATES = V.BOOTSTRAP_REPLICATES


class Tables:
    """The step's inputs with the lookups the statistics need (runs ``check_runs_from`` on)."""

    def __init__(self, s: Mapping, final: pd.DataFrame, batches: pd.DataFrame, theory: pd.DataFrame,
                 split: pd.DataFrame | None = None):
        self.settings = s
        self.split = split
        self.first_run = int(s.get("check_runs_from", 0))
        self.final = final[final["run"] >= self.first_run]
        self.batches = batches[batches["run"] >= self.first_run]
        se = pd.to_numeric(theory["se"], errors="coerce") if "se" in theory else pd.Series(np.nan, index=theory.index)
        self.theory = {k: (v, e, float(d)) for k, v, e, d in zip(theory["statistic"], theory["value"],
                                                                 theory["evidence"].fillna(""), se)}

    @property
    def seed(self) -> int:
        return int(self.settings["seed"])

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


def _ratio_of_ratios(a1, b1, a2, b2):
    """(mean a1 / mean b1) / (mean a2 / mean b2): a float for 1-D samples, one value per row of
    2-D ones (row-wise, for :func:`duelbench.report.verdict.bootstrap` with ``rows``)."""
    return (fmean_last(a1) / fmean_last(b1)) / (fmean_last(a2) / fmean_last(b2))


def ratio_of_ratios(t: Tables, stat: str, a: str, b: str) -> Measurement:
    """Components (synthetic panel / real panel) of mean A / mean B, bootstrapped over runs."""
    comps, ev = [], []
    for syn, real in itertools.product(SYNTHETIC, REAL):
        xs, xr = t.pair(syn, a, b), t.pair(real, a, b)
        for x in (xs, xr):
            if isinstance(x, Missing):
                return x
        n = min(xs[0].size, xr[0].size)
        if n < 2:
            return Missing(f"fewer than 2 runs on {syn} or {real}")
        sample = [xs[0][:n], xs[1][:n], xr[0][:n], xr[1][:n]]
        value = _ratio_of_ratios(*sample)
        reps = V.bootstrap(sample, _ratio_of_ratios, t.seed, f"{stat}:{syn}:{real}", BOOTSTRAP_REPLICATES, paired=True,
                           rows=True)
        comps.append((f"{syn}/{real}", Measurement(value=value, replicates=reps, runs=n)))
    for p in PANELS:
        x = t.pair(p, a, b)
        ev.append(f"{p} {V.sig(fmean(x[0]) / fmean(x[1]), 4)}")
    return Measurement(components=comps, evidence=f"mean {a}/mean {b}: {', '.join(ev)}; ratio of ratios "
                                                  f"(synthetic/real), {BOOTSTRAP_REPLICATES} paired bootstrap replicates")


def _theory(t: Tables, stat: str) -> Measurement:
    if stat not in t.theory:
        return Missing(f"{stat!r} not in theory.csv")
    value, evidence, _ = t.theory[stat]
    if isinstance(value, str) and value in ("True", "False"):
        value = value == "True"
    else:
        value = float(value)
    return Measurement(value=value, evidence=str(evidence))


def _per_k(t: Tables, stat: str) -> Measurement:
    """Components of the Monte-Carlo ratios ``<stat>:K<K>`` of ``theory.csv`` with their s.e."""
    comps, ev = [], []
    for K in t.settings["seed_rank"]["K"]:
        key = f"{stat}:K{int(K)}"
        if key not in t.theory:
            return Missing(f"{key!r} not in theory.csv")
        value, evidence, se = t.theory[key]
        comps.append((f"K={int(K)}", Measurement(value=float(value), se=float(se))))
        ev.append(str(evidence))
    return Measurement(components=comps, evidence="; ".join(ev))


def _batched_rows(t: Tables, gamma: bool | None = None) -> pd.DataFrame:
    b = t.batches
    if gamma is None:
        return b
    return b[b["curve"].str.contains("_gamma_b") == gamma]


def _flags(x: pd.Series) -> pd.Series:
    return x.map(lambda v: str(v) == "True")


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
        return Measurement(a=xa, b=xb, evidence=f"A = {a}, B = {b} on {p}")
    if kind in ("count_less", "kl_vs_gamma") and len(parts) == 2:
        a, b = parts if kind == "count_less" else (parts[0], f"{parts[0]}_gamma_b{int(parts[1])}")
        comps = []
        for p in PANELS:
            x = t.pair(p, a, b)
            if isinstance(x, Missing):
                return x
            if min(x[0].size, x[1].size) < 2:
                return Missing(f"fewer than 2 runs on {p}")
            comps.append((p, Measurement(a=x[0], b=x[1])))
        return Measurement(components=comps, evidence=f"A = {a}, B = {b}, per panel (paired)")
    if kind == "decreases_in_b" and len(parts) == 2:
        p, alg = parts
        grid = sorted(int(B) for B in t.settings["figure2"]["batches"])
        comps = []
        for small, large in zip(grid[:-1], grid[1:]):
            x = t.pair(p, f"{alg}_b{large}", f"{alg}_b{small}")
            if isinstance(x, Missing):
                return x
            comps.append((f"B={large}/B={small}", Measurement(a=x[0], b=x[1])))
        comps.reverse()
        return Measurement(components=comps, evidence=f"{alg} on {p}, B = {', '.join(map(str, grid))} (paired)")
    if kind == "degrades" and len(parts) == 1:
        return ratio_of_ratios(t, stat, parts[0], "rmed1")
    if kind == "approaches" and len(parts) == 2:
        return ratio_of_ratios(t, stat, parts[0], parts[1])
    if kind == "split" and len(parts) == 2:
        p, curve = parts
        rows = t.batches[(t.batches["panel"] == p) & (t.batches["curve"] == curve)]
        if rows.empty:
            return Missing(f"no batch logs of {curve!r} on {p}")
        inside = rows["seed_rank"] == 0
        a, b = rows[~inside]["regret"].to_numpy(float), rows[inside]["regret"].to_numpy(float)
        if min(a.size, b.size) < 2:
            return Missing(f"{curve} on {p}: {b.size} runs with the winner in S, {a.size} without (2 of each needed)")
        switched = int((rows["switch_round"] >= 0).sum())
        ev = (f"{curve} on {p}: A = {a.size} runs without the winner in S, B = {b.size} runs with it; {switched} of "
              f"{len(rows)} runs switched")
        if t.split is not None and t.first_run == 0:
            row = t.split[(t.split["panel"] == p) & (t.split["curve"] == curve)]
            if len(row):
                r = row.iloc[0]
                ev += (f"; median R(T) {V.sig(r['median_winner_not_in_seed'], 4)} without, "
                       f"{V.sig(r['median_winner_in_seed'], 4)} with the winner in S (switch_split.csv)")
        return Measurement(a=a, b=b, evidence=ev)
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
        outside = rows["good_event_violations"] > 0
        if parts[0] == "violating_runs":
            n = int(outside.sum())
            return Measurement(successes=n, trials=len(rows), evidence=(
                f"{n} of {len(rows)} runs; {int(rows['good_event_estimates'].sum())} estimates, "
                f"{int(rows['good_event_violations'].sum())} outside gamma_r"))
        good = rows[~outside]
        if parts[0] == "winner_eliminated_runs":
            n = int(_flags(good["winner_eliminated"]).sum())
            return Measurement(value=n, evidence=f"{n} of the {len(good)} runs inside G (of {len(rows)})")
        if parts[0] == "lemma44_violations":
            sw = good[(good["switch_round"] >= 0) & (good["algorithm"] != "pcomp")]
            bad = sw[(~_flags(sw["winner_in_a_prime"])) | (sw["a_prime_size"] > sw["seed_rank"].clip(lower=1))]
            return Measurement(value=len(bad), evidence=f"{len(bad)} of {len(sw)} switches inside G "
                                                        f"({len(good)} of {len(rows)} runs inside G)")
    if kind == "thm31" and len(parts) == 1:
        p = parts[0]
        comps, ev = [], []
        for B in t.settings["theory"]["batches"]:
            x = t.samples(p, f"pcomp_gamma_b{int(B)}")
            bound = t.theory.get(f"thm31_bound:{p}:{int(B)}")
            if isinstance(x, Missing) or bound is None:
                return x if isinstance(x, Missing) else Missing(f"no Theorem 3.1 bound for {p}, B = {B}")
            if x.size < 2:
                return Missing(f"fewer than 2 runs of pcomp_gamma_b{int(B)} on {p}")
            bd = float(bound[0])
            se = math.sqrt(fvar(x) / x.size)
            comps.append((f"B={int(B)}", Measurement(value=fmean(x) / bd, se=se / bd, df=x.size - 1, runs=x.size)))
            ev.append(f"B={int(B)}: {V.sig(fmean(x), 4)}/{V.sig(bd, 4)}")
        return Measurement(components=comps, evidence="mean R(T)/bound: " + ", ".join(ev))
    if kind == "seed_rank" and len(parts) == 2:
        return _per_k(t, stat)
    if kind in ("facts", "lower_bound"):
        return _theory(t, stat)
    return Missing(f"unknown statistic {stat!r}")


def write_checks(ctx: StepContext) -> dict:
    """Step ``checks``: ``checks.csv``."""
    s, i = ctx.settings, ctx.input

    def evaluate(registry):
        tables = Tables(s, pd.read_csv(i.final, dtype={"param_hash": str}), pd.read_csv(i.batches),
                        pd.read_csv(i.theory, dtype={"value": str}), pd.read_csv(i.split))
        return evaluate_with_reasons(registry, lambda st: measure(tables, st), s["fidelity"])

    return checks_table(ctx, evaluate)

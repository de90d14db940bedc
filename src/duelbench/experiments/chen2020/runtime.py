"""X8: time per round against the instance size (host dependent; no check reads it).

The paper claims polynomial time per round (L28, L32, L125, L386).  For every ``K_{n,ℓ}`` of
``runtime.borda_graphs`` (an F1 draw, :func:`duelbench.cpe.families.seeded` with ``s = 0.5``):

* ``borda_round`` — one round of Algorithm 1 (L131-L148) measured as its costly operations: two
  maximum-weight matchings (:func:`duelbench.cpe.matching.mwmc`, lines 132 and 141) and one
  exact uniform draw (:meth:`~duelbench.cpe.matching.MatchingCounter.sample`, line 147);
* ``borda_counter_setup`` — building the exact counter once (``2^n`` states per position).

For every graph of ``runtime.car_graphs``: ``car_check`` — one classification step of CAR-Cond
(Algorithm 2, lines 8-21; :func:`duelbench.cpe.condorcet.car_cond_check`) with ``U`` = every edge
and ``A = R = ∅``, i.e. ``4m`` oracle calls unless ``ℓ`` edges are accepted first, with the LP
oracle, the FPTAS at budget (25, 200) with the diameter step (as CAR-Cond runs it) and the
exhaustive oracle (only when ``|ℳ| ≤ 720``).

``runtime.csv`` columns: ``kind, oracle, n, ell, m, K, matchings, seconds`` (median over the
repeats), ``repeats, calls`` (matching or oracle calls per timed unit), ``prediction, agrees``
(empty: timings vary with the machine).

Decisions
---------
* R1 - weights and bounds.  The round's two weight vectors are uniform on ``[0, 1]^m``; the
  check's bound matrices are Eq. 8's (:func:`~duelbench.cpe.condorcet.confidence_bounds`) after
  64 duels of every pair drawn from the instance's ``P``, at ``t = 64``, ``δ = 0.1`` and the
  ``ε_3 = 1/8`` of that round (wide bounds, so nearly every edge stays undecided and the step
  makes its ``4m`` calls).  All from ``SeedSequence(seed, spawn_key=(n, ℓ))``.
* R2 - repeats.  A round is timed ``runtime.rounds`` times; a counter set-up or a check is timed
  until one second has been spent or ``rounds`` repeats are done, at least once (keeps the step
  near a minute at the configured sizes).  ``time.perf_counter`` per repeat, median reported.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping

import matplotlib.pyplot as plt
import numpy as np

from duelbench.cpe import families
from duelbench.cpe.condorcet import car_cond_check, confidence_bounds
from duelbench.cpe.exhaustive import exhaustive_value
from duelbench.cpe.fptas import fptas_oracle
from duelbench.cpe.matching import MatchingCounter, mwmc
from duelbench.cpe.oracles import lp_value

from ..contract import StepContext
from ..plotting import save_figure
from ..tables import write_rows
from .studies import PALETTE

COLUMNS = ["kind", "oracle", "n", "ell", "m", "K", "matchings", "seconds", "repeats", "calls", "prediction", "agrees"]
#: Largest ``|ℳ|`` for which the exhaustive oracle is timed.
EXHAUSTIVE_LIMIT = 720
#: FPTAS budget (outer, Frank-Wolfe) of the timed checks.
FPTAS_BUDGET = (25, 200)
#: Seconds spent at most on the repeats of one set-up or check (decision R2).
BUDGET_SECONDS = 1.0


def _instance(n: int, ell: int, seed: int):
    inst, _ = families.seeded("linear_utility", {"n": int(n), "ell": int(ell), "s": 0.5}, int(seed), 0, None)
    return inst


def _repeat(fn: Callable[[], object], max_repeats: int, budget: float = BUDGET_SECONDS) -> tuple[float, int, object]:
    """(median seconds, repeats, last result) of ``fn`` (decision R2)."""
    times, spent, out = [], 0.0, None
    while not times or (len(times) < max_repeats and spent < budget):
        t0 = time.perf_counter()
        out = fn()
        dt = time.perf_counter() - t0
        times.append(dt)
        spent += dt
    return statistics.median(times), len(times), out


def borda_rows(n: int, ell: int, s: Mapping) -> list[dict]:
    """The round and the counter set-up of Algorithm 1 on one ``K_{n,ℓ}``."""
    inst = _instance(n, ell, s["instance_seed"])
    rounds = int(s["runtime"]["rounds"])
    rng = np.random.default_rng(np.random.SeedSequence(int(s["seed"]), spawn_key=(int(n), int(ell))))
    t_setup, r_setup, counter = _repeat(lambda: MatchingCounter(inst), rounds)
    weights = rng.random((rounds, 2, inst.m))
    times = []
    for k in range(rounds):
        t0 = time.perf_counter()
        mwmc(inst, weights[k, 0])
        mwmc(inst, weights[k, 1])
        counter.sample(rng)
        times.append(time.perf_counter() - t0)
    size = {"n": inst.n, "ell": inst.ell, "m": inst.m, "K": inst.K, "matchings": counter.total}
    return [{"kind": "borda_round", "oracle": "mwmc+sampler", **size, "seconds": statistics.median(times),
             "repeats": rounds, "calls": 2,
             "prediction": "polynomial in m (L125: two MWMC calls and one sampler draw)"},
            {"kind": "borda_counter_setup", "oracle": "MatchingCounter", **size, "seconds": t_setup,
             "repeats": r_setup, "calls": 0,
             "prediction": "2^n states per position (the exact counter; the paper's sampler is polynomial, L117)"}]


def _exhaustive(inst, A1, R1, A2, R2, Q, eps=0.0):
    return exhaustive_value(inst, A1, R1, A2, R2, Q, eps, limit=EXHAUSTIVE_LIMIT)


def car_rows(n: int, ell: int, s: Mapping) -> list[dict]:
    """One CAR-Cond check per oracle on one ``K_{n,ℓ}`` (decision R1)."""
    inst = _instance(n, ell, s["instance_seed"])
    total = MatchingCounter(inst).total
    rng = np.random.default_rng(np.random.SeedSequence(int(s["seed"]), spawn_key=(int(n), int(ell), 1)))
    p = inst.P[inst.pairs[:, 0], inst.pairs[:, 1]]
    counts = np.full(inst.K, 64, dtype=np.int64)
    upper, lower = confidence_bounds(inst, rng.binomial(64, p), counts, 64, 0.1)
    oracles = [("lp", lp_value, "polynomial in m (one LP, Eq. 6 dualised)"),
               (f"fptas_{FPTAS_BUDGET[0]}_{FPTAS_BUDGET[1]}", fptas_oracle(*FPTAS_BUDGET, step="diameter"),
                "polynomial in m (Algorithms 6-7 at a fixed budget)")]
    if total <= EXHAUSTIVE_LIMIT:
        oracles.append(("exhaustive", _exhaustive, "factorial in n (enumerates the matchings)"))
    rows = []
    for name, oracle, pred in oracles:
        def check(oracle=oracle):
            return car_cond_check(inst, (), (), range(inst.m), upper, lower, 0.125, oracle)

        sec, reps, out = _repeat(check, int(s["runtime"]["rounds"]))
        rows.append({"kind": "car_check", "oracle": name, "n": inst.n, "ell": inst.ell, "m": inst.m, "K": inst.K,
                     "matchings": total, "seconds": sec, "repeats": reps, "calls": out.oracle_calls,
                     "prediction": pred})
    return rows


def draw_runtime(rows, s: Mapping):
    """Seconds against ``m`` (log-log), one line per kind and oracle."""
    fig, ax = plt.subplots(figsize=(7.5, 5.0))
    series = list(dict.fromkeys((r["kind"], r["oracle"]) for r in rows))
    for k, key in enumerate(series):
        sub = sorted((r for r in rows if (r["kind"], r["oracle"]) == key), key=lambda r: r["m"])
        ax.plot([r["m"] for r in sub], [r["seconds"] for r in sub], marker="os^Dv"[k % 5],
                color=PALETTE[k % len(PALETTE)], label=f"{key[0]} ({key[1]})")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("edges m of K_{n,l}")
    ax.set_ylabel("seconds (median)")
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=7.5)
    ax.set_title("Time per round against size (host dependent): Algorithm 1's round, CAR-Cond's check\n"
                 f"(polynomial per round claimed, L28, L125, L386) [fidelity {s.get('fidelity')}]", fontsize=9.5)
    fig.tight_layout()
    return fig


def runtime(ctx: StepContext) -> dict:
    """Step ``runtime``: ``runtime.csv`` and its figure."""
    s = ctx.settings
    rows = []
    for n, ell in s["runtime"]["borda_graphs"]:
        rows += borda_rows(n, ell, s)
    for n, ell in s["runtime"]["car_graphs"]:
        rows += car_rows(n, ell, s)
    for r in rows:
        r["agrees"] = None
        print(f"{r['kind']:20s} {r['oracle']:16s} K_{r['n']},{r['ell']}: {r['seconds']:.3g} s "
              f"({r['repeats']} repeats)", flush=True)
    write_rows(ctx.output.csv, COLUMNS, rows, empty_nan=True)
    save_figure(draw_runtime(rows, s), [ctx.output.pdf, ctx.output.png])
    return {"rows": len(rows), "host_dependent": True}

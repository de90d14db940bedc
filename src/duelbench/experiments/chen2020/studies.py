"""The tables and figures of the Chen et al. 2020 studies X1-X7 (one step per study, X5b included).

Each step reads the sample families of its study (:mod:`.cells`; the columns of a run are listed
in :mod:`.runs`), computes the ground truth of every instance from the true ``P``
(:func:`.runs.truths`, :mod:`duelbench.cpe.hardness`) and writes one row per cell, the fits of
the study, and one figure.  Every table says in ``prediction`` what the theory predicts for
the row and in ``agrees`` (true / false / empty) whether the observation agrees, on point
estimates; the checks of ``data/published/chen2020.yaml`` (:mod:`.checks`) read these tables and
the runs, and decide on intervals.

* ``pac`` (Theorem 1, L180-L188): miss rate of CLUCB-Borda-PAC against ``δ`` with its
  Clopper-Pearson interval, samples against ``N1`` (Eq. 10, L720) and ``N1′`` (Eq. 9, L716).
* ``hardness`` (Theorems 1-2): slopes of log samples on ``log(H_ε ln(H_ε/δ))`` (PAC, a fixed
  effect per instance) and on ``log(1/s)`` (exact sampler, F1 instances whose gaps scale with
  ``s``, a fixed effect per θ-draw, capped runs censored; :mod:`.fits`).
* ``epochs`` (Theorem 2, proof L800-L812): the final epoch of CLUCB-Borda-Exact against
  ``q* = ⌊log₂(ℓ/Δ_min)⌋ + 1``, errors, samples against ``N2``.
* ``lower_bounds`` (Theorems 3 and 6): mean samples of the exact-sampler CLUCB and of CAR-Cond
  over the lower bounds ``N3`` (L870-L874) and ``N6`` (L1376-L1381) on instances that meet the
  theorems' conditions.
* ``oracles`` (Section 4.2, Eq. 6): the LP against enumeration and the FPTAS (Algorithms 6-7) at
  small budgets, beside the paper's budget at ``ε = 0.1``.
* ``lemma9`` (Lemma 9, L1188-L1243): Algorithm 6 with an exact projection at the paper's
  ``T(ε)``, every case's error against ``ε`` and ``2ℓK/√T`` (:mod:`.lemma9`).
* ``car_cond`` (Theorem 4, L298-L302): errors against ``δ``, samples against ``N4``
  (L1049-L1066) and the slope against ``H4`` (the ``O(·)`` argument of L302).
* ``parallel`` (Theorem 5, L374-L380): slopes of mean samples against ``ln(1/δ)`` for CAR-Cond and
  CAR-Parallel, on calibration runs (which fix the constants of the predicted slope difference)
  and on fresh runs (which judge it).

Decisions
---------
* S1 - intervals.  Rates carry the two-sided Clopper-Pearson 95% interval of the statistics
  contract (:func:`duelbench.experiments.fits.clopper_pearson`, the interval of
  :func:`duelbench.report.verdict.proportion`); a table's ``agrees`` says whether the
  interval's lower end stays at or below ``δ`` (no contradiction).  The checks decide on the
  same interval (pass below ``δ``, fail above, inconclusive across).
* S2 - capped runs.  A run stopped at ``max_samples`` (Borda) or ``max_rounds`` (Condorcet)
  returned nothing and its sample count is only a lower bound: it is a miss / an error, it
  counts as beyond ``q*`` in ``epochs`` and as above every explicit bound (``N1``, ``N1′``,
  ``N2``, ``N4``); in the hardness fits it is a right-censored observation (:mod:`.fits`).
* S3 - fits.  The hardness slopes have a fixed effect per instance (PAC) or θ-draw (exact
  sampler), capped runs censored (:func:`.fits.fe_slope`); the slopes within each group are shown
  beside.  The CAR-Cond slope is OLS of ``log(mean samples)`` on ``log H4`` over cells
  (:func:`duelbench.experiments.fits.loglog_fit`); the parallel study fits mean samples linearly
  on ``ln(1/δ)`` (:func:`duelbench.report.numerics.ols_slope`).  Tables give point estimates;
  the intervals that decide the checks are bootstrap intervals over runs (:mod:`.checks`).  A
  fit's ``agrees`` compares its point estimate with the declared range (``[0.6, 1.4]`` for the
  PAC and CAR-Cond slopes of Theorems 1 and 4, ``[1.5, 2.6]`` against ``1/s`` for Theorem 2:
  ``H^B ∝ 1/s²`` with logarithmic factors above).
* S4 - labels.  A cell is labelled by how its job differs from the declared readings
  (``settings["borda"]``, ``settings["car"]``): ``declared``, ``biased sampler``,
  ``radius over m``, ``self-duel X = 1/2``, ``every round``, ``FPTAS oracle`` (joined by
  ``+`` when several differ).  Only declared cells enter the CAR-Cond fit.
* S5 - oracle tolerance.  The LP and the enumerated matrix game are both solved by HiGHS
  (tolerance about 1e-9); they agree when they differ by at most :data:`LP_TOL` = 1e-7, and the
  FPTAS is "never above OPT" (every iterate is feasible, Lemma 9) up to the same tolerance.
  ``within_ε`` counts ``OPT − ε ≤ value ≤ OPT + 1e-9``, the guarantee of an ``O_ε`` (L235).
* S6 - sizes.  The oracle study's ``m`` and ``K`` are those of the instance of case 0 of the
  size (:func:`.runs.oracle_case`; the graph is ``K_{n,ℓ}`` in every case).
* S7 - N2 and V2.  ``N2`` (proof of Theorem 2) bounds Algorithm 5 with epochs; V2 (the exact
  sampler, no epochs) is judged on its errors and caps only; ``N2`` is reported beside.
* S8 - missing values.  NaN (a standard error of one run, a rate over no run) is written as an
  empty cell (:func:`duelbench.experiments.tables.write_rows` with ``empty_nan``); infinities as
  ``inf``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np

from duelbench.cpe import hardness as cpe_hardness
from duelbench.cpe.fptas import paper_budget, step_size
from duelbench.report.numerics import fexp, flog, fmean, fpow, fsem, fsum, ols_slope, significant

from ..contract import StepContext
from ..fits import clopper_pearson, loglog_fit
from ..plotting import save_figure
from ..samples import load_family
from ..tables import write_rows
from .cells import cells as planned_cells
from .fits import fe_slope, group_slopes
from .lemma9 import eps_key, lemma9_case
from .runs import oracle_case, STEPS, truths

#: Agreement tolerance of two LP values (decision S5).
LP_TOL = 1e-7
#: The stream of run ``i`` of a cell (reading C2), recorded in the sidecars of the studies' outputs.
RUN_STREAM = "SeedSequence(seed, spawn_key=(cell key, run))"
#: Predicted slope ranges (decision S3).
PAC_RANGE = (0.6, 1.4)
EXACT_RANGE = (1.5, 2.6)
CAR_RANGE = (0.6, 1.4)

PAC_COLUMNS = ["cell", "instance", "label", "eps", "delta", "sampler", "radius_count", "self_duel", "runs", "misses",
               "miss_rate", "cp_low", "cp_high", "exact_rate", "capped", "mean_samples", "se_samples",
               "median_samples", "q25_samples", "q75_samples", "mean_self_duels", "H_eps", "N1", "N1_prime",
               "runs_above_N1", "runs_above_N1_prime", "cp_low_above_N1", "cp_low_above_N1_prime", "mean_over_N1",
               "prediction", "agrees"]
HARDNESS_COLUMNS = ["part", "cell", "instance", "n", "ell", "s", "draw", "eps", "delta", "runs", "mean_samples",
                    "se_samples", "median_samples", "capped", "exact_rate", "H_B", "H_eps", "x", "prediction", "agrees"]
FIT_COLUMNS = ["part", "group", "regressor", "method", "slope", "points", "runs", "censored_runs", "excluded",
               "predicted_low", "predicted_high", "prediction", "agrees"]
EPOCH_COLUMNS = ["cell", "instance", "variant", "delta", "runs", "q_star", "N2", "mean_epochs", "max_epochs",
                 "runs_beyond_qstar", "cp_low_beyond_qstar", "capped", "returned", "errors", "cp_low_error",
                 "mean_samples", "median_samples", "mean_samples_through_qstar", "runs_above_N2", "cp_low_above_N2",
                 "prediction", "agrees"]
ORACLE_COLUMNS = ["n", "ell", "m", "K", "oracle", "cases", "compared", "mean_error", "max_error", "max_above_opt",
                  "mean_calls", "within_0.1", "within_0.05", "paper_calls_eps_0.1", "prediction", "agrees"]
CAR_COLUMNS = ["cell", "instance", "label", "delta", "runs", "errors", "cp_low_error", "capped", "mean_samples",
               "se_samples", "median_samples", "mean_rounds", "mean_checks", "mean_oracle_calls", "max_calls_per_check",
               "m", "N4", "runs_above_N4", "cp_low_above_N4", "H4", "prediction", "agrees"]
CAR_FIT_COLUMNS = ["part", "regressor", "slope", "se", "intercept", "points", "excluded", "predicted_low",
                   "predicted_high", "prediction", "agrees"]
PARALLEL_COLUMNS = ["cell", "instance", "algorithm", "delta", "runs", "calibration_runs", "fresh_runs", "errors",
                    "cp_low_error", "capped", "mean_samples", "se_samples", "median_samples", "mean_fresh",
                    "mean_calibration", "H_ver", "pair_term", "prediction", "agrees"]
PARALLEL_FIT_COLUMNS = ["instance", "algorithm", "runs_used", "regressor", "slope", "intercept", "points",
                        "rate_term", "slope_over_rate_term", "predicted", "prediction", "agrees"]
LOWER_BOUND_COLUMNS = ["cell", "instance", "theorem", "algorithm", "delta", "runs", "errors", "capped",
                       "mean_samples", "se_samples", "gamma_low", "gamma", "bound", "mean_over_bound", "H_B",
                       "condorcet_outside_term", "prediction", "agrees"]
LEMMA9_COLUMNS = ["n", "ell", "m", "K", "eps", "T", "eta", "cases", "matchings", "mean_error", "max_error",
                  "zero_error_cases", "max_error_over_eps", "bound_2lK_over_sqrtT", "max_error_over_bound",
                  "prediction", "agrees"]

#: Colours of instances / series in the figures (Okabe-Ito, then greys).
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442", "#882255",
           "#44AA99", "#999933", "#777777")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h")


# --------------------------------------------------------------------------------------------
# statistics
# --------------------------------------------------------------------------------------------
#: Significant digits of every number taken from the instances' ground truths
#: (:mod:`duelbench.cpe.hardness`, also through :func:`.runs.truths`).  That code is part of the
#: archive keys of the sample shards and cannot change without re-keying them; its BLAS products
#: (``P @ marginals``) and vectorised logarithms differ between processors in the last bits.  At
#: 12 digits the numbers are the same on every processor (two values a few units in the last
#: place apart straddle a rounding boundary with a chance of about 1e-4), and every table, fit
#: and check computes from the rounded numbers.
TRUTH_DIGITS = 12


def truth_value(x):
    """A ground-truth number at :data:`TRUTH_DIGITS` significant digits: a float, every element
    of an array, or both ends of a range (a tuple); None as it is."""
    if x is None:
        return None
    if isinstance(x, tuple):
        return tuple(truth_value(v) for v in x)
    return significant(np.asarray(x, dtype=np.float64), TRUTH_DIGITS) if np.ndim(x) else significant(x, TRUTH_DIGITS)


def outside_term(ct) -> float:
    """``Σ 1/Δ²`` over the matchings outside the Condorcet winner's comparison set (an infinite
    gap adds 0), from the declared gaps of the Condorcet ground truth ``ct``."""
    out = truth_value(ct.gaps[ct.outside])
    return fsum(np.where(np.isfinite(out), 1.0 / out**2, 0.0))


def pac_regressor(truth, eps: float, delta: float) -> tuple[float, float]:
    """(``H_ε``, ``x = H_ε ln(H_ε/δ)``) of a PAC cell (Theorem 1's leading term); NaN ``x`` for
    ``H_ε = 0``."""
    H = truth_value(cpe_hardness.h_eps(truth, eps))
    return H, H * math.log(H / delta) if H > 0 else math.nan


def _stats(x) -> dict:
    """Mean, standard error, median and quartiles of a sample (NaN where undefined)."""
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0:
        return {"mean": math.nan, "se": math.nan, "median": math.nan, "q25": math.nan, "q75": math.nan}
    return {"mean": fmean(x), "se": fsem(x),
            "median": float(np.median(x)), "q25": float(np.quantile(x, 0.25)), "q75": float(np.quantile(x, 0.75))}


def _le(a: float, b: float):
    """``a ≤ b``, or None when ``a`` is undefined (NaN)."""
    return None if a is None or (isinstance(a, float) and math.isnan(a)) else bool(a <= b)


def _all(*flags):
    """Conjunction of agreement flags ignoring undefined ones (None when all are undefined)."""
    known = [f for f in flags if f is not None]
    return None if not known else all(known)


def _in_range(slope: float, low: float, high: float):
    return None if math.isnan(slope) else bool(low <= slope <= high)


# --------------------------------------------------------------------------------------------
# cells
# --------------------------------------------------------------------------------------------
def study_cells(s: Mapping, study: str) -> list:
    """The cells of one study (:func:`.cells.cells`), in cell order."""
    return [c for c in planned_cells(s) if c.study == study]


def load_cells(ctx: StepContext, study: str) -> list[tuple]:
    """``(cell, columns)`` for every cell of ``study``: the cell's runs ``0 … runs − 1`` in order."""
    out = []
    for cell in study_cells(ctx.settings, study):
        arrays = load_family(ctx.plan.sample_family(cell.family))
        if not np.array_equal(arrays["sample"], np.arange(cell.runs)):
            raise ValueError(f"chen2020: family {cell.family} holds samples {arrays['sample'].tolist()[:5]}…, "
                             f"not the runs 0…{cell.runs - 1}; rebuild it")
        out.append((cell, arrays))
    return out


def edge_label(matching) -> str:
    """A matching as the paper writes its edges, 1-based: ``"e1 e5"``."""
    if matching is None:
        return ""
    return " ".join(f"e{int(e) + 1}" for e in sorted(int(e) for e in np.asarray(matching).ravel()))


def _borda_label(job: Mapping, declared: Mapping) -> str:
    parts = []
    if job.get("sampler", "exact") != "exact":
        parts.append(f"{job['sampler']} sampler")
    if job.get("radius_count") != declared.get("radius_count"):
        parts.append(f"radius over {job['radius_count']}")
    if job.get("self_duel") != declared.get("self_duel"):
        parts.append("self-duel X = 1/2" if job["self_duel"] == "half" else f"self-duel {job['self_duel']}")
    return " + ".join(parts) or "declared"


def _car_label(job: Mapping, declared: Mapping) -> str:
    parts = []
    if job.get("schedule") != declared.get("schedule"):
        parts.append("every round" if job["schedule"] == "round" else f"{job['schedule']} schedule")
    if job.get("oracle") != declared.get("oracle"):
        parts.append("FPTAS oracle" if job["oracle"] == "fptas" else f"{job['oracle']} oracle")
    return " + ".join(parts) or "declared"


def _nz(v) -> float:
    """An error bar's half-width: 0 when undefined."""
    return 0.0 if v is None or not np.isfinite(v) else float(v)


def _count(flags) -> int:
    return int(np.sum(np.asarray(flags, dtype=bool)))


def _colours(keys) -> dict:
    return {k: PALETTE[i % len(PALETTE)] for i, k in enumerate(dict.fromkeys(keys))}


def _markers(keys) -> dict:
    return {k: MARKERS[i % len(MARKERS)] for i, k in enumerate(dict.fromkeys(keys))}


def _figure(nrows: int, ncols: int, size: tuple[float, float]):
    fig, axes = plt.subplots(nrows, ncols, figsize=size, squeeze=False)
    return fig, axes


def _delta_diagonal(axis, rows: Sequence[Mapping], label: str) -> None:
    """The line y = δ over the rows' δ range: the error rate a theorem allows."""
    deltas = sorted({r["delta"] for r in rows})
    if deltas:
        grid = np.geomspace(min(deltas) * 0.8, max(deltas) * 1.25, 20)
        axis.plot(grid, grid, color="#555555", lw=1.2, label=label)


def _fit_line(ax, x, fit: Mapping, colour: str, label: str, log: bool = True) -> None:
    """Draw a fitted line over the range of ``x``."""
    x = np.asarray([v for v in x if np.isfinite(v) and (v > 0 or not log)], dtype=np.float64)
    if x.size == 0 or math.isnan(fit["slope"]):
        return
    if log:
        grid = fexp(np.linspace(math.log(x.min()), math.log(x.max()), 50))
        y = math.exp(fit["intercept"]) * fpow(grid, fit["slope"])
    else:
        grid = np.linspace(x.min(), x.max(), 50)
        y = fit["intercept"] + fit["slope"] * grid
    ax.plot(grid, y, color=colour, lw=1.2, ls="--", label=label)


def _slope_text(fit: Mapping) -> str:
    se = fit.get("se")
    se = "" if se is None or math.isnan(se) else f" ± {se:.2f}"
    return f"slope {fit['slope']:.3g}{se} ({fit['points']} points)"


# --------------------------------------------------------------------------------------------
# X1: Theorem 1 (CLUCB-Borda-PAC)
# --------------------------------------------------------------------------------------------
def pac_table(s: Mapping, loaded: Sequence[tuple]) -> list[dict]:
    """One row per cell of study ``pac`` (columns :data:`PAC_COLUMNS`)."""
    rows = []
    for cell, a in loaded:
        job = cell.job
        _, truth, _ = truths(job["instance"])
        eps, delta = float(job["eps"]), float(job["delta"])
        samples = np.asarray(a["samples"], dtype=np.float64)
        n = samples.size
        misses = _count(np.asarray(a["eps_optimal"]) < 0.5)
        lo, hi = clopper_pearson(misses, n)
        H = truth_value(cpe_hardness.h_eps(truth, eps))
        N1 = truth_value(cpe_hardness.n1(truth, eps, delta))
        N1p = truth_value(cpe_hardness.n1_prime(truth, eps, delta))
        capped = np.asarray(a["capped"]) > 0.5
        above1, above1p = _count((samples > N1) | capped), _count((samples > N1p) | capped)
        lo1, lo1p = clopper_pearson(above1, n)[0], clopper_pearson(above1p, n)[0]
        st = _stats(samples)
        label = _borda_label(job, s["borda"])
        why = {"declared": "",
               "biased sampler": "; the biased sampler is an S(eta) with eta = eps/8, which Theorem 1 allows",
               "radius over m": ("; ln(4mt^3/delta) is what the proof's union bound over t and the m edges "
                                 "(L648-L674) needs, so Theorem 1's argument holds"),
               "self-duel X = 1/2": "; X = 1/2 keeps the mean w(e) and X in [0, 1], so the proof applies"
               }.get(label, "")
        rows.append({
            "cell": cell.name, "instance": job["instance"]["name"], "label": label, "eps": eps, "delta": delta,
            "sampler": job["sampler"], "radius_count": job["radius_count"], "self_duel": job["self_duel"], "runs": n,
            "misses": misses, "miss_rate": misses / n if n else math.nan, "cp_low": lo, "cp_high": hi,
            "exact_rate": fmean(a["exact"]) if n else math.nan,
            "capped": int(capped.sum()), "mean_samples": st["mean"], "se_samples": st["se"],
            "median_samples": st["median"], "q25_samples": st["q25"],
            "q75_samples": st["q75"], "mean_self_duels": fmean(a["self_duels"]) if n else math.nan,
            "H_eps": H, "N1": N1, "N1_prime": N1p, "runs_above_N1": above1, "runs_above_N1_prime": above1p,
            "cp_low_above_N1": lo1, "cp_low_above_N1_prime": lo1p, "mean_over_N1": st["mean"] / N1,
            "prediction": ("P(B(Out) < B(M*) - eps) <= delta and P(samples > N1) <= delta (Theorem 1, L180-L188, "
                           f"Eq. 10): both CP95 lower bounds <= delta{why}"),
            "agrees": _all(_le(lo, delta), _le(lo1, delta)),
        })
    return rows


def draw_pac(rows: Sequence[Mapping], s: Mapping):
    """(a) miss rate with CP95 bars against δ, with y = δ; (b) mean samples with N1, N1′ against δ."""
    fig, axes = _figure(1, 2, (13.0, 5.2))
    ax, bx = axes[0]
    insts = [r["instance"] for r in rows]
    colour = _colours(insts)
    series = list(dict.fromkeys((r["instance"], r["eps"], r["label"]) for r in rows))
    marker = _markers(r["label"] for r in rows)
    eps_style = {e: ls for e, ls in zip(sorted({r["eps"] for r in rows}, reverse=True), ("-", "--", ":", "-."))}
    for k, (inst, eps, label) in enumerate(series):
        sub = sorted((r for r in rows if (r["instance"], r["eps"], r["label"]) == (inst, eps, label)),
                     key=lambda r: r["delta"])
        d = np.array([r["delta"] for r in sub]) * (1.0 + 0.035 * (k - len(series) / 2))  # side by side
        rate = np.array([r["miss_rate"] for r in sub])
        err = np.array([[r["miss_rate"] - r["cp_low"] for r in sub], [r["cp_high"] - r["miss_rate"] for r in sub]])
        ls = eps_style[eps] if label == "declared" else "none"
        name = f"{inst}, eps = {eps:g}" + ("" if label == "declared" else f" [{label}]")
        ax.errorbar(d, rate, yerr=err, color=colour[inst], marker=marker[label], ms=5, ls=ls, lw=1, capsize=2,
                    label=name, mfc="white" if label != "declared" else colour[inst])
        mean = np.array([r["mean_samples"] for r in sub])
        se = [_nz(r["se_samples"]) for r in sub]
        bx.errorbar(d, mean, yerr=se, color=colour[inst], marker=marker[label], ms=5, ls=ls, lw=1, capsize=2,
                    label=name, mfc="white" if label != "declared" else colour[inst])
        if label == "declared":
            bx.plot(d, [r["N1"] for r in sub], color=colour[inst], ls="--", marker="_", ms=10, lw=0.8, alpha=0.8)
            bx.plot(d, [r["N1_prime"] for r in sub], color=colour[inst], ls=":", marker="_", ms=10, lw=0.8, alpha=0.8)
    bounds = [bx.plot([], [], color="#555555", ls="--", marker="_", ms=10, label="N1 (Eq. 10)")[0],
              bx.plot([], [], color="#555555", ls=":", marker="_", ms=10, label="N1' (Eq. 9)")[0]]
    _delta_diagonal(ax, rows, "y = delta (Theorem 1's bound)")
    ax.set_xscale("log")
    ax.set_xlabel("delta")
    ax.set_ylabel("share of runs with B(Out) < B(M*) - eps")
    ax.set_title("(a) miss rate with Clopper-Pearson 95% bars", fontsize=10)
    bx.set_xscale("log")
    bx.set_yscale("log")
    bx.set_xlabel("delta")
    bx.set_ylabel("samples (mean ± s.e.)")
    bx.set_title("(b) samples; dashed N1 (Eq. 10), dotted N1' (Eq. 9)", fontsize=10)
    for a in (ax, bx):
        a.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=6, loc="upper left", ncol=2)
    bx.legend(handles=bounds, fontsize=7, loc="best", title="series as in (a)", title_fontsize=7)
    fig.suptitle(f"Theorem 1 (CLUCB-Borda-PAC, Algorithm 1): error rate and samples [fidelity {s.get('fidelity')}]",
                 fontsize=11)
    fig.tight_layout()
    return fig



# --------------------------------------------------------------------------------------------
# X2: Theorems 1-2, samples against hardness
# --------------------------------------------------------------------------------------------
def hardness_table(s: Mapping, loaded: Sequence[tuple]) -> tuple[list[dict], list[dict]]:
    """Rows per cell (:data:`HARDNESS_COLUMNS`) and the two fits (:data:`FIT_COLUMNS`)."""
    rows = []
    for cell, a in loaded:
        job = cell.job
        spec = job["instance"]
        inst, truth, _ = truths(spec)
        part = "pac" if job["algorithm"] == "pac" else "exact"
        delta = float(job["delta"])
        samples = np.asarray(a["samples"], dtype=np.float64)
        n = samples.size
        st = _stats(samples)
        capped = _count(np.asarray(a["capped"]) > 0.5)
        if part == "pac":
            eps = float(job["eps"])
            H, x = pac_regressor(truth, eps, delta)
            wrong = _count(np.asarray(a["eps_optimal"]) < 0.5)
            pred = ("samples proportional to H_eps ln(H_eps/delta) (Theorem 1): a point of the slope-1 fit; "
                    "P(not eps-optimal) <= delta: CP95 lower bound <= delta")
        else:
            eps, H = math.nan, math.nan
            x = 1.0 / float(spec["s"])
            wrong = n - _count(np.asarray(a["exact"]) > 0.5)
            pred = ("samples proportional to H^B ~ 1/s^2 up to logarithms (Theorem 2): a point of the fit against "
                    "1/s; P(output != M*) <= delta: CP95 lower bound <= delta")
        if capped:
            pred += "; capped runs: right-censored in the fit"
        rows.append({
            "part": part, "cell": cell.name, "instance": spec["name"], "n": inst.n, "ell": inst.ell,
            "s": float(spec["s"]) if "s" in spec else math.nan, "draw": int(spec.get("draw", 0)),
            "eps": eps, "delta": delta, "runs": n, "mean_samples": st["mean"], "se_samples": st["se"],
            "median_samples": st["median"], "capped": capped,
            "exact_rate": fmean(a["exact"]) if n else math.nan, "H_B": truth_value(truth.hardness), "H_eps": H, "x": x,
            "prediction": pred, "agrees": _le(clopper_pearson(wrong, n)[0], delta),
        })
    fits = hardness_fits(s, rows, loaded)
    return rows, fits


def hardness_cells(s: Mapping, loaded: Sequence[tuple], part: str) -> list[tuple]:
    """(group, x, samples) of every cell of one part of the hardness study (:func:`.fits.fe_slope`):
    PAC cells grouped by instance with ``x = H_ε ln(H_ε/δ)``, exact-sampler cells grouped by
    θ-draw (``K_{n,ℓ}`` and draw) with ``x = 1/s``."""
    out = []
    for cell, a in loaded:
        job = cell.job
        if ("pac" if job["algorithm"] == "pac" else "exact") != part:
            continue
        spec = job["instance"]
        inst, truth, _ = truths(spec)
        if part == "pac":
            _, x = pac_regressor(truth, float(job["eps"]), float(job["delta"]))
            out.append((spec["name"], x, np.asarray(a["samples"], dtype=np.float64)))
        else:
            out.append((f"K{inst.n},{inst.ell} draw {int(spec.get('draw', 0))}", 1.0 / float(spec["s"]),
                        np.asarray(a["samples"], dtype=np.float64)))
    return out


def hardness_fits(s: Mapping, rows: Sequence[Mapping], loaded: Sequence[tuple]) -> list[dict]:
    """The fixed-effect slope of each part (:func:`.fits.fe_slope`, capped runs censored) and the
    slope within each group over its cells without a capped run (decision S3)."""
    cap = float(s["borda"]["max_samples"])
    fits = []
    for part, regressor, (low, high), claim, by in (
            ("pac", "H_eps ln(H_eps/delta)", PAC_RANGE, "Theorem 1: samples proportional to H_eps ln(H_eps/delta)",
             "instance"),
            ("exact", "1/s", EXACT_RANGE, "Theorem 2: samples proportional to H^B ~ s^-2 up to logarithms", "draw")):
        cells = hardness_cells(s, loaded, part)
        if not cells:
            continue
        fit = fe_slope(cells, cap)
        censored = sum(int(np.count_nonzero(c[2] >= cap)) for c in cells)
        note = (f"; every run of {', '.join(fit.censored_groups)} capped: lower bounds only, not in the fit"
                if fit.censored_groups else "")
        fits.append({"part": part, "group": "all (fixed effect per " + by + ")", "regressor": regressor,
                     "method": "censored-normal MLE of log samples per run, one intercept per " + by
                               if censored else "OLS of log samples per run, one intercept per " + by,
                     "slope": fit.slope, "points": len(cells), "runs": fit.runs, "censored_runs": fit.censored_runs,
                     "excluded": sum(len(c[2]) for c in cells) - fit.runs,
                     "predicted_low": low, "predicted_high": high,
                     "prediction": f"{claim}: log-log slope within {by}s in [{low:g}, {high:g}]{note}",
                     "agrees": _in_range(fit.slope, low, high)})
        for g, (slope, points) in group_slopes(cells, cap).items():
            fits.append({"part": part, "group": g, "regressor": regressor,
                         "method": "OLS of log mean samples over the group's cells without a capped run",
                         "slope": slope, "points": points, "runs": None, "censored_runs": None, "excluded": None,
                         "predicted_low": low, "predicted_high": high, "prediction": "shown beside the fit",
                         "agrees": None})
    return fits


def draw_hardness(rows: Sequence[Mapping], fits: Sequence[Mapping], s: Mapping):
    """Two log-log panels: samples against ``H_ε ln(H_ε/δ)`` and against ``1/s``; the fixed-effect
    slope drawn through each group's cells without a capped run."""
    fig, axes = _figure(1, 2, (12.5, 5.0))
    for ax, part, xlabel, title in (
            (axes[0][0], "pac", "H_eps ln(H_eps/delta)", "(a) CLUCB-Borda-PAC over eps (Theorem 1)"),
            (axes[0][1], "exact", "1/s", "(b) exact sampler (V2) over s (Theorem 2)")):
        sub = [r for r in rows if r["part"] == part]
        key = (lambda r: r["instance"]) if part == "pac" else (lambda r: f"K{r['n']},{r['ell']} draw {r['draw']}")
        colour = _colours(key(r) for r in sub)
        fit = next((f for f in fits if f["part"] == part and f["group"].startswith("all")), None)
        for name in colour:
            pts = [r for r in sub if key(r) == name]
            full = [r for r in pts if r["capped"] == 0]
            capped = [r for r in pts if r["capped"] > 0]
            ax.errorbar([r["x"] for r in full], [r["mean_samples"] for r in full],
                        yerr=[_nz(r["se_samples"]) for r in full], color=colour[name], marker="o", ms=5, ls="none",
                        capsize=2, label=name)
            if capped:
                ax.plot([r["x"] for r in capped], [r["mean_samples"] for r in capped], color=colour[name], marker="^",
                        mfc="white", ms=7, ls="none", label=f"{name}: capped runs (lower bounds, censored)")
            if fit is not None and full and np.isfinite(fit["slope"]):
                lx = flog([r["x"] for r in full])
                ly = flog([r["mean_samples"] for r in full])
                grid = np.linspace(lx.min(), lx.max(), 20) if np.ptp(lx) > 0 else lx
                ax.plot(fexp(grid), fexp(fmean(ly) + fit["slope"] * (grid - fmean(lx))), color=colour[name],
                        lw=1.0, ls="--")
        if fit is not None:
            ax.plot([], [], color="#333333", ls="--",
                    label=f"common slope {fit['slope']:.3g} ({fit['method'].split(',')[0]}); predicted "
                          f"[{fit['predicted_low']:g}, {fit['predicted_high']:g}]")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("samples (mean ± s.e.)")
        ax.set_title(title, fontsize=10)
        ax.grid(True, which="both", alpha=0.25)
        ax.legend(fontsize=6, loc="upper left")
    fig.suptitle(f"Theorems 1-2: samples against hardness, slopes within instances [fidelity {s.get('fidelity')}]",
                 fontsize=11)
    fig.tight_layout()
    return fig



# --------------------------------------------------------------------------------------------
# X3: Theorem 2, final epochs of CLUCB-Borda-Exact
# --------------------------------------------------------------------------------------------
def epochs_table(s: Mapping, loaded: Sequence[tuple]) -> list[dict]:
    """One row per cell of study ``epochs`` (columns :data:`EPOCH_COLUMNS`)."""
    rows = []
    for cell, a in loaded:
        job = cell.job
        _, truth, _ = truths(job["instance"])
        delta, variant = float(job["delta"]), job["variant"]
        samples = np.asarray(a["samples"], dtype=np.float64)
        epochs = np.asarray(a["epochs"], dtype=np.float64)
        capped = np.asarray(a["capped"]) > 0.5
        exact = np.asarray(a["exact"]) > 0.5
        n = samples.size
        q = int(truth.q_star)
        N2 = truth_value(cpe_hardness.n2(truth, delta))
        beyond = _count((epochs > q) | capped)
        returned = int(n - capped.sum())
        errors = _count(~capped & ~exact)
        above = _count((samples > N2) | capped)
        lo_beyond, lo_err, lo_above = (clopper_pearson(beyond, n)[0], clopper_pearson(errors, returned)[0],
                                       clopper_pearson(above, n)[0])
        if variant == "V2":
            pred = ("returns M* with probability >= 1 - delta, no epochs (exact sampler, CLUCB on the reduced arms): "
                    "CP95 lower bounds of the error and cap shares <= delta; N2 reported only")
            agrees = _all(_le(lo_err, delta), _le(lo_beyond, delta))
        else:
            pred = (f"returns M* by epoch q* = {q} with at most N2 samples, with probability >= 1 - delta "
                    "(Theorem 2, proof L800-L822): CP95 lower bounds of the shares beyond q*, wrong and above N2 "
                    "<= delta")
            agrees = _all(_le(lo_beyond, delta), _le(lo_err, delta), _le(lo_above, delta))
        rows.append({
            "cell": cell.name, "instance": job["instance"]["name"], "variant": variant, "delta": delta, "runs": n,
            "q_star": q, "N2": N2, "mean_epochs": fmean(epochs) if n else math.nan,
            "max_epochs": int(epochs.max()) if n else None, "runs_beyond_qstar": beyond,
            "cp_low_beyond_qstar": lo_beyond, "capped": int(capped.sum()), "returned": returned, "errors": errors,
            "cp_low_error": lo_err, "mean_samples": _stats(samples)["mean"],
            "median_samples": _stats(samples)["median"],
            "mean_samples_through_qstar": fmean(a["samples_through_qstar"]) if n else math.nan,
            "runs_above_N2": above, "cp_low_above_N2": lo_above, "prediction": pred, "agrees": agrees,
        })
    return rows


def draw_epochs(rows: Sequence[Mapping], loaded: Sequence[tuple], s: Mapping):
    """(a) final epoch − q* per run by instance and variant; (b) samples per run (log)."""
    fig, axes = _figure(1, 2, (13.0, 5.0))
    ax, bx = axes[0]
    groups = list(dict.fromkeys((r["instance"], r["variant"]) for r in rows))
    deltas = sorted({r["delta"] for r in rows}, reverse=True)
    colour = {d: PALETTE[i % len(PALETTE)] for i, d in enumerate(deltas)}
    by_cell = {c.name: a for c, a in loaded}
    for g, (inst, variant) in enumerate(groups):
        for k, r in enumerate(r for r in rows if (r["instance"], r["variant"]) == (inst, variant)):
            a = by_cell[r["cell"]]
            e = np.asarray(a["epochs"], dtype=np.float64) - r["q_star"]
            smp = np.asarray(a["samples"], dtype=np.float64)
            capped = np.asarray(a["capped"]) > 0.5
            width = 0.6 / max(1, len(deltas))
            offs = g - 0.3 + width * (deltas.index(r["delta"]) + 0.5)
            x = offs + (np.linspace(-0.35, 0.35, e.size) * width if e.size > 1 else np.zeros(e.size))
            lab = f"delta = {r['delta']:g}" if g == 0 else None
            panels = ((bx, smp),) if variant == "V2" else ((ax, e), (bx, smp))  # V2 has no epochs
            for axis, y in panels:
                axis.plot(x[~capped], y[~capped], ls="none", marker="o", ms=3.5, alpha=0.7, color=colour[r["delta"]],
                          label=lab)
                if capped.any():
                    axis.plot(x[capped], y[capped], ls="none", marker="x", ms=6, color=colour[r["delta"]],
                              label="capped run" if lab else None)
                axis.plot([offs - width / 2, offs + width / 2], [fmean(y)] * 2 if y.size else [np.nan] * 2,
                          color="#333333", lw=1.5)
    ax.axhline(0.0, color="#555555", lw=1, ls="--", label="q* (proof of Theorem 2, L800)")
    for axis in (ax, bx):
        axis.set_xticks(range(len(groups)))
        axis.set_xticklabels([f"{i}\n{v}" for i, v in groups], fontsize=7.5)
        axis.grid(True, axis="y", which="both", alpha=0.25)
    ax.set_ylabel("final epoch - q*")
    ax.set_title("(a) final epoch against q* (bar: mean; V2 has no epochs, not drawn)", fontsize=10)
    bx.set_yscale("log")
    bx.set_ylabel("samples")
    bx.set_title("(b) samples per run (bar: mean)", fontsize=10)
    ax.legend(fontsize=7, loc="center right")
    fig.suptitle(f"Theorem 2 (CLUCB-Borda-Exact, Algorithm 5): V0 as printed, V1, V2 [fidelity {s.get('fidelity')}]",
                 fontsize=11)
    fig.tight_layout()
    return fig



# --------------------------------------------------------------------------------------------
# X4: Theorems 3 and 6, the lower bounds
# --------------------------------------------------------------------------------------------
#: Theorem 6 needs gamma strictly below 1/(2(2 + l)) (L1344): its bound is evaluated this close.
GAMMA6_SHRINK = 1.0 - 1e-12


def lower_bound_of(job: Mapping) -> dict:
    """The lower bound of a lower-bound cell: Theorem 3's N3 (Borda, the largest admissible γ,
    decision H7 of :mod:`duelbench.cpe.hardness`) or Theorem 6's N6 (Condorcet, γ at its supremum
    1/(2(2 + ℓ)), decision H10), with the admissible range of γ; ``bound`` is NaN when the
    instance does not meet the theorem's conditions."""
    inst, truth, winner = truths(job["instance"])
    delta = float(job["delta"])
    if job["algorithm"] == "car_cond":
        ct = cpe_hardness.condorcet_truth(inst)
        rng = truth_value(cpe_hardness.theorem6_gamma_range(inst, ct))
        term = outside_term(ct)
        if rng is None:
            return {"theorem": "Theorem 6", "gamma_low": math.nan, "gamma": math.nan, "bound": math.nan, "H_B": None,
                    "condorcet_outside_term": term}
        g = rng[1] * GAMMA6_SHRINK
        return {"theorem": "Theorem 6", "gamma_low": rng[0], "gamma": g,
                "bound": truth_value(cpe_hardness.n6(ct, g, delta)), "H_B": None, "condorcet_outside_term": term}
    rng = truth_value(cpe_hardness.theorem3_gamma_range(inst))
    if rng is None:
        return {"theorem": "Theorem 3", "gamma_low": math.nan, "gamma": math.nan, "bound": math.nan,
                "H_B": truth_value(truth.hardness), "condorcet_outside_term": None}
    return {"theorem": "Theorem 3", "gamma_low": rng[0], "gamma": rng[1],
            "bound": truth_value(cpe_hardness.n3(truth, rng[1], delta)), "H_B": truth_value(truth.hardness),
            "condorcet_outside_term": None}


def lower_bounds_table(s: Mapping, loaded: Sequence[tuple]) -> list[dict]:
    """One row per cell of study ``lower_bounds`` (:data:`LOWER_BOUND_COLUMNS`)."""
    rows = []
    for cell, a in loaded:
        job = cell.job
        samples = np.asarray(a["samples"], dtype=np.float64)
        n = samples.size
        ok_key = "correct" if job["algorithm"] == "car_cond" else "exact"
        errors = n - _count(np.asarray(a[ok_key]) > 0.5)
        lb = lower_bound_of(job)
        st = _stats(samples)
        name = "CAR-Cond" if job["algorithm"] == "car_cond" else f"CLUCB-Borda-Exact {job['variant']}"
        bound = lb["bound"]
        rows.append({"cell": cell.name, "instance": job["instance"]["name"], "algorithm": name,
                     "delta": float(job["delta"]), "runs": n, "errors": errors,
                     "capped": _count(np.asarray(a["capped"]) > 0.5), "mean_samples": st["mean"],
                     "se_samples": st["se"], **lb, "mean_over_bound": st["mean"] / bound if bound > 0 else math.nan,
                     "prediction": (f"{lb['theorem']}: a delta-correct algorithm draws at least the bound in expectation "
                                    "(mean samples / bound >= 1)" if np.isfinite(bound) else
                                    f"{lb['theorem']}'s conditions do not hold on this instance"),
                     "agrees": None if not np.isfinite(bound) else bool(st["mean"] >= bound)})
    return rows


def draw_lower_bounds(rows: Sequence[Mapping], s: Mapping):
    """Mean samples over the lower bound per cell (log scale), with the line 1."""
    fig, axes = _figure(1, 1, (9.0, 4.8))
    ax = axes[0][0]
    labels = [f"{r['instance']}\n{r['algorithm'].replace('CLUCB-Borda-Exact ', '')}\ndelta {r['delta']:g}" for r in rows]
    colour = {"Theorem 3": PALETTE[0], "Theorem 6": PALETTE[1]}
    for i, r in enumerate(rows):
        ratio = r["mean_over_bound"]
        se = _nz(r["se_samples"]) / r["bound"] if r["bound"] and np.isfinite(r["bound"]) else 0.0
        ax.errorbar([i], [ratio], yerr=[[min(1.96 * se, ratio * 0.999)], [1.96 * se]], color=colour[r["theorem"]],
                    marker="o", capsize=3, ls="none")
    for th, c in colour.items():
        ax.plot([], [], color=c, marker="o", ls="none", label=f"{th}: mean samples / N{th[-1]}")
    ax.axhline(1.0, color="#555555", ls="--", lw=1, label="the lower bound")
    ax.set_yscale("log")
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels(labels, fontsize=6.5)
    ax.set_ylabel("mean samples / lower bound (±1.96 s.e.)")
    ax.grid(True, which="both", axis="y", alpha=0.25)
    ax.legend(fontsize=7)
    fig.suptitle(f"Theorems 3 and 6: measured samples against the lower bounds [fidelity {s.get('fidelity')}]",
                 fontsize=11)
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------------------------
# X5: Section 4.2, the offline problem
# --------------------------------------------------------------------------------------------
def _within(value: np.ndarray, opt: np.ndarray, eps: float) -> float:
    ok = (value >= opt - eps) & (value <= opt + 1e-9)
    return fmean(ok) if ok.size else math.nan


def oracles_table(s: Mapping, loaded: Sequence[tuple]) -> list[dict]:
    """Long format: per size, ``lp_vs_exhaustive`` and one row per FPTAS budget and step rule."""
    rows = []
    for cell, a in loaded:
        job = cell.job
        inst = oracle_case(job, 0)[0]
        size = {"n": inst.n, "ell": inst.ell, "m": inst.m, "K": inst.K,
                "paper_calls_eps_0.1": paper_budget(inst.ell, inst.K, 0.1).matching_calls}
        lp = np.asarray(a["lp"], dtype=np.float64)
        ex = np.asarray(a["exhaustive"], dtype=np.float64)
        both = np.isfinite(lp) & np.isfinite(ex)
        diff = np.abs(lp[both] - ex[both])
        rows.append({**size, "oracle": "lp_vs_exhaustive", "cases": lp.size, "compared": int(both.sum()),
                     "mean_error": fmean(diff),
                     "max_error": float(diff.max()) if diff.size else math.nan,
                     "max_above_opt": float((ex[both] - lp[both]).max()) if diff.size else math.nan,
                     "mean_calls": math.nan, "within_0.1": _within(ex[both], lp[both], 0.1),
                     "within_0.05": _within(ex[both], lp[both], 0.05),
                     "prediction": ("LP value = value of the enumerated matrix game (Eq. 6 is one exact LP: the "
                                    f"matching polytope is integral): |LP - exhaustive| <= {LP_TOL:g}"),
                     "agrees": _le(float(diff.max()) if diff.size else math.nan, LP_TOL)})
        for outer, fw in job["fptas"]:
            for st in STEPS:
                key = f"fptas_{outer}_{fw}_{st}"
                v = np.asarray(a[key], dtype=np.float64)
                calls = np.asarray(a[f"calls_{outer}_{fw}_{st}"], dtype=np.float64)
                ok = np.isfinite(v) & np.isfinite(lp)
                err = lp[ok] - v[ok]
                above = float((v[ok] - lp[ok]).max()) if ok.any() else math.nan
                rows.append({**size, "oracle": key, "cases": v.size, "compared": int(ok.sum()),
                             "mean_error": fmean(err),
                             "max_error": float(err.max()) if err.size else math.nan, "max_above_opt": above,
                             "mean_calls": fmean(calls),
                             "within_0.1": _within(v[ok], lp[ok], 0.1), "within_0.05": _within(v[ok], lp[ok], 0.05),
                             "prediction": (f"never above OPT (every iterate is feasible, Lemma 9) up to {LP_TOL:g}; "
                                            f"within eps = 0.1 of OPT is promised only with the paper's "
                                            f"{size['paper_calls_eps_0.1']} matching calls (L1086, L1097), not at "
                                            f"outer = {outer}, fw = {fw}"),
                             "agrees": _le(above, LP_TOL)})
    return rows


def draw_oracles(rows: Sequence[Mapping], s: Mapping):
    """(a) FPTAS error (OPT − value) against size per budget and step; (b) |LP − exhaustive|."""
    floor = 1e-16
    fig, axes = _figure(1, 2, (13.0, 5.0))
    ax, bx = axes[0]
    sizes = list(dict.fromkeys((r["n"], r["ell"]) for r in rows))
    xpos = {sz: i for i, sz in enumerate(sizes)}
    fp = [r for r in rows if r["oracle"] != "lp_vs_exhaustive"]
    names = list(dict.fromkeys(r["oracle"] for r in fp))
    colour = _colours(names)
    for name in names:
        sub = [r for r in fp if r["oracle"] == name]
        x = [xpos[(r["n"], r["ell"])] for r in sub]
        _, outer, fw, st = name.split("_")
        ax.plot(x, [max(floor, r["mean_error"]) for r in sub], marker="o", color=colour[name],
                ls="-" if st == "paper" else "--", label=f"outer {outer}, FW {fw}, step {st}: mean")
        ax.plot(x, [max(floor, r["max_error"]) for r in sub], marker="v", color=colour[name], ls="none", alpha=0.6,
                label=f"outer {outer}, FW {fw}, step {st}: max")
    lp = [r for r in rows if r["oracle"] == "lp_vs_exhaustive" and r["compared"] > 0]
    x = [xpos[(r["n"], r["ell"])] for r in lp]
    bx.plot(x, [max(floor, r["mean_error"]) for r in lp], marker="o", color=PALETTE[0], label="mean |LP - exhaustive|")
    bx.plot(x, [max(floor, r["max_error"]) for r in lp], marker="v", color=PALETTE[1], ls="--",
            label="max |LP - exhaustive|")
    bx.axhline(LP_TOL, color="#555555", lw=1, ls=":", label=f"agreement tolerance {LP_TOL:g}")
    for axis, title, ylabel in (
            (ax, "(a) FPTAS (Algorithms 6-7) at small budgets", "OPT - FPTAS value (floor 1e-16)"),
            (bx, "(b) the LP against the enumerated matrix game", "|LP - exhaustive| (floor 1e-16)")):
        axis.set_yscale("log")
        axis.set_xticks(range(len(sizes)))
        axis.set_xticklabels([f"K{n},{ell}" for n, ell in sizes], fontsize=8)
        axis.set_xlim(-0.5, len(sizes) - 0.5)
        axis.set_xlabel("graph K_{n,l}")
        axis.set_ylabel(ylabel)
        axis.set_title(title, fontsize=10)
        axis.grid(True, which="both", alpha=0.25)
        axis.legend(fontsize=6.5)
    fig.suptitle(f"Section 4.2: the offline Condorcet problem (Eq. 6), LP vs enumeration vs FPTAS "
                 f"[fidelity {s.get('fidelity')}]", fontsize=11)
    fig.tight_layout()
    return fig



# --------------------------------------------------------------------------------------------
# X5b: Lemma 9 with an exact projection (:mod:`.lemma9`)
# --------------------------------------------------------------------------------------------
def lemma9_table(s: Mapping, loaded: Sequence[tuple]) -> list[dict]:
    """One row per (size, ε) (:data:`LEMMA9_COLUMNS`)."""
    rows = []
    for cell, a in loaded:
        job = cell.job
        inst, _ = lemma9_case(job, 0)
        for eps in job["eps"]:
            key = eps_key(eps)
            err = np.asarray(a[f"error_{key}"], dtype=np.float64)
            T = int(np.asarray(a[f"T_{key}"])[0]) if err.size else 0
            bound = 2.0 * inst.ell * inst.K / math.sqrt(T) if T else math.nan
            worst = float(err.max()) if err.size else math.nan
            rows.append({
                "n": inst.n, "ell": inst.ell, "m": inst.m, "K": inst.K, "eps": float(eps), "T": T,
                "eta": step_size(inst, T, "paper") if T else math.nan, "cases": int(err.size),
                "matchings": int(np.asarray(a["matchings"])[0]) if err.size else None,
                "mean_error": fmean(err), "max_error": worst,
                "zero_error_cases": int(np.count_nonzero(err <= 0.0)),
                "max_error_over_eps": worst / float(eps), "bound_2lK_over_sqrtT": bound,
                "max_error_over_bound": worst / bound if T else math.nan,
                "prediction": ("Lemma 9 (L1188-L1243) with an exact projection: OPT - max_t f(x_t) <= eps at "
                               f"T = ceil((4lK)^2/eps^2) = {T}, and <= 2lK/sqrt(T) = {bound:.4g} (its proof, L1230-L1241)"),
                "agrees": bool(worst <= min(float(eps), bound)) if err.size else None})
    return rows


def draw_lemma9(rows: Sequence[Mapping], loaded: Sequence[tuple], s: Mapping):
    """One panel per size: every case's error against 1/sqrt(T), the bound 2lK/sqrt(T) and eps."""
    floor = 1e-12
    fig, axes = _figure(1, max(1, len(loaded)), (6.2 * max(1, len(loaded)), 5.0))
    for ax, (cell, a) in zip(axes[0], loaded):
        mine = sorted((r for r in rows if (r["n"], r["ell"]) == (cell.job["n"], cell.job["ell"])), key=lambda r: r["T"])
        x = np.array([1.0 / math.sqrt(r["T"]) for r in mine])
        errs = np.array([np.asarray(a[f"error_{eps_key(r['eps'])}"], dtype=np.float64) for r in mine])
        for j in range(errs.shape[1] if errs.ndim == 2 else 0):
            ax.plot(x, np.maximum(errs[:, j], floor), color=PALETTE[0], alpha=0.35, lw=0.8, marker="o", ms=2.5,
                    label="a case: OPT - best f(x_t)" if j == 0 else None)
        ax.plot(x, [r["bound_2lK_over_sqrtT"] for r in mine], color=PALETTE[1], lw=1.6,
                label="2lK/sqrt(T) (proof of Lemma 9, exact projection)")
        ax.plot(x, [r["eps"] for r in mine], color="#333333", ls="none", marker="_", ms=14, mew=2,
                label="eps of T = ceil((4lK)^2/eps^2) (Lemma 9)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("1/sqrt(T)")
        ax.set_ylabel(f"error (floor {floor:g})")
        ax.set_title(f"K{cell.job['n']},{cell.job['ell']}: {errs.shape[1] if errs.ndim == 2 else 0} cases, "
                     f"T up to {max((r['T'] for r in mine), default=0):,}", fontsize=10)
        ax.grid(True, which="both", alpha=0.25)
        ax.legend(fontsize=7, loc="lower right")
    # one line over two panels or more; wrapped at one panel's width, where it would be cut off
    wrap = "\n" if len(loaded) < 2 else " "
    fig.suptitle(f"Lemma 9: Algorithm 6 with an exact projection{wrap}at the paper's T and step "
                 f"[fidelity {s.get('fidelity')}]", fontsize=11)
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------------------------
# X6: Theorem 4 (CAR-Cond)
# --------------------------------------------------------------------------------------------
def _condorcet_truth(spec: Mapping):
    inst, _, winner = truths(spec)
    if winner is None:
        raise ValueError(f"chen2020: instance {spec['name']!r} has no strict Condorcet winner")
    return inst, cpe_hardness.condorcet_truth(inst)


def car_cond_table(s: Mapping, loaded: Sequence[tuple]) -> tuple[list[dict], list[dict]]:
    """Rows per cell (:data:`CAR_COLUMNS`) and the fit against ``H4`` (:data:`CAR_FIT_COLUMNS`)."""
    rows = []
    for cell, a in loaded:
        job = cell.job
        inst, ct = _condorcet_truth(job["instance"])
        delta = float(job["delta"])
        samples = np.asarray(a["samples"], dtype=np.float64)
        n = samples.size
        errors = n - _count(np.asarray(a["correct"]) > 0.5)
        N4, H4 = truth_value(cpe_hardness.n4(ct, delta)), truth_value(cpe_hardness.h4(ct, delta))
        capped = np.asarray(a["capped"]) > 0.5
        above = _count((samples > N4) | capped)
        lo_err, lo_above = clopper_pearson(errors, n)[0], clopper_pearson(above, n)[0]
        checks = np.asarray(a["checks"], dtype=np.float64)
        calls = np.asarray(a["oracle_calls"], dtype=np.float64)
        per_check = calls[checks > 0] / checks[checks > 0]
        st = _stats(samples)
        label = _car_label(job, s["car"])
        note = {"declared": "", "every round": "; checks after every round as printed (Algorithm 2)",
                "FPTAS oracle": ("; the FPTAS at a small budget is no O_eps, so Theorem 4's guarantee is not "
                                 "implied")}.get(label, "")
        rows.append({
            "cell": cell.name, "instance": job["instance"]["name"], "label": label, "delta": delta, "runs": n,
            "errors": errors, "cp_low_error": lo_err, "capped": int(capped.sum()),
            "mean_samples": st["mean"], "se_samples": st["se"], "median_samples": st["median"],
            "mean_rounds": fmean(a["rounds"]) if n else math.nan,
            "mean_checks": fmean(checks) if n else math.nan,
            "mean_oracle_calls": fmean(calls) if n else math.nan,
            "max_calls_per_check": float(per_check.max()) if per_check.size else math.nan, "m": inst.m,
            "N4": N4, "runs_above_N4": above, "cp_low_above_N4": lo_above, "H4": H4,
            "prediction": ("returns the Condorcet winner with probability >= 1 - delta using at most N4 samples "
                           f"(Theorem 4, L298-L302, L1049-L1066): CP95 lower bounds of the error and above-N4 shares "
                           f"<= delta{note}"),
            "agrees": _all(_le(lo_err, delta), _le(lo_above, delta)),
        })
    declared = [r for r in rows if r["label"] == "declared"]
    used = [r for r in declared if r["capped"] == 0]
    fit = loglog_fit([r["H4"] for r in used], [r["mean_samples"] for r in used])
    low, high = CAR_RANGE
    fits = [{"part": "car_cond", "regressor": "H4 = sum over pairs ln(K/(delta D^2))/D^2", **fit,
             "excluded": len(declared) - len(used), "predicted_low": low, "predicted_high": high,
             "prediction": (f"Theorem 4: samples = O(H4) (L302), proportional on these instances: log-log slope in "
                            f"[{low:g}, {high:g}] over the declared cells"),
             "agrees": _in_range(fit["slope"], low, high)}] if declared else []
    return rows, fits


def draw_car_cond(rows: Sequence[Mapping], fits: Sequence[Mapping], s: Mapping):
    """(a) mean samples against H4 with N4 and the fit; (b) error rate against δ with CP95 bars."""
    fig, axes = _figure(1, 2, (13.0, 5.2))
    ax, bx = axes[0]
    colour = _colours(r["instance"] for r in rows)
    marker = _markers(r["label"] for r in rows)
    seen = set()
    for r in rows:
        c, mk = colour[r["instance"]], marker[r["label"]]
        key = (r["instance"], r["label"])
        lab = None if key in seen else (r["instance"] + ("" if r["label"] == "declared" else f" [{r['label']}]"))
        seen.add(key)
        face = c if r["label"] == "declared" else "white"
        ax.errorbar([r["H4"]], [r["mean_samples"]], yerr=[_nz(r["se_samples"])], color=c, marker=mk, ms=5,
                    mfc=face, ls="none", capsize=2, label=lab)
        ax.plot([r["H4"]], [r["N4"]], color=c, marker="_", ms=12, mew=2, ls="none")
    ax.plot([], [], color="#555555", marker="_", ms=12, mew=2, ls="none", label="N4 (L1049-L1066)")
    if fits:
        _fit_line(ax, [r["H4"] for r in rows if r["label"] == "declared" and r["capped"] == 0], fits[0], "#333333",
                  f"OLS fit (declared): {_slope_text(fits[0])}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("H4 = sum over duel pairs ln(K/(delta D^2))/D^2")
    ax.set_ylabel("samples (mean ± s.e.)")
    ax.set_title("(a) samples against H4 (Theorem 4's O argument)", fontsize=10)
    series = list(dict.fromkeys((r["instance"], r["label"]) for r in rows))
    for k, (inst, label) in enumerate(series):
        sub = sorted((r for r in rows if (r["instance"], r["label"]) == (inst, label)), key=lambda r: r["delta"])
        d = np.array([r["delta"] for r in sub]) * (1.0 + 0.04 * (k - len(series) / 2))
        rate = np.array([r["errors"] / r["runs"] for r in sub])
        hi = np.array([clopper_pearson(r["errors"], r["runs"])[1] for r in sub])
        lo = np.array([r["cp_low_error"] for r in sub])
        bx.errorbar(d, rate, yerr=[rate - lo, hi - rate], color=colour[inst], marker=marker[label], ms=5, capsize=2,
                    ls="-" if label == "declared" else "none", mfc=colour[inst] if label == "declared" else "white",
                    label=inst + ("" if label == "declared" else f" [{label}]"))
    _delta_diagonal(bx, rows, "y = delta")
    bx.set_xscale("log")
    bx.set_xlabel("delta")
    bx.set_ylabel("share of runs without the Condorcet winner")
    bx.set_title("(b) error rate with Clopper-Pearson 95% bars", fontsize=10)
    for axis in (ax, bx):
        axis.grid(True, which="both", alpha=0.25)
        axis.legend(fontsize=6.5, loc="upper left")
    fig.suptitle(f"Theorem 4 (CAR-Cond, Algorithm 2): error rate and samples [fidelity {s.get('fidelity')}]",
                 fontsize=11)
    fig.tight_layout()
    return fig



# --------------------------------------------------------------------------------------------
# X7: Theorem 5 (CAR-Parallel against CAR-Cond)
# --------------------------------------------------------------------------------------------
def _pair_term(gaps) -> float:
    """``Σ 1/Δ²`` over the duel pairs, an infinite gap adding 0 (decision H1 of
    :mod:`duelbench.cpe.hardness`)."""
    gaps = np.asarray(gaps, dtype=np.float64)
    finite = gaps[np.isfinite(gaps)]
    return fsum(1.0 / finite**2)


def parallel_split(s: Mapping, cell, samples) -> tuple[np.ndarray, np.ndarray]:
    """(calibration runs, fresh runs) of a parallel cell: runs ``0 … calibration.runs − 1`` of the
    declared instances at the calibration deltas fix the constants of the prediction; every other
    run judges it (fresh runs only, so the extension is not an optional stop)."""
    p = s["parallel"]
    cal = p.get("calibration", {"delta": [], "runs": 0})
    x = np.asarray(samples, dtype=np.float64)
    job = cell.job
    if job["instance"]["name"] in p["instances"] and any(math.isclose(float(job["delta"]), float(d), rel_tol=1e-12)
                                                         for d in cal["delta"]):
        k = min(int(cal["runs"]), x.size)
        return x[:k], x[k:]
    return x[:0], x


def _parallel_slopes(s: Mapping, groups: Mapping, which: int) -> dict:
    """(instance, algorithm) -> OLS slope of mean samples on ln(1/δ) over the cells with runs in
    part ``which`` (0 calibration, 1 fresh), and the cells used."""
    out = {}
    for key, cells in groups.items():
        pts = [(math.log(1.0 / d), fmean(parts[which])) for d, parts in cells if parts[which].size]
        out[key] = (ols_slope([p[0] for p in pts], [p[1] for p in pts]), len(pts))
    return out


def parallel_prediction(s: Mapping, loaded: Sequence[tuple]) -> dict:
    """The calibrated constants and, per instance, the predicted slope difference:
    ``c_par = mean over calibration instances of slope(CAR-Parallel)/H_ver``, ``c_cond`` likewise with
    ``sum over pairs of 1/Delta^2``, and ``D_hat = c_par H_ver − c_cond sum 1/Delta^2``."""
    info, groups = {}, {}
    for cell, a in loaded:
        job = cell.job
        _, ct = _condorcet_truth(job["instance"])
        name = job["instance"]["name"]
        info[name] = (truth_value(ct.h_ver), _pair_term(truth_value(ct.pair_gaps)))
        groups.setdefault((name, job["algorithm"]), []).append((float(job["delta"]),
                                                                parallel_split(s, cell, a["samples"])))
    cal = _parallel_slopes(s, groups, 0)
    ratios = {"car_parallel": [], "car_cond": []}
    for (name, algorithm), (slope, points) in cal.items():
        if points >= 2 and np.isfinite(slope):
            term = info[name][0] if algorithm == "car_parallel" else info[name][1]
            ratios[algorithm].append(slope / term)
    c_par, c_cond = fmean(ratios["car_parallel"]), fmean(ratios["car_cond"])
    return {"c_par": c_par, "c_cond": c_cond, "info": info, "groups": groups,
            "predicted": {n: c_par * hv - c_cond * pt for n, (hv, pt) in info.items()}}


def parallel_table(s: Mapping, loaded: Sequence[tuple]) -> tuple[list[dict], list[dict]]:
    """Rows per cell (:data:`PARALLEL_COLUMNS`), and per instance the slopes of both algorithms
    against ``ln(1/δ)`` on the calibration and on the fresh runs, the calibrated constants and the
    predicted and measured slope differences (:data:`PARALLEL_FIT_COLUMNS`)."""
    rows = []
    for cell, a in loaded:
        job = cell.job
        _, ct = _condorcet_truth(job["instance"])
        delta = float(job["delta"])
        samples = np.asarray(a["samples"], dtype=np.float64)
        n = samples.size
        cal, fresh = parallel_split(s, cell, samples)
        errors = n - _count(np.asarray(a["correct"]) > 0.5)
        st = _stats(samples)
        theorem = "Theorem 5 (L374-L380)" if job["algorithm"] == "car_parallel" else "Theorem 4 (L298-L302)"
        lo = clopper_pearson(errors, n)[0]
        rows.append({
            "cell": cell.name, "instance": job["instance"]["name"], "algorithm": job["algorithm"], "delta": delta,
            "runs": n, "calibration_runs": cal.size, "fresh_runs": fresh.size, "errors": errors, "cp_low_error": lo,
            "capped": _count(np.asarray(a["capped"]) > 0.5), "mean_samples": st["mean"], "se_samples": st["se"],
            "median_samples": st["median"], "mean_fresh": fmean(fresh),
            "mean_calibration": fmean(cal), "H_ver": truth_value(ct.h_ver),
            "pair_term": _pair_term(truth_value(ct.pair_gaps)),
            "prediction": (f"returns the Condorcet winner with probability >= 1 - delta ({theorem}): CP95 lower bound "
                           "of the error share <= delta"),
            "agrees": _le(lo, delta)})
    pred = parallel_prediction(s, loaded)
    fits = []
    for which, label in ((0, "calibration"), (1, "fresh")):
        slopes = _parallel_slopes(s, pred["groups"], which)
        for inst in dict.fromkeys(r["instance"] for r in rows):
            hv, pt = pred["info"][inst]
            pair = {}
            for algorithm, term, claim in (("car_cond", pt, "Theorem 4: slope set by the pair gaps"),
                                           ("car_parallel", hv, "Theorem 5: slope set by H_ver")):
                slope, points = slopes.get((inst, algorithm), (math.nan, 0))
                if points < 2:
                    continue
                pair[algorithm] = slope
                c = pred["c_cond"] if algorithm == "car_cond" else pred["c_par"]
                fits.append({"instance": inst, "algorithm": algorithm, "runs_used": label, "regressor": "ln(1/delta)",
                             "slope": slope, "intercept": math.nan, "points": points, "rate_term": term,
                             "slope_over_rate_term": slope / term if term > 0 else math.nan,
                             "predicted": c * term,
                             "prediction": f"{claim}: slope = c x rate term, c calibrated on the calibration runs",
                             "agrees": None})
            if len(pair) == 2:
                diff = pair["car_parallel"] - pair["car_cond"]
                d_hat = pred["predicted"][inst]
                fits.append({"instance": inst, "algorithm": "comparison", "runs_used": label,
                             "regressor": "slope(CAR-Parallel) - slope(CAR-Cond)", "slope": diff,
                             "intercept": math.nan, "points": None, "rate_term": math.nan,
                             "slope_over_rate_term": math.nan, "predicted": d_hat,
                             "prediction": (f"predicted difference c_par H_ver - c_cond sum 1/D^2 = {d_hat:.4g} "
                                            f"(c_par = {pred['c_par']:.4g}, c_cond = {pred['c_cond']:.4g}); "
                                            "Theorem 5 against Theorem 4: below 0 for small delta"),
                             "agrees": None if math.isnan(diff) or math.isnan(d_hat) else bool(np.sign(diff) == np.sign(d_hat))})
    return rows, fits


def draw_parallel(rows: Sequence[Mapping], fits: Sequence[Mapping], s: Mapping):
    """One panel per instance: mean samples of the fresh runs against ln(1/δ) for both algorithms,
    the slope fitted through the centroid, and the calibration runs' means (open markers)."""
    insts = list(dict.fromkeys(r["instance"] for r in rows)) or ["(none)"]
    fig, axes = _figure(1, len(insts), (max(8.0, 5.4 * len(insts)), 5.0))
    style = {"car_cond": (PALETTE[0], "o", "CAR-Cond"), "car_parallel": (PALETTE[1], "s", "CAR-Parallel")}
    for ax, inst in zip(axes[0], insts):
        for algorithm, (c, mk, name) in style.items():
            sub = sorted((r for r in rows if (r["instance"], r["algorithm"]) == (inst, algorithm)),
                         key=lambda r: -r["delta"])
            if not sub:
                continue
            fresh = [r for r in sub if r["fresh_runs"]]
            x = np.array([math.log(1.0 / r["delta"]) for r in fresh])
            y = np.array([r["mean_fresh"] for r in fresh])
            ax.plot(x, y, color=c, marker=mk, ls="none", label=f"{name} (fresh runs)")
            cal = [r for r in sub if r["calibration_runs"]]
            if cal:
                ax.plot([math.log(1.0 / r["delta"]) for r in cal], [r["mean_calibration"] for r in cal], color=c,
                        marker=mk, mfc="white", ls="none", label=f"{name} (calibration runs 0-{cal[0]['calibration_runs'] - 1})")
            fit = next((f for f in fits if (f["instance"], f["algorithm"], f["runs_used"]) == (inst, algorithm, "fresh")),
                       None)
            if fit is not None and x.size >= 2 and np.isfinite(fit["slope"]):
                grid = np.linspace(x.min(), x.max(), 20)
                ax.plot(grid, fmean(y) + fit["slope"] * (grid - fmean(x)), color=c, ls="--", lw=1.1,
                        label=f"slope {fit['slope']:.3g} (predicted {fit['predicted']:.3g})")
        comp = next((f for f in fits if (f["instance"], f["algorithm"], f["runs_used"]) == (inst, "comparison", "fresh")),
                    None)
        title = inst if comp is None else f"{inst}: slope difference {comp['slope']:.3g}, predicted {comp['predicted']:.3g}"
        ax.set_xlabel("ln(1/delta)")
        ax.set_ylabel("mean samples")
        ax.set_title(title, fontsize=9.5)
        ax.grid(True, alpha=0.25)
        ax.legend(fontsize=6.5, loc="upper left")
    fig.suptitle(f"Theorem 5 (CAR-Parallel, Algorithm 3) against Theorem 4 (CAR-Cond):\nsamples against ln(1/delta) "
                 f"[fidelity {s.get('fidelity')}]", fontsize=11)
    fig.tight_layout()
    return fig


def _study_step(ctx: StepContext, study: str, table, columns, draw, fit_columns=None, with_loaded=False) -> dict:
    """The body of every study step: ``table(settings, loaded)`` gives the rows (and the fits
    when ``fit_columns``), written as ``csv`` (and ``fits``), then ``draw`` makes the figure
    (``png``, ``pdf``); returns what the sidecars record (the rows, the runs' stream)."""
    s = ctx.settings
    loaded = load_cells(ctx, study)
    out = table(s, loaded)
    rows, fits = out if fit_columns else (out, None)
    write_rows(ctx.output.csv, columns, rows, empty_nan=True)
    if fit_columns:
        write_rows(ctx.output.fits, fit_columns, fits, empty_nan=True)
    args = (rows, fits) if fit_columns else (rows, loaded) if with_loaded else (rows,)
    save_figure(draw(*args, s), [ctx.output.pdf, ctx.output.png])
    print(f"{study}: {len(rows)} rows -> {ctx.output.csv}", flush=True)
    for f in fits or ():
        print(f"{study} fit: {_slope_text(f) if 'predicted_low' in f else f['slope']}", flush=True)
    return {"rows": len(rows), "stream": RUN_STREAM}


def pac(ctx: StepContext) -> dict:
    """Step ``pac``: ``pac.csv`` and its figure."""
    return _study_step(ctx, "pac", pac_table, PAC_COLUMNS, draw_pac)


def hardness(ctx: StepContext) -> dict:
    """Step ``hardness``: ``hardness.csv``, ``hardness_fits.csv`` and the figure."""
    return _study_step(ctx, "hardness", hardness_table, HARDNESS_COLUMNS, draw_hardness, FIT_COLUMNS)


def epochs(ctx: StepContext) -> dict:
    """Step ``epochs``: ``epochs.csv`` and its figure."""
    return _study_step(ctx, "epochs", epochs_table, EPOCH_COLUMNS, draw_epochs, with_loaded=True)


def oracles(ctx: StepContext) -> dict:
    """Step ``oracles``: ``oracles.csv`` and its figure."""
    return _study_step(ctx, "oracles", oracles_table, ORACLE_COLUMNS, draw_oracles)


def car_cond(ctx: StepContext) -> dict:
    """Step ``car_cond``: ``car_cond.csv``, ``car_cond_fits.csv`` and the figure."""
    return _study_step(ctx, "car_cond", car_cond_table, CAR_COLUMNS, draw_car_cond, CAR_FIT_COLUMNS)


def parallel(ctx: StepContext) -> dict:
    """Step ``parallel``: ``parallel.csv``, ``parallel_fits.csv`` and the figure."""
    return _study_step(ctx, "parallel", parallel_table, PARALLEL_COLUMNS, draw_parallel, PARALLEL_FIT_COLUMNS)


def lower_bounds(ctx: StepContext) -> dict:
    """Step ``lower_bounds``: ``lower_bounds.csv`` and its figure."""
    return _study_step(ctx, "lower_bounds", lower_bounds_table, LOWER_BOUND_COLUMNS, draw_lower_bounds)


def lemma9(ctx: StepContext) -> dict:
    """Step ``lemma9``: ``lemma9.csv`` and its figure."""
    return _study_step(ctx, "lemma9", lemma9_table, LEMMA9_COLUMNS, draw_lemma9, with_loaded=True)

"""The tables and figures of the Chen et al. 2020 studies X1-X7 (one step per study).

Each step reads the sample families of its study (:mod:`.cells`; the columns of a run are listed
in :mod:`.runs`), computes the ground truth of every instance from the true ``P``
(:func:`.runs.truths`, :mod:`duelbench.cpe.hardness`) and writes one row per cell, the fits of
the study, and one figure.  Every table says in ``prediction`` what the theory predicts for
the row and in ``agrees`` (true / false / empty) whether the observation agrees; the checks of
``data/published/chen2020.yaml`` read these tables.

* ``pac`` (Theorem 1, L180-L188): miss rate of CLUCB-Borda-PAC against ``δ`` with its
  Clopper-Pearson interval, samples against ``N1`` (Eq. 10, L720) and ``N1′`` (Eq. 9, L716).
* ``hardness`` (Theorems 1-2): OLS slopes of log samples on ``log(H_ε ln(H_ε/δ))`` (PAC) and on
  ``log(1/s)`` (exact sampler, F1 instances whose gaps scale with ``s``).
* ``epochs`` (Theorem 2, proof L800-L812): the final epoch of CLUCB-Borda-Exact against
  ``q* = ⌊log₂(ℓ/Δ_min)⌋ + 1``, errors, samples against ``N2``.
* ``oracles`` (Section 4.2, Eq. 6): the LP against enumeration and the FPTAS (Algorithms 6-7) at
  small budgets, beside the paper's budget at ``ε = 0.1``.
* ``car_cond`` (Theorem 4, L298-L302): errors against ``δ``, samples against ``N4``
  (L1049-L1066) and the slope against ``H4`` (the ``O(·)`` argument of L302).
* ``parallel`` (Theorem 5, L374-L380): slopes of mean samples against ``ln(1/δ)`` for CAR-Cond and
  CAR-Parallel.

Decisions
---------
* S1 - intervals.  Rates are judged with the two-sided Clopper-Pearson 99% interval
  (:func:`clopper_pearson`): a theorem's "with probability at least ``1 − δ``" is contradicted
  only when the interval's lower end exceeds ``δ`` (a sample of runs can never confirm a
  probability bound, only fail to contradict it).
* S2 - capped runs.  A run stopped at ``max_samples`` (Borda) or ``max_rounds`` (Condorcet)
  returned nothing and its sample count is only a lower bound: it is a miss / an error, it
  counts as beyond ``q*`` in ``epochs`` and as above every explicit bound (``N1``, ``N1′``,
  ``N2``, ``N4``), and a cell holding any capped run is left out of the slope fits.
* S3 - fits.  Slopes are OLS of ``log(mean samples)`` on ``log(x)`` over cells
  (:func:`loglog_fit`, ``scipy.stats.linregress``; ``se`` its standard error, empty with fewer
  than three points); the parallel study fits mean samples linearly on ``ln(1/δ)``
  (:func:`linear_fit`).  A fit agrees when its slope lies in the declared range
  (``[0.6, 1.4]`` for the PAC and CAR-Cond slopes of Theorems 1 and 4, ``[1.5, 2.6]`` against
  ``1/s`` for Theorem 2: ``H^B ∝ 1/s²`` with logarithmic factors above); the standard error is
  reported beside, not folded in.
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
  empty cell; infinities as ``inf``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from .. import log_to
from ..contract import StepContext

#: Confidence level of the Clopper-Pearson intervals (decision S1).
LEVEL = 0.99
#: Agreement tolerance of two LP values (decision S5).
LP_TOL = 1e-7
#: The stream of run ``i`` of a cell (reading C2), recorded in every sidecar.
RUN_STREAM = "SeedSequence(seed, spawn_key=(cell key, run))"
#: Predicted slope ranges (decision S3).
PAC_RANGE = (0.6, 1.4)
EXACT_RANGE = (1.5, 2.6)
CAR_RANGE = (0.6, 1.4)

PAC_COLUMNS = ["cell", "instance", "label", "eps", "delta", "sampler", "radius_count", "self_duel", "runs", "misses",
               "miss_rate", "cp99_low", "cp99_high", "exact_rate", "capped", "mean_samples", "se_samples",
               "median_samples", "q25_samples", "q75_samples", "mean_self_duels", "H_eps", "N1", "N1_prime",
               "runs_above_N1", "runs_above_N1_prime", "cp99_low_above_N1", "cp99_low_above_N1_prime", "mean_over_N1",
               "prediction", "agrees"]
HARDNESS_COLUMNS = ["part", "cell", "instance", "n", "ell", "s", "draw", "eps", "delta", "runs", "mean_samples",
                    "se_samples", "median_samples", "capped", "exact_rate", "H_B", "H_eps", "x", "prediction", "agrees"]
FIT_COLUMNS = ["part", "regressor", "slope", "se", "intercept", "points", "excluded", "predicted_low",
               "predicted_high", "prediction", "agrees"]
EPOCH_COLUMNS = ["cell", "instance", "variant", "delta", "runs", "q_star", "N2", "mean_epochs", "max_epochs",
                 "runs_beyond_qstar", "cp99_low_beyond_qstar", "capped", "returned", "errors", "cp99_low_error",
                 "mean_samples", "median_samples", "mean_samples_through_qstar", "runs_above_N2", "cp99_low_above_N2",
                 "prediction", "agrees"]
ORACLE_COLUMNS = ["n", "ell", "m", "K", "oracle", "cases", "compared", "mean_error", "max_error", "max_above_opt",
                  "mean_calls", "within_0.1", "within_0.05", "paper_calls_eps_0.1", "prediction", "agrees"]
CAR_COLUMNS = ["cell", "instance", "label", "delta", "runs", "errors", "cp99_low_error", "capped", "mean_samples",
               "se_samples", "median_samples", "mean_rounds", "mean_checks", "mean_oracle_calls", "max_calls_per_check",
               "m", "N4", "runs_above_N4", "cp99_low_above_N4", "H4", "prediction", "agrees"]
CAR_FIT_COLUMNS = ["part", "regressor", "slope", "se", "intercept", "points", "excluded", "predicted_low",
                   "predicted_high", "prediction", "agrees"]
PARALLEL_COLUMNS = ["cell", "instance", "algorithm", "delta", "runs", "errors", "cp99_low_error", "capped",
                    "mean_samples", "se_samples", "median_samples", "H_ver", "pair_term", "prediction", "agrees"]
PARALLEL_FIT_COLUMNS = ["instance", "algorithm", "regressor", "slope", "se", "intercept", "points", "rate_term",
                        "slope_over_rate_term", "prediction", "agrees"]

#: Colours of instances / series in the figures (Okabe-Ito, then greys).
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442", "#882255",
           "#44AA99", "#999933", "#777777")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h")


# --------------------------------------------------------------------------------------------
# statistics
# --------------------------------------------------------------------------------------------
def clopper_pearson(k: int, n: int, level: float = LEVEL) -> tuple[float, float]:
    """The two-sided Clopper-Pearson interval of a binomial proportion (decision S1).

    Parameters
    ----------
    k, n : int
        Successes and trials.
    level : float
        Confidence level (0.99: 0.5% in each tail).

    Returns
    -------
    (low, high)
        ``low = Beta⁻¹(α/2; k, n − k + 1)`` (0 for ``k = 0``), ``high = Beta⁻¹(1 − α/2; k + 1, n − k)``
        (1 for ``k = n``); NaN for ``n = 0``.
    """
    from scipy.stats import beta

    k, n = int(k), int(n)
    if n <= 0:
        return math.nan, math.nan
    if not 0 <= k <= n:
        raise ValueError(f"need 0 ≤ k ≤ n, got k={k}, n={n}")
    a = 1.0 - float(level)
    low = 0.0 if k == 0 else float(beta.ppf(a / 2, k, n - k + 1))
    high = 1.0 if k == n else float(beta.ppf(1 - a / 2, k + 1, n - k))
    return low, high


def _fit(x, y) -> dict:
    from scipy.stats import linregress

    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    out = {"slope": math.nan, "se": math.nan, "intercept": math.nan, "points": int(x.size)}
    if x.size < 2 or np.ptp(x) == 0:
        return out
    r = linregress(x, y)
    out.update(slope=float(r.slope), intercept=float(r.intercept), se=float(r.stderr) if x.size > 2 else math.nan)
    return out


def loglog_fit(x, y) -> dict:
    """OLS of ``log y`` on ``log x`` over the points with both positive and finite (decision S3).

    Returns
    -------
    dict
        ``slope``, ``se`` (its standard error; NaN below three points), ``intercept`` (of the
        natural-log line) and ``points``.
    """
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    keep = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    return _fit(np.log(x[keep]), np.log(y[keep]))


def linear_fit(x, y) -> dict:
    """OLS of ``y`` on ``x`` (finite points), as :func:`loglog_fit` without logarithms."""
    return _fit(x, y)


def _stats(x) -> dict:
    """Mean, standard error, median and quartiles of a sample (NaN where undefined)."""
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0:
        return {"mean": math.nan, "se": math.nan, "median": math.nan, "q25": math.nan, "q75": math.nan}
    return {"mean": float(x.mean()), "se": float(x.std(ddof=1) / math.sqrt(x.size)) if x.size > 1 else math.nan,
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
# tables, sidecars, cells
# --------------------------------------------------------------------------------------------
def _py(v):
    """A CSV-ready value: numpy scalars as Python ones, NaN as empty (decision S8)."""
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        v = float(v)
        return None if math.isnan(v) else v
    return v


def write_csv(path: str, columns: Sequence[str], rows: Iterable[Mapping]) -> None:
    """Rows as CSV, atomically, floats at full precision
    (:func:`duelbench.experiments.komiyama2016.tables.write_rows`)."""
    from ..komiyama2016.tables import write_rows

    write_rows(path, columns, [{c: _py(r.get(c)) for c in columns} for r in rows])


def sidecars(ctx: StepContext, paths: Sequence[str], timer, extra: Mapping | None = None,
             inputs: Sequence[str] | None = None) -> None:
    """The provenance sidecar ``<path>.json`` of every output of the step."""
    from duelbench.provenance.sidecar import write_sidecar

    from . import NAME

    s = ctx.settings
    files = list(inputs) if inputs is not None else list(ctx.input.get("samples", []) or [])
    seeds = {"seed": s.get("seed"), "instance_seed": s.get("instance_seed"), "stream": RUN_STREAM}
    for path in paths:
        write_sidecar(path, inputs=files, config=dict(ctx.step.settings), seeds=seeds,
                      extra={"experiment": NAME, "step": ctx.step.name, **dict(extra or {})}, **timer.as_kwargs())


def study_cells(s: Mapping, study: str) -> list:
    """The cells of one study (:func:`.cells.cells`), in cell order."""
    from .cells import cells

    return [c for c in cells(s) if c.study == study]


def load_cells(ctx: StepContext, study: str) -> list[tuple]:
    """``(cell, columns)`` for every cell of ``study``: the cell's runs ``0 … runs − 1`` in order."""
    from ..samples import load_family

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
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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
    grid = np.geomspace(x.min(), x.max(), 50) if log else np.linspace(x.min(), x.max(), 50)
    y = np.exp(fit["intercept"]) * grid ** fit["slope"] if log else fit["intercept"] + fit["slope"] * grid
    ax.plot(grid, y, color=colour, lw=1.2, ls="--", label=label)


def _slope_text(fit: Mapping) -> str:
    se = "" if math.isnan(fit["se"]) else f" ± {fit['se']:.2f}"
    return f"slope {fit['slope']:.2f}{se} ({fit['points']} points)"


# --------------------------------------------------------------------------------------------
# X1: Theorem 1 (CLUCB-Borda-PAC)
# --------------------------------------------------------------------------------------------
def pac_table(s: Mapping, loaded: Sequence[tuple]) -> list[dict]:
    """One row per cell of study ``pac`` (columns :data:`PAC_COLUMNS`)."""
    from duelbench.cpe import hardness

    from .runs import truths

    rows = []
    for cell, a in loaded:
        job = cell.job
        _, truth, _ = truths(job["instance"])
        eps, delta = float(job["eps"]), float(job["delta"])
        samples = np.asarray(a["samples"], dtype=np.float64)
        n = samples.size
        misses = _count(np.asarray(a["eps_optimal"]) < 0.5)
        lo, hi = clopper_pearson(misses, n)
        H = hardness.h_eps(truth, eps)
        N1, N1p = hardness.n1(truth, eps, delta), hardness.n1_prime(truth, eps, delta)
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
            "misses": misses, "miss_rate": misses / n if n else math.nan, "cp99_low": lo, "cp99_high": hi,
            "exact_rate": float(np.mean(a["exact"])) if n else math.nan,
            "capped": int(capped.sum()), "mean_samples": st["mean"], "se_samples": st["se"],
            "median_samples": st["median"], "q25_samples": st["q25"],
            "q75_samples": st["q75"], "mean_self_duels": float(np.mean(a["self_duels"])) if n else math.nan,
            "H_eps": H, "N1": N1, "N1_prime": N1p, "runs_above_N1": above1, "runs_above_N1_prime": above1p,
            "cp99_low_above_N1": lo1, "cp99_low_above_N1_prime": lo1p, "mean_over_N1": st["mean"] / N1,
            "prediction": ("P(B(Out) < B(M*) - eps) <= delta and P(samples > N1) <= delta (Theorem 1, L180-L188, "
                           f"Eq. 10): both CP99 lower bounds <= delta{why}"),
            "agrees": _all(_le(lo, delta), _le(lo1, delta)),
        })
    return rows


def draw_pac(rows: Sequence[Mapping], s: Mapping):
    """(a) miss rate with CP99 bars against δ, with y = δ; (b) mean samples with N1, N1′ against δ."""
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
        err = np.array([[r["miss_rate"] - r["cp99_low"] for r in sub], [r["cp99_high"] - r["miss_rate"] for r in sub]])
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
    ax.set_title("(a) miss rate with Clopper-Pearson 99% bars", fontsize=10)
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
    from duelbench.cpe import hardness

    from .runs import truths

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
            H = hardness.h_eps(truth, eps)
            x = H * math.log(H / delta) if H > 0 else math.nan
            wrong = _count(np.asarray(a["eps_optimal"]) < 0.5)
            pred = ("samples proportional to H_eps ln(H_eps/delta) (Theorem 1): a point of the slope-1 fit; "
                    "P(not eps-optimal) <= delta: CP99 lower bound <= delta")
        else:
            eps, H = math.nan, math.nan
            x = 1.0 / float(spec["s"])
            wrong = n - _count(np.asarray(a["exact"]) > 0.5)
            pred = ("samples proportional to H^B ~ 1/s^2 up to logarithms (Theorem 2): a point of the fit against "
                    "1/s; P(output != M*) <= delta: CP99 lower bound <= delta")
        if capped:
            pred += "; capped runs: left out of the fit"
        rows.append({
            "part": part, "cell": cell.name, "instance": spec["name"], "n": inst.n, "ell": inst.ell,
            "s": float(spec["s"]) if "s" in spec else math.nan, "draw": int(spec.get("draw", 0)),
            "eps": eps, "delta": delta, "runs": n, "mean_samples": st["mean"], "se_samples": st["se"],
            "median_samples": st["median"], "capped": capped,
            "exact_rate": float(np.mean(a["exact"])) if n else math.nan, "H_B": truth.hardness, "H_eps": H, "x": x,
            "prediction": pred, "agrees": _le(clopper_pearson(wrong, n)[0], delta),
        })
    fits = []
    for part, regressor, (low, high), claim in (
            ("pac", "H_eps ln(H_eps/delta)", PAC_RANGE, "Theorem 1: samples proportional to H_eps ln(H_eps/delta)"),
            ("exact", "1/s", EXACT_RANGE, "Theorem 2: samples proportional to H^B ~ s^-2 up to logarithms")):
        sub = [r for r in rows if r["part"] == part]
        if not sub:
            continue
        used = [r for r in sub if r["capped"] == 0]
        fit = loglog_fit([r["x"] for r in used], [r["mean_samples"] for r in used])
        fits.append({"part": part, "regressor": regressor, **fit, "excluded": len(sub) - len(used),
                     "predicted_low": low, "predicted_high": high,
                     "prediction": f"{claim}: log-log slope in [{low:g}, {high:g}]",
                     "agrees": _in_range(fit["slope"], low, high)})
    return rows, fits


def draw_hardness(rows: Sequence[Mapping], fits: Sequence[Mapping], s: Mapping):
    """Two log-log panels: samples against ``H_ε ln(H_ε/δ)`` and against ``1/s``, with the fits."""
    fig, axes = _figure(1, 2, (12.5, 5.0))
    for ax, part, xlabel, title in (
            (axes[0][0], "pac", "H_eps ln(H_eps/delta)", "(a) CLUCB-Borda-PAC over eps (Theorem 1)"),
            (axes[0][1], "exact", "1/s", "(b) exact sampler (V2) over s (Theorem 2)")):
        sub = [r for r in rows if r["part"] == part]
        key = (lambda r: r["instance"]) if part == "pac" else (lambda r: f"K_{r['n']},{r['ell']} draw {r['draw']}")
        colour = _colours(key(r) for r in sub)
        for name in colour:
            pts = [r for r in sub if key(r) == name]
            full = [r for r in pts if r["capped"] == 0]
            capped = [r for r in pts if r["capped"] > 0]
            ax.errorbar([r["x"] for r in full], [r["mean_samples"] for r in full],
                        yerr=[_nz(r["se_samples"]) for r in full], color=colour[name], marker="o", ms=5, ls="none",
                        capsize=2, label=name)
            if capped:
                ax.plot([r["x"] for r in capped], [r["mean_samples"] for r in capped], color=colour[name], marker="o",
                        mfc="white", ms=6, ls="none", label=f"{name} (capped runs, not fitted)")
        fit = next((f for f in fits if f["part"] == part), None)
        if fit is not None:
            _fit_line(ax, [r["x"] for r in sub if r["capped"] == 0], fit, "#333333",
                      f"OLS fit: {_slope_text(fit)}; predicted [{fit['predicted_low']:g}, {fit['predicted_high']:g}]")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("samples (mean ± s.e.)")
        ax.set_title(title, fontsize=10)
        ax.grid(True, which="both", alpha=0.25)
        ax.legend(fontsize=6.5, loc="upper left")
    fig.suptitle(f"Theorems 1-2: samples against hardness [fidelity {s.get('fidelity')}]", fontsize=11)
    fig.tight_layout()
    return fig



# --------------------------------------------------------------------------------------------
# X3: Theorem 2, final epochs of CLUCB-Borda-Exact
# --------------------------------------------------------------------------------------------
def epochs_table(s: Mapping, loaded: Sequence[tuple]) -> list[dict]:
    """One row per cell of study ``epochs`` (columns :data:`EPOCH_COLUMNS`)."""
    from duelbench.cpe import hardness

    from .runs import truths

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
        N2 = hardness.n2(truth, delta)
        beyond = _count((epochs > q) | capped)
        returned = int(n - capped.sum())
        errors = _count(~capped & ~exact)
        above = _count((samples > N2) | capped)
        lo_beyond, lo_err, lo_above = (clopper_pearson(beyond, n)[0], clopper_pearson(errors, returned)[0],
                                       clopper_pearson(above, n)[0])
        if variant == "V2":
            pred = ("returns M* with probability >= 1 - delta, no epochs (exact sampler, CLUCB on the reduced arms): "
                    "CP99 lower bounds of the error and cap shares <= delta; N2 reported only")
            agrees = _all(_le(lo_err, delta), _le(lo_beyond, delta))
        else:
            pred = (f"returns M* by epoch q* = {q} with at most N2 samples, with probability >= 1 - delta "
                    "(Theorem 2, proof L800-L822): CP99 lower bounds of the shares beyond q*, wrong and above N2 "
                    "<= delta")
            agrees = _all(_le(lo_beyond, delta), _le(lo_err, delta), _le(lo_above, delta))
        rows.append({
            "cell": cell.name, "instance": job["instance"]["name"], "variant": variant, "delta": delta, "runs": n,
            "q_star": q, "N2": N2, "mean_epochs": float(epochs.mean()) if n else math.nan,
            "max_epochs": int(epochs.max()) if n else None, "runs_beyond_qstar": beyond,
            "cp99_low_beyond_qstar": lo_beyond, "capped": int(capped.sum()), "returned": returned, "errors": errors,
            "cp99_low_error": lo_err, "mean_samples": _stats(samples)["mean"],
            "median_samples": _stats(samples)["median"],
            "mean_samples_through_qstar": float(np.mean(a["samples_through_qstar"])) if n else math.nan,
            "runs_above_N2": above, "cp99_low_above_N2": lo_above, "prediction": pred, "agrees": agrees,
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
                axis.plot([offs - width / 2, offs + width / 2], [np.mean(y)] * 2 if y.size else [np.nan] * 2,
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
# X5: Section 4.2, the offline problem
# --------------------------------------------------------------------------------------------
def _within(value: np.ndarray, opt: np.ndarray, eps: float) -> float:
    ok = (value >= opt - eps) & (value <= opt + 1e-9)
    return float(ok.mean()) if ok.size else math.nan


def oracles_table(s: Mapping, loaded: Sequence[tuple]) -> list[dict]:
    """Long format: per size, ``lp_vs_exhaustive`` and one row per FPTAS budget and step rule."""
    from duelbench.cpe.fptas import paper_budget

    from .runs import STEPS, oracle_case

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
                     "mean_error": float(diff.mean()) if diff.size else math.nan,
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
                             "mean_error": float(err.mean()) if err.size else math.nan,
                             "max_error": float(err.max()) if err.size else math.nan, "max_above_opt": above,
                             "mean_calls": float(calls.mean()) if calls.size else math.nan,
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
# X6: Theorem 4 (CAR-Cond)
# --------------------------------------------------------------------------------------------
def _condorcet_truth(spec: Mapping):
    from duelbench.cpe import hardness

    from .runs import truths

    inst, _, winner = truths(spec)
    if winner is None:
        raise ValueError(f"chen2020: instance {spec['name']!r} has no strict Condorcet winner")
    return inst, hardness.condorcet_truth(inst)


def car_cond_table(s: Mapping, loaded: Sequence[tuple]) -> tuple[list[dict], list[dict]]:
    """Rows per cell (:data:`CAR_COLUMNS`) and the fit against ``H4`` (:data:`CAR_FIT_COLUMNS`)."""
    from duelbench.cpe import hardness

    rows = []
    for cell, a in loaded:
        job = cell.job
        inst, ct = _condorcet_truth(job["instance"])
        delta = float(job["delta"])
        samples = np.asarray(a["samples"], dtype=np.float64)
        n = samples.size
        errors = n - _count(np.asarray(a["correct"]) > 0.5)
        N4, H4 = hardness.n4(ct, delta), hardness.h4(ct, delta)
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
            "errors": errors, "cp99_low_error": lo_err, "capped": int(capped.sum()),
            "mean_samples": st["mean"], "se_samples": st["se"], "median_samples": st["median"],
            "mean_rounds": float(np.mean(a["rounds"])) if n else math.nan,
            "mean_checks": float(checks.mean()) if n else math.nan,
            "mean_oracle_calls": float(calls.mean()) if n else math.nan,
            "max_calls_per_check": float(per_check.max()) if per_check.size else math.nan, "m": inst.m,
            "N4": N4, "runs_above_N4": above, "cp99_low_above_N4": lo_above, "H4": H4,
            "prediction": ("returns the Condorcet winner with probability >= 1 - delta using at most N4 samples "
                           f"(Theorem 4, L298-L302, L1049-L1066): CP99 lower bounds of the error and above-N4 shares "
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
    """(a) mean samples against H4 with N4 and the fit; (b) error rate against δ with CP99 bars."""
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
        lo = np.array([r["cp99_low_error"] for r in sub])
        bx.errorbar(d, rate, yerr=[rate - lo, hi - rate], color=colour[inst], marker=marker[label], ms=5, capsize=2,
                    ls="-" if label == "declared" else "none", mfc=colour[inst] if label == "declared" else "white",
                    label=inst + ("" if label == "declared" else f" [{label}]"))
    _delta_diagonal(bx, rows, "y = delta")
    bx.set_xscale("log")
    bx.set_xlabel("delta")
    bx.set_ylabel("share of runs without the Condorcet winner")
    bx.set_title("(b) error rate with Clopper-Pearson 99% bars", fontsize=10)
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
    return float(np.sum(1.0 / finite**2))


def parallel_table(s: Mapping, loaded: Sequence[tuple]) -> tuple[list[dict], list[dict]]:
    """Rows per cell (:data:`PARALLEL_COLUMNS`), and per instance the slopes of both algorithms
    against ``ln(1/δ)`` and their comparison (:data:`PARALLEL_FIT_COLUMNS`)."""
    rows = []
    for cell, a in loaded:
        job = cell.job
        _, ct = _condorcet_truth(job["instance"])
        delta = float(job["delta"])
        samples = np.asarray(a["samples"], dtype=np.float64)
        n = samples.size
        errors = n - _count(np.asarray(a["correct"]) > 0.5)
        st = _stats(samples)
        theorem = "Theorem 5 (L374-L380)" if job["algorithm"] == "car_parallel" else "Theorem 4 (L298-L302)"
        lo = clopper_pearson(errors, n)[0]
        rows.append({
            "cell": cell.name, "instance": job["instance"]["name"], "algorithm": job["algorithm"], "delta": delta,
            "runs": n, "errors": errors, "cp99_low_error": lo, "capped": _count(np.asarray(a["capped"]) > 0.5),
            "mean_samples": st["mean"], "se_samples": st["se"], "median_samples": st["median"], "H_ver": ct.h_ver,
            "pair_term": _pair_term(ct.pair_gaps),
            "prediction": (f"returns the Condorcet winner with probability >= 1 - delta ({theorem}): CP99 lower bound "
                           "of the error share <= delta"),
            "agrees": _le(lo, delta)})
    fits = []
    for inst in dict.fromkeys(r["instance"] for r in rows):
        slopes = {}
        for algorithm, term, claim in (
                ("car_cond", "pair_term", "Theorem 4: slope set by the pair gaps, sum over pairs 1/D^2"),
                ("car_parallel", "H_ver", "Theorem 5: slope set by H_ver")):
            sub = [r for r in rows if (r["instance"], r["algorithm"]) == (inst, algorithm)]
            if not sub:
                continue
            fit = linear_fit([math.log(1.0 / r["delta"]) for r in sub], [r["mean_samples"] for r in sub])
            slopes[algorithm] = fit
            rate = sub[0][term]
            fits.append({"instance": inst, "algorithm": algorithm, "regressor": "ln(1/delta)", **fit,
                         "rate_term": rate, "slope_over_rate_term": fit["slope"] / rate if rate > 0 else math.nan,
                         "prediction": f"{claim}: mean samples grow linearly in ln(1/delta) with a positive slope",
                         "agrees": None if math.isnan(fit["slope"]) else bool(fit["slope"] > 0)})
        if len(slopes) == 2:
            a, b = slopes["car_parallel"], slopes["car_cond"]
            diff = a["slope"] - b["slope"]
            fits.append({"instance": inst, "algorithm": "comparison",
                         "regressor": "slope(CAR-Parallel) - slope(CAR-Cond)",
                         "slope": diff, "se": math.sqrt(a["se"] ** 2 + b["se"] ** 2), "intercept": math.nan,
                         "points": min(a["points"], b["points"]), "rate_term": math.nan,
                         "slope_over_rate_term": math.nan,
                         "prediction": "CAR-Parallel's slope below CAR-Cond's (Theorem 5 against Theorem 4)",
                         "agrees": None if math.isnan(diff) else bool(diff < 0)})
    return rows, fits


def draw_parallel(rows: Sequence[Mapping], fits: Sequence[Mapping], s: Mapping):
    """One panel per instance: mean samples against ln(1/δ), both algorithms, fitted lines."""
    insts = list(dict.fromkeys(r["instance"] for r in rows)) or ["(none)"]
    fig, axes = _figure(1, len(insts), (max(8.0, 5.6 * len(insts)), 5.0))
    style = {"car_cond": (PALETTE[0], "o", "CAR-Cond"), "car_parallel": (PALETTE[1], "s", "CAR-Parallel")}
    for ax, inst in zip(axes[0], insts):
        for algorithm, (c, mk, name) in style.items():
            sub = sorted((r for r in rows if (r["instance"], r["algorithm"]) == (inst, algorithm)),
                         key=lambda r: -r["delta"])
            if not sub:
                continue
            x = [math.log(1.0 / r["delta"]) for r in sub]
            ax.errorbar(x, [r["mean_samples"] for r in sub], yerr=[_nz(r["se_samples"]) for r in sub], color=c,
                        marker=mk, ls="none", capsize=2, label=name)
            fit = next((f for f in fits if (f["instance"], f["algorithm"]) == (inst, algorithm)), None)
            if fit is not None:
                _fit_line(ax, x, fit, c, f"{name} fit: {_slope_text(fit)}", log=False)
        ax.set_xlabel("ln(1/delta)")
        ax.set_ylabel("samples (mean ± s.e.)")
        ax.set_title(inst, fontsize=10)
        ax.grid(True, alpha=0.25)
        ax.legend(fontsize=7, loc="upper left")
    fig.suptitle(f"Theorem 5 (CAR-Parallel, Algorithm 3) against Theorem 4 (CAR-Cond):\nsamples against ln(1/delta) "
                 f"[fidelity {s.get('fidelity')}]", fontsize=11)
    fig.tight_layout()
    return fig


def _study_step(ctx: StepContext, study: str, table, columns, draw, fit_columns=None, with_loaded=False) -> None:
    """The body of every study step: ``table(settings, loaded)`` gives the rows (and the fits
    when ``fit_columns``), written as ``csv`` (and ``fits``), then ``draw`` makes the figure
    (``png``, ``pdf``); one sidecar per output."""
    from duelbench.provenance.sidecar import Timer

    from ..plotting import save_figure

    s = ctx.settings
    with log_to(ctx.log), Timer() as t:
        loaded = load_cells(ctx, study)
        out = table(s, loaded)
        rows, fits = out if fit_columns else (out, None)
        write_csv(ctx.output.csv, columns, rows)
        files = [ctx.output.csv]
        if fit_columns:
            write_csv(ctx.output.fits, fit_columns, fits)
            files.append(ctx.output.fits)
        args = (rows, fits) if fit_columns else (rows, loaded) if with_loaded else (rows,)
        save_figure(draw(*args, s), [ctx.output.pdf, ctx.output.png])
        print(f"{study}: {len(rows)} rows -> {ctx.output.csv}", flush=True)
        for f in fits or ():
            print(f"{study} fit: {_slope_text(f) if 'predicted_low' in f else f['slope']}", flush=True)
    sidecars(ctx, files + [ctx.output.png, ctx.output.pdf], t, {"rows": len(rows)})


def pac(ctx: StepContext) -> None:
    """Step ``pac``: ``pac.csv`` and its figure (+ sidecars)."""
    _study_step(ctx, "pac", pac_table, PAC_COLUMNS, draw_pac)


def hardness(ctx: StepContext) -> None:
    """Step ``hardness``: ``hardness.csv``, ``hardness_fits.csv`` and the figure (+ sidecars)."""
    _study_step(ctx, "hardness", hardness_table, HARDNESS_COLUMNS, draw_hardness, FIT_COLUMNS)


def epochs(ctx: StepContext) -> None:
    """Step ``epochs``: ``epochs.csv`` and its figure (+ sidecars)."""
    _study_step(ctx, "epochs", epochs_table, EPOCH_COLUMNS, draw_epochs, with_loaded=True)


def oracles(ctx: StepContext) -> None:
    """Step ``oracles``: ``oracles.csv`` and its figure (+ sidecars)."""
    _study_step(ctx, "oracles", oracles_table, ORACLE_COLUMNS, draw_oracles)


def car_cond(ctx: StepContext) -> None:
    """Step ``car_cond``: ``car_cond.csv``, ``car_cond_fits.csv`` and the figure (+ sidecars)."""
    _study_step(ctx, "car_cond", car_cond_table, CAR_COLUMNS, draw_car_cond, CAR_FIT_COLUMNS)


def parallel(ctx: StepContext) -> None:
    """Step ``parallel``: ``parallel.csv``, ``parallel_fits.csv`` and the figure (+ sidecars)."""
    _study_step(ctx, "parallel", parallel_table, PARALLEL_COLUMNS, draw_parallel, PARALLEL_FIT_COLUMNS)

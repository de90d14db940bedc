"""The statistics contract of every check: an estimate, its 95 % interval, a declared region, a verdict.

One module decides every check of every paper.  A check declares

* a **statistic** (what the paper's package measures, a :class:`~duelbench.report.checks.Measurement`),
* an **estimator** (:data:`ESTIMATORS`): how the estimate and its interval are computed from the
  measurement, and
* a **region** (:class:`Region`): the values of the statistic for which the paper's claim holds.

The verdict compares the interval with the region, never the point estimate::

    interval inside the region        -> pass
    interval outside the region       -> fail
    interval across a boundary        -> inconclusive

so that nothing passes or fails on noise.  The interval is two-sided at :data:`LEVEL` (95 %); its
decision equals two one-sided tests at ``(1 - LEVEL) / 2`` against the region's boundaries, whose
p-values are reported (``p_pass``: evidence that the statistic lies inside the region, ``p_fail``:
that it lies outside).  Across the published checks of one paper the p-values are adjusted by
Holm's step-down procedure (:func:`holm`), separately for the pass and the fail direction; the
adjusted verdict is what sets an item's status, and the raw verdict is reported beside it.

Estimators
----------
``exact``
    A number or truth value computed without sampling error (a matrix fact, a bound evaluated
    exactly); the interval is the point.
``normal``
    ``value`` with its standard error ``se`` (``df`` degrees of freedom if given, else normal):
    ``value ± q·se``.
``mean_ratio`` / ``paired_mean_ratio``
    The ratio of mean A over mean B of per-run samples ``a``, ``b`` (independent runs, or paired
    run by run).  Interval: delta method on the log scale, ``log(Ā/B̄) ± t·se`` with
    ``se² = s_a²/(n_a Ā²) + s_b²/(n_b B̄²)`` and Welch–Satterthwaite degrees of freedom
    (paired: ``se² = var(a/Ā − b/B̄)/n``, ``n − 1`` degrees of freedom).  The reproduced value of
    an ordering or a "c times" claim is therefore always mean A / mean B, whatever its factor.
``mean_difference`` / ``paired_mean_difference``
    Mean A − mean B with the Welch (or paired) t interval.
``proportion``
    ``successes`` of ``trials`` (Clopper–Pearson exact interval).
``bootstrap``
    A statistic of the runs with bootstrap ``replicates`` (:func:`bootstrap`, seeded): percentile
    interval, p-values as the share of replicates beyond a boundary.

A measurement with ``components`` (several statistics that one sentence claims together, e.g. a
label order of four curves) combines them as the check declares (``combine``): ``all`` (every
component in the region: intersection–union, ``p_pass`` the largest component ``p_pass``) or
``{at_least: k}`` (Holm's step-down over the components: k of them decided inside the region).

Regions (registry key ``region``)
---------------------------------
``{below: c}``, ``{above: c}``, ``{between: [lo, hi]}`` (open ends), ``{equals: x}`` (an exact
identity, closed), ``{is: true}`` / ``{is: false}`` (a truth value; exact), and ``{printed: x, half_unit: u, factor: f}`` for a printed number: its
rounding interval ``[x − u, x + u]`` widened by the relative tolerance ``f ≥ 1`` to
``[(x − u)/f, (x + u)·f]`` (a relative tolerance, never absolute points on a relative quantity).

Power
-----
For an inconclusive check, :func:`runs_to_decide` states how many runs per compared curve would
put the 95 % interval on one side of the nearest boundary with probability 0.8 if the true value
were the measured one: ``n·((q₀.₉₇₅ + q₀.₈)·se/d)²`` on the estimator's scale (``d`` the distance
of the estimate to the boundary, ``se`` its standard error at ``n`` runs).

Robust summaries
----------------
Wherever a compared curve's std/mean exceeds 1 (heavy-tailed or bimodal regret), the medians'
ratio and the 10 %-trimmed means' ratio are reported beside the mean ratio (shown, never decide).

Determinism
-----------
Sums are correctly rounded (:mod:`duelbench.report.numerics`: :func:`math.fsum`) and bootstrap
replicates are accumulated in a fixed order, so a written number does not depend on the
processor's SIMD or BLAS kernels nor on the order of the runs; the bootstrap stream is derived
from a declared seed and the check's id.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from .numerics import fmean, fstd, fvar, significant

#: Two-sided level of every interval.
LEVEL = 0.95
#: One-sided level of each of the two tests that the interval's decision equals.
ALPHA_ONE_SIDED = (1.0 - LEVEL) / 2.0
#: Power at which :func:`runs_to_decide` states the runs that would decide a check.
POWER = 0.8
#: Bootstrap replicates of :func:`bootstrap` (declared; the p-value resolution is 1/(B+1)).
BOOTSTRAP_REPLICATES = 20000
#: Trimmed share at each end of the robust trimmed-mean ratio.
TRIM = 0.1
#: std/mean above which the robust summaries are reported beside the means.
HEAVY_TAIL_CV = 1.0
#: Significant digits of a number in ``checks.csv`` (:func:`machine_number`): more than any
#: estimate resolves, and a value a few units in the last place off (from code outside
#: :mod:`.numerics`, e.g. an archived kernel's constants) is written the same.
MACHINE_DIGITS = 12

ESTIMATORS = ("exact", "normal", "mean_ratio", "paired_mean_ratio", "mean_difference", "paired_mean_difference",
              "proportion", "bootstrap")
SAMPLE_ESTIMATORS = ("mean_ratio", "paired_mean_ratio", "mean_difference", "paired_mean_difference")
REGION_KEYS = ("below", "above", "between", "is", "equals", "printed")
VERDICTS = ("pass", "fail", "inconclusive")


class ContractError(ValueError):
    """A check whose estimator, region or measurement do not fit together (names the check)."""


# --------------------------------------------------------------------------------------------
# deterministic summaries
# --------------------------------------------------------------------------------------------
def trimmed_mean(x, share: float = TRIM) -> float:
    """Mean of ``x`` without the ``share`` smallest and largest values (sorted, deterministic)."""
    x = np.sort(np.asarray(x, dtype=float).ravel())
    k = int(math.floor(share * x.size))
    return fmean(x[k:x.size - k]) if x.size - 2 * k > 0 else float("nan")


def sig(x, digits: int = 3) -> str:
    """``x`` with ``digits`` significant digits for a person to read (``inf``, ``nan`` spelled)."""
    if x is None or x == "":
        return ""
    if isinstance(x, (bool, np.bool_)):
        return "true" if x else "false"
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if x == 0:
        return "0"
    x = float(f"{x:.{digits - 1}e}")  # rounded to ``digits`` significant digits
    e = int(math.floor(math.log10(abs(x))))
    if -4 <= e < digits:
        return f"{x:.{max(digits - 1 - e, 0)}f}"
    if digits <= e < 6:
        return f"{x:,.0f}"
    return f"{x:.{digits - 1}e}".replace("e+0", "e").replace("e+", "e").replace("e-0", "e-")


def machine_number(x) -> str:
    """A value for a CSV: :data:`MACHINE_DIGITS` significant digits."""
    if x is None:
        return ""
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    x = float(x)
    if math.isnan(x) or math.isinf(x):
        return str(x)
    return repr(significant(x, MACHINE_DIGITS))


# --------------------------------------------------------------------------------------------
# regions
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Region:
    """The values of a statistic for which a claim holds: ``lower < x < upper`` (closed ends
    where ``closed``); ``truth`` for a truth-valued claim."""
    lower: float = -math.inf
    upper: float = math.inf
    label: str = ""
    truth: bool | None = None
    closed: bool = False

    def relation(self, lo: float, hi: float) -> str:
        """``inside``, ``outside`` or ``across`` for the interval ``[lo, hi]``."""
        if self.closed:
            if lo >= self.lower and hi <= self.upper:
                return "inside"
            return "outside" if hi < self.lower or lo > self.upper else "across"
        if lo > self.lower and hi < self.upper:
            return "inside"
        if hi <= self.lower or lo >= self.upper:
            return "outside"
        return "across"

    def boundaries(self) -> list[float]:
        return [b for b in (self.lower, self.upper) if math.isfinite(b)]


def parse_region(spec, where: str = "region") -> Region:
    """A :class:`Region` from the registry's ``region`` mapping (see the module docstring)."""
    if not isinstance(spec, Mapping) or not ("printed" in spec or (len(spec) == 1 and next(iter(spec)) in REGION_KEYS)):
        raise ContractError(f"{where}: expected one of {{below: c}}, {{above: c}}, {{between: [lo, hi]}}, {{equals: x}}, "
                            f"{{is: true|false}} or {{printed: x, half_unit: u, factor: f}}, got {spec!r}")
    if "printed" in spec:
        extra = set(spec) - {"printed", "half_unit", "factor"}
        if extra or "half_unit" not in spec or "factor" not in spec:
            raise ContractError(f"{where}: a printed number needs printed, half_unit and factor (>= 1), got {spec!r}")
        x, u, f = float(spec["printed"]), float(spec["half_unit"]), float(spec["factor"])
        if u < 0 or f < 1:
            raise ContractError(f"{where}: half_unit must be >= 0 and factor >= 1, got {spec!r}")
        lo, hi = sorted(((x - u) / f if x - u >= 0 else (x - u) * f, (x + u) * f if x + u >= 0 else (x + u) / f))
        return Region(lo, hi, f"printed {sig(x, 4)} (±{sig(u, 2)}) within ×{sig(f, 3)}: [{sig(lo, 4)}, {sig(hi, 4)}]")
    (key, val), = spec.items()
    if key == "is":
        if not isinstance(val, bool):
            raise ContractError(f"{where}: 'is' takes true or false, got {val!r}")
        return Region(0.5, math.inf, "true", truth=True) if val else Region(-math.inf, 0.5, "false", truth=False)
    if key == "equals":
        if not isinstance(val, (int, float)) or isinstance(val, bool):
            raise ContractError(f"{where}: 'equals' takes a number, got {val!r}")
        return Region(float(val), float(val), f"= {sig(val, 4)}", closed=True)
    if key == "between":
        if not (isinstance(val, Sequence) and len(val) == 2 and all(isinstance(v, (int, float)) for v in val)
                and val[0] < val[1]):
            raise ContractError(f"{where}: 'between' takes [lo, hi] with lo < hi, got {val!r}")
        return Region(float(val[0]), float(val[1]), f"in ({sig(val[0], 4)}, {sig(val[1], 4)})")
    if not isinstance(val, (int, float)) or isinstance(val, bool):
        raise ContractError(f"{where}: {key!r} takes a number, got {val!r}")
    if key == "below":
        return Region(-math.inf, float(val), f"< {sig(val, 4)}")
    return Region(float(val), math.inf, f"> {sig(val, 4)}")


# --------------------------------------------------------------------------------------------
# estimates
# --------------------------------------------------------------------------------------------
def _t_quantile(q: float, df: float | None) -> float:
    return float(stats.norm.ppf(q) if df is None or not math.isfinite(df) else stats.t.ppf(q, df))


def _t_sf(z: float, df: float | None) -> float:
    """P(T >= z)."""
    return float(stats.norm.sf(z) if df is None or not math.isfinite(df) else stats.t.sf(z, df))


@dataclass
class Estimate:
    """A statistic's estimate with its interval and the law of its estimation error.

    ``law`` is ``"exact"``, ``"t"`` (``center``, ``se``, ``df`` on the scale ``log`` or
    ``linear``), ``"bootstrap"`` (sorted ``replicates``) or ``"binomial"`` (``successes``,
    ``trials``).  ``runs`` is the number of runs per compared curve (for :func:`runs_to_decide`).
    """
    value: float
    lower: float
    upper: float
    method: str
    law: str = "exact"
    center: float = 0.0
    se: float = 0.0
    df: float | None = None
    log: bool = False
    replicates: np.ndarray | None = None
    successes: int = 0
    trials: int = 0
    runs: int | None = None
    notes: list[str] = field(default_factory=list)

    # p-values of one-sided tests against a boundary b ---------------------------------------
    def p_below(self, b: float) -> float:
        """p-value of H0: statistic >= b (small: evidence that it is below b)."""
        if self.law == "exact":
            return 0.0 if self.value < b else 1.0
        if self.law == "t":
            if self.log:
                if b <= 0:
                    return 1.0
                b = math.log(b)
            if self.se == 0:
                return 0.0 if self.center < b else 1.0
            return _t_sf((b - self.center) / self.se, self.df)
        if self.law == "bootstrap":
            r = self.replicates
            return float((np.count_nonzero(r >= b) + 1) / (r.size + 1))
        if self.law == "binomial":
            # exact: P(X <= k | p = b)
            return 1.0 if b <= 0 else 0.0 if b > 1 else float(stats.binom.cdf(self.successes, self.trials, b))
        raise ContractError(f"unknown law {self.law!r}")

    def p_above(self, b: float) -> float:
        """p-value of H0: statistic <= b (small: evidence that it is above b)."""
        if self.law == "exact":
            return 0.0 if self.value > b else 1.0
        if self.law == "t":
            if self.log:
                if b <= 0:
                    return 0.0
                b = math.log(b)
            if self.se == 0:
                return 0.0 if self.center > b else 1.0
            return _t_sf((self.center - b) / self.se, self.df)
        if self.law == "bootstrap":
            r = self.replicates
            return float((np.count_nonzero(r <= b) + 1) / (r.size + 1))
        if self.law == "binomial":
            return 1.0 if b >= 1 else 0.0 if b < 0 else float(stats.binom.sf(self.successes - 1, self.trials, b))
        raise ContractError(f"unknown law {self.law!r}")

    def scaled(self, x: float) -> float:
        return math.log(x) if self.log else x

    def scale_se(self) -> float | None:
        """Standard error on the scale the estimate is normal on (None when exact)."""
        if self.law == "t":
            return self.se
        if self.law == "bootstrap":
            return fstd(self.replicates) if self.replicates.size > 1 else None
        if self.law == "binomial" and self.trials:
            p = self.successes / self.trials
            return math.sqrt(max(p * (1 - p), 1.0 / self.trials) / self.trials)
        return None


def _exact(x) -> Estimate:
    v = float(x)
    return Estimate(v, v, v, "exact")


def _t_estimate(center: float, se: float, df: float | None, log: bool, method: str, runs: int | None) -> Estimate:
    q = _t_quantile(1.0 - ALPHA_ONE_SIDED, df) if se > 0 else 0.0
    lo, hi = center - q * se, center + q * se
    f = math.exp if log else (lambda v: v)
    return Estimate(f(center), f(lo), f(hi), method, "t", center, se, df, log, runs=runs)


def normal_estimate(value: float, se: float | None, df: float | None = None) -> Estimate:
    """``value ± q·se`` (the ``normal`` estimator; exact when ``se`` is None)."""
    if se is None:
        return _exact(value)
    return _t_estimate(float(value), float(se), df, False, f"{'t' if df else 'normal'} interval from the s.e.", None)


def welch_df(va: float, na: int, vb: float, nb: int) -> float:
    """Welch–Satterthwaite degrees of freedom of ``va/na + vb/nb``."""
    sa, sb = va / na, vb / nb
    den = (sa**2 / (na - 1) if na > 1 else 0.0) + (sb**2 / (nb - 1) if nb > 1 else 0.0)
    return (sa + sb) ** 2 / den if den > 0 else math.inf


def mean_ratio(a, b, paired: bool = False) -> Estimate:
    """Mean A / mean B with the delta-method interval on the log scale (see the module docstring)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    ma, mb = fmean(a), fmean(b)
    if ma <= 0 or mb <= 0:
        raise ContractError(f"mean ratio needs positive means, got {ma!r} and {mb!r}: declare mean_difference")
    if paired:
        if a.size != b.size:
            raise ContractError(f"paired samples of unequal length {a.size} and {b.size}")
        se = math.sqrt(fvar(a / ma - b / mb) / a.size)
        df = float(a.size - 1)
        method = "paired delta-method interval of log(mean A / mean B)"
    else:
        va, vb = fvar(a), fvar(b)
        se = math.sqrt(va / (a.size * ma**2) + vb / (b.size * mb**2))
        df = welch_df(va / ma**2, a.size, vb / mb**2, b.size)
        method = "Welch delta-method interval of log(mean A / mean B)"
    e = _t_estimate(math.log(ma / mb), se, df, True, method, min(a.size, b.size))
    e.value = ma / mb
    e.notes += robust_notes(a, b)
    return e


def mean_difference(a, b, paired: bool = False) -> Estimate:
    """Mean A − mean B with the Welch (or paired) t interval."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if paired:
        if a.size != b.size:
            raise ContractError(f"paired samples of unequal length {a.size} and {b.size}")
        d = a - b
        e = _t_estimate(fmean(d), math.sqrt(fvar(d) / d.size), float(d.size - 1), False, "paired t interval", d.size)
    else:
        va, vb = fvar(a), fvar(b)
        e = _t_estimate(fmean(a) - fmean(b), math.sqrt(va / a.size + vb / b.size), welch_df(va, a.size, vb, b.size),
                        False, "Welch t interval", min(a.size, b.size))
    e.notes += robust_notes(a, b)
    return e


def proportion(successes: int, trials: int) -> Estimate:
    """``successes/trials`` with the Clopper–Pearson interval."""
    k, n = int(successes), int(trials)
    if n <= 0 or not 0 <= k <= n:
        raise ContractError(f"proportion needs 0 <= successes <= trials > 0, got {k} of {n}")
    lo = 0.0 if k == 0 else float(stats.beta.ppf(ALPHA_ONE_SIDED, k, n - k + 1))
    hi = 1.0 if k == n else float(stats.beta.ppf(1 - ALPHA_ONE_SIDED, k + 1, n - k))
    return Estimate(k / n, lo, hi, "Clopper–Pearson interval", "binomial", successes=k, trials=n, runs=n)


def bootstrap_stream(seed: int, key: str) -> np.random.Generator:
    """The bootstrap's random stream: from the declared ``seed`` and the check's ``key``."""
    digest = hashlib.sha256(f"{int(seed)}:{key}".encode()).digest()
    return np.random.Generator(np.random.PCG64(int.from_bytes(digest[:16], "little")))


#: Terms resampled at once by a row-wise bootstrap (:func:`bootstrap` with ``rows``): bounds the
#: memory (8 bytes each) of one batch of replicates; the result does not depend on it.
BOOTSTRAP_BATCH_TERMS = 2_000_000


def bootstrap(samples: Sequence, statistic: Callable[..., float], seed: int, key: str,
              replicates: int = BOOTSTRAP_REPLICATES, paired: bool = False, rows: bool = False) -> np.ndarray:
    """Bootstrap replicates of ``statistic(*resampled)`` over runs, each sample resampled on its
    own (``paired``: one resampling of the run indices for all samples).

    With ``rows``, ``statistic`` takes a batch of replicates at once, one per row of each 2-D
    resampled sample, and returns one value per row (written with the ``*_last`` functions of
    :mod:`duelbench.report.numerics`, which give a row the bits a 1-D sample gets). The indices
    are drawn in the same order either way, so both give the same replicates; rows are faster.
    """
    xs = [np.asarray(x, dtype=float) for x in samples]
    rng = bootstrap_stream(seed, key)
    if rows:
        return _bootstrap_rows(xs, statistic, rng, replicates, paired)
    out = np.empty(replicates)
    if paired:
        n = xs[0].size
        for r in range(replicates):
            idx = rng.integers(0, n, n)
            out[r] = statistic(*(x[idx] for x in xs))
    else:
        for r in range(replicates):
            out[r] = statistic(*(x[rng.integers(0, x.size, x.size)] for x in xs))
    return out


def _bootstrap_rows(xs: list[np.ndarray], statistic: Callable, rng: np.random.Generator, replicates: int,
                    paired: bool) -> np.ndarray:
    """:func:`bootstrap` with a row-wise ``statistic``, in batches of replicates."""
    sizes = [xs[0].size] * len(xs) if paired else [x.size for x in xs]
    batch = max(1, BOOTSTRAP_BATCH_TERMS // max(1, sum(sizes)))
    out = np.empty(replicates)
    for start in range(0, replicates, batch):
        stop = min(replicates, start + batch)
        if paired:
            idx = np.array([rng.integers(0, sizes[0], sizes[0]) for _ in range(start, stop)]).reshape(stop - start, -1)
            drawn = [x[idx] for x in xs]
        else:
            idx = [np.empty((stop - start, n), dtype=np.int64) for n in sizes]
            for r in range(stop - start):
                for k, n in enumerate(sizes):
                    idx[k][r] = rng.integers(0, n, n)
            drawn = [x[i] for x, i in zip(xs, idx)]
        out[start:stop] = statistic(*drawn)
    return out


def bootstrap_estimate(value: float, replicates, runs: int | None = None) -> Estimate:
    """Percentile interval of the bootstrap ``replicates`` around ``value``."""
    r = np.sort(np.asarray(replicates, dtype=float))
    r = r[np.isfinite(r)]
    if r.size < 100:
        raise ContractError(f"bootstrap needs at least 100 finite replicates, got {r.size}")
    lo, hi = (float(np.quantile(r, q)) for q in (ALPHA_ONE_SIDED, 1 - ALPHA_ONE_SIDED))
    return Estimate(float(value), lo, hi, f"bootstrap percentile interval ({r.size} replicates)", "bootstrap",
                    replicates=r, runs=runs)


def robust_notes(a, b) -> list[str]:
    """Medians' and trimmed means' ratio where a sample's std/mean exceeds :data:`HEAVY_TAIL_CV`."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    cvs = [math.sqrt(fvar(x)) / abs(fmean(x)) if x.size > 1 and fmean(x) else 0.0 for x in (a, b)]
    if max(cvs) <= HEAVY_TAIL_CV:
        return []
    ma, mb = float(np.median(a)), float(np.median(b))
    ta, tb = trimmed_mean(a), trimmed_mean(b)
    return [f"std/mean {sig(cvs[0])} (A), {sig(cvs[1])} (B): median A {sig(ma)}, median B {sig(mb)}, "
            f"median ratio {sig(ma / mb) if mb else 'n/a'}, {int(TRIM * 100)}%-trimmed mean ratio "
            f"{sig(ta / tb) if tb else 'n/a'}"]


def estimate(estimator: str, m, where: str = "check") -> Estimate:
    """The :class:`Estimate` of a measurement ``m`` under ``estimator``."""
    if estimator in SAMPLE_ESTIMATORS:
        if m.a is None or m.b is None or len(m.a) == 0 or len(m.b) == 0:
            raise ContractError(f"{where}: estimator {estimator} needs per-run samples a and b")
        paired = estimator.startswith("paired")
        if estimator.endswith("ratio"):
            return mean_ratio(m.a, m.b, paired)
        return mean_difference(m.a, m.b, paired)
    if estimator == "proportion":
        if m.successes is None or m.trials is None:
            raise ContractError(f"{where}: estimator proportion needs successes and trials")
        return proportion(m.successes, m.trials)
    if estimator == "bootstrap":
        if m.replicates is None:
            raise ContractError(f"{where}: estimator bootstrap needs replicates")
        return bootstrap_estimate(m.value, m.replicates, m.runs)
    if estimator == "normal":
        e = normal_estimate(m.value, m.se, m.df)
        e.runs = m.runs
        return e
    if estimator == "exact":
        return _exact(m.value)
    raise ContractError(f"{where}: unknown estimator {estimator!r} (one of {ESTIMATORS})")


# --------------------------------------------------------------------------------------------
# decisions
# --------------------------------------------------------------------------------------------
@dataclass
class Decision:
    """The verdict of one estimate (or of combined components) against a region."""
    verdict: str
    estimate: Estimate
    p_pass: float
    p_fail: float
    runs_to_decide: int | None = None
    components: list[tuple[str, "Decision"]] = field(default_factory=list)


def _p_values(e: Estimate, region: Region) -> tuple[float, float]:
    if e.law == "exact" or (e.law == "t" and e.se == 0):  # no sampling error: the relation is certain
        rel = region.relation(e.lower, e.upper)
        return (0.0 if rel == "inside" else 1.0), (0.0 if rel == "outside" else 1.0)
    p_in = [e.p_above(region.lower)] if math.isfinite(region.lower) else []
    p_in += [e.p_below(region.upper)] if math.isfinite(region.upper) else []
    p_out = [e.p_below(region.lower)] if math.isfinite(region.lower) else []
    p_out += [e.p_above(region.upper)] if math.isfinite(region.upper) else []
    return (max(p_in) if p_in else 0.0), (min(p_out) if p_out else 1.0)


#: Runs beyond which :func:`runs_to_decide` reports nothing (no study here runs that many).
MAX_RUNS_TO_DECIDE = 10**9


def _binomial_decides(n: int, p: float, region: Region) -> float:
    """P over X ~ Bin(n, p) that the Clopper–Pearson interval of X/n decides the region (lies
    inside or outside it); X ranges over the binomial's bulk (beyond 12 s.d. the mass is < 1e-30)."""
    sd = math.sqrt(n * p * (1 - p))
    x = np.arange(max(0, math.floor(n * p - 12 * sd - 2)), min(n, math.ceil(n * p + 12 * sd + 2)) + 1)
    lo = np.where(x == 0, 0.0, stats.beta.ppf(ALPHA_ONE_SIDED, np.maximum(x, 1), n - x + 1))
    hi = np.where(x == n, 1.0, stats.beta.ppf(1 - ALPHA_ONE_SIDED, x + 1, np.maximum(n - x, 1)))
    if region.closed:
        decided = ((lo >= region.lower) & (hi <= region.upper)) | (hi < region.lower) | (lo > region.upper)
    else:
        decided = ((lo > region.lower) & (hi < region.upper)) | (hi <= region.lower) | (lo >= region.upper)
    return float(stats.binom.pmf(x[decided], n, p).sum()) if decided.any() else 0.0


def _binomial_runs_to_decide(p: float, n0: int, region: Region, power: float) -> int | None:
    """The smallest run count (found by doubling from ``n0``, then bisection) at which a true
    proportion ``p`` gives a Clopper–Pearson interval that decides with probability ``power``;
    exact where the normal approximation fails (e.g. no success: n > ln(α/2)/ln(1 − δ) runs to
    show a rate below δ)."""
    if any(p == b for b in region.boundaries()):
        return None
    hi = max(int(n0), 1)
    while _binomial_decides(hi, p, region) < power:
        if hi >= MAX_RUNS_TO_DECIDE:
            return None
        hi = min(2 * hi, MAX_RUNS_TO_DECIDE)
    lo = max(hi // 2, int(n0), 1)
    if lo >= hi or _binomial_decides(lo, p, region) >= power:
        return lo
    while hi - lo > max(1, hi // 1000):  # 0.1 %: the answer is read at 3 significant digits
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if _binomial_decides(mid, p, region) >= power else (mid, hi)
    return hi


def runs_to_decide(e: Estimate, region: Region, power: float = POWER) -> int | None:
    """Runs per compared curve that would decide the check with probability ``power`` if the true
    value were the estimate (None when the estimate is exact, on the boundary, or has no runs).
    A proportion's count is found on the binomial law itself (:func:`_binomial_runs_to_decide`);
    the others on the normal approximation of the estimate."""
    if e.law == "binomial" and e.trials:
        return _binomial_runs_to_decide(e.successes / e.trials, e.trials, region, power)
    se = e.scale_se()
    if se is None or not se or not e.runs:
        return None
    value = e.center if e.law == "t" else e.value
    d = min(abs(value - e.scaled(b)) if (not e.log or b > 0) else math.inf for b in region.boundaries())
    if not d or not math.isfinite(d):
        return None
    q = _t_quantile(1 - ALPHA_ONE_SIDED, None) + _t_quantile(power, None)
    return int(math.ceil(e.runs * (q * se / d) ** 2))


def decide(e: Estimate, region: Region) -> Decision:
    """pass (interval inside the region), fail (outside) or inconclusive (across)."""
    rel = region.relation(e.lower, e.upper)
    verdict = {"inside": "pass", "outside": "fail", "across": "inconclusive"}[rel]
    p_pass, p_fail = _p_values(e, region)
    return Decision(verdict, e, p_pass, p_fail, runs_to_decide(e, region) if verdict == "inconclusive" else None)


def combine(parts: Sequence[tuple[str, Decision]], rule) -> Decision:
    """One decision from components' decisions: ``"all"`` or ``{"at_least": k}``."""
    n = len(parts)
    if not n:
        raise ContractError("a combined claim needs at least one component")
    ds = [d for _, d in parts]
    if rule == "all":
        k = n
        p_pass = max(d.p_pass for d in ds)
        p_fail = min(1.0, n * min(d.p_fail for d in ds))
    elif isinstance(rule, Mapping) and isinstance(rule.get("at_least"), int) and 1 <= rule["at_least"] <= n:
        k = int(rule["at_least"])
        ps = sorted(d.p_pass for d in ds)
        p_pass = max(ps[j] * (n - j) for j in range(k))  # Holm's step-down: k rejections
        fails = sorted(d.p_fail for d in ds)
        need = n - k + 1  # the claim fails once n - k + 1 components fail
        p_fail = max(fails[j] * (n - j) for j in range(need))
    else:
        raise ContractError(f"combine must be 'all' or {{at_least: k}} with 1 <= k <= {n}, got {rule!r}")
    passed = sum(d.verdict == "pass" for d in ds)
    failed = sum(d.verdict == "fail" for d in ds)
    verdict = "pass" if passed >= k else "fail" if failed > n - k else "inconclusive"
    # the component that decides: the k-th best by p_pass
    order = sorted(range(n), key=lambda j: ds[j].p_pass)
    key = ds[order[k - 1]]
    need_runs = [d.runs_to_decide for d in ds if d.verdict == "inconclusive" and d.runs_to_decide]
    return Decision(verdict, key.estimate, min(1.0, p_pass), min(1.0, p_fail),
                    max(need_runs) if verdict == "inconclusive" and need_runs else None, list(parts))


def holm(p: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (monotone, capped at 1)."""
    m = len(p)
    order = sorted(range(m), key=lambda i: (p[i], i))
    adj = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adj[i] = running
    return adj


def adjusted_verdicts(decisions: Sequence[Decision]) -> list[tuple[str, float, float]]:
    """(verdict, adjusted p_pass, adjusted p_fail) of each decision after Holm's adjustment of the
    pass and the fail direction over the family ``decisions``; exact decisions keep theirs."""
    pp, pf = holm([d.p_pass for d in decisions]), holm([d.p_fail for d in decisions])
    out = []
    for d, a, b in zip(decisions, pp, pf):
        if d.estimate.law == "exact" and not d.components:
            out.append((d.verdict, d.p_pass, d.p_fail))
            continue
        v = "pass" if a < ALPHA_ONE_SIDED else "fail" if b < ALPHA_ONE_SIDED else "inconclusive"
        out.append((v, a, b))
    return out

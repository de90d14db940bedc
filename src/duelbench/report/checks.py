"""Published-number registry and replication checks.

``data/published/<paper>.yaml`` holds one entry per check, written before the run it judges::

    paper: komiyama2016
    checks:
      - id: table1_lb_mean
        kind: published            # published number or claim | theory identity | regression
        item: Table 1
        description: mean Theorem-2 constant over 10^4 random 16-arm submatrices
        published: 670             # as printed (6.7x10^2); null for claims without a number
        statistic: table1.lb.mean  # what the experiment computes (its module documents it)
        test: abs_tolerance        # see TESTS below
        tolerance: 50              # test-specific; documented per test
        gate: quick                # quick | full | none: the fidelity at which it is asserted
        alpha: 0.05                # for statistical tests

Experiments compute a :class:`Measurement` per statistic; :func:`evaluate` compares it with the
declared test and returns ``pass``, ``fail`` or ``inconclusive`` (``shown`` for a number
shown without a claim).  A published number is only
ever *compared against*: nothing here feeds it back into a computation.

Tests (``TESTS``):

* ``abs_tolerance``: pass iff ``|x − published| ≤ tolerance + z·se`` (``z`` = ``se_multiplier``,
  default 0; declare it to allow for Monte-Carlo error).
* ``rel_tolerance``: pass iff ``|x/published − 1| ≤ tolerance``.
* ``log10_tolerance``: pass iff ``|log10 x − log10 published| ≤ tolerance`` (orders of magnitude).
* ``greater_than`` / ``less_than``: pass iff ``x > threshold`` / ``x < threshold`` where
  ``threshold`` is the declared ``threshold`` (else ``published``).
* ``true``: a boolean claim; pass iff the measurement is true.
* ``in_interval``: a prediction "x lies in [lower, upper]" (e.g. a fitted slope); pass iff
  ``lower ≤ x ≤ upper``; outside it, inconclusive while ``[x − z·se, x + z·se]`` (``z`` =
  ``se_multiplier``, default 0) still meets the interval, else fail.
* ``less_mean_welch``: paired samples ``a`` (runs of A) and ``b`` (runs of B); the claim is
  "mean A < mean B".  One-sided Welch t-test at level ``alpha``: pass if significant in the
  claimed direction, fail if significant in the opposite direction, else inconclusive.
  Declare ``min_runs``: with fewer runs per side the outcome is inconclusive.
* ``not_less_mean_welch``: the claim is "A is not better than B" (mean A ≥ mean B): fail if the
  one-sided Welch test finds mean A < mean B at level ``alpha``, else pass.
* ``ratio_less_welch``: as above for "mean A < c · mean B" (``factor`` = c), using the samples
  ``a`` and ``c·b``.
* ``less_mean_paired`` / ``ratio_less_paired``: the same claims for paired samples (``a[r]`` and
  ``b[r]`` come from the same run r, e.g. the same random instance): one-sided paired t-test on
  ``a − c·b`` (``c`` = ``factor``, 1 for ``less_mean_paired``) at level ``alpha``; pass if
  significant in the claimed direction, fail if significant in the opposite one, else
  inconclusive.  ``min_runs`` as above; ``a`` and ``b`` must have equal length.
* ``shown``: a number the paper shows (or the suite shows beside the claims) without claiming
  anything about it: its outcome is ``shown`` whatever the value (``inconclusive`` if it was not
  computed), never ``pass``; it needs gate ``none`` and counts in no item's status.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import yaml

from duelbench.provenance.sidecar import atomic_write

KINDS = ("published", "theory", "regression")
GATES = ("quick", "full", "none")
OUTCOMES = ("pass", "fail", "inconclusive", "shown")
TESTS = ("abs_tolerance", "rel_tolerance", "log10_tolerance", "greater_than", "less_than", "true", "in_interval",
         "less_mean_welch", "not_less_mean_welch", "ratio_less_welch", "less_mean_paired", "ratio_less_paired",
         "shown")
#: Two-sample tests: their measurement carries the per-run samples ``a`` and ``b``.
SAMPLE_TESTS = ("less_mean_welch", "ratio_less_welch", "not_less_mean_welch", "less_mean_paired",
                "ratio_less_paired")
CHECK_COLUMNS = ("claim_id", "kind", "item", "description", "published", "reproduced", "tolerance", "gate",
                 "outcome", "test", "statistic", "fidelity", "asserted", "evidence")
STATUS_COLUMNS = ("paper", "item", "status", "checks_passed", "checks_total", "note")
#: ``inconclusive`` extends DESIGN.md's four statuses: every check of the item was computed but
#: none could be decided at this fidelity (e.g. orderings with too few runs in a quick build);
#: ``not_reproducible`` stays reserved for items whose data or details are unavailable.
STATUSES = ("replicated", "partly_replicated", "not_replicated", "not_reproducible", "inconclusive")
_REQUIRED = ("id", "kind", "item", "description", "statistic", "test", "gate")


class RegistryError(ValueError):
    """A malformed published-number registry; the message names the file and the entry."""


@dataclass
class Measurement:
    """What an experiment reproduced for one statistic.

    ``value`` is the point estimate (number or bool); ``se`` its standard error if any;
    ``a``/``b`` per-run samples for the two-sample tests; ``evidence`` a short text shown in
    ``checks.csv`` (e.g. means and p-value).
    """

    value: Any = None
    se: float | None = None
    a: Sequence[float] | None = None
    b: Sequence[float] | None = None
    evidence: str = ""


@dataclass
class CheckResult:
    check: dict
    outcome: str
    reproduced: Any
    evidence: str
    fidelity: str
    asserted: bool = field(default=False)

    def row(self) -> dict:
        c = self.check
        tol = c.get("tolerance", c.get("threshold", c.get("factor", "")))
        return {"claim_id": c["id"], "kind": c["kind"], "item": c["item"], "description": c["description"],
                "published": "" if c.get("published") is None else c["published"],
                "reproduced": _fmt(self.reproduced), "tolerance": tol, "gate": c["gate"], "outcome": self.outcome,
                "test": c["test"], "statistic": c["statistic"], "fidelity": self.fidelity,
                "asserted": self.asserted, "evidence": self.evidence}


def _fmt(x) -> str:
    if x is None:
        return ""
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, float, np.floating, np.integer)):
        return repr(float(x)) if isinstance(x, (float, np.floating)) else str(int(x))
    return str(x)


#: Keys of an erratum of the paper text (the registry's optional ``errata`` list): where, what is
#: printed, what the suite uses instead, and the evidence (the file or check that shows it).
ERRATUM_KEYS = ("id", "lines", "printed", "used", "evidence")


def load_registry(path) -> dict:
    """Read and validate ``data/published/<paper>.yaml``; errors name the file and the check."""
    path = Path(path)
    try:
        doc = yaml.safe_load(path.read_text())
    except FileNotFoundError:
        raise RegistryError(f"{path}: published-number registry not found") from None
    except yaml.YAMLError as exc:
        raise RegistryError(f"{path}: not valid YAML ({exc})") from None
    if not isinstance(doc, dict) or "paper" not in doc or not isinstance(doc.get("checks"), list):
        raise RegistryError(f"{path}: expected a mapping with keys 'paper' and 'checks' (a list)")
    seen = set()
    for k, c in enumerate(doc["checks"]):
        where = f"{path}: checks[{k}]" + (f" (id {c.get('id')!r})" if isinstance(c, dict) else "")
        if not isinstance(c, dict):
            raise RegistryError(f"{where}: each check must be a mapping")
        missing = [key for key in _REQUIRED if key not in c]
        if missing:
            raise RegistryError(f"{where}: missing key(s) {missing}")
        if c["id"] in seen:
            raise RegistryError(f"{where}: duplicate id")
        seen.add(c["id"])
        if c["kind"] not in KINDS:
            raise RegistryError(f"{where}: kind must be one of {KINDS}, got {c['kind']!r}")
        if c["gate"] not in GATES:
            raise RegistryError(f"{where}: gate must be one of {GATES}, got {c['gate']!r}")
        if c["test"] not in TESTS:
            raise RegistryError(f"{where}: test must be one of {TESTS}, got {c['test']!r}")
        if c["test"] in ("abs_tolerance", "rel_tolerance", "log10_tolerance") and ("tolerance" not in c or c.get("published") is None):
            raise RegistryError(f"{where}: test {c['test']} needs 'published' and 'tolerance'")
        if c["test"] in ("greater_than", "less_than") and c.get("threshold", c.get("published")) is None:
            raise RegistryError(f"{where}: test {c['test']} needs 'threshold' (or 'published')")
        if c["test"] == "in_interval" and not (isinstance(c.get("lower"), (int, float))
                                               and isinstance(c.get("upper"), (int, float)) and c["lower"] <= c["upper"]):
            raise RegistryError(f"{where}: test in_interval needs numbers 'lower' <= 'upper'")
        if c["test"] in ("ratio_less_welch", "ratio_less_paired") and "factor" not in c:
            raise RegistryError(f"{where}: test {c['test']} needs 'factor'")
        if c["test"] == "shown" and (c["gate"] != "none" or any(k in c for k in ("threshold", "tolerance", "factor"))):
            raise RegistryError(f"{where}: test shown states no claim: it takes gate none and no threshold, "
                                "tolerance or factor")
    errata = doc.get("errata", [])
    if not isinstance(errata, list):
        raise RegistryError(f"{path}: 'errata' must be a list")
    for k, e in enumerate(errata):
        missing = [key for key in ERRATUM_KEYS if not (isinstance(e, dict) and e.get(key))]
        if missing:
            raise RegistryError(f"{path}: errata[{k}]: missing key(s) {missing} (each erratum has {list(ERRATUM_KEYS)})")
    return doc


def is_asserted(gate: str, fidelity: str) -> bool:
    """``quick`` checks are asserted at every fidelity but smoke, ``full`` only at paper fidelity."""
    if gate == "quick":
        return fidelity in ("quick", "paper")
    if gate == "full":
        return fidelity == "paper"
    return False


def welch_one_sided(a, b) -> tuple[float, float]:
    """t statistic and one-sided p-value for H1: mean(a) < mean(b) (Welch–Satterthwaite df)."""
    from scipy import stats

    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    diff = a.mean() - b.mean()
    if va + vb == 0:
        return (-math.inf if diff < 0 else math.inf if diff > 0 else 0.0), (0.0 if diff < 0 else 1.0)
    t = diff / math.sqrt(va + vb)
    df = (va + vb) ** 2 / ((va**2 / (a.size - 1) if a.size > 1 else 0) + (vb**2 / (b.size - 1) if b.size > 1 else 0))
    return t, float(stats.t.cdf(t, df))


def paired_one_sided(a, b) -> tuple[float, float]:
    """t statistic and one-sided p-value for H1: mean(a − b) < 0 (paired t-test, n − 1 df)."""
    from scipy import stats

    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    se = d.std(ddof=1) / math.sqrt(d.size) if d.size > 1 else 0.0
    if se == 0:
        m = d.mean()
        return (-math.inf if m < 0 else math.inf if m > 0 else 0.0), (0.0 if m < 0 else 1.0)
    t = d.mean() / se
    return t, float(stats.t.cdf(t, d.size - 1))


def evaluate(check: Mapping, m: Measurement, fidelity: str) -> CheckResult:
    """Apply the declared test of ``check`` to the measurement ``m``."""
    test = check["test"]
    pub = check.get("published")
    asserted = is_asserted(check["gate"], fidelity)
    if test in SAMPLE_TESTS:
        a = np.asarray(m.a, dtype=float)
        b = np.asarray(m.b, dtype=float) * float(check.get("factor", 1.0))
        if min(a.size, b.size) < int(check.get("min_runs", 2)):
            ev = (m.evidence + "; " if m.evidence else "") + f"only {min(a.size, b.size)} runs (min_runs {check.get('min_runs', 2)})"
            return CheckResult(dict(check), "inconclusive", m.value, ev, fidelity, asserted)
        alpha = float(check.get("alpha", 0.05))
        paired = test in ("less_mean_paired", "ratio_less_paired")
        if paired and a.size != b.size:
            raise ValueError(f"check {check['id']}: paired samples of unequal length {a.size} and {b.size}")
        one_sided = paired_one_sided if paired else welch_one_sided
        t, p = one_sided(a, b)
        _, p_rev = one_sided(b, a)
        if test == "not_less_mean_welch":
            outcome = "fail" if p < alpha else "pass"
        else:
            outcome = "pass" if p < alpha else "fail" if p_rev < alpha else "inconclusive"
        ev = f"mean A={a.mean():.6g}, mean B{'·c' if test.startswith('ratio') else ''}={b.mean():.6g}, " \
             f"n={a.size}/{b.size}, one-sided {'paired t' if paired else 'Welch'} p={p:.3g}"
        value = m.value if m.value is not None else a.mean() / b.mean() if b.mean() else math.inf
        return CheckResult(dict(check), outcome, value, (m.evidence + "; " if m.evidence else "") + ev, fidelity, asserted)
    x = m.value
    if x is None:
        return CheckResult(dict(check), "inconclusive", None, m.evidence or "not computed at this fidelity", fidelity,
                           asserted)
    if test == "shown":
        return CheckResult(dict(check), "shown", x, m.evidence, fidelity, asserted)
    if test == "in_interval":
        lo, hi, x = float(check["lower"]), float(check["upper"]), float(x)
        z = float(check.get("se_multiplier", 0.0)) * float(m.se or 0.0)
        outcome = "pass" if lo <= x <= hi else "inconclusive" if (x - z <= hi and x + z >= lo) else "fail"
        ev = (m.evidence + "; " if m.evidence else "") + (f"s.e. {m.se:.3g}" if m.se is not None else "")
        return CheckResult(dict(check), outcome, x, ev.rstrip("; "), fidelity, asserted)
    if test == "true":
        ok = bool(x)
    elif test == "abs_tolerance":
        slack = float(check["tolerance"]) + float(check.get("se_multiplier", 0.0)) * float(m.se or 0.0)
        ok = abs(float(x) - float(pub)) <= slack
    elif test == "rel_tolerance":
        ok = abs(float(x) / float(pub) - 1.0) <= float(check["tolerance"])
    elif test == "log10_tolerance":
        ok = float(x) > 0 and abs(math.log10(float(x)) - math.log10(float(pub))) <= float(check["tolerance"])
    elif test == "greater_than":
        ok = float(x) > float(check.get("threshold", pub))
    elif test == "less_than":
        ok = float(x) < float(check.get("threshold", pub))
    else:  # pragma: no cover - guarded by load_registry
        raise RegistryError(f"unknown test {test!r}")
    ev = m.evidence
    if m.se is not None:
        ev = (ev + "; " if ev else "") + f"s.e. {m.se:.3g}"
    return CheckResult(dict(check), "pass" if ok else "fail", x, ev, fidelity, asserted)


def evaluate_registry(registry: Mapping, measurements: Mapping[str, Measurement], fidelity: str) -> list[CheckResult]:
    """Evaluate every check; a statistic the experiment did not compute is ``inconclusive``."""
    out = []
    for c in registry["checks"]:
        m = measurements.get(c["statistic"])
        if m is None:
            m = Measurement(evidence=f"statistic {c['statistic']!r} not computed")
        out.append(evaluate(c, m, fidelity))
    return out


def _atomic_csv(path, columns, rows) -> None:
    def write(fh):
        w = csv.DictWriter(fh, fieldnames=list(columns))
        w.writeheader()
        for r in rows:
            w.writerow(r)

    atomic_write(path, write, "w", newline="", encoding="utf-8")


def write_checks_csv(results: Sequence[CheckResult], path) -> None:
    """``figures/<paper>/checks.csv`` (columns ``CHECK_COLUMNS``)."""
    _atomic_csv(path, CHECK_COLUMNS, [r.row() for r in results])


def outcome_counts(results: Sequence[CheckResult]) -> dict[str, int]:
    """Number of results per outcome (every one of :data:`OUTCOMES`, zeros included)."""
    return {o: sum(r.outcome == o for r in results) for o in OUTCOMES}


def item_status(results: Sequence[CheckResult], unavailable: bool = False) -> str:
    """``replicated`` if every check passes, ``not_replicated`` if none does, else partly;
    ``inconclusive`` if none could be decided, ``not_reproducible`` if ``unavailable``; ``shown``
    rows state no claim and are left out."""
    if unavailable:
        return "not_reproducible"
    results = [r for r in results if r.outcome != "shown"]
    decided = [r for r in results if r.outcome != "inconclusive"]
    passed = sum(r.outcome == "pass" for r in decided)
    if not decided:
        return "inconclusive"
    if passed == len(results):
        return "replicated"
    if passed == 0:
        return "not_replicated"
    return "partly_replicated"


def status_rows(paper: str, results: Sequence[CheckResult], notes: Mapping[str, str] | None = None) -> list[dict]:
    """One ``replication_status.csv`` row per item of ``paper`` (published-kind checks only)."""
    by_item: dict[str, list[CheckResult]] = {}
    for r in results:
        if r.check["kind"] == "published" and r.outcome != "shown":
            by_item.setdefault(r.check["item"], []).append(r)
    rows = []
    for item in sorted(by_item):
        rs = by_item[item]
        note = (notes or {}).get(item, "")
        inconclusive = sum(r.outcome == "inconclusive" for r in rs)
        if inconclusive and not note:
            note = f"{inconclusive} check(s) inconclusive at this fidelity"
        rows.append({"paper": paper, "item": item, "status": item_status(rs),
                     "checks_passed": sum(r.outcome == "pass" for r in rs), "checks_total": len(rs), "note": note})
    return rows


def write_status_csv(rows: Sequence[Mapping], path) -> None:
    """``figures/replication_status.csv`` (columns ``STATUS_COLUMNS``)."""
    _atomic_csv(path, STATUS_COLUMNS, rows)


def read_csv_rows(path) -> list[dict]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))

"""Published-claim registry and replication checks.

``data/published/<paper>.yaml`` holds one entry per check, written before the run it judges::

    paper: komiyama2016
    multiplicity: holm             # adjustment over the paper's published checks (the only one)
    checks:
      - id: table1_lb_mean
        kind: published            # published | theory | erratum | shown (see KINDS)
        item: Table 1
        quote: "6.7 × 10^2"        # published: the paper's words or number, short
        lines: L300                # published: where (Lnnn, or @offset for a one-line text)
        description: mean Theorem-2 constant over 10^4 random 16-arm submatrices
        statistic: table1:lb:mean  # what the experiment computes (its module documents it)
        estimator: normal          # duelbench.report.verdict.ESTIMATORS
        region: {printed: 670, half_unit: 5, factor: 1.1}   # where the claim holds
        gate: quick                # quick | full | none: the fidelity at which it is asserted

Every check is decided by :mod:`duelbench.report.verdict`: the estimate's 95 % interval inside
the region passes, outside fails, across a boundary is inconclusive; the p-values of the published
checks of a paper are Holm-adjusted and the adjusted verdict sets the items' status.

Kinds (``KINDS``): ``published`` — a sentence, number or figure feature the paper states (with
``quote`` and ``lines``); only these set a status.  ``theory`` — the suite's own test of a theorem
or of an assumption (reported in its own section).  ``erratum`` — a test of a printed formula or
statement the paper's errata list corrects (``erratum: <id>`` of the registry's ``errata``).
``shown`` — a number shown without a claim (outcome ``shown``, no region).

Earlier registries name a ``test`` instead of an estimator and a region; :data:`LEGACY_TESTS`
translates each into the contract (``published``/``threshold``/``tolerance``/``factor``/
``lower``/``upper`` give the region), so one contract decides every check.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import yaml

from duelbench.provenance.sidecar import atomic_write

from . import verdict as V
from .numerics import fmean

KINDS = ("published", "theory", "erratum", "shown")
GATES = ("quick", "full", "none")
OUTCOMES = ("pass", "fail", "inconclusive", "shown")
#: Legacy ``test`` names and the contract each stands for: (estimator, region builder).  The
#: sample tests decide on the ratio of means (the reproduced value is mean A / mean B).
LEGACY_TESTS = ("abs_tolerance", "rel_tolerance", "log10_tolerance", "greater_than", "less_than", "true",
                "in_interval", "less_mean_welch", "not_less_mean_welch", "ratio_less_welch", "less_mean_paired",
                "ratio_less_paired", "shown")
CHECK_COLUMNS = ("claim_id", "kind", "item", "lines", "quote", "description", "statistic", "estimator", "region",
                 "estimate", "ci_low", "ci_high", "p_pass", "p_fail", "outcome", "p_pass_adjusted",
                 "p_fail_adjusted", "outcome_adjusted", "runs", "runs_to_decide", "robust", "published", "erratum",
                 "gate", "asserted", "fidelity", "method", "evidence")
STATUS_COLUMNS = ("paper", "item", "status", "checks_passed", "checks_total", "note")
#: ``inconclusive`` extends DESIGN.md's four statuses: every check of the item was computed but
#: none could be decided at this fidelity (e.g. orderings with too few runs in a quick build);
#: ``not_reproducible`` stays reserved for items whose data or details are unavailable.
STATUSES = ("replicated", "partly_replicated", "not_replicated", "not_reproducible", "inconclusive")
_REQUIRED = ("id", "kind", "item", "description", "statistic", "gate")


class RegistryError(ValueError):
    """A malformed published-number registry; the message names the file and the entry."""


@dataclass
class Measurement:
    """What an experiment measured for one statistic.

    ``value`` the point estimate (number or bool) and ``se`` its standard error (``df`` its
    degrees of freedom) if any; ``a``/``b`` per-run samples of the two compared curves;
    ``successes``/``trials`` for a proportion; ``replicates`` bootstrap replicates of ``value``
    (:func:`duelbench.report.verdict.bootstrap`); ``runs`` the runs behind it; ``components``
    (label, Measurement) pairs that one claim judges together; ``evidence`` a short text shown in
    ``checks.csv`` (which curves, which panel).
    """

    value: Any = None
    se: float | None = None
    a: Sequence[float] | None = None
    b: Sequence[float] | None = None
    evidence: str = ""
    df: float | None = None
    successes: int | None = None
    trials: int | None = None
    replicates: Sequence[float] | None = None
    runs: int | None = None
    components: Sequence[tuple[str, "Measurement"]] | None = None


@dataclass
class CheckResult:
    """The verdict of one check: raw (its own 95 % interval) and Holm-adjusted over the paper's
    published checks (``adjusted``; equal to ``outcome`` for the other kinds)."""

    check: dict
    outcome: str
    decision: V.Decision | None
    evidence: str
    fidelity: str
    asserted: bool = False
    adjusted: str = ""
    p_pass_adjusted: float | None = None
    p_fail_adjusted: float | None = None
    value: Any = None

    @property
    def status_outcome(self) -> str:
        return self.adjusted or self.outcome

    def row(self) -> dict:
        c, d = self.check, self.decision
        e = d.estimate if d else None
        region = c.get("_region")
        value = e.value if e else self.value
        if isinstance(self.value, (bool, np.bool_)):
            value = bool(self.value)
        elif e and region is not None and region.truth is not None and e.law == "exact":
            value = bool(e.value > 0.5)  # a truth value is written as one
        robust = "; ".join(e.notes) if e else ""
        return {"claim_id": c["id"], "kind": c["kind"], "item": c["item"], "lines": c.get("lines", ""),
                "quote": c.get("quote", ""), "description": c["description"], "statistic": c["statistic"],
                "estimator": c.get("_estimator", ""), "region": region.label if region else "",
                "estimate": V.machine_number(value), "ci_low": V.machine_number(e.lower) if e else "",
                "ci_high": V.machine_number(e.upper) if e else "",
                "p_pass": V.machine_number(d.p_pass) if d else "", "p_fail": V.machine_number(d.p_fail) if d else "",
                "outcome": self.outcome,
                "p_pass_adjusted": V.machine_number(self.p_pass_adjusted),
                "p_fail_adjusted": V.machine_number(self.p_fail_adjusted),
                "outcome_adjusted": self.status_outcome, "runs": e.runs if e and e.runs else "",
                "runs_to_decide": d.runs_to_decide if d and d.runs_to_decide else "", "robust": robust,
                "published": "" if c.get("published") is None else c["published"], "erratum": c.get("erratum", ""),
                "gate": c["gate"], "asserted": self.asserted, "fidelity": self.fidelity,
                "method": e.method if e else "", "evidence": self.evidence}


#: Keys of an erratum of the paper text (the registry's optional ``errata`` list): where, what is
#: printed, what the suite uses instead, and the evidence (the file or check that shows it).
ERRATUM_KEYS = ("id", "lines", "printed", "used", "evidence")


def _num(c, key):
    """A number of the registry (YAML 1.1 reads ``1e-09`` as a string: accepted)."""
    v = c.get(key)
    if isinstance(v, bool):
        return None
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def contract(c: Mapping, where: str = "check") -> tuple[str, V.Region | None, Any]:
    """(estimator, region, combine) of a check: declared, or translated from its legacy ``test``."""
    if "estimator" in c or "region" in c:
        if "test" in c:
            raise RegistryError(f"{where}: declare either a test or an estimator and a region, not both")
        est = c.get("estimator")
        if est not in V.ESTIMATORS:
            raise RegistryError(f"{where}: estimator must be one of {V.ESTIMATORS}, got {est!r}")
        if c["kind"] == "shown":
            return est, None, c.get("combine")
        if "region" not in c:
            raise RegistryError(f"{where}: a {c['kind']} check needs a region")
        try:
            return est, V.parse_region(c["region"], f"{where}: region"), c.get("combine")
        except V.ContractError as exc:
            raise RegistryError(str(exc)) from None
    test = c.get("test")
    if test not in LEGACY_TESTS:
        raise RegistryError(f"{where}: declare estimator and region (or a test, one of {LEGACY_TESTS}), got {test!r}")
    pub, tol = _num(c, "published"), _num(c, "tolerance")
    thr = _num(c, "threshold") if "threshold" in c else pub
    factor = _num(c, "factor")
    if test in ("abs_tolerance", "rel_tolerance", "log10_tolerance") and (pub is None or tol is None):
        raise RegistryError(f"{where}: test {test} needs 'published' and 'tolerance'")
    if test in ("greater_than", "less_than") and thr is None:
        raise RegistryError(f"{where}: test {test} needs 'threshold' (or 'published')")
    if test in ("ratio_less_welch", "ratio_less_paired") and factor is None:
        raise RegistryError(f"{where}: test {test} needs 'factor'")
    if test == "in_interval" and not (_num(c, "lower") is not None and _num(c, "upper") is not None
                                      and c["lower"] <= c["upper"]):
        raise RegistryError(f"{where}: test in_interval needs numbers 'lower' <= 'upper'")
    R = V.parse_region
    table = {
        "abs_tolerance": lambda: ("normal", R({"between": [pub - tol, pub + tol]} if tol else {"equals": pub})),
        "rel_tolerance": lambda: ("normal", R({"between": sorted([pub * (1 - tol), pub * (1 + tol)])})),
        "log10_tolerance": lambda: ("normal", R({"between": [pub / 10**tol, pub * 10**tol]})),
        "greater_than": lambda: ("normal", R({"above": thr})),
        "less_than": lambda: ("normal", R({"below": thr})),
        "true": lambda: ("exact", R({"is": True})),
        "in_interval": lambda: ("normal", R({"between": [c["lower"], c["upper"]]})),
        "less_mean_welch": lambda: ("mean_ratio", R({"below": 1})),
        "not_less_mean_welch": lambda: ("mean_ratio", R({"above": 1})),
        "ratio_less_welch": lambda: ("mean_ratio", R({"below": factor})),
        "less_mean_paired": lambda: ("paired_mean_ratio", R({"below": 1})),
        "ratio_less_paired": lambda: ("paired_mean_ratio", R({"below": factor})),
        "shown": lambda: ("normal", None),
    }
    try:
        est, region = table[test]()
    except V.ContractError as exc:
        raise RegistryError(f"{where}: {exc}") from None
    return est, region, c.get("combine")


def load_registry(path) -> dict:
    """Read and validate ``data/published/<paper>.yaml``; errors name the file and the check.
    Each check gains ``_estimator``, ``_region`` and ``_combine`` (its contract)."""
    path = Path(path)
    try:
        doc = yaml.safe_load(path.read_text())
    except FileNotFoundError:
        raise RegistryError(f"{path}: published-number registry not found") from None
    except yaml.YAMLError as exc:
        raise RegistryError(f"{path}: not valid YAML ({exc})") from None
    if not isinstance(doc, dict) or "paper" not in doc or not isinstance(doc.get("checks"), list):
        raise RegistryError(f"{path}: expected a mapping with keys 'paper' and 'checks' (a list)")
    if doc.get("multiplicity", "holm") != "holm":
        raise RegistryError(f"{path}: multiplicity must be 'holm' (the adjustment the suite declares)")
    errata = doc.get("errata", [])
    if not isinstance(errata, list):
        raise RegistryError(f"{path}: 'errata' must be a list")
    for k, e in enumerate(errata):
        missing = [key for key in ERRATUM_KEYS if not (isinstance(e, dict) and e.get(key))]
        if missing:
            raise RegistryError(f"{path}: errata[{k}]: missing key(s) {missing} (each erratum has {list(ERRATUM_KEYS)})")
    errata_ids = {e["id"] for e in errata}
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
        if c["kind"] == "regression":
            raise RegistryError(f"{where}: kind 'regression' is retired: a number shown without a claim is kind "
                                "'shown', the suite's own test of a theorem is kind 'theory'")
        if c["kind"] not in KINDS:
            raise RegistryError(f"{where}: kind must be one of {KINDS}, got {c['kind']!r}")
        if c["gate"] not in GATES:
            raise RegistryError(f"{where}: gate must be one of {GATES}, got {c['gate']!r}")
        if c["kind"] == "erratum" and c.get("erratum") not in errata_ids:
            raise RegistryError(f"{where}: kind erratum names its entry of the errata list (erratum: <id>, one of "
                                f"{sorted(errata_ids)}), got {c.get('erratum')!r}")
        if c["kind"] == "erratum" and c["gate"] != "none":
            raise RegistryError(f"{where}: an erratum check tests the statement as printed, which the errata list "
                                "corrects: its fail confirms the correction, so it is reported in the errata table "
                                f"and never asserted; declare gate none (got {c['gate']!r})")
        if c.get("test") == "shown" and c["kind"] not in ("shown", "theory"):
            raise RegistryError(f"{where}: test shown states no claim: declare kind shown")
        if (c["kind"] == "shown" or c.get("test") == "shown") and (
                c["gate"] != "none" or any(k in c for k in ("threshold", "tolerance", "factor", "region"))):
            raise RegistryError(f"{where}: test shown states no claim: it takes gate none and no threshold, "
                                "tolerance, factor or region")
        c["_estimator"], c["_region"], c["_combine"] = contract(c, where)
    return doc


def aliased_registry(registry: Mapping, aliases: Mapping[str, str]) -> dict:
    """``registry`` with each dataset of ``aliases`` renamed inside the check statistics
    (``order:<dataset>:a:b`` and the like), so a variant scores the same checks on another
    instance."""
    if not aliases:
        return dict(registry)
    out = dict(registry)
    checks = []
    for c in registry.get("checks", []):
        parts = str(c.get("statistic", "")).split(":")
        checks.append({**c, "statistic": ":".join(aliases.get(p, p) for p in parts)})
    out["checks"] = checks
    return out


def is_asserted(gate: str, fidelity: str) -> bool:
    """``quick`` checks are asserted at every fidelity but smoke, ``full`` only at paper fidelity."""
    if gate == "quick":
        return fidelity in ("quick", "paper")
    if gate == "full":
        return fidelity == "paper"
    return False


def _with_contract(check: Mapping) -> dict:
    c = dict(check)
    if "_estimator" not in c:
        c["_estimator"], c["_region"], c["_combine"] = contract(c, f"check {c.get('id')!r}")
    return c


def _value_of(x):
    if isinstance(x, (bool, np.bool_)):
        return 1.0 if x else 0.0
    return float(x)


def _decide_one(c: Mapping, m: Measurement, where: str) -> V.Decision:
    est, region = c["_estimator"], c["_region"]
    if est in V.SAMPLE_ESTIMATORS and m.value is not None and m.a is None:
        est = "normal"  # a legacy sample test on a precomputed number
    mm = m
    if est in ("exact", "normal") and isinstance(m.value, (bool, np.bool_)):
        mm = Measurement(value=_value_of(m.value), se=None)
    e = V.estimate(est, mm, where)
    if region is None:
        return V.Decision("shown", e, 1.0, 1.0)
    return V.decide(e, region)


def evaluate(check: Mapping, m: Measurement, fidelity: str) -> CheckResult:
    """Decide ``check`` on the measurement ``m`` (:mod:`duelbench.report.verdict`)."""
    c = _with_contract(check)
    asserted = is_asserted(c["gate"], fidelity)
    where = f"check {c['id']}"
    ev = m.evidence
    if m.components:
        if c["_region"] is None:
            raise RegistryError(f"{where}: a combined claim needs a region")
        missing = [lab for lab, cm in m.components if cm.value is None and not (cm.a is not None and len(cm.a))]
        if missing:
            return CheckResult(c, "inconclusive", None, ev or f"not computed: {', '.join(missing)}", fidelity, asserted)
        parts = [(lab, _decide_one(c, cm, f"{where} [{lab}]")) for lab, cm in m.components]
        d = V.combine(parts, c.get("_combine") or "all")
        detail = "; ".join(f"{lab}: {V.sig(pd.estimate.value)} [{V.sig(pd.estimate.lower)}, "
                           f"{V.sig(pd.estimate.upper)}] {pd.verdict}" for lab, pd in parts)
        return CheckResult(c, d.verdict, d, f"{ev}; {detail}" if ev else detail, fidelity, asserted)
    is_sample = c["_estimator"] in V.SAMPLE_ESTIMATORS and m.a is not None
    if m.value is None and not is_sample and m.successes is None:
        return CheckResult(c, "inconclusive", None, ev or "not computed at this fidelity", fidelity, asserted)
    if is_sample:
        n = min(len(m.a), len(m.b))
        if n < int(c.get("min_runs", 2)):
            return CheckResult(c, "inconclusive", None, (ev + "; " if ev else "") +
                               f"only {n} runs (min_runs {c.get('min_runs', 2)})", fidelity, asserted)
    try:
        d = _decide_one(c, m, where)
    except V.ContractError as exc:
        raise ValueError(str(exc)) from None
    outcome = d.verdict
    if is_sample:
        a, b = np.asarray(m.a, float), np.asarray(m.b, float)
        ev = (ev + "; " if ev else "") + f"mean A {V.sig(fmean(a), 4)}, mean B {V.sig(fmean(b), 4)}, " \
                                         f"n = {a.size}/{b.size}"
    return CheckResult(c, outcome, d, ev, fidelity, asserted, value=m.value if d is None else None)


def adjust(results: Sequence[CheckResult]) -> list[CheckResult]:
    """Holm's adjustment over the published checks that carry a sampling estimate (in place)."""
    family = [r for r in results if r.check["kind"] == "published" and r.decision is not None
              and r.outcome in V.VERDICTS and (r.decision.estimate.law != "exact" or r.decision.components)]
    adj = V.adjusted_verdicts([r.decision for r in family])
    for r, (v, pp, pf) in zip(family, adj):
        r.adjusted = v if r.outcome != "inconclusive" else "inconclusive"
        r.p_pass_adjusted, r.p_fail_adjusted = pp, pf
    for r in results:
        if not r.adjusted:
            r.adjusted = r.outcome
    return list(results)


def evaluate_registry(registry: Mapping, measurements: Mapping[str, Measurement], fidelity: str) -> list[CheckResult]:
    """Evaluate every check, then adjust; a statistic the experiment did not compute is ``inconclusive``."""
    out = []
    for c in registry["checks"]:
        m = measurements.get(c["statistic"])
        if m is None:
            m = Measurement(evidence=f"statistic {c['statistic']!r} not computed")
        out.append(evaluate(c, m, fidelity))
    return adjust(out)


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
    """Number of results per (adjusted) outcome (every one of :data:`OUTCOMES`, zeros included)."""
    return {o: sum(r.status_outcome == o for r in results) for o in OUTCOMES}


def item_status(results: Sequence[CheckResult], unavailable: bool = False) -> str:
    """``replicated`` if every check passes, ``not_replicated`` if none does, else partly;
    ``inconclusive`` if none could be decided, ``not_reproducible`` if ``unavailable``; ``shown``
    rows state no claim and are left out.  Decided on the adjusted verdicts."""
    if unavailable:
        return "not_reproducible"
    outs = [r.status_outcome for r in results if r.status_outcome != "shown"]
    decided = [o for o in outs if o != "inconclusive"]
    passed = sum(o == "pass" for o in decided)
    if not decided:
        return "inconclusive"
    if passed == len(outs):
        return "replicated"
    if passed == 0:
        return "not_replicated"
    return "partly_replicated"


def status_rows(paper: str, results: Sequence[CheckResult], notes: Mapping[str, str] | None = None) -> list[dict]:
    """One ``replication_status.csv`` row per item of ``paper`` (published-kind checks only)."""
    by_item: dict[str, list[CheckResult]] = {}
    for r in results:
        if r.check["kind"] == "published" and r.status_outcome != "shown":
            by_item.setdefault(r.check["item"], []).append(r)
    rows = []
    for item in sorted(by_item):
        rs = by_item[item]
        note = (notes or {}).get(item, "")
        inconclusive = sum(r.status_outcome == "inconclusive" for r in rs)
        if inconclusive and not note:
            note = f"{inconclusive} check(s) inconclusive at this fidelity"
        rows.append({"paper": paper, "item": item, "status": item_status(rs),
                     "checks_passed": sum(r.status_outcome == "pass" for r in rs), "checks_total": len(rs),
                     "note": note})
    return rows


def write_status_csv(rows: Sequence[Mapping], path) -> None:
    """``figures/replication_status.csv`` (columns ``STATUS_COLUMNS``)."""
    _atomic_csv(path, STATUS_COLUMNS, rows)


def read_csv_rows(path) -> list[dict]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))

"""Replication status: one row per published item of every paper, from the papers' ``checks.csv``.

``figures/<paper>/checks.csv`` (columns :data:`duelbench.report.checks.CHECK_COLUMNS`) is what
each paper's experiment writes; :func:`write_replication_status` reads them all and writes
``figures/replication_status.csv`` (columns :data:`~duelbench.report.checks.STATUS_COLUMNS`)
with :func:`duelbench.report.checks.status_rows`.  The paper name is the folder of its
``checks.csv``.  Each item whose checks are not all passed gets a note naming the failed and
the inconclusive checks (with the reproduced and published values, or the reason); at a
fidelity other than ``paper`` the note also says that ``full``-gated checks are indicative
only (:func:`duelbench.report.checks.is_asserted`).

The workflow's ``report`` target needs every paper's ``checks.csv`` as a rule output, so in a
fresh clone (no cached shards) it rebuilds every paper first.  ``duelbench status``
(:func:`main`) instead rewrites the table from the ``checks.csv`` files already on disk, e.g.
the committed paper-fidelity ones after one paper was rebuilt.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence

from duelbench.provenance.joblog import log_to
from duelbench.provenance.sidecar import file_sha256, read_sidecar, Timer, write_sidecar

from .checks import CheckResult, OUTCOMES, read_csv_rows, STATUS_COLUMNS, status_rows, write_status_csv
from .claim_rows import measured
from .verdict import sig

__all__ = ["read_checks_csv", "item_notes", "status_table", "write_replication_status", "up_to_date"]

_NOTE_EVIDENCE = 90


def read_checks_csv(path) -> tuple[str, list[CheckResult]]:
    """``(paper, results)`` of a ``<figures>/<paper>/checks.csv``: the verdicts as written (the
    estimate, interval and p-values stay in the file; ``value`` keeps the estimate's text)."""
    path = os.fspath(path)
    paper = _paper_of(path)
    rows = read_csv_rows(path)
    need = {"claim_id", "kind", "item", "outcome", "outcome_adjusted"}
    missing = need - set(rows[0] if rows else need)
    if missing:
        raise ValueError(f"{path}: not a checks.csv of this version (missing columns {sorted(missing)}); rebuild the "
                         "paper's checks")
    out = []
    for r in rows:
        for col in ("outcome", "outcome_adjusted"):
            if r[col] not in OUTCOMES:
                raise ValueError(f"{path}: check {r['claim_id']!r} has {col} {r[col]!r}")
        check = {"id": r["claim_id"], "kind": r["kind"], "item": r["item"], "description": r.get("description", ""),
                 "published": r.get("published") or None, "statistic": r.get("statistic", ""),
                 "gate": r.get("gate", ""), "lines": r.get("lines", ""), "quote": r.get("quote", ""),
                 "region_label": r.get("region", ""), "ci": (r.get("ci_low", ""), r.get("ci_high", "")),
                 "runs_to_decide": r.get("runs_to_decide", "")}
        out.append(CheckResult(check=check, outcome=r["outcome"], decision=None, evidence=r.get("evidence", ""),
                               fidelity=r.get("fidelity", ""), asserted=str(r.get("asserted", "")).lower() == "true",
                               adjusted=r["outcome_adjusted"], value=r.get("estimate") or None))
    return paper, out


def _short(text: str, n: int = _NOTE_EVIDENCE) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _measured(r: CheckResult) -> str:
    """The estimate and its interval, 3 significant digits, for a person to read."""
    c = r.check
    row = {"estimate": r.value or "", "ci_low": c.get("ci", ("", ""))[0], "ci_high": c.get("ci", ("", ""))[1],
           "region": c.get("region_label", "")}
    region = f", claim {c['region_label']}" if c.get("region_label") else ""
    return f"{measured(row)}{region}"


def item_notes(results: Sequence[CheckResult], fidelity: str | None = None) -> dict[str, str]:
    """A note per item with failed or inconclusive published checks (item -> text), on the
    adjusted verdicts: each check with its estimate, 95 % interval and the claim's region."""
    failed: dict[str, list[str]] = {}
    open_: dict[str, list[str]] = {}
    for r in results:
        if r.check["kind"] != "published" or r.status_outcome in ("pass", "shown"):
            continue
        c = r.check
        if r.status_outcome == "fail":
            failed.setdefault(c["item"], []).append(f"{c['id']} ({_measured(r)})")
        else:
            need = c.get("runs_to_decide")
            more = f"; about {sig(float(need))} runs would decide it" if need else ""
            open_.setdefault(c["item"], []).append(f"{c['id']} ({_measured(r)}{more})")
    prefix = ""
    if fidelity and fidelity != "paper":
        prefix = f"fidelity {fidelity}: checks gated 'full' are indicative only. "
    out = {}
    for item in sorted(set(failed) | set(open_)):
        parts = []
        if item in failed:
            parts.append(f"failed: {'; '.join(failed[item])}")
        if item in open_:
            parts.append(f"inconclusive: {'; '.join(open_[item])}")
        out[item] = prefix + ". ".join(parts)
    return out


SHOWN_NOT_CHECKED = "shown_not_checked"


def unchecked_rows(paper: str, items: Sequence, checked: set[str]) -> list[dict]:
    """A row per table or figure of the paper that no published check judges (status
    ``shown_not_checked``): every item of the paper has a row, checked or not."""
    rows = []
    for item in items:
        if getattr(item, "in_paper", False) and not set(item.judged_by) & checked:
            rows.append({"paper": paper, "item": item.label, "status": SHOWN_NOT_CHECKED, "checks_passed": 0,
                         "checks_total": 0,
                         "note": f"no published claim in data/published/{paper}.yaml judges it; rebuilt and shown "
                                 "for comparison with the paper"})
    return rows


def status_table(checks_paths: Sequence[str], fidelity: str | None = None,
                 items: Mapping[str, Sequence] | None = None) -> list[dict]:
    """Status rows of every paper (papers in path order, items sorted): one per registry item
    with published checks, and one per table or figure of the paper in ``items`` (paper ->
    :class:`~duelbench.experiments.contract.Item` list) that none of them judges."""
    rows = []
    seen = set()
    for path in checks_paths:
        paper, results = read_checks_csv(path)
        if paper in seen:
            raise ValueError(f"two checks.csv files for paper {paper!r}")
        seen.add(paper)
        fid = fidelity or next((r.fidelity for r in results if r.fidelity), None)
        notes = item_notes(results, fid)
        paper_rows = status_rows(paper, results, notes)
        paper_rows += unchecked_rows(paper, (items or {}).get(paper, ()), {r["item"] for r in paper_rows})
        rows.extend(sorted(paper_rows, key=lambda r: r["item"]))
    return rows


def checks_fidelity(checks_paths: Sequence[str]) -> str | None:
    """The one fidelity the ``checks.csv`` files were built at (their ``fidelity`` column);
    ValueError naming the files when they mix fidelities."""
    found = {}
    for path in checks_paths:
        for row in read_csv_rows(path):
            if row.get("fidelity"):
                found.setdefault(row["fidelity"], set()).add(os.fspath(path))
    if len(found) > 1:
        raise ValueError("the checks.csv files were built at different fidelities: "
                         + "; ".join(f"{f}: {', '.join(sorted(p))}" for f, p in sorted(found.items())))
    return next(iter(found), None)


def write_replication_status(checks_paths: Sequence[str], out_path: str, fidelity: str | None = None,
                             log: str | None = None, items: Mapping[str, Sequence] | None = None) -> list[dict]:
    """Write ``replication_status.csv`` (+ provenance sidecar) from the papers' ``checks.csv``."""
    paths = sorted(os.fspath(p) for p in checks_paths)
    fidelity = fidelity or checks_fidelity(paths)
    with log_to(log), Timer() as t:
        rows = status_table(paths, fidelity, items)
        write_status_csv(rows, out_path)
        for r in rows:
            print(f"{r['paper']} / {r['item']}: {r['status']} ({r['checks_passed']}/{r['checks_total']})", flush=True)
    write_sidecar(out_path, inputs=paths, config={"fidelity": fidelity, "columns": list(STATUS_COLUMNS)},
                  extra={"papers": sorted({r["paper"] for r in rows}), "rows": len(rows)}, **t.as_kwargs())
    return rows


def _paper_of(checks_csv: str) -> str:
    """The paper a ``<figures>/<paper>/checks.csv`` belongs to."""
    return os.path.basename(os.path.dirname(os.path.abspath(checks_csv)))


def up_to_date(paths: Sequence[str], out: str, fidelity: str | None, items=None) -> bool:
    """Whether ``out`` already holds the table of ``paths`` and its sidecar names their current
    bytes as its inputs: then nothing is rewritten, so a committed table and its provenance stay
    untouched.  A rebuilt checks.csv with the same statuses still gets a new sidecar."""
    if not (os.path.isfile(out) and os.path.isfile(out + ".json")):
        return False
    try:
        recorded = {_paper_of(i["path"]): i["sha256"] for i in read_sidecar(out)["content"]["inputs"]}
    except (OSError, ValueError, KeyError, TypeError):
        return False
    if recorded != {_paper_of(path): file_sha256(path) for path in paths}:
        return False
    with tempfile.TemporaryDirectory() as tmp:
        probe = os.path.join(tmp, "status.csv")
        write_status_csv(status_table(paths, fidelity or checks_fidelity(paths), items), probe)
        with open(probe, "rb") as a, open(out, "rb") as b:
            return a.read() == b.read()

"""The verdict changelog: every verdict that changed since the blessed state, with the reason.

``data/verdicts/blessed.csv`` records the verdict of every check at a citable version (columns
:data:`BLESSED_COLUMNS`); ``duelbench verdicts --bless VERSION`` writes it from the committed
``figures/<paper>/checks.csv`` when a version is released.  :func:`changelog_rows` compares the
current ``checks.csv`` files with it and names, for each claim whose verdict (or kind) changed or
that was added or removed, what changed: the declaration (kind, statistic, estimator, region)
or only the measurement (the estimate and its interval).  A paper citing the artifact names the
version whose verdicts it uses; this table says what differs from it.
"""

from __future__ import annotations

import argparse
import csv
import glob
import os
import sys
from collections.abc import Mapping, Sequence

from duelbench.provenance.sidecar import atomic_write, atomic_write_text, Timer, write_sidecar

from .checks import read_csv_rows
from .markdown import _table
from .verdict import sig

BLESSED = os.path.join("data", "verdicts", "blessed.csv")
BLESSED_COLUMNS = ("version", "paper", "claim_id", "kind", "item", "statistic", "estimator", "region", "estimate",
                   "ci_low", "ci_high", "outcome_adjusted")
CHANGELOG_COLUMNS = ("paper", "claim_id", "kind", "before", "after", "reason")


def current_rows(figures: str) -> list[dict]:
    """The blessed columns of every ``<figures>/<paper>/checks.csv``."""
    out = []
    for path in sorted(glob.glob(os.path.join(figures, "*", "checks.csv"))):
        paper = os.path.basename(os.path.dirname(path))
        for r in read_csv_rows(path):
            out.append({"paper": paper, **{k: r.get(k, "") for k in BLESSED_COLUMNS if k not in ("version", "paper")},
                        "fidelity": r.get("fidelity", "")})
    return out


def _state(r: Mapping | None) -> str:
    if r is None:
        return "absent"
    est = r.get("estimate", "")
    try:
        est = sig(float(est))
    except ValueError:
        est = est.lower() if est in ("True", "False") else est
    region = f", claim {r['region']}" if r.get("region") else ""
    return f"{r['outcome_adjusted']} ({r['kind']}; {est or 'not computed'}{region})"


def reason(before: Mapping | None, after: Mapping | None) -> str:
    """What changed between two rows of the same claim."""
    if before is None:
        return "claim added to the registry"
    if after is None:
        return "claim removed from the registry"
    parts = []
    for key, what in (("kind", "kind"), ("statistic", "statistic"), ("estimator", "estimator"),
                      ("region", "region")):
        if (before.get(key) or "") != (after.get(key) or "") and before.get(key):
            parts.append(f"{what} {before[key]} → {after[key]}")
        elif (before.get(key) or "") != (after.get(key) or "") and key in ("estimator", "region"):
            parts.append(f"{what} declared: {after[key]}")
    try:
        b, a = float(before.get("estimate") or "nan"), float(after.get("estimate") or "nan")
        if sig(b, 4) != sig(a, 4):
            parts.append(f"estimate {sig(b, 4)} → {sig(a, 4)}")
    except ValueError:
        if before.get("estimate") != after.get("estimate"):
            parts.append(f"estimate {before.get('estimate')} → {after.get('estimate')}")
    if not parts:
        parts.append("same declaration and estimate: the interval or the multiplicity adjustment decides "
                     "differently")
    return "; ".join(parts)


def changelog_rows(blessed: Sequence[Mapping], current: Sequence[Mapping]) -> list[dict]:
    """A row per claim whose verdict or kind changed, added or removed (papers and ids sorted)."""
    key = lambda r: (r["paper"], r["claim_id"])  # noqa: E731
    old, new = {key(r): r for r in blessed}, {key(r): r for r in current}
    out = []
    for k in sorted(set(old) | set(new)):
        b, a = old.get(k), new.get(k)
        if b is not None and a is not None and b["outcome_adjusted"] == a["outcome_adjusted"] and b["kind"] == a["kind"]:
            continue
        out.append({"paper": k[0], "claim_id": k[1], "kind": (a or b)["kind"], "before": _state(b),
                    "after": _state(a), "reason": reason(b, a)})
    return out


def markdown(rows: Sequence[Mapping], version: str, fidelity: str = "paper") -> str:
    if fidelity != "paper":
        return (f"# Verdict changelog since version {version}\n\nThis build is at fidelity `{fidelity}`; blessed "
                "verdicts are those of the paper-fidelity build, so nothing is compared here.\n")
    lines = [f"# Verdict changelog since version {version}", "",
             f"Every claim whose verdict or kind differs from the blessed verdicts of version {version} "
             f"(`{BLESSED}`), with what changed. Generated from the papers' `checks.csv`; do not edit.", ""]
    lines += _table(rows, CHANGELOG_COLUMNS) if rows else ["No verdict changed."]
    return "\n".join(lines) + "\n"


def write_changelog(figures: str, out_csv: str, out_md: str, blessed_path: str = BLESSED,
                    checks: Sequence[str] | None = None) -> list[dict]:
    """Write the changelog CSV and Markdown (atomically, each with its provenance sidecar);
    returns the rows."""
    with Timer() as t:
        blessed = read_csv_rows(blessed_path)
        version = blessed[0]["version"] if blessed else "(none)"
        current = current_rows(figures)
        fidelity = next((r["fidelity"] for r in current if r["fidelity"] and r["fidelity"] != "paper"), "paper")
        rows = changelog_rows(blessed, current) if fidelity == "paper" else []

    def write(fh):
        w = csv.DictWriter(fh, fieldnames=list(CHANGELOG_COLUMNS))
        w.writeheader()
        w.writerows(rows)

    atomic_write(out_csv, write, "w", newline="", encoding="utf-8")
    atomic_write_text(out_md, markdown(rows, version, fidelity))
    inputs = [blessed_path, *(checks or sorted(glob.glob(os.path.join(figures, "*", "checks.csv"))))]
    for out in (out_csv, out_md):
        write_sidecar(out, inputs=inputs, config={"blessed_version": version}, extra={"changed": len(rows)},
                      **t.as_kwargs())
    return rows


def bless(figures: str, version: str, out: str = BLESSED) -> int:
    """Record the current verdicts as those of ``version``; returns the number of claims."""
    rows = [{"version": version, **{k: v for k, v in r.items() if k != "fidelity"}} for r in current_rows(figures)]

    def write(fh):
        w = csv.DictWriter(fh, fieldnames=list(BLESSED_COLUMNS))
        w.writeheader()
        w.writerows(rows)

    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    atomic_write(out, write, "w", newline="", encoding="utf-8")
    return len(rows)


def main(argv: Sequence[str] | None = None) -> int:
    """``duelbench verdicts``: write the changelog, or ``--bless VERSION``."""
    p = argparse.ArgumentParser(prog="duelbench verdicts",
                                description="Write <figures>/verdict_changelog.csv|md against the blessed verdicts "
                                f"({BLESSED}), or record the current verdicts as a released version (--bless).")
    p.add_argument("--figures", default="figures")
    p.add_argument("--bless", metavar="VERSION", help="record the current verdicts as those of VERSION")
    args = p.parse_args(argv)
    if not glob.glob(os.path.join(args.figures, "*", "checks.csv")):
        print(f"duelbench verdicts: error: no {args.figures}/<paper>/checks.csv found; build the papers first",
              file=sys.stderr)
        return 2
    if args.bless:
        n = bless(args.figures, args.bless)
        print(f"wrote {BLESSED}: {n} verdicts of version {args.bless}", file=sys.stderr)
        return 0
    if not os.path.isfile(BLESSED):
        print(f"duelbench verdicts: error: {BLESSED} not found; record a version first (--bless VERSION)",
              file=sys.stderr)
        return 2
    rows = write_changelog(args.figures, os.path.join(args.figures, "verdict_changelog.csv"),
                           os.path.join(args.figures, "verdict_changelog.md"))
    print(f"wrote {args.figures}/verdict_changelog.csv|md: {len(rows)} changed verdicts", file=sys.stderr)
    return 0

"""Every measured number that docs/*.md or README.md cite agrees with the committed checks.csv.

A measured value is cited with its claim id right after it, as the report prints it::

    D-TS+ / ECW-RMED is 1.21 [1.06, 1.39] (`n4_dtsplus_comparable_ecw`)
    the slope ratio 0.989 (`c5_slope_dts_vs_rmed1`)

A number measured under a labelled reading variant names the reading before the claim id::

    D-TS+ / ECW-RMED is 1.11 [0.896, 1.36] (`printed_matrix_b_500`: `n4_dtsplus_lt_ecw`)

and is checked against ``figures/readings/<reading>/<paper>/checks.csv``.

The number must be the claim's estimate (and the bracket its 95 % interval) at the digits it is
written with (:func:`duelbench.report.verdict.sig`); a citation of an unknown claim id fails.
The counts of verdicts per paper that README.md and docs/artifact.md state are checked too.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from duelbench.report.verdict import sig

CHECKOUT = Path(__file__).resolve().parent.parent
NUMBER = r"−?-?[0-9][0-9,]*(?:\.[0-9]+)?(?:e−?-?[0-9]+)?"
CITATION = re.compile(rf"({NUMBER})(?:\s*\[({NUMBER}),\s*({NUMBER})\])?\s*\((?:`([a-z][a-z0-9_]*)`:\s*)?`([a-z][a-z0-9_]*)`\)")
DOCS = sorted([*(CHECKOUT / "docs").glob("*.md"), CHECKOUT / "README.md"])


def _claims() -> dict[tuple[str | None, str], dict]:
    """(reading or None, claim id) -> its row in the committed checks.csv."""
    out = {}
    for variant, pattern in ((False, "*/checks.csv"), (True, "readings/*/*/checks.csv")):
        for path in sorted((CHECKOUT / "figures").glob(pattern)):
            key = path.parent.parent.name if variant else None
            with open(path, newline="", encoding="utf-8") as fh:
                for r in csv.DictReader(fh):
                    out[key, r["claim_id"]] = r
    return out


def _digits(text: str) -> int:
    mantissa = text.replace("−", "-").lstrip("-").split("e")[0].replace(",", "")
    if "." not in mantissa and "," in text:  # 678,000: three significant digits as written
        return len(mantissa.rstrip("0")) or 1
    return len(mantissa.replace(".", "").lstrip("0")) or 1


def _agrees(written: str, value: str) -> bool:
    try:
        return sig(float(value), _digits(written)) == written.replace("−", "-") or \
            sig(float(value), _digits(written)) == written
    except ValueError:
        return False


def citations(text: str):
    """(value, low, high, reading, claim id) of every citation in ``text``."""
    for m in CITATION.finditer(text):
        yield m.group(1), m.group(2), m.group(3), m.group(4), m.group(5)


def test_the_citation_pattern():
    found = list(citations("ratio 1.21 [1.06, 1.39] (`n4_x`), then 0.989 (`c5_y`) and 678,000 (`t1`); "
                           "1.11 [0.896, 1.36] (`printed_b`: `n4_x`)"))
    assert found == [("1.21", "1.06", "1.39", None, "n4_x"), ("0.989", None, None, None, "c5_y"),
                     ("678,000", None, None, None, "t1"), ("1.11", "0.896", "1.36", "printed_b", "n4_x")]
    assert _agrees("1.21", "1.21020061") and not _agrees("1.10", "1.21020061")
    assert _agrees("678,000", "678040.6") and _agrees("8.93", "8.929488")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_cited_numbers_agree_with_the_checks(doc):
    claims = _claims()
    wrong = []
    for value, lo, hi, reading, cid in citations(doc.read_text(encoding="utf-8")):
        row = claims.get((reading, cid))
        if row is None:
            where = "figures/*/checks.csv" if reading is None else f"figures/readings/{reading}/*/checks.csv"
            wrong.append(f"{value} (`{cid}`): no such claim in {where}")
            continue
        if not _agrees(value, row["estimate"]):
            wrong.append(f"{value} (`{cid}`): checks.csv has {sig(float(row['estimate']), _digits(value))}")
        if lo is not None and not (_agrees(lo, row["ci_low"]) and _agrees(hi, row["ci_high"])):
            wrong.append(f"[{lo}, {hi}] (`{cid}`): checks.csv has [{row['ci_low']}, {row['ci_high']}]")
    assert not wrong, f"{doc.name}: " + "; ".join(wrong)


@pytest.mark.parametrize("paper", sorted(p.parent.name for p in (CHECKOUT / "figures").glob("*/checks.csv")
                                         if (CHECKOUT / "docs" / f"{p.parent.name}.md").is_file()))
def test_each_paper_doc_cites_its_measured_numbers(paper):
    text = (CHECKOUT / "docs" / f"{paper}.md").read_text(encoding="utf-8")
    assert sum(1 for _ in citations(text)) >= 5, f"docs/{paper}.md cites fewer than 5 measured numbers by claim id"


def _counts(paper: str) -> dict[str, tuple[int, int, int, int]]:
    """kind -> (checks, pass, fail, inconclusive) after Holm's adjustment, from checks.csv (none
    for a target without one, such as the benchmark of record, whose row states no counts)."""
    if not (CHECKOUT / "figures" / paper / "checks.csv").is_file():
        return {}
    with open(CHECKOUT / "figures" / paper / "checks.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    out = {}
    for kind in {r["kind"] for r in rows}:
        got = [r["outcome_adjusted"] for r in rows if r["kind"] == kind]
        out[kind] = (len(got), got.count("pass"), got.count("fail"), got.count("inconclusive"))
    return out


README_COUNTS = re.compile(r"\(`figures/([a-z0-9]+)/`[^*]*?(\d+)\s+published\s+claims,\s+(\d+)\s+pass,\s+"
                           r"(\d+)\s+fail,\s+(\d+)\s+inconclusive")
ARTIFACT_ROW = re.compile(r"^\| `([a-z0-9]+)`: [^|]*\|([^|]*)\|([^|]*)\|([^|]*)\|([^|]*)\|", re.M)


def test_readme_counts_of_verdicts_agree_with_the_checks():
    found = README_COUNTS.findall((CHECKOUT / "README.md").read_text(encoding="utf-8"))
    assert {f[0] for f in found} == {p.parent.name for p in (CHECKOUT / "figures").glob("*/checks.csv")}, "README.md: the per-paper summary 'N published claims, a pass, b fail, c inconclusive'"
    wrong = [f"{paper}: {' '.join(nums)} written, checks.csv has {_counts(paper)['published']}"
             for paper, *nums in found if tuple(map(int, nums)) != _counts(paper)["published"]]
    assert not wrong, "README.md: " + "; ".join(wrong)


def test_artifact_table_counts_agree_with_the_checks():
    rows = ARTIFACT_ROW.findall((CHECKOUT / "docs" / "artifact.md").read_text(encoding="utf-8"))
    assert {r[0] for r in rows} >= {p.parent.name for p in (CHECKOUT / "figures").glob("*/checks.csv")}
    wrong = []
    for paper, *cells in rows:
        counts = _counts(paper)
        for kind, cell in zip(("published", "theory", "erratum", "shown"), cells, strict=True):
            cell = cell.strip()
            want = counts.get(kind)
            if kind == "shown":
                written = None if cell == "—" else (int(cell),)
                want = None if want is None else want[:1]
            else:
                m = re.fullmatch(r"(\d+): (\d+) / (\d+) / (\d+)", cell)
                written = tuple(map(int, m.groups())) if m else None
            if written != want:
                wrong.append(f"{paper} {kind}: {cell!r} written, checks.csv has {want or '—'}")
    assert not wrong, "docs/artifact.md: " + "; ".join(wrong)

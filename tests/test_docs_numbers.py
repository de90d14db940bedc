"""Every measured number that docs/*.md or README.md cite agrees with the committed checks.csv.

A measured value is cited with its claim id right after it, as the report prints it::

    D-TS+ / ECW-RMED is 1.21 [1.06, 1.39] (`n4_dtsplus_comparable_ecw`)
    the slope ratio 0.989 (`c5_slope_dts_vs_rmed1`)

The number must be the claim's estimate (and the bracket its 95 % interval) at the digits it is
written with (:func:`duelbench.report.verdict.sig`); a citation of an unknown claim id fails.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from duelbench.report.verdict import sig

CHECKOUT = Path(__file__).resolve().parent.parent
NUMBER = r"−?-?[0-9][0-9,]*(?:\.[0-9]+)?(?:e−?-?[0-9]+)?"
CITATION = re.compile(rf"({NUMBER})(?:\s*\[({NUMBER}),\s*({NUMBER})\])?\s*\(`([a-z][a-z0-9_]*)`\)")
DOCS = sorted([*(CHECKOUT / "docs").glob("*.md"), CHECKOUT / "README.md"])


def _claims() -> dict[str, dict]:
    out = {}
    for path in sorted((CHECKOUT / "figures").glob("*/checks.csv")):
        with open(path, newline="", encoding="utf-8") as fh:
            for r in csv.DictReader(fh):
                out[r["claim_id"]] = r
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
    for m in CITATION.finditer(text):
        yield m.group(1), m.group(2), m.group(3), m.group(4)


def test_the_citation_pattern():
    found = list(citations("ratio 1.21 [1.06, 1.39] (`n4_x`), then 0.989 (`c5_y`) and 678,000 (`t1`)"))
    assert found == [("1.21", "1.06", "1.39", "n4_x"), ("0.989", None, None, "c5_y"), ("678,000", None, None, "t1")]
    assert _agrees("1.21", "1.21020061") and not _agrees("1.10", "1.21020061")
    assert _agrees("678,000", "678040.6") and _agrees("8.93", "8.929488")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_cited_numbers_agree_with_the_checks(doc):
    claims = _claims()
    wrong = []
    for value, lo, hi, cid in citations(doc.read_text(encoding="utf-8")):
        row = claims.get(cid)
        if row is None:
            wrong.append(f"{value} (`{cid}`): no such claim in figures/*/checks.csv")
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

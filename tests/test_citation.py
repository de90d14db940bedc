"""Citation metadata: CITATION.cff (Citation File Format 1.2.0) names this version and the five
papers, and .zenodo.json (an archived release's metadata) agrees with it."""

from __future__ import annotations

import datetime
import json
import tomllib
from pathlib import Path

import yaml

import duelbench

CHECKOUT = Path(__file__).resolve().parent.parent
CFF = yaml.safe_load((CHECKOUT / "CITATION.cff").read_text(encoding="utf-8"))
ZENODO = json.loads((CHECKOUT / ".zenodo.json").read_text(encoding="utf-8"))

#: (first author's family name, year) of the five papers the suite replicates
PAPERS = {("Komiyama", 2016), ("Zoghi", 2015), ("Chen", 2020), ("Agarwal", 2022), ("Wu", 2016)}


def test_cff_version_is_the_package_version():
    assert CFF["cff-version"] == "1.2.0"
    assert CFF["version"] == duelbench.__version__
    pyproject = tomllib.loads((CHECKOUT / "pyproject.toml").read_text(encoding="utf-8"))
    # one source: pyproject.toml reads the version from the package
    assert "version" not in pyproject["project"] and "version" in pyproject["project"]["dynamic"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "duelbench.__version__"}


def test_cff_has_the_fields_a_release_needs():
    for key in ("message", "title", "abstract", "authors", "version", "date-released", "license", "keywords"):
        assert CFF.get(key), f"CITATION.cff: {key} missing"
    assert CFF["type"] == "software" and CFF["license"] == "MIT"
    datetime.date.fromisoformat(str(CFF["date-released"]))
    assert (CHECKOUT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")


def test_cff_references_the_five_papers():
    refs = CFF["references"]
    assert {(r["authors"][0]["family-names"], r["year"]) for r in refs} == PAPERS
    for r in refs:
        assert r["type"] == "conference-paper" and r["title"] and r["conference"]["name"]
        assert all(a.get("family-names") and a.get("given-names") for a in r["authors"])


def test_zenodo_metadata_agrees_with_the_cff():
    assert ZENODO["upload_type"] == "software"
    assert ZENODO["title"] == CFF["title"]
    assert ZENODO["license"] == CFF["license"]
    assert ZENODO["keywords"] == CFF["keywords"]
    assert ZENODO["version"] == CFF["version"]
    assert ZENODO["publication_date"] == str(CFF["date-released"])
    assert ZENODO["description"] == " ".join(CFF["abstract"].split())
    assert [c["name"] for c in ZENODO["creators"]] == [a["name"] for a in CFF["authors"]]
    assert len(ZENODO["references"]) == len(CFF["references"])
    for ref, text in zip(CFF["references"], ZENODO["references"]):
        assert " ".join(ref["title"].split()) in text and str(ref["year"]) in text
    # identifiers only where the papers print one (none of the five prints a DOI)
    assert "related_identifiers" not in ZENODO

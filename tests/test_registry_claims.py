"""What every paper's registry declares, across papers: published claims quote the paper with
their lines, no claim is judged twice, every check is declared in the interval contract, and the
errata that checks rely on exist."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml

from duelbench.report.checks import load_registry

CHECKOUT = Path(__file__).resolve().parent.parent
REGISTRIES = sorted((CHECKOUT / "data" / "published").glob("*.yaml"))
LEGACY_KEYS = ("test", "tolerance", "threshold", "factor", "lower", "upper", "alpha", "se_multiplier")


@pytest.mark.parametrize("path", REGISTRIES, ids=lambda p: p.stem)
def test_published_claims_quote_the_paper_with_their_lines(path):
    bad = [c["id"] for c in load_registry(path)["checks"]
           if c["kind"] == "published" and not (str(c.get("quote", "")).strip() and str(c.get("lines", "")).strip())]
    assert not bad, f"{path.name}: published checks without quote and lines: {bad}"


@pytest.mark.parametrize("path", REGISTRIES, ids=lambda p: p.stem)
def test_every_check_is_declared_in_the_interval_contract(path):
    raw = yaml.safe_load(path.read_text())
    bad = [f"{c['id']} ({', '.join(k for k in LEGACY_KEYS if k in c)})" for c in raw["checks"]
           if any(k in c for k in LEGACY_KEYS)]
    assert not bad, f"{path.name}: legacy test keys instead of estimator and region: {bad}"


@pytest.mark.parametrize("path", REGISTRIES, ids=lambda p: p.stem)
def test_no_sentence_is_judged_twice_on_the_same_statistic(path):
    """Two published checks of the same sentence (same lines) on the same statistic are one check."""
    checks = [c for c in load_registry(path)["checks"] if c["kind"] == "published"]
    seen = Counter((str(c.get("lines", "")), c["statistic"]) for c in checks)
    twice = {k: n for k, n in seen.items() if n > 1}
    assert not twice, f"{path.name}: judged twice: {twice}"


def test_a_duplicate_is_caught(tmp_path):
    dup = {"paper": "p", "checks": [
        {"id": f"a{k}", "kind": "published", "item": "F", "description": "d", "statistic": "s", "gate": "full",
         "quote": "q", "lines": "L1", "estimator": "exact", "region": {"is": True}} for k in range(2)]}
    path = tmp_path / "p.yaml"
    path.write_text(yaml.safe_dump(dup))
    with pytest.raises(AssertionError, match="judged twice"):
        test_no_sentence_is_judged_twice_on_the_same_statistic(path)

"""Golden runs of CLUCB-Borda-PAC/-Exact and CAR-Cond/-Verify/-Parallel (Chen et al. 2020,
Algorithms 1–5): every case pinned in tests/golden/cpe/chen2020.json (see tests/pin_cpe_golden.py)
is recomputed and must give the same summary numbers."""

from __future__ import annotations

import json

import pytest

import pin_cpe_golden
from pin_cpe_golden import CASES, GOLDEN_FILE, compare, run_case


def _pinned() -> dict:
    return json.loads(GOLDEN_FILE.read_text(encoding="utf-8"))


def test_golden_file_pins_every_case():
    """The file pins exactly the cases of :data:`pin_cpe_golden.CASES`, each with a result."""
    pinned = _pinned()
    assert pinned["format"] == pin_cpe_golden.FORMAT
    assert [c["name"] for c in pinned["cases"]] == [c[0] for c in CASES]
    assert {c["algorithm"] for c in pinned["cases"]} == {"pac", "V0", "V1", "V2", "cond", "verify", "parallel"}


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_golden_case(case):
    """Recompute one pinned case and compare every summary number."""
    name, algorithm, inst_name, delta, options, seed = case
    pinned = next(c for c in _pinned()["cases"] if c["name"] == name)
    fresh = run_case(algorithm, pin_cpe_golden._instances()[inst_name], delta, options, seed)
    assert fresh == pinned["result"], f"{name}: re-pin with `python tests/pin_cpe_golden.py` only for a " \
                                      f"deliberate change of behaviour"


def test_compare_reports_a_changed_number():
    """The comparison names the case and the number that changed."""
    pinned = _pinned()
    altered = json.loads(json.dumps(pinned))
    altered["cases"][0]["result"]["samples"] += 1
    msgs = compare(pinned, altered)
    assert len(msgs) == 1 and CASES[0][0] in msgs[0] and "samples" in msgs[0]
    assert compare(pinned, pinned) == []

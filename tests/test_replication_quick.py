"""The quick-fidelity build of every paper, and the checks its declared gates assert.

Runs ``snakemake --profile config/profiles/quick komiyama2016 zoghi2015 wu2016 agarwal2022 chen2020 report``
in this checkout (results are cached under ``results/quick``: a second run has nothing to do; the
report also builds the benchmark of record, which REPORT.md shows), then asserts, for each paper,
that

* every check declared in ``data/published/<paper>.yaml`` appears in ``checks.csv``;
* every check whose gate is asserted at quick fidelity (``asserted == True``) passes;
* ``replication_status.csv`` lists the paper;
* no check that passed at the blessed state (``tests/data/quick_blessed_outcomes.json``) stops
  passing (a replication regression, reported separately from a changed checksum);
* every output is byte-identical to the committed manifest ``tests/data/quick_outputs.sha256``
  (timing tables and provenance sidecars aside: they record the machine and the time), so any
  change of a result, also through a refactoring, is seen and recorded on purpose.

Published claims are gated ``full``: at quick fidelity they are computed and shown but not
asserted (a failed replication is a finding, decided at paper fidelity).
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from duelbench.report import manifest
from duelbench.report.checks import load_registry, read_csv_rows

CHECKOUT = Path(__file__).resolve().parent.parent
PAPERS = ("komiyama2016", "zoghi2015", "wu2016", "agarwal2022", "chen2020")
FIGURES = CHECKOUT / "results" / "quick" / "figures"
MANIFEST = CHECKOUT / "tests" / "data" / "quick_outputs.sha256"
#: Outcome of every check at the last blessed quick build (re-blessed on purpose only).
BLESSED = CHECKOUT / "tests" / "data" / "quick_blessed_outcomes.json"

# The quick build takes about 5 minutes on an idle 2-core machine; a busy one needs more.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]


@pytest.fixture(scope="module")
def quick_build(mslr_mirror):
    env = dict(os.environ, DUELBENCH_DATA_MIRROR=str(mslr_mirror))
    snakemake = Path(sys.executable).with_name("snakemake")
    proc = subprocess.run([str(snakemake), "--profile", "config/profiles/quick", "--cores", "2", *PAPERS, "report"],
                          cwd=CHECKOUT, env=env, capture_output=True, text=True, timeout=3600)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    return FIGURES


@pytest.mark.parametrize("paper", PAPERS)
def test_quick_gated_checks_pass(quick_build, paper):
    rows = read_csv_rows(quick_build / paper / "checks.csv")
    declared = {c["id"] for c in load_registry(CHECKOUT / "data" / "published" / f"{paper}.yaml")["checks"]}
    assert {r["claim_id"] for r in rows} == declared
    asserted = [r for r in rows if r["asserted"] == "True"]
    assert asserted, "no check is asserted at quick fidelity"
    failed = [f"{r['claim_id']}: {r['outcome']} ({r['evidence']})" for r in asserted if r["outcome"] != "pass"]
    assert not failed, failed
    assert all(r["fidelity"] == "quick" for r in rows)


def test_replication_status_lists_every_paper(quick_build):
    rows = read_csv_rows(quick_build / "replication_status.csv")
    assert {r["paper"] for r in rows} >= set(PAPERS)


def test_quick_outputs_match_the_committed_manifest(quick_build):
    diff = manifest.compare(quick_build, manifest.read(MANIFEST))
    assert not diff["added"] and not diff["missing"], (
        f"outputs added or missing: {diff}; update tests/data/quick_outputs.sha256 on purpose")
    assert not diff["changed"], (f"quick-fidelity outputs changed: {diff['changed']}; if the change is deliberate, "
                                 "rebuild and record the new sha256 in tests/data/quick_outputs.sha256 in the same "
                                 "commit (python -m duelbench.report.manifest write ...)")


@pytest.mark.parametrize("paper", PAPERS)
def test_no_check_that_passed_when_blessed_stops_passing(quick_build, paper):
    """Replication regression: a check that passed at the blessed state and no longer passes
    (whatever its gate) fails here, naming it; re-bless tests/data/quick_blessed_outcomes.json
    only on purpose, in the commit that explains the change."""
    import json

    blessed = json.loads(BLESSED.read_text())["outcomes"][paper]
    now = {r["claim_id"]: r["outcome"] for r in read_csv_rows(quick_build / paper / "checks.csv")}
    regressed = sorted(f"{cid}: pass -> {now.get(cid, 'missing')}" for cid, o in blessed.items()
                       if o == "pass" and now.get(cid) != "pass")
    assert not regressed, regressed

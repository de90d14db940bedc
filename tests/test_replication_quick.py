"""The quick-fidelity build of every paper, and the checks its declared gates assert.

Runs ``snakemake --profile config/profiles/quick komiyama2016 zoghi2015 report`` in this
checkout (results are cached under ``results/quick``: a second run has nothing to do), then
asserts, for each paper, that

* every check declared in ``data/published/<paper>.yaml`` appears in ``checks.csv``;
* every check whose gate is asserted at quick fidelity (``asserted == True``) passes;
* ``replication_status.csv`` lists the paper.

Published claims are gated ``full``: at quick fidelity they are computed and shown but not
asserted (a failed replication is a finding, decided at paper fidelity).
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from duelbench.report.checks import load_registry, read_csv_rows

CHECKOUT = Path(__file__).resolve().parent.parent
PAPERS = ("komiyama2016", "zoghi2015")
FIGURES = CHECKOUT / "results" / "quick" / "figures"

pytestmark = pytest.mark.slow


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

"""A smoke build of the demo, in a temporary copy of the checkout, meets a results shard that no
longer matches its provenance sidecar: the build sets it aside with a warning naming it,
recomputes it, and the demo's regret table is the true one again (not the altered shard's)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pandas as pd
import pytest

from _checkout_copy import copy_checkout, run_snakemake
from duelbench.engine.result import SimulationResult
from duelbench.provenance.integrity import REJECTED, mismatch

RULES = ("experiments.smk",)  # common.smk and jobs.smk are always kept
TABLE = Path("results/smoke/figures/demo/regret.csv")

pytestmark = [pytest.mark.timeout(1800), pytest.mark.slow]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = copy_checkout(tmp_path_factory.mktemp("integrity_checkout"), rules=RULES, experiments=("demo",))
    first = run_snakemake(root, "--cores", "1", "demo")
    return root, first


def _final(root: Path) -> pd.DataFrame:
    table = pd.read_csv(root / TABLE)
    return table[table["t"] == table["t"].max()].reset_index(drop=True)


def test_the_build_reports_the_shards_it_computes_instead_of_reading_them(built):
    _, first = built
    err = first.stderr
    assert "duelbench: computing 16 shard(s) instead of reading them from the results archive" in err
    assert "  missing: 16 (" in err


def test_an_altered_shard_is_recomputed_with_a_warning(built):
    root, _ = built
    before = _final(root)
    shard = next((root / "results/smoke/arxiv").glob("rucb-*/T*/runs-2-4.npz"))
    r = SimulationResult.from_npz(shard)
    with open(shard, "wb") as fh:
        dataclasses.replace(r, regrets={k: 2 * v for k, v in r.regrets.items()}).to_npz(fh)
    proc = run_snakemake(root, "--cores", "1", "demo")
    rel = str(shard.relative_to(root))
    warning = [line for line in proc.stderr.splitlines() if "warning" in line and rel in line]
    assert len(warning) == 1 and "output_sha256" in warning[0], proc.stderr[-3000:]
    assert (root / (rel + REJECTED)).is_file() and mismatch(shard) is None  # recomputed, sidecar agrees
    assert f"    {rel}" in proc.stderr  # named in the report of what the build computes
    pd.testing.assert_frame_equal(_final(root), before)

"""Smoke-fidelity build of the `zoghi2015` target in a temporary copy of the checkout.

As in test_workflow_smoke.py, the copy is a fresh git repository, so results, numba cache and
Snakemake metadata stay out of the working tree. Only the rules files this target needs are
copied (common, experiments: the generic rules of the experiment packages), so work in progress
on other papers' rules cannot break it. The copy has no results archive, so every shard is
computed (and timed) there. The MSLR
matrices come from the data mirror (skipped without it). The first build compiles CCB, SCB,
Copeland SAVAGE and RUCB into the copy's numba cache; the simulations and samples take seconds.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from _checkout_copy import CHECKOUT, copy_checkout, run_snakemake

RULES = ("experiments.smk",)  # common.smk and jobs.smk are always kept

pytestmark = [pytest.mark.timeout(1800), pytest.mark.slow]


def snakemake(root: Path, mirror: Path, *args: str):
    return run_snakemake(root, *args, mirror=mirror)


@pytest.fixture(scope="module")
def built(tmp_path_factory, mslr_mirror):
    root = copy_checkout(tmp_path_factory.mktemp("zoghi_checkout"), rules=RULES, experiments=("zoghi2015",))
    snakemake(root, mslr_mirror, "zoghi2015")
    with open(root / "config" / "config.yaml") as f:
        config = yaml.safe_load(f)
    return root, config, mslr_mirror


def _outputs(config) -> dict:
    from duelbench.experiments import zoghi2015 as z

    return z.EXPERIMENT.outputs(config, "smoke")


def test_every_output_exists_with_a_sidecar(built):
    root, config, _ = built
    for key, rel in _outputs(config).items():
        path = root / rel
        assert path.is_file() and path.stat().st_size > 0, key
        side = json.loads((root / (rel + ".json")).read_text())
        assert side["content"]["output_sha256"], key
        if rel.endswith(".pdf"):
            assert path.read_bytes().startswith(b"%PDF")
        if rel.endswith(".png"):
            assert path.read_bytes().startswith(b"\x89PNG")
    assert not (root / "figures").exists()  # smoke outputs never touch the paper figures
    # the declared reading's sample shards, one per click model (reading variants have their own)
    from duelbench.config import effective_config
    from duelbench.experiments.planning import plan

    shards = [root / sh.path for sh in plan(effective_config(dict(config, fidelity="smoke")), "zoghi2015").samples]
    assert len(shards) == 3 and all(s.is_file() and Path(str(s) + ".json").is_file() for s in shards)
    assert {s.parent.parent.name for s in shards} == {"mslr_informational", "mslr_navigational", "mslr_perfect"}


def test_checks_csv_quick_gated_checks_pass(built):
    root, config, _ = built
    with open(root / _outputs(config)["checks_csv"], newline="") as fh:
        rows = list(csv.DictReader(fh))
    from duelbench.report.checks import load_registry

    reg = load_registry(CHECKOUT / "data" / "published" / "zoghi2015.yaml")
    assert [r["claim_id"] for r in rows] == [c["id"] for c in reg["checks"]]
    assert {r["fidelity"] for r in rows} == {"smoke"}
    quick = [r for r in rows if r["gate"] == "quick"]
    assert quick and all(r["kind"] == "theory" for r in quick)
    for r in quick:
        assert r["outcome"] == "pass", r
    # nothing is asserted at smoke fidelity, and pooled statistics are not faked
    assert all(r["asserted"] == "False" for r in rows)
    pooled = [r for r in rows if r["statistic"].startswith("table1:")]
    assert pooled and all(r["outcome"] == "inconclusive" for r in pooled)
    calibrated = [r for r in rows if r["statistic"].endswith("random_walk")]
    assert calibrated and all(r["item"] == "Table 1 (calibrated random-walk cells)" for r in calibrated)
    assert not [r["claim_id"] for r in rows if "not computed" in r["evidence"]]  # every statistic is handled
    facts = {r["claim_id"]: r for r in rows if r["statistic"].startswith("facts:")}
    assert all(r["outcome"] == "pass" for r in facts.values())


def test_tables_have_the_declared_shape(built):
    root, config, _ = built
    out = {k: root / v for k, v in _outputs(config).items()}
    cond = pd.read_csv(out["condorcet_csv"])
    assert list(cond.columns) == ["K", "p_condorcet", "n_samples", "stderr", "click_model"]
    assert set(cond["click_model"]) == {"mslr_informational", "mslr_navigational", "mslr_perfect"}
    ks = [1, 2, 5, 16, 135, 136]
    for _, g in cond.groupby("click_model"):
        assert g["K"].tolist() == ks and set(g["n_samples"]) == {3}
    t1 = pd.read_csv(out["table1_csv"], index_col=0)
    names = ["copeland", "von_neumann", "borda", "random_walk"]
    assert list(t1.columns) == names and list(t1.index) == names + ["copeland_in_vn_support"]
    se = pd.read_csv(out["table1_se_csv"], index_col=0)
    assert se.shape == t1.shape
    md = out["table1_md"].read_text()
    assert "[99.94]" in md and "*calibrated*" in md and "RW-A" in md and "RW-B" in md
    ratio = pd.read_csv(out["delta_ratio_csv"])
    assert list(ratio.columns)[:3] == ["K", "mean_ratio", "median_ratio"]
    assert 136 in ratio["K"].tolist() and 1 not in ratio["K"].tolist()
    full = ratio[ratio["K"] == 136]["mean_ratio"].iloc[0]
    assert round(full) == 1419  # every 136-subset is the full matrix
    regret = pd.read_csv(out["regret_csv"], dtype={"param_hash": str})
    assert list(regret.columns) == ["dataset", "algorithm", "param_hash", "t", "mean", "stderr", "n_runs", "kind"]
    assert set(regret["kind"]) == {"copeland_zoghi", "copeland"}
    assert {"mslr5_noncondorcet", "mslr5_condorcet", "zoghi_copeland500"} <= set(regret["dataset"])
    thr = pd.read_csv(out["throughput_csv"])
    big = thr[thr["K"] == 500]
    assert {"ccb", "scb", "rucb"} <= set(big["algorithm"]) and (big["steps_per_second"] > 0).all()
    assert set(thr["source"]) == {"computed"} and (thr["timed_shards"] == thr["shards"]).all()
    cost = pd.read_csv(out["appendix_c_cost_csv"])
    assert set(cost["source"]) == {"computed"} and (cost["cpu_seconds_per_sample"] > 0).all()
    assert set(cost["click_model"]) == {"mslr_informational", "mslr_navigational", "mslr_perfect"}


def test_a_second_build_has_nothing_to_do(built):
    root, _, mirror = built
    proc = snakemake(root, mirror, "-n", "zoghi2015")
    assert "Nothing to be done" in proc.stdout + proc.stderr


def test_the_report_shows_every_item_with_its_caption(built):
    """``snakemake --report``: one self-contained HTML page holding every item of the
    experiment (figure or table) under its caption's title."""
    from _checkout_copy import assert_report_shows_every_item, report_html

    import duelbench.config as dbc
    from duelbench.experiments.planning import plan

    root, config, mirror = built
    text = report_html(root, "zoghi2015", mirror=mirror)
    assert_report_shows_every_item(text, plan(dbc.effective_config(dict(config, fidelity="smoke")), "zoghi2015"))

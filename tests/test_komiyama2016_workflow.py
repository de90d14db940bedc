"""Smoke-fidelity build of the `komiyama2016` and `report` targets in a temporary copy of the checkout.

As in test_workflow_smoke.py, the copy is a fresh git repository, so the build's results,
numba cache and Snakemake metadata stay out of the working tree. Only the rules files this
target needs are copied (common, the generic experiment rules, report), so work in progress on
other papers' rules files cannot break it. The MSLR matrix comes from the data mirror (skipped without it). The
first build compiles the six algorithms into the copy's numba cache (a few minutes on two
cores); the simulations themselves take seconds.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import yaml

from _checkout_copy import copy_checkout, git as _git, run_snakemake

RULES = ("experiments.smk", "report.smk")  # common.smk and jobs.smk are always kept

pytestmark = [pytest.mark.timeout(1800), pytest.mark.slow]


def snakemake(root: Path, mirror: Path, *args: str):
    return run_snakemake(root, *args, mirror=mirror)


@pytest.fixture(scope="module")
def built(tmp_path_factory, mslr_mirror):
    root = copy_checkout(tmp_path_factory.mktemp("kom_checkout"), rules=RULES, experiments=("komiyama2016",))
    snakemake(root, mslr_mirror, "komiyama2016", "report")
    with open(root / "config" / "config.yaml") as f:
        config = yaml.safe_load(f)
    return root, config, mslr_mirror


def _outputs(config):
    from duelbench.experiments.komiyama2016 import EXPERIMENT

    return EXPERIMENT.outputs(config, "smoke")


def test_every_output_with_a_sidecar(built):
    root, config, _ = built
    head = _git(root, "rev-parse", "HEAD")
    outs = list(_outputs(config).values()) + ["results/smoke/figures/replication_status.csv"]
    for rel in outs:
        p = root / rel
        assert p.is_file() and p.stat().st_size > 0, rel
        side = json.loads(Path(str(p) + ".json").read_text())
        assert side["schema"] == "duelbench.provenance/1"
        assert side["content"]["code"]["commit"] == head and side["content"]["code"]["dirty"] is False
        assert side["run"]["wall_time_s"] is not None
    for name in ("figure1", "figure2", "robustness"):
        assert (root / _outputs(config)[f"{name}_pdf"]).read_bytes().startswith(b"%PDF")
        assert (root / _outputs(config)[f"{name}_png"]).read_bytes().startswith(b"\x89PNG")
    # the declared reading's Table-1 family: 2 shards (the reading variant without the gap filter has its own)
    import duelbench.config as dbc
    from duelbench.experiments.planning import plan

    family = plan(dbc.effective_config(dict(config, fidelity="smoke")), "komiyama2016").sample_family("table1")
    shards = [root / sh.path for sh in family]
    assert len(shards) == 2 and all(s.is_file() and Path(str(s) + ".json").is_file() for s in shards)
    assert not (root / "figures").exists()  # smoke outputs never touch the paper figures


def test_checks_csv_theory_checks_pass(built, checkout):
    from duelbench.report.checks import load_registry, read_csv_rows

    root, config, _ = built
    rows = read_csv_rows(root / _outputs(config)["checks"])
    reg = load_registry(checkout / "data" / "published" / "komiyama2016.yaml")
    assert [r["claim_id"] for r in rows] == [c["id"] for c in reg["checks"]]
    assert {r["fidelity"] for r in rows} == {"smoke"}
    quick = [r for r in rows if r["gate"] == "quick"]
    assert quick and all(r["kind"] == "theory" for r in quick)
    assert all(r["outcome"] == "pass" for r in quick), [(r["claim_id"], r["evidence"]) for r in quick]
    by_id = {r["claim_id"]: r for r in rows}
    # a panel the smoke fidelity leaves out is inconclusive, with the reason
    assert by_id["c10_savage_gt_ecw_sushi"]["outcome"] == "inconclusive"
    assert "not a Figure 1-2 panel at fidelity smoke" in by_id["c10_savage_gt_ecw_sushi"]["evidence"]
    # printed-matrix claims are decided at every fidelity
    assert by_id["gap_ecwb_over_lb"]["outcome"] in ("pass", "fail")
    assert by_id["multisol_three_winners"]["outcome"] == "pass"


def test_bound_constants_equal_a_direct_recomputation(built, monkeypatch):
    from duelbench.bounds.ccb import bound_constants_row
    from duelbench.data import registry as data_registry
    from duelbench.experiments.komiyama2016 import EXPERIMENT as experiment
    from duelbench.experiments.komiyama2016 import config as kom
    from duelbench.experiments.tables import read_rows

    root, config, mirror = built
    monkeypatch.setenv("DUELBENCH_DATA_MIRROR", str(mirror))
    monkeypatch.setenv("DUELBENCH_DATA_DIR", str(root / "data"))
    data_registry.clear_cache()
    try:
        rows = read_rows(root / _outputs(config)["bounds"])
        s = experiment.settings(config, "smoke")
        assert [r["matrix"] for r in rows] == kom.bound_datasets(s)
        for r in rows:
            direct = bound_constants_row(data_registry.load_matrix(r["matrix"]), name=r["matrix"])
            for k, v in direct.items():
                assert (float(r[k]) == v) if isinstance(v, float) else (r[k] == str(v)), (r["matrix"], k)
        ds = {d["dataset"]: d for d in read_rows(root / _outputs(config)["datasets"])}
        from duelbench.data import sampled

        for name in s["robustness"]["datasets"] + [d for d in kom.panels(s) if d.startswith("kom_")]:
            assert ds[name]["parent_indices"] == ";".join(map(str, sampled.sampled_indices(name)))
            assert int(ds[name]["tries"]) == sampled.sampled_tries(name)
    finally:
        data_registry.clear_cache()


def test_tables_and_status(built, checkout):
    from duelbench.report.checks import read_csv_rows

    root, config, _ = built
    out = _outputs(config)
    t1 = {r["quantity"]: r for r in read_csv_rows(root / out["table1_csv"])}
    assert int(t1["lb"]["n"]) == 40 and t1["lb"]["published"] == "670" and t1["lb"]["check_id"] == "table1_lb_mean"
    assert t1["ccb_rhs_def36"]["published"] == "880000" and t1["ecwb"]["published"] == "730"
    assert 0 < float(t1["acceptance_rate"]["mean"]) < 1
    md = (root / out["table1_md"]).read_text()
    assert "ccb_rhs_def36" in md and "acceptance rate" in md and "Condorcet winner" in md
    regret = read_csv_rows(root / out["regret"])
    assert {r["dataset"] for r in regret} == {"kom_mslr16_noncondorcet", "gap", "cyclic"}
    labels = {r["label"] for r in regret}
    assert "ECW-RMED (beta = 0)" in labels and "Copeland SAVAGE" in labels
    final = read_csv_rows(root / out["final"])
    assert {r["study"] for r in final} == {"panel", "robustness"}
    assert all(math.isfinite(float(r["final"])) for r in final)
    assert all(math.isfinite(float(r["slope"])) for r in final if r["algorithm"] == "ecw_rmed")
    rob = read_csv_rows(root / out["robustness_csv"])
    assert rob and {r["dataset"] for r in rob} == {"kom_mslr16_noncondorcet_r1"}
    assert {r["estimator"] for r in rob} == {"mean_ratio"} and all(r["region"] for r in rob)
    assert {r["panel"] for r in rob} == {"kom_mslr16_noncondorcet"}
    status = read_csv_rows(root / "results" / "smoke" / "figures" / "replication_status.csv")
    assert {r["paper"] for r in status} == {"komiyama2016"}
    # every table and figure of the paper has a row, Figure 2 (no published claim) as shown, not checked
    assert {r["item"] for r in status} == {"Table 1", "Figure 1", "Figure 2", "Gap bound ratio", "Table 3"}
    assert [r["status"] for r in status if r["item"] == "Figure 2"] == ["shown_not_checked"]
    assert all(r["note"].startswith("fidelity smoke") for r in status
               if r["status"] not in ("replicated", "shown_not_checked"))


def test_rebuild_has_nothing_to_do(built):
    root, _, mirror = built
    proc = snakemake(root, mirror, "-n", "komiyama2016", "report")
    assert "Nothing to be done" in proc.stdout + proc.stderr


def test_the_report_shows_every_item_with_its_caption(built):
    """``snakemake --report``: one self-contained HTML page holding every item of the
    experiment (figure or table) under its caption's title."""
    from _checkout_copy import assert_report_shows_every_item, report_html

    import duelbench.config as dbc
    from duelbench.experiments.planning import plan

    root, config, mirror = built
    text = report_html(root, "komiyama2016", mirror=mirror)
    assert_report_shows_every_item(text, plan(dbc.effective_config(dict(config, fidelity="smoke")), "komiyama2016"))


def test_report_md_shows_every_paper_item_and_names_every_non_passing_check(built):
    from duelbench.report.checks import read_csv_rows

    import duelbench.config as dbc
    from duelbench.experiments.planning import plan

    root, config, _ = built
    text = (root / "results" / "smoke" / "figures" / "REPORT.md").read_text()
    p = plan(dbc.effective_config(dict(config, fidelity="smoke")), "komiyama2016")
    assert all(f"### {i.title}" in text for i in p.items if i.kind != "checks")
    assert "![Figure 1](komiyama2016/figure1.png)" in text and "shown_not_checked" in text
    failing = [r["claim_id"] for r in read_csv_rows(root / "results/smoke/figures/komiyama2016/checks.csv")
               if r["outcome"] != "pass"]
    claims = text.split("### Published claims", 1)[1]  # one row per claim, its verdict and why
    assert failing and all(f"`{cid}`" in claims for cid in failing)

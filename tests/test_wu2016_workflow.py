"""Smoke-fidelity build of the `wu2016` target (declared reading and every reading variant) in a
temporary copy of the checkout (see test_zoghi2015_workflow.py for how the copy is made).

The copy has no results archive, so every shard is computed there; the first build compiles the
eleven algorithms of Figure 1 into the copy's numba cache, the simulations take seconds."""

from __future__ import annotations

import csv
import json

import pandas as pd
import pytest
import yaml

from _checkout_copy import CHECKOUT, copy_checkout, run_snakemake

RULES = ("experiments.smk", "report.smk")  # common.smk and jobs.smk are always kept

pytestmark = [pytest.mark.timeout(1800), pytest.mark.slow]


@pytest.fixture(scope="module")
def built(tmp_path_factory, mslr_mirror):
    root = copy_checkout(tmp_path_factory.mktemp("wu_checkout"), rules=RULES, experiments=("wu2016",))
    run_snakemake(root, "wu2016", mirror=mslr_mirror)
    with open(root / "config" / "config.yaml") as f:
        config = yaml.safe_load(f)
    return root, config, mslr_mirror


def _outputs(config) -> dict:
    from duelbench.experiments.wu2016 import EXPERIMENT

    return EXPERIMENT.outputs(config, "smoke")


def test_every_output_exists_with_a_sidecar(built):
    root, config, _ = built
    for key, rel in _outputs(config).items():
        path = root / rel
        assert path.is_file() and path.stat().st_size > 0, key
        assert json.loads((root / (rel + ".json")).read_text())["content"]["output_sha256"], key
    assert not (root / "figures").exists()


def test_checks_cover_the_registry_and_every_statistic_is_computed(built):
    root, config, _ = built
    with open(root / _outputs(config)["checks"], newline="") as fh:
        rows = list(csv.DictReader(fh))
    from duelbench.report.checks import load_registry

    reg = load_registry(CHECKOUT / "data" / "published" / "wu2016.yaml")
    assert [r["claim_id"] for r in rows] == [c["id"] for c in reg["checks"]]
    assert {r["fidelity"] for r in rows} == {"smoke"} and all(r["asserted"] == "False" for r in rows)
    assert not [r["claim_id"] for r in rows if "unknown statistic" in r["evidence"] or "not computed" in r["evidence"]]
    facts = [r for r in rows if r["gate"] == "quick"]
    assert len(facts) == 3 and all(r["outcome"] == "pass" for r in facts), facts


def test_tables_have_the_declared_shape(built):
    root, config, _ = built
    from duelbench.experiments.wu2016 import curves, figure2

    out = {k: root / v for k, v in _outputs(config).items()}
    regret = pd.read_csv(out["regret"], dtype={"param_hash": str})
    assert list(regret.columns) == curves.REGRET_COLUMNS
    assert regret.groupby("panel")["algorithm"].nunique().to_dict() == {"condorcet": 11, "noncondorcet": 11}
    final = pd.read_csv(out["final"], dtype={"param_hash": str})
    assert list(final.columns) == curves.FINAL_COLUMNS
    at2 = final[final["at"] == "figure2"]
    assert set(at2["algorithm"]) == {"ecw_rmed", "dts", "dts_plus"} and set(at2["t"]) == {2000}
    assert set(final[(final["at"] == "T") & (final["panel"] == "noncondorcet")]["t"]) == {4000}
    table = pd.read_csv(out["figure2_csv"])
    assert list(table.columns) == figure2.COLUMNS and len(table) == 6
    assert table["published_std_over_ecw"].notna().all()
    slopes = pd.read_csv(out["slopes"], dtype={"param_hash": str})
    assert list(slopes.columns) == curves.SLOPE_COLUMNS and len(slopes) == 2 * 4 * 2  # panels x curves x runs
    traces = pd.read_csv(out["traces"], dtype={"param_hash": str})
    assert len(traces) == 2 * 2 * 2 and (traces["regret"] == traces["regret_simulated"]).all()


def test_reading_variants_are_scored_on_the_same_checks(built):
    root, config, _ = built
    folder = root / "results" / "smoke" / "figures" / "wu2016"
    table = pd.read_csv(folder / "readings.csv")
    ids = {r["id"] for r in config["wu2016"]["readings"]}
    assert set(table["reading"]) == ids
    n_checks = {"Figure 1": 59, "Figure 2": 10}  # every check of each scored item (data/published/wu2016.yaml)
    for r in config["wu2016"]["readings"]:
        rows = table[table["reading"] == r["id"]]
        assert len(rows) == sum(n_checks[i] for i in r["items"]), r["id"]
    for rid in ids:
        assert (root / "results" / "smoke" / "figures" / "readings" / rid / "wu2016" / "checks.csv").is_file()


def test_a_second_build_has_nothing_to_do(built):
    root, _, mirror = built
    proc = run_snakemake(root, "-n", "wu2016", mirror=mirror)
    assert "Nothing to be done" in proc.stdout + proc.stderr


def test_the_report_shows_every_item_with_its_caption(built):
    """``snakemake --report``: every item of the experiment under its caption's title."""
    from _checkout_copy import assert_report_shows_every_item, report_html

    import duelbench.config as dbc
    from duelbench.experiments.planning import plan

    root, config, mirror = built
    text = report_html(root, "wu2016", mirror=mirror)
    assert_report_shows_every_item(text, plan(dbc.effective_config(dict(config, fidelity="smoke")), "wu2016"))

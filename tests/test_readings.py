"""Reading variants (duelbench.experiments.readings): declaration, configuration, table."""

from pathlib import Path

import pytest
import yaml

from duelbench.experiments import planning
from duelbench.config import ConfigError, experiment_settings, figures_root
from duelbench.experiments import readings as rd
from duelbench.experiments import variants
from duelbench.report.checks import aliased_registry

CHECKOUT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def config():
    return yaml.safe_load((CHECKOUT / "config" / "config.yaml").read_text())


def test_every_paper_declares_its_readings_with_items_the_registry_judges(config):
    from duelbench.report.checks import load_registry

    for paper in ("komiyama2016", "zoghi2015"):
        items = {c["item"] for c in load_registry(CHECKOUT / "data" / "published" / f"{paper}.yaml")["checks"]}
        declared = rd.declared(config, paper)
        assert declared, paper
        for r in declared:
            assert set(r.items) <= items, (paper, r.id, r.items)
            assert r.reading and r.declared and r.cost


def test_savage_strict_is_declared_for_every_paper_with_savage(config):
    for paper in ("komiyama2016", "zoghi2015"):
        ids = {r.id: r for r in rd.declared(config, paper)}
        assert ids["savage_strict"].algorithm_params == {"copeland_savage": {"strict_independence": 1}}


@pytest.mark.parametrize("entry, message", [
    ({"items": ["Figure 1"], "reading": "x", "declared": "y"}, "'id' is required"),
    ({"id": "Bad-Id", "items": ["Figure 1"], "reading": "x", "declared": "y"}, "must be [a-z0-9_]+"),
    ({"id": "a", "items": ["Figure 1"], "reading": "x", "declared": "y", "overide": {}}, "unknown keys ['overide']"),
    ({"id": "a", "items": ["Figure 1"], "reading": "x", "declared": "y", "aliases": [1]}, "aliases: a mapping"),
])
def test_bad_declarations_name_the_key(entry, message):
    with pytest.raises(ConfigError) as exc:
        rd.declared({"paper": {"readings": [entry]}}, "paper")
    assert message in str(exc.value) and "paper.readings[0]" in str(exc.value)


def test_duplicate_ids_are_rejected():
    entry = {"id": "a", "items": ["Figure 1"], "reading": "x", "declared": "y"}
    with pytest.raises(ConfigError, match="unique"):
        rd.declared({"paper": {"readings": [entry, entry]}}, "paper")


def test_reading_config_applies_overrides_after_the_fidelity_and_rewrites_algorithm_entries(config):
    quick = dict(config, fidelity="quick")
    horizon = rd.find(quick, "komiyama2016", "horizon_1e7")
    s = experiment_settings(rd.reading_config(quick, horizon), "komiyama2016")
    assert (s["horizon"], s["runs"], s["figure2"]) == (200000, 4, ["cyclic"])  # the quick entry of `fidelities`
    assert s["table1"] == experiment_settings(quick, "komiyama2016")["table1"]  # the rest as the declared reading
    assert "readings" not in s
    strict = rd.reading_config(config, rd.find(config, "zoghi2015", "savage_strict"))
    algs = experiment_settings(strict, "zoghi2015")["figure1"]["algorithms"]
    assert {"name": "copeland_savage", "params": {"strict_independence": 1}} in algs
    assert {"name": "ccb"} in algs
    assert figures_root(strict) == "figures/readings/savage_strict"


def test_variants_share_every_shard_they_do_not_change(config):
    main = planning.plan(config, "komiyama2016")
    strict = planning.plan(config, "komiyama2016", "savage_strict")
    new = {s.path for s in strict.shards} - {s.path for s in main.shards}
    assert new and {s.algorithm for s in strict.shards if s.path in new} == {"copeland_savage"}
    pooling = planning.plan(config, "zoghi2015", "pooling_from_k2")
    assert {s.path for s in pooling.samples} == {s.path for s in planning.plan(config, "zoghi2015").samples}


def test_the_readings_step_reads_the_declared_and_every_variant_checks(config):
    p = planning.plan(config, "zoghi2015")
    step = p.step("readings")
    assert step.inputs["declared"] == "figures/zoghi2015/checks.csv"
    for r in rd.declared(config, "zoghi2015"):
        assert step.inputs[f"reading_{r.id}"] == f"figures/readings/{r.id}/zoghi2015/checks.csv"
    assert "readings" in {i.id for i in p.items}


def test_aliases_rename_datasets_in_statistics_only():
    reg = {"checks": [{"id": "a", "statistic": "order:zoghi_copeland500:scb:ccb"},
                      {"id": "b", "statistic": "theory:synth500_structure"}]}
    out = aliased_registry(reg, {"zoghi_copeland500": "zoghi_copeland500_g02"})
    assert [c["statistic"] for c in out["checks"]] == ["order:zoghi_copeland500_g02:scb:ccb",
                                                       "theory:synth500_structure"]
    assert reg["checks"][0]["statistic"] == "order:zoghi_copeland500:scb:ccb"  # not modified in place


def test_table_rows_score_every_check_of_the_item_and_name_flips_both_ways():
    reg = {"checks": [{"id": "x", "item": "Figure 1"}, {"id": "y", "item": "Figure 1"}, {"id": "z", "item": "Table 1"}]}
    readings = [{"id": "v", "experiment": "p", "items": ["Figure 1"]}]
    declared = {"x": {"outcome": "pass"}, "y": {"outcome": "fail"}, "z": {"outcome": "pass"}}
    variant = {"v": {"x": {"outcome": "fail", "estimate": "2.0"}, "y": {"outcome": "pass", "estimate": "0.5"}}}
    rows = rd.table_rows(readings, reg, declared, variant)
    assert [(r["claim_id"], r["flip"]) for r in rows] == [("x", "pass -> fail"), ("y", "fail -> pass")]
    with pytest.raises(ConfigError, match="no check"):
        rd.table_rows([{"id": "v", "experiment": "p", "items": ["Figure 9"]}], reg, declared, variant)


def test_an_extra_algorithm_joins_every_algorithm_list_but_the_fixed_ones(config):
    """bench-all's algorithm is appended to each ``algorithms`` list of a section, except the
    lists its package declares fixed (Agarwal et al.'s batch trade-off and theory: batched only)."""
    from duelbench.experiments.agarwal2022 import EXPERIMENT as agarwal2022

    assert agarwal2022.FIXED_ALGORITHM_LISTS == ("tradeoff.algorithms", "theory.algorithms")
    cfg = variants.variant_config(config, "agarwal2022", figures="x", extra_algorithms=["toy"],
                            fixed_lists=agarwal2022.FIXED_ALGORITHM_LISTS)
    section = experiment_settings(cfg, "agarwal2022")
    names = {key: [e if isinstance(e, str) else e["name"] for e in lst]
             for key, lst in (("algorithms", section["algorithms"]), ("tradeoff", section["tradeoff"]["algorithms"]),
                              ("theory", section["theory"]["algorithms"]))}
    assert names["algorithms"][-1] == "toy"
    assert names["tradeoff"] == names["theory"] == ["pcomp", "scomp", "scomp2"]
    zoghi = experiment_settings(variants.variant_config(config, "zoghi2015", figures="x", extra_algorithms=["toy"]),
                                "zoghi2015")
    nested = [v["algorithms"] for v in zoghi.values() if isinstance(v, dict) and isinstance(v.get("algorithms"), list)]
    assert nested and all(lst[-1] == {"name": "toy"} for lst in nested)


def test_a_check_the_variant_does_not_compute_is_not_measured_and_never_a_flip():
    """A variant row without an estimate (the variant runs none of the curves the check reads)
    is `not measured`, not `inconclusive`, and no flip; a measured row keeps its interval."""
    reg = {"checks": [{"id": "x", "item": "Figure 1"}, {"id": "y", "item": "Figure 1"}]}
    readings = [{"id": "v", "experiment": "p", "items": ["Figure 1"], "reading": "r", "declared": "d"}]
    declared = {"x": {"outcome": "pass", "estimate": "0.5", "ci_low": "0.4", "ci_high": "0.6"},
                "y": {"outcome": "fail", "estimate": "1.21", "ci_low": "1.06", "ci_high": "1.39"}}
    variant = {"v": {"x": {"outcome": "inconclusive", "estimate": "", "evidence": "'dts' does not run on panel a"},
                     "y": {"outcome": "inconclusive", "estimate": "1.12", "ci_low": "0.91", "ci_high": "1.39"}}}
    rows = rd.table_rows(readings, reg, declared, variant)
    x, y = rows
    assert (x["variant_outcome"], x["flip"], x["variant_text"]) == (rd.NOT_MEASURED, "", "-")
    assert (y["variant_outcome"], y["flip"], y["variant_text"]) == ("inconclusive", "fail -> inconclusive", "1.12 [0.910, 1.39]")
    assert y["variant_ci_low"] == "0.91" and x["declared_estimate"] == "0.5"
    md = rd.markdown("p", readings, rows, "paper")
    assert "Flips: 1 of 1 checks the variant measures" in md and "1 checks read curves" in md
    assert "| `y` | fail, 1.21 [1.06, 1.39] | inconclusive, 1.12 [0.910, 1.39] | fail -> inconclusive |" in md

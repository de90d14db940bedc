"""The Agarwal et al. (2022) experiment at smoke fidelity, in process: every shard simulated with
``run_shard`` and every batch-log sample shard with ``run_sample_shard`` into a temporary results
folder, then every step of the declared plan in order.

In process rather than through Snakemake: the smoke plan has a few dozen shards of milliseconds
each, and one process compiles each algorithm once (a Snakemake build pays the start-up of a
process per shard). The workflow wiring is the generic rules' (tested with the other papers);
the reading variants are planned here, not built.
"""

from __future__ import annotations

import csv

import pandas as pd
import pytest
import yaml

from _checkout_copy import CHECKOUT

pytestmark = [pytest.mark.timeout(1200), pytest.mark.slow]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    import duelbench.config as dbc
    from duelbench.engine.shards import run_shard
    from duelbench.experiments.agarwal2022 import EXPERIMENT as ag
    from duelbench.experiments.contract import named_files, run_harnessed, StepContext
    from duelbench.experiments.samples import run_sample_shard

    root = tmp_path_factory.mktemp("agarwal")
    config = yaml.safe_load((CHECKOUT / "config" / "config.yaml").read_text())
    config = dbc.effective_config(dict(config, fidelity="smoke", results=str(root / "results")))
    config["fidelities"]["smoke"]["figures"] = str(root / "figures")
    plan = ag.plan(config, "smoke")
    for sp in plan.shards:
        run_shard(sp.path, dataset=sp.dataset, algorithm=sp.algorithm, params=sp.params, horizon=sp.horizon,
                  run_start=sp.run_start, run_stop=sp.run_stop, seed=sp.seed, fidelity="smoke", quiet=True)
    for sh in plan.samples:
        run_sample_shard(sh.path, sh.job_params())
    for step in plan.steps:
        inputs = dict(step.inputs)
        if step.shards:
            inputs["shards"] = [sp.path for sp in plan.shards]
        if step.families:
            inputs["samples"] = [sh.path for family in step.families for sh in plan.sample_family(family)]
        run_harnessed(step.function, StepContext(plan=plan, config=config, step=step, input=named_files(inputs),
                                                 output=named_files(step.outputs)))
    return plan, config


def test_every_output_exists_with_a_sidecar(built):
    plan, _ = built
    from pathlib import Path

    for path in plan.outputs():
        assert Path(path).is_file() and Path(path).stat().st_size > 0, path
        assert Path(path + ".json").is_file(), path


def test_checks_cover_the_registry_and_every_statistic_is_computed(built):
    plan, _ = built
    from duelbench.report.checks import load_registry

    with open(plan.step("checks").outputs["csv"], newline="") as fh:
        rows = list(csv.DictReader(fh))
    reg = load_registry(CHECKOUT / "data" / "published" / "agarwal2022.yaml")
    assert [r["claim_id"] for r in rows] == [c["id"] for c in reg["checks"]]
    assert not [r["claim_id"] for r in rows if "unknown statistic" in r["evidence"] or "not computed" in r["evidence"]
                or "not in theory.csv" in r["evidence"]]
    # the facts, budgets and identities are decided at every fidelity; the smoke build's two runs
    # of gamma-rule SCOMP/SCOMP2 at T = 4000 may never switch, which the Lemma 4.4 count allows
    by_id = {r["claim_id"]: r for r in rows}
    for cid in ("d1_condorcet_winner_everywhere", "d2_syn_btl_sst_sti", "d3_syn_cd_structure", "c9_pcomp_batch_budget",
                "c9_scomp_batch_budget", "c9_scomp2_batch_budget", "c9_exactly_T_comparisons", "c10_regret_identity",
                "c15_lower_bound_family_transitive", "c15_lower_bound_family_gap", "c12_lemma45_mean"):
        assert by_id[cid]["outcome"] == "pass", by_id[cid]


def test_batch_logs_replay_every_batched_run(built):
    plan, config = built
    from duelbench.experiments.agarwal2022.config import BATCHED, curve_list

    s = plan.settings
    batches = pd.read_csv(plan.step("batches").outputs["csv"])
    n_batched = sum(c.algorithm in BATCHED for c in curve_list(s))
    assert len(batches) == 4 * n_batched * int(s["runs"])
    assert (batches["comparisons"] == int(s["horizon"])).all()
    final = pd.read_csv(plan.step("aggregate").outputs["final"], dtype={"param_hash": str})
    merged = batches.merge(final, on=["panel", "curve", "run"], suffixes=("", "_final"))
    assert len(merged) == len(batches) and (merged["regret"] == merged["regret_final"]).all()


def test_family_panels_use_one_instance_per_run(built):
    plan, _ = built
    from duelbench.engine.shards import load_shards

    for sp in plan.shards:
        if sp.dataset == "agarwal_syn_btl" and sp.algorithm == "rmed1":
            res = load_shards([sp.path])
            assert res.dataset == "agarwal_syn_btl" and res.runs == sp.run_stop - sp.run_start


def test_every_reading_variant_plans(built):
    _, config = built
    from duelbench.experiments import readings
    from duelbench.experiments.planning import plans

    declared = {r.id for r in readings.declared(config, "agarwal2022")}
    assert declared == {r["id"] for r in config["agarwal2022"]["readings"]}
    declared_plan, variants = plans(config, "agarwal2022")
    assert set(variants) == declared
    base = {sp.path for sp in declared_plan.shards}
    for rid, p in variants.items():
        assert p.shards and p.step("checks"), rid
        if rid == "paper_runs_10":  # fewer runs of the same streams: no shard of its own beyond a shorter range
            assert {sp.dataset for sp in p.shards} <= {sp.dataset for sp in declared_plan.shards}
        if rid == "kl_threshold_printed":
            assert {sp.path for sp in p.shards if sp.algorithm in ("rmed1", "rucb", "btm")} <= base


def test_the_extension_reads_fresh_runs_only():
    """The declared extension's checks read runs 100 on only, and every shard it adds to the
    declared plan starts at run 100 or later (paper fidelity, planned, not built)."""
    import duelbench.config as dbc
    from duelbench.experiments.planning import plans

    config = dbc.effective_config(dict(yaml.safe_load((CHECKOUT / "config" / "config.yaml").read_text()),
                                       fidelity="paper"))
    declared_plan, variants = plans(config, "agarwal2022")
    ext = variants["fresh_runs_100_349"]
    assert ext.settings["check_runs_from"] == 100 and ext.settings["runs"] == 350
    assert declared_plan.settings["check_runs_from"] == 0
    base = {sp.path for sp in declared_plan.shards}
    new = [sp for sp in ext.shards if sp.path not in base]
    assert new and all(sp.run_start >= 100 for sp in new)

"""The Chen et al. (2020) studies at smoke fidelity, in process: every sample shard computed with
``run_sample_shard`` into a temporary results folder, then every step of the declared plan in
order (the workflow wiring is the generic rules', tested with the other papers)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
import yaml

from _checkout_copy import CHECKOUT

pytestmark = [pytest.mark.timeout(1200), pytest.mark.slow]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    import duelbench.experiments as dbx
    from duelbench.experiments import chen2020 as ch
    from duelbench.experiments.contract import StepContext, _files, resolve
    from duelbench.experiments.samples import run_sample_shard

    root = tmp_path_factory.mktemp("chen")
    config = yaml.safe_load((CHECKOUT / "config" / "config.yaml").read_text())
    config = dbx.effective_config(dict(config, fidelity="smoke", results=str(root / "results")))
    config["fidelities"]["smoke"]["figures"] = str(root / "figures")
    plan = ch.plan(config, "smoke")
    for shard in plan.samples:
        run_sample_shard(shard.path, shard.job_params())
    for step in plan.steps:
        inputs = dict(step.inputs)
        if step.families:
            inputs["samples"] = [s.path for f in step.families for s in plan.sample_family(f)]
        ctx = StepContext(plan=plan, config=config, step=step, input=_files(inputs), output=_files(step.outputs))
        resolve(ch.NAME, step.function)(ctx)
    return plan


def _rows(path):
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_every_output_exists_with_a_sidecar(built):
    for path in built.outputs():
        assert Path(path).is_file() and Path(path).stat().st_size > 0, path
        assert Path(path + ".json").is_file(), path


def test_checks_cover_the_registry_and_compute_every_statistic_the_smoke_plan_has(built):
    from duelbench.report.checks import load_registry

    rows = {r["claim_id"]: r for r in _rows(built.step("checks").outputs["csv"])}
    registry = load_registry(CHECKOUT / "data" / "published" / "chen2020.yaml")
    assert sorted(rows) == sorted(c["id"] for c in registry["checks"])
    not_computed = [cid for cid, r in rows.items() if "' not computed" in r["evidence"]]
    assert not not_computed
    # facts that need no sampling hold at every fidelity
    for cid in ("x0_toy_recovered_uniquely", "x0_toy_figure5_matching", "x0_toy_gprime_copies",
                "x0_toy_winners_differ", "x0_width_example", "x5_lp_equals_enumeration", "x5_fptas_never_above_opt",
                "x6_car_oracle_calls_per_check"):
        assert rows[cid]["outcome"] == "pass", (cid, rows[cid]["evidence"])


def test_every_item_shows_outputs_of_the_plan(built):
    outs = set(built.outputs())
    for item in built.items:
        assert set(item.outputs) <= outs, item.id
    assert {i.id for i in built.items if i.in_paper} == {"toy", "pac", "hardness", "epochs", "oracles", "car_cond",
                                                          "parallel"}
